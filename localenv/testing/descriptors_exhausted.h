// DescriptorsExhausted: a test's way to make the next few descriptors this
// process opens fail with EMFILE, to check what code does out of them.
#pragma once

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

namespace vtenant::localenv {

// Lowers this process's descriptor limit to at most 256 and holds every
// descriptor below it but the `spare` highest; restores both when
// destroyed. Not for tests that run threads meanwhile.
class DescriptorsExhausted {
 public:
  explicit DescriptorsExhausted(int spare) {
    getrlimit(RLIMIT_NOFILE, &saved_);
    rlimit lowered = saved_;
    lowered.rlim_cur = std::min<rlim_t>(saved_.rlim_cur, 256);
    setrlimit(RLIMIT_NOFILE, &lowered);
    for (int fd; (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) held_.push_back(fd);
    for (int i = 0; i < spare && !held_.empty(); ++i) {
      close(held_.back());
      held_.pop_back();
    }
  }
  ~DescriptorsExhausted() {
    for (int fd : held_) close(fd);
    setrlimit(RLIMIT_NOFILE, &saved_);
  }
  DescriptorsExhausted(const DescriptorsExhausted&) = delete;
  DescriptorsExhausted& operator=(const DescriptorsExhausted&) = delete;

  // How many descriptors can be opened now (closed again before returning).
  static int Free() {
    std::vector<int> opened;
    for (int fd; (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) opened.push_back(fd);
    for (int fd : opened) close(fd);
    return static_cast<int>(opened.size());
  }

 private:
  rlimit saved_{};
  std::vector<int> held_;
};

}  // namespace vtenant::localenv
