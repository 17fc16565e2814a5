#include "kube/testing/log_capture.h"

#include <algorithm>

namespace vtenant::kube {

LogCapture::LogCapture() { google::AddLogSink(this); }

LogCapture::~LogCapture() { google::RemoveLogSink(this); }

void LogCapture::send(google::LogSeverity severity, const char*, const char*, int,
                      const google::LogMessageTime&, const char* message, size_t message_len) {
  std::lock_guard lock(mu_);
  lines_.emplace_back(severity, std::string(message, message_len));
}

int LogCapture::Count(google::LogSeverity severity, const std::string& text) const {
  std::lock_guard lock(mu_);
  return static_cast<int>(std::count_if(lines_.begin(), lines_.end(), [&](const auto& line) {
    return line.first == severity && line.second.find(text) != std::string::npos;
  }));
}

}  // namespace vtenant::kube
