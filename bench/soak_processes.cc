#include "bench/soak_processes.h"

#include <unistd.h>

#include <sstream>

#include "base/file.h"
#include "cli/environment_state.h"
#include "localenv/environment_processes.h"

namespace vtenant::bench {
namespace {

// The host's components by their record's name; the operator's programs by
// their executable's name.
const std::map<std::string, std::string>& HostKinds() {
  static const auto* kinds =
      new std::map<std::string, std::string>{{"etcd", "host etcd"},
                                             {"kube-apiserver", "host kube-apiserver"},
                                             {"kube-controller-manager", "host controller manager"},
                                             {"kwok", "kwok"},
                                             {"vtenant-scheduler", "vtenant-scheduler"},
                                             {"vtenant-operator", "vtenant-operator"}};
  return *kinds;
}

const std::map<std::string, std::string>& OperatorKinds() {
  static const auto* kinds = new std::map<std::string, std::string>{
      {"etcd", "operator etcd"},
      {"kube-apiserver", "tenant kube-apiserver"},
      {"kube-controller-manager", "tenant controller manager"},
      {"vtenant-syncer", "tenant syncer"}};
  return *kinds;
}

// VmRSS of `pid` in MiB; 0 if gone.
double RssMib(pid_t pid) {
  const std::string status = ReadFileOrEmpty("/proc/" + std::to_string(pid) + "/status");
  const size_t at = status.find("VmRSS:");
  if (at == std::string::npos) return 0;
  return std::stod(status.substr(at + 6)) / 1024;  // kB
}

// {user + system CPU seconds, start time in ticks} of `pid`; {-1, 0} if gone.
// The start time tells a process from a later one that reuses its pid.
std::pair<double, std::string> CpuAndStart(pid_t pid) {
  const std::string stat = ReadFileOrEmpty("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return {-1, ""};
  std::istringstream fields(stat.substr(paren + 2));
  std::string field, start;
  double ticks = 0;
  for (int i = 3; fields >> field && i <= 22; ++i) {    // fields of proc(5), from 3 (state)
    if (i == 14 || i == 15) ticks += std::stod(field);  // utime, stime
    if (i == 22) start = field;                         // starttime
  }
  return {ticks / static_cast<double>(sysconf(_SC_CLK_TCK)), start};
}

}  // namespace

const std::vector<std::string>& ProgramKinds() {
  static const auto* kinds = new std::vector<std::string>{"host etcd",
                                                          "host kube-apiserver",
                                                          "host controller manager",
                                                          "kwok",
                                                          "vtenant-scheduler",
                                                          "vtenant-operator",
                                                          "supervisor",
                                                          "tenant kube-apiserver",
                                                          "tenant syncer",
                                                          "tenant controller manager",
                                                          "operator etcd"};
  return *kinds;
}

double LoadAverage() {
  std::istringstream in(ReadFileOrEmpty("/proc/loadavg"));
  double load = 0;
  in >> load;
  return load;
}

std::vector<std::string> HealthAddresses(const std::string& state_dir, std::string_view program) {
  constexpr std::string_view kFlag = "--health-address";
  std::vector<std::string> addresses;
  for (const localenv::EnvironmentProcess& p : localenv::FindEnvironmentProcesses(state_dir)) {
    if (p.name != program) continue;
    const std::vector<std::string>& args = p.argv;
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].starts_with(std::string(kFlag) + "=")) {
        addresses.emplace_back(args[i].substr(kFlag.size() + 1));
      } else if (args[i] == kFlag && i + 1 < args.size()) {
        addresses.emplace_back(args[i + 1]);
      }
    }
  }
  return addresses;
}

Sample ProcessSampler::Take(double t_s) {
  Sample sample;
  sample.t_s = t_s;
  sample.load1 = LoadAverage();
  std::map<pid_t, std::string> kind_of;
  Result<cli::EnvironmentState> state = cli::EnvironmentState::Load(dir_);
  std::set<pid_t> recorded;
  if (state.ok()) {
    for (const cli::ComponentRecord& c : state->components) {
      if (c.pid <= 0) continue;
      recorded.insert(c.pid);
      auto kind = HostKinds().find(c.component.name);
      if (kind != HostKinds().end()) kind_of[c.pid] = kind->second;
    }
    if (state->supervisor_pid > 0) kind_of[state->supervisor_pid] = "supervisor";
  }
  for (const localenv::EnvironmentProcess& p : localenv::FindEnvironmentProcesses(dir_)) {
    if (recorded.contains(p.pid)) continue;
    auto kind = OperatorKinds().find(p.name);
    if (kind != OperatorKinds().end()) kind_of[p.pid] = kind->second;
  }
  for (const std::string& kind : ProgramKinds()) sample.kinds[kind];  // every kind, even at 0

  for (const auto& [pid, kind] : kind_of) {
    const auto [cpu, start] = CpuAndStart(pid);
    if (cpu < 0) continue;  // gone since it was listed
    const double rss = RssMib(pid);
    KindSample& k = sample.kinds[kind];
    ++k.processes;
    k.rss_mib += rss;
    const std::string key = std::to_string(pid) + ":" + start;
    auto [it, added] = seen_.try_emplace(key, Seen{kind, first_ ? cpu : 0, cpu});
    it->second.last_cpu = cpu;
  }
  for (const auto& [key, s] : seen_) sample.kinds[s.kind].cpu_s += s.last_cpu - s.first_cpu;
  first_ = false;
  return sample;
}

int ProcessSampler::PidsSeen(const std::string& kind) const {
  int n = 0;
  for (const auto& [key, s] : seen_) n += s.kind == kind ? 1 : 0;
  return n;
}

}  // namespace vtenant::bench
