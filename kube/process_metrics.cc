#include "kube/process_metrics.h"

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace vtenant::kube {
namespace {

// The fields of /proc/self/stat after the command name (which may hold
// spaces and parentheses, so the split starts after the last ')'): the
// process state is [0], field N of proc(5) is [N - 3].
std::vector<std::string> StatFields() {
  std::ifstream in("/proc/self/stat");
  std::string line;
  std::getline(in, line);
  const size_t close = line.rfind(')');
  std::vector<std::string> fields;
  if (close == std::string::npos) return fields;
  std::istringstream rest(line.substr(close + 1));
  for (std::string field; rest >> field;) fields.push_back(field);
  return fields;
}

double Field(const std::vector<std::string>& fields, int proc5_number) {
  const size_t index = static_cast<size_t>(proc5_number - 3);
  return index < fields.size() ? std::strtod(fields[index].c_str(), nullptr) : 0;
}

// The system's boot time, seconds since the epoch (/proc/stat btime).
double BootTime() {
  std::ifstream in("/proc/stat");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("btime ", 0) == 0) return std::strtod(line.c_str() + 6, nullptr);
  }
  return 0;
}

size_t OpenFds() {
  std::error_code error;
  size_t n = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", error), end; !error && it != end;
       it.increment(error)) {
    ++n;
  }
  return n > 0 ? n - 1 : 0;  // the iterator's own descriptor
}

struct ProcessFigures {
  Counter* cpu_seconds;
  Gauge* resident_bytes;
  Gauge* virtual_bytes;
  Gauge* open_fds;
  Gauge* max_fds;
  Gauge* start_time;
  Gauge* malloc_in_use;
  Gauge* malloc_free;

  void Refresh() const {
    const std::vector<std::string> stat = StatFields();
    static const double kTicks = static_cast<double>(sysconf(_SC_CLK_TCK));
    static const double kPage = static_cast<double>(sysconf(_SC_PAGESIZE));
    static const double kStart = BootTime() + Field(stat, 22) / kTicks;  // read once
    // The counter holds the total read last time: add what was used since.
    cpu_seconds->Inc((Field(stat, 14) + Field(stat, 15)) / kTicks - cpu_seconds->Value());
    virtual_bytes->Set(Field(stat, 23));
    resident_bytes->Set(Field(stat, 24) * kPage);
    start_time->Set(kStart);
    open_fds->Set(static_cast<double>(OpenFds()));
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0) max_fds->Set(static_cast<double>(limit.rlim_cur));
    const struct mallinfo2 heap = mallinfo2();
    // Small blocks from the arenas, large ones mapped on their own.
    malloc_in_use->Set(static_cast<double>(heap.uordblks + heap.hblkhd));
    malloc_free->Set(static_cast<double>(heap.fordblks));
  }
};

}  // namespace

Status RegisterProcessMetrics(Registry& registry) {
  auto gauge = [&registry](const char* name, const char* help) -> Result<Gauge*> {
    Result<Family<Gauge>*> family = registry.AddGauge(name, help);
    if (!family.ok()) return family.status();
    return &(*family)->WithLabelValues({});
  };
  Result<Family<Counter>*> cpu = registry.AddCounter(
      "process_cpu_seconds_total", "Total user and system CPU time spent in seconds.");
  VT_RETURN_IF_ERROR(cpu.status());
  Result<Gauge*> resident =
      gauge("process_resident_memory_bytes", "Resident memory size in bytes.");
  Result<Gauge*> virtual_memory =
      gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.");
  Result<Gauge*> open_fds = gauge("process_open_fds", "Number of open file descriptors.");
  Result<Gauge*> max_fds = gauge("process_max_fds", "Maximum number of open file descriptors.");
  Result<Gauge*> start =
      gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds.");
  Result<Gauge*> in_use =
      gauge("vtenant_malloc_in_use_bytes",
            "Bytes malloc counts as in use, with the freed chunks threads keep cached.");
  Result<Gauge*> free_bytes = gauge("vtenant_malloc_free_bytes",
                                    "Bytes malloc holds free without giving them back to the OS.");
  for (const Result<Gauge*>* g :
       {&resident, &virtual_memory, &open_fds, &max_fds, &start, &in_use, &free_bytes}) {
    VT_RETURN_IF_ERROR(g->status());
  }
  const ProcessFigures figures{&(*cpu)->WithLabelValues({}),
                               *resident,
                               *virtual_memory,
                               *open_fds,
                               *max_fds,
                               *start,
                               *in_use,
                               *free_bytes};
  registry.SetCollector("process", [figures] { figures.Refresh(); });
  return Status::Ok();
}

}  // namespace vtenant::kube
