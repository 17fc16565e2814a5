// The soak benchmark's view of a local environment's programs: each
// process's resident memory and CPU time from /proc, grouped by what the
// program is for (the host's etcd, a tenant's kube-apiserver, ...).
#pragma once

#include <sys/types.h>

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace vtenant::bench {

// The --health-address of each running `program` ("vtenant-syncer") of the
// environment in `state_dir`, found as localenv/environment_processes.h
// finds the operator's programs; where its /metrics is served.
std::vector<std::string> HealthAddresses(const std::string& state_dir, std::string_view program);

// What the samples of one program kind hold at one moment.
struct KindSample {
  int processes = 0;
  double rss_mib = 0;  // sum over its processes, MiB (2^20 bytes)
  // CPU seconds its processes used since the first sample, including those
  // of processes that have since exited (a restarted program's old self).
  double cpu_s = 0;
};

struct Sample {
  double t_s = 0;  // seconds since the churn began
  double load1 = 0;
  std::map<std::string, KindSample> kinds;
};

// The program kinds, in the order reports list them. The tenants' kinds
// sum over all tenants.
const std::vector<std::string>& ProgramKinds();

// Samples the processes of the environment in `state_dir` (as `vtenant up`
// made it). The host's components are those its record (state.yaml) names;
// every other program of the folder (localenv/environment_processes.h) is
// the operator's: a tenant's API server, controller manager or syncer, or
// the etcd the tenants share.
class ProcessSampler {
 public:
  explicit ProcessSampler(std::string state_dir) : dir_(std::move(state_dir)) {}

  // Reads /proc now. Not thread-safe: one thread samples.
  Sample Take(double t_s);

  // How many distinct processes of `kind` were seen over all samples: more
  // than are running at the end means some were started again.
  int PidsSeen(const std::string& kind) const;

 private:
  struct Seen {
    std::string kind;
    double first_cpu = 0;  // 0 for a process first seen after the first sample
    double last_cpu = 0;
  };
  std::string dir_;
  bool first_ = true;
  std::map<std::string, Seen> seen_;  // by "pid:start time"
};

// The 1-minute load average of the machine.
double LoadAverage();

}  // namespace vtenant::bench
