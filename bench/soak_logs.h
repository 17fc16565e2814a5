// The soak benchmark's count of the errors the environment's programs
// logged: glog/klog lines of severity E or F ("E1202 16:30:34.27 ..." from
// Kubernetes, "E20261202 16:30:40.75 ..." from vtenant's programs) and JSON
// lines of level error, fatal or panic (etcd's "error", kwok's "ERROR").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace vtenant::bench {

struct LogErrors {
  // Per log file, relative to the state folder: {before, after} the mark.
  std::map<std::string, std::pair<int64_t, int64_t>> per_file;
  // Messages after the mark with digits folded ("dial tcp #.#.#.#:#"),
  // prefixed by the log file's name, and how often each came.
  std::map<std::string, int64_t> messages;
  std::map<std::string, int64_t> messages_before;  // the same, before the mark
  int64_t before = 0, after = 0;
};

// The size of every *.log file under `dir` now: where "after" begins.
std::map<std::string, uint64_t> MarkLogs(const std::string& dir);

// Counts the error lines of every *.log file under `dir`, telling those
// before `mark` (MarkLogs) from those after it; a file the mark does not
// name counts wholly after.
LogErrors CountLogErrors(const std::string& dir, const std::map<std::string, uint64_t>& mark);

// The `n` most frequent of `messages`, most frequent first (ties by name).
std::vector<std::pair<std::string, int64_t>> TopMessages(
    const std::map<std::string, int64_t>& messages, size_t n);

// Whether `line` is an error line as above, and its message (exposed for
// the report's own check; the format is the header's).
bool IsErrorLine(const std::string& line, std::string* message);

}  // namespace vtenant::bench
