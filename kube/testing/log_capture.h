// LogCapture: the lines glog is given while it exists, for tests of what a
// component says (or does not say) in its log.
#pragma once

#include <glog/logging.h>

#include <mutex>
#include <string>
#include <vector>

namespace vtenant::kube {

class LogCapture : public google::LogSink {
 public:
  // Registers with glog; the destructor unregisters.
  LogCapture();
  ~LogCapture() override;

  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  void send(google::LogSeverity severity, const char* full_filename, const char* base_filename,
            int line, const google::LogMessageTime& time, const char* message,
            size_t message_len) override;

  // How many lines of exactly `severity` contain `text`.
  int Count(google::LogSeverity severity, const std::string& text) const;

 private:
  mutable std::mutex mu_;
  std::vector<std::pair<google::LogSeverity, std::string>> lines_;
};

}  // namespace vtenant::kube
