// What the soak benchmark writes: the samples as CSV, a Markdown summary,
// and an SVG plot (resident memory over time per program kind, and the
// create-to-bound latency per window), all from one SoakRun.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "bench/soak_logs.h"
#include "bench/soak_metrics.h"
#include "bench/soak_processes.h"

namespace vtenant::bench {

// One window of the churn; pods count in the window their create returned
// in, churned pods in the one their deletion completed in.
struct WindowStats {
  int created = 0;
  int create_errors = 0;
  int not_running = 0;  // host pod not Running within the cycle's limit
  int not_gone = 0;     // host pod still there at the cycle's limit
  int delete_errors = 0;
  int churned = 0;                   // created, ran, deleted and gone
  std::vector<double> latencies_ms;  // created -> bound on the host
  std::vector<double> synced_ms;     // created -> host pod made (the syncer's part)
};

// What one kind of server says about itself (soak_metrics.h), the mean
// per server, at the baseline and at the end; `read` says how many of them
// answered /metrics both times (0: the report leaves the section out).
struct SelfReadings {
  ServerSelf at_baseline, at_end;
  int read = 0;
};

// What a soak is asked to run (bench_soak's flags, with their defaults).
struct SoakSettings {
  int tenants = 20;
  int pods = 100;  // per tenant
  double minutes = 30;
  // Team i starts its first cycle i/tenants of this after the churn
  // begins: teams are independent, and 20 of them creating their pods in
  // the same second is a burst no cluster sees from steady churn. 0 starts
  // every team at once (the burst the syncer and scheduler benchmarks
  // measure on their own).
  double stagger_seconds = 120;
  double window_minutes = 5;
  double baseline_minutes = 5;
};

struct SoakRun {
  std::string command;  // how it was run
  std::string started;  // UTC, ISO 8601
  std::string commit;   // of the source tree
  std::string machine;  // CPU model and cores
  SoakSettings settings;
  double tenants_ready_s = 0;  // Tenants applied -> all Ready
  double churn_s = 0;          // how long the churn really ran
  int cycles = 0;              // over all tenants
  int watch_restarts = 0;
  std::map<int, WindowStats> windows;
  std::vector<Sample> samples;
  std::map<std::string, int> pids_seen;   // by kind, over the churn
  std::vector<std::string> restarts;      // the host's components that were restarted
  std::vector<std::string> first_errors;  // the churn's first client errors
  LogErrors errors;
  // The API servers' (the tenants', the host's) and vtenant's programs' own
  // figures.
  SelfReadings tenant_apiservers, host_apiserver, syncers, operator_self, scheduler_self;
  // The syncers' mean malloc heap in use, read about once a minute and at
  // the end: (seconds into the churn, MiB).
  std::vector<std::pair<double, double>> syncer_heap;
};

// `values` at quantile q (0..1), nearest rank; 0 when empty.
double Percentile(std::vector<double> values, double q);

// One row per sample and program kind:
// t_s,kind,processes,rss_mib,rss_mib_per_process,cpu_s,load1.
Status WriteSamplesCsv(const std::string& path, const std::vector<Sample>& samples);

// The summary: the run, latency per window, memory at the baseline and at
// the end, CPU per program kind, restarts, errors, and the goals.
std::string SummaryMarkdown(const SoakRun& run);

// Three panels: resident memory per program kind (log scale), the same
// relative to the baseline sample, and p50/p99 latency per window.
std::string PlotSvg(const SoakRun& run);

}  // namespace vtenant::bench
