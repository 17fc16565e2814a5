#include "bench/soak_logs.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

namespace vtenant::bench {
namespace fs = std::filesystem;
namespace {

constexpr size_t kMessageChars = 200;

// Runs of digits become '#', so one message with different ports, counts
// or timestamps is counted as one.
std::string Fold(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size() && out.size() < kMessageChars; ++i) {
    if (std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (out.empty() || out.back() != '#') out.push_back('#');
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// The string value of "key" in a one-line JSON object; "" when absent.
// Good enough for logs: an escaped quote ends nothing.
std::string JsonField(const std::string& line, const std::string& key) {
  const std::string open = "\"" + key + "\":\"";
  size_t at = line.find(open);
  if (at == std::string::npos) return "";
  at += open.size();
  std::string value;
  for (size_t i = at; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size()) {
      value.push_back(line[++i]);
    } else if (line[i] == '"') {
      break;
    } else {
      value.push_back(line[i]);
    }
  }
  return value;
}

std::vector<std::string> LogFiles(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec),
       end;
       !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && it->path().extension() == ".log") {
      files.push_back(fs::relative(it->path(), dir, ec).string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

bool IsErrorLine(const std::string& line, std::string* message) {
  // glog and klog: severity letter, then MMDD or YYYYMMDD, a space, the time.
  if (line.size() > 6 && (line[0] == 'E' || line[0] == 'F')) {
    size_t digits = 1;
    while (digits < line.size() && std::isdigit(static_cast<unsigned char>(line[digits]))) {
      ++digits;
    }
    if ((digits == 5 || digits == 9) && digits < line.size() && line[digits] == ' ') {
      const size_t text = line.find("] ");
      *message = Fold(text == std::string::npos ? line : line.substr(text + 2));
      return true;
    }
  }
  if (line.starts_with("{")) {
    std::string level = JsonField(line, "level");
    std::transform(level.begin(), level.end(), level.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (level == "error" || level == "fatal" || level == "panic" || level == "dpanic") {
      std::string msg = JsonField(line, "msg");
      for (const char* key : {"error", "err"}) {  // etcd's, kwok's
        const std::string error = JsonField(line, key);
        if (!error.empty()) msg += ": " + error;
      }
      *message = Fold(msg);
      return true;
    }
  }
  return false;
}

std::map<std::string, uint64_t> MarkLogs(const std::string& dir) {
  std::map<std::string, uint64_t> mark;
  for (const std::string& file : LogFiles(dir)) {
    std::error_code ec;
    const uint64_t size = fs::file_size(fs::path(dir) / file, ec);
    if (!ec) mark[file] = size;
  }
  return mark;
}

LogErrors CountLogErrors(const std::string& dir, const std::map<std::string, uint64_t>& mark) {
  LogErrors errors;
  for (const std::string& file : LogFiles(dir)) {
    std::ifstream in(fs::path(dir) / file);
    auto marked = mark.find(file);
    const uint64_t boundary = marked == mark.end() ? 0 : marked->second;
    const std::string name = fs::path(file).filename().string();
    uint64_t offset = 0;
    std::string line, message;
    auto& [before, after] = errors.per_file[file];
    while (std::getline(in, line)) {
      const bool is_after = offset >= boundary;
      offset += line.size() + 1;
      if (!IsErrorLine(line, &message)) continue;
      if (is_after) {
        ++after;
        ++errors.messages[name + ": " + message];
      } else {
        ++before;
        ++errors.messages_before[name + ": " + message];
      }
    }
    errors.before += before;
    errors.after += after;
  }
  return errors;
}

std::vector<std::pair<std::string, int64_t>> TopMessages(
    const std::map<std::string, int64_t>& messages, size_t n) {
  std::vector<std::pair<std::string, int64_t>> top(messages.begin(), messages.end());
  // Stable: of messages as frequent, the first by name comes first, so two
  // reports of one run list them alike.
  std::stable_sort(top.begin(), top.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (top.size() > n) top.resize(n);
  return top;
}

}  // namespace vtenant::bench
