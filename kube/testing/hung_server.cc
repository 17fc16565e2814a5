#include "kube/testing/hung_server.h"

#include <string>

namespace vtenant::kube {

Status WaitWhileHung(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                     const bool& hung, int* waiting, const Clock& clock, Clock::TimePoint deadline,
                     const Cancellation* cancel, std::string_view what) {
  bool counted = false;
  Status result;
  while (true) {
    if (cancel != nullptr && cancel->cancelled()) {
      result = Status(StatusCode::kCancelled, std::string(what) + ": cancelled");
      break;
    }
    if (clock.Now() >= deadline) {
      result = Status(StatusCode::kTimeout,
                      std::string(what) + ": no answer before the call's deadline");
      break;
    }
    if (!hung) break;
    if (!counted) ++*waiting;
    counted = true;
    clock.WaitUntil(cv, lock, deadline);
  }
  if (counted) --*waiting;
  return result;
}

}  // namespace vtenant::kube
