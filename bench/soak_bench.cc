// bench_soak: the whole local environment (`vtenant up`) under hours-like
// churn, for leaks and drift (issue 22, point 6). N Tenants under one
// parent queue; each team creates its pods in its own virtual cluster,
// waits until every one runs on the host, deletes them, and again, until
// the time is up. It reports, and asserts nothing:
//   - per window, the latency from a virtual pod's create call returning to
//     its host pod being bound (spec.nodeName set, seen by a host watch);
//   - every 10 s, each program kind's resident memory and CPU time (/proc);
//   - the error lines in every log under the environment's state folder;
//   - the tenants' and the host's API servers' own /metrics at the baseline
//     and the end (Go heap in use and live after GC, goroutines, watches,
//     metric series, stored objects by resource), and the syncers',
//     vtenant-operator's and vtenant-scheduler's (malloc heap in use and
//     free, objects their informers cache by cluster and resource);
//   - once a minute, the syncers' mean heap in use: it rises and falls by
//     a mebibyte or more with each cycle's pods, so its lowest point per
//     window, not two readings, says whether what stays grows.
// Into --out: soak-samples.csv, soak-summary.md, soak.svg. Results:
// bench/RESULTS.md.
//
//   build/bench/bench_soak [--tenants 20] [--pods 100] [--minutes 30]
//       [--stagger-seconds 120] [--window-minutes 5] [--baseline-minutes 5]
//       [--out bench/soak/]
#include <glog/logging.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

#include "base/eventually.h"
#include "base/file.h"
#include "base/flags.h"
#include "base/rfc3339.h"
#include "bench/soak_logs.h"
#include "bench/soak_metrics.h"
#include "bench/soak_pods.h"
#include "bench/soak_processes.h"
#include "bench/soak_report.h"
#include "cli/environment_state.h"
#include "e2e/support/environment.h"
#include "e2e/support/kubectl.h"
#include "kube/json_builder.h"
#include "kube/kubeconfig.h"
#include "kube/object.h"
#include "kube/rest_client.h"
#include "localenv/command.h"
#include "localenv/testing/source_tree.h"

namespace fs = std::filesystem;
using namespace vtenant;
using Clock = std::chrono::steady_clock;

namespace {

constexpr char kParentQueue[] = "soak-org";
constexpr char kNamespace[] = "default";
constexpr auto kSampleEvery = std::chrono::seconds(10);
constexpr auto kSyncerHeapEvery = std::chrono::minutes(1);
// How long one cycle may wait for its pods to run, then to be gone; past
// that the pods still missing are counted and the cycle goes on.
constexpr auto kRunLimit = std::chrono::minutes(10);
constexpr auto kGoneLimit = std::chrono::minutes(5);

std::atomic<bool> interrupted{false};

struct Options {
  bool help = false;
  bench::SoakSettings settings;
  std::string out = "bench/soak/";
};

const char kUsage[] =
    "usage: bench_soak [--tenants N (20)] [--pods N per tenant (100)] [--minutes M (30)]\n"
    "                  [--stagger-seconds S (120)] [--window-minutes M (5)]\n"
    "                  [--baseline-minutes M (5)] [--out DIR (bench/soak/)]\n"
    "Brings up a local environment (vtenant up), creates N Tenants, and has each churn its\n"
    "pods (create, wait until Running on the host, delete) for M minutes, team i starting\n"
    "i/N of S seconds after the first (0: all at once). Writes the create-to-bound latency\n"
    "per window, every program's memory and CPU, and the errors in the logs to DIR:\n"
    "soak-samples.csv, soak-summary.md, soak.svg. Ctrl-C ends the churn early and still\n"
    "writes them. Environment: VTENANT_SOURCE_DIR (the source tree; default: the one it\n"
    "was built from), VTENANT_KEEP_TEST_DIRS (keep the environment's folder and logs).\n";

// The flags (base/flags.h's syntax), a table like every tool's: alike in
// form on purpose, the flags differ. A churn needs some time; a stagger and
// a baseline may be 0.
Result<Options> ParseOptions(const std::vector<std::string>& args) {
  Options o;
  VT_ASSIGN_OR_RETURN(
      SplitCommandLine split,
      ApplyFlags(args, {WholeNumberFlag("tenants", &o.settings.tenants, 1, 100000),
                        WholeNumberFlag("pods", &o.settings.pods, 1, 100000),
                        NumberFlag("minutes", &o.settings.minutes, 0.1),
                        NumberFlag("stagger-seconds", &o.settings.stagger_seconds, 0),
                        NumberFlag("window-minutes", &o.settings.window_minutes, 0.1),
                        NumberFlag("baseline-minutes", &o.settings.baseline_minutes, 0),
                        TextFlag("out", &o.out)}));
  o.help = split.help;
  return o;
}

// Servers' own figures (bench/soak_metrics.h) by a name of each; none for
// one that did not answer.
using SelfByServer = std::map<std::string, bench::ServerSelf>;

// Each tenant's API server's, by its tenant's index.
SelfByServer ReadTenantApiServers(const std::vector<std::unique_ptr<kube::RestClient>>& clients) {
  SelfByServer out;
  for (size_t i = 0; i < clients.size(); ++i) {
    Result<bench::ServerSelf> self = bench::ReadServerSelf(*clients[i]);
    if (!self.ok()) LOG(WARNING) << "a tenant's /metrics: " << self.status().ToString();
    if (self.ok()) out.emplace(std::to_string(i), std::move(*self));
  }
  return out;
}

// Each running `program`'s (vtenant-syncer, vtenant-operator,
// vtenant-scheduler) of the environment in `dir`, by its health address.
SelfByServer ReadPrograms(const std::string& dir, const std::string& program) {
  SelfByServer out;
  for (const std::string& address : bench::HealthAddresses(dir, program)) {
    Result<bench::ServerSelf> self = bench::ReadServerSelf(address);
    if (!self.ok()) LOG(WARNING) << program << "'s /metrics: " << self.status().ToString();
    if (self.ok()) out.emplace(address, std::move(*self));
  }
  return out;
}

// The host's API server's, through its admin kubeconfig.
Result<bench::ServerSelf> ReadHostApiServerSelf(const std::string& host_kubeconfig) {
  VT_ASSIGN_OR_RETURN(kube::RestConfig rest, kube::LoadKubeconfig(host_kubeconfig));
  rest.timeout = std::chrono::seconds(30);
  VT_ASSIGN_OR_RETURN(std::unique_ptr<kube::RestClient> client, kube::RestClient::Create(rest));
  return bench::ReadServerSelf(*client);
}

// The same as a SelfByServer of one ("host"), empty when it did not answer.
SelfByServer ReadHostApiServer(const std::string& host_kubeconfig) {
  SelfByServer out;
  Result<bench::ServerSelf> self = ReadHostApiServerSelf(host_kubeconfig);
  if (!self.ok()) LOG(WARNING) << "the host's /metrics: " << self.status().ToString();
  if (self.ok()) out.emplace("host", std::move(*self));
  return out;
}

// The mean heap in use over the syncers that answered; nullopt when none.
std::optional<double> MeanHeap(const SelfByServer& syncers) {
  if (syncers.empty()) return std::nullopt;
  double sum = 0;
  for (const auto& [address, self] : syncers) sum += self.heap_inuse_mib;
  return sum / syncers.size();
}

// The means of the servers read both times, so that they compare.
bench::SelfReadings Compare(const SelfByServer& at_baseline, const SelfByServer& at_end) {
  std::vector<bench::ServerSelf> before, after;
  for (const auto& [server, self] : at_baseline) {
    auto end = at_end.find(server);
    if (end == at_end.end()) continue;
    before.push_back(self);
    after.push_back(end->second);
  }
  return {.at_baseline = bench::MeanOf(before),
          .at_end = bench::MeanOf(after),
          .read = static_cast<int>(before.size())};
}

std::string TenantName(int i) {
  char name[16];
  std::snprintf(name, sizeof name, "soak-%02d", i);
  return name;
}

// The parent queue and the Tenants, as a platform team would keep them
// (examples/tenants/ml-org-queue.yaml, examples/tenants/nlp/tenant.yaml):
// CPU pods only, so no GPU is guaranteed and none is needed.
std::string TenantsYaml(int tenants) {
  std::string yaml = std::string(R"(apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: )") + kParentQueue +
                     R"(
spec:
  displayName: soak benchmark
  resources:
    gpu: {quota: 1, limit: 1, overQuotaWeight: 1}
    cpu: {quota: -1, limit: -1, overQuotaWeight: 1}
    memory: {quota: -1, limit: -1, overQuotaWeight: 1}
)";
  for (int i = 0; i < tenants; ++i) {
    yaml += R"(---
apiVersion: vtenant.io/v1alpha1
kind: Tenant
metadata:
  name: )" + TenantName(i) +
            R"(
spec:
  displayName: soak team )" +
            std::to_string(i) + R"(
  queue:
    parentQueue: )" +
            kParentQueue +
            R"(
    resources:
      gpu: {quota: 0, limit: 1, overQuotaWeight: 1}
      cpu: {quota: -1, limit: -1, overQuotaWeight: 1}
      memory: {quota: -1, limit: -1, overQuotaWeight: 1}
  isolation:
    podSecurity: baseline
    networkPolicy: {enabled: true}
)";
  }
  return yaml;
}

kube::Object PodManifest(const std::string& name) {
  using kube::JsonObject;
  return kube::BuildJson(JsonObject{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", JsonObject{{"name", name}, {"labels", JsonObject{{"app", "soak"}}}}},
      {"spec",
       JsonObject{
           {"containers",
            kube::JsonArray{JsonObject{
                {"name", "main"},
                {"image", "busybox"},
                {"resources",
                 JsonObject{{"requests", JsonObject{{"cpu", "10m"}, {"memory", "16Mi"}}}}}}}}}}});
}

// What the tenants' threads share: the windows' counts and the first errors.
class Stats {
 public:
  Stats(Clock::time_point start, double window_minutes)
      : start_(start), window_s_(window_minutes * 60) {}

  template <typename F>
  void At(Clock::time_point t, F&& update) {
    std::lock_guard lock(mu_);
    update(windows_[Window(t)]);
  }
  void Error(const std::string& what) {
    std::lock_guard lock(mu_);
    if (errors_.size() < 10) errors_.push_back(what);
  }
  void CycleDone() { ++cycles_; }
  int cycles() const { return cycles_; }
  void Bound(Clock::time_point created, double ms, double synced_ms) {
    std::lock_guard lock(mu_);
    windows_[Window(created)].latencies_ms.push_back(ms);
    windows_[Window(created)].synced_ms.push_back(synced_ms);
    recent_.push_back(ms);
  }
  // The pods bound since the last call, and their p99 (progress lines).
  std::pair<size_t, double> TakeRecent() {
    std::lock_guard lock(mu_);
    std::vector<double> recent;
    recent.swap(recent_);
    return {recent.size(), bench::Percentile(recent, 0.99)};
  }
  std::map<int, bench::WindowStats> windows() {
    std::lock_guard lock(mu_);
    return windows_;
  }
  std::vector<std::string> errors() {
    std::lock_guard lock(mu_);
    return errors_;
  }

 private:
  int Window(Clock::time_point t) const {
    return std::max(
        0, static_cast<int>(std::chrono::duration<double>(t - start_).count() / window_s_));
  }

  const Clock::time_point start_;
  const double window_s_;
  std::mutex mu_;
  std::map<int, bench::WindowStats> windows_;
  std::vector<std::string> errors_;
  std::vector<double> recent_;
  std::atomic<int> cycles_{0};
};

// One team's churn until `end`: create its pods, wait until each runs on
// the host, delete them, wait until they are gone, again.
void Churn(const std::string& team, kube::Client& client, bench::PodTracker& tracker, Stats& stats,
           int pods, Clock::time_point begin, Clock::time_point end) {
  while (Clock::now() < begin && !interrupted) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  for (int cycle = 0; Clock::now() < end && !interrupted; ++cycle) {
    std::vector<std::string> uids, names;
    for (int i = 0; i < pods && !interrupted; ++i) {
      const std::string name = "soak-" + std::to_string(cycle) + "-" + std::to_string(i);
      for (int attempt = 0; attempt < 5; ++attempt) {
        Result<kube::Object> created =
            client.Create(kube::resources::kPods, kNamespace, PodManifest(name));
        const auto now = Clock::now();
        if (created.ok()) {
          const std::string uid(kube::Uid(*created));
          tracker.Created(uid, now);
          uids.push_back(uid);
          names.push_back(name);
          stats.At(now, [](bench::WindowStats& w) { ++w.created; });
          break;
        }
        stats.At(now, [](bench::WindowStats& w) { ++w.create_errors; });
        stats.Error(team + ": create " + name + ": " + created.status().ToString());
        if (created.status().code() == StatusCode::kAlreadyExists) break;
        std::this_thread::sleep_for(std::chrono::seconds(1));
      }
    }
    const int not_running = tracker.WaitRunning(uids, Clock::now() + kRunLimit);
    stats.At(Clock::now(), [&](bench::WindowStats& w) { w.not_running += not_running; });
    for (const std::string& uid : uids) {
      std::optional<bench::PodTracker::Latency> l = tracker.BoundLatency(uid);
      if (l) stats.Bound(l->created, l->ms, l->synced_ms);
    }
    for (const std::string& name : names) {
      Status deleted = client.Delete(kube::resources::kPods, kNamespace, name);
      if (!deleted.ok() && deleted.code() != StatusCode::kNotFound) {
        stats.At(Clock::now(), [](bench::WindowStats& w) { ++w.delete_errors; });
        stats.Error(team + ": delete " + name + ": " + deleted.ToString());
      }
    }
    const auto gone_by = Clock::now() + kGoneLimit;
    const int not_gone = tracker.WaitGone(uids, gone_by);
    // The virtual pods finish once their host pods are gone (the syncer
    // does it; no kubelet there does).
    Eventually(
        [&] {
          Result<kube::ObjectList> left = client.List(kube::resources::kPods, kNamespace);
          return (left.ok() && left->items.empty()) || Clock::now() > gone_by;
        },
        std::chrono::minutes(6), std::chrono::milliseconds(500));
    stats.At(Clock::now(), [&](bench::WindowStats& w) {
      w.not_gone += not_gone;
      w.churned += static_cast<int>(uids.size()) - not_gone;
    });
    tracker.Forget(uids);
    stats.CycleDone();
  }
}

std::string Machine() {
  const std::string cpuinfo = ReadFileOrEmpty("/proc/cpuinfo");
  std::string model = "unknown CPU";
  const size_t at = cpuinfo.find("model name");
  if (at != std::string::npos) {
    const size_t colon = cpuinfo.find(':', at);
    model = cpuinfo.substr(colon + 2, cpuinfo.find('\n', colon) - colon - 2);
  }
  return model + ", " + std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " cores";
}

}  // namespace

int main(int argc, char** argv) {
  FLAGS_logtostderr = true;
  google::InitGoogleLogging(argv[0]);
  const Options options = ParseFlagsOrExit<Options>("bench_soak", argc, argv, ParseOptions, kUsage);
  signal(SIGINT, [](int) { interrupted = true; });
  signal(SIGTERM, [](int) { interrupted = true; });

  bench::SoakRun run;
  for (int i = 0; i < argc; ++i) run.command += (i > 0 ? " " : "") + std::string(argv[i]);
  run.started = FormatRfc3339(std::chrono::system_clock::now());
  run.machine = Machine();
  run.settings = options.settings;
  const bench::SoakSettings& asked = options.settings;
  Result<localenv::CommandResult> commit = localenv::RunCommand(
      {"/usr/bin/env", "git", "-C", localenv::SourceRoot(), "rev-parse", "--short", "HEAD"});
  run.commit = commit.ok() && commit->exit_code == 0 ? commit->out.substr(0, commit->out.find('\n'))
                                                     : "unknown";
  std::error_code ec;
  fs::create_directories(options.out, ec);
  if (ec) {
    std::cerr << "bench_soak: cannot create " << options.out << ": " << ec.message() << "\n";
    return 1;
  }

  std::printf("soak: vtenant up ...\n");
  std::fflush(stdout);
  Result<std::unique_ptr<e2e::Environment>> up =
      e2e::Environment::Up(VTENANT_CLI, "soak", "bench/testdata/soak-nodes.yaml");
  if (!up.ok()) {
    std::cerr << "bench_soak: " << up.status().ToString() << "\n";
    return 1;
  }
  e2e::Environment& env = **up;
  std::printf("soak: environment in %s; applying %d Tenants under queue %s\n", env.dir().c_str(),
              asked.tenants, kParentQueue);
  std::fflush(stdout);

  const auto applied_at = Clock::now();
  Result<std::string> applied = env.HostKubectl({"apply", "-f", "-"}, TenantsYaml(asked.tenants));
  if (!applied.ok()) {
    std::cerr << "bench_soak: applying the Tenants: " << applied.status().ToString() << "\n";
    return 1;
  }
  std::vector<std::unique_ptr<kube::RestClient>> clients;
  for (int i = 0; i < asked.tenants; ++i) {
    const std::string team = TenantName(i);
    Status ready = env.WaitForTeam(team, std::chrono::seconds(600 + 30 * asked.tenants));
    Result<localenv::CommandResult> config = env.Vtenant({"kubeconfig", team});
    if (!ready.ok() || !config.ok() || config->exit_code != 0) {
      std::cerr << "bench_soak: " << team << ": "
                << (ready.ok() ? "vtenant kubeconfig failed" : ready.ToString()) << "\n";
      return 1;
    }
    Result<kube::RestConfig> rest = kube::ParseKubeconfig(config->out);
    CHECK(rest.ok()) << rest.status().ToString();
    rest->timeout = std::chrono::seconds(30);
    Result<std::unique_ptr<kube::RestClient>> client = kube::RestClient::Create(*rest);
    CHECK(client.ok()) << client.status().ToString();
    clients.push_back(std::move(*client));
  }
  run.tenants_ready_s = std::chrono::duration<double>(Clock::now() - applied_at).count();
  // A pod needs its namespace's default ServiceAccount, which the team's
  // controller manager makes shortly after its cluster comes up.
  for (int i = 0; i < asked.tenants; ++i) {
    if (!Eventually(
            [&] {
              return clients[i]->Get(kube::resources::kServiceAccounts, kNamespace, "default").ok();
            },
            std::chrono::minutes(3), std::chrono::milliseconds(500))) {
      std::cerr << "bench_soak: " << TenantName(i) << " has no default ServiceAccount\n";
      return 1;
    }
  }
  std::printf("soak: %d Tenants Ready in %.0f s; churning %d pods each for %g minutes\n",
              asked.tenants, run.tenants_ready_s, asked.pods, asked.minutes);
  std::fflush(stdout);

  bench::PodTracker tracker(env.host());
  Status tracking = tracker.Start();
  if (!tracking.ok()) {
    std::cerr << "bench_soak: watching the host's pods: " << tracking.ToString() << "\n";
    return 1;
  }
  const std::map<std::string, uint64_t> log_mark = bench::MarkLogs(env.dir());
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double, std::ratio<60>>(asked.minutes));
  Stats stats(start, asked.window_minutes);
  bench::ProcessSampler sampler(env.dir());

  std::atomic<bool> churning{true};
  std::thread sampling([&] {
    auto next = start;
    auto next_progress = start + std::chrono::minutes(1);
    while (churning) {
      const double t = std::chrono::duration<double>(Clock::now() - start).count();
      bench::Sample sample = sampler.Take(t);
      if (Clock::now() >= next_progress) {
        double rss = 0;
        for (const auto& [kind, k] : sample.kinds) rss += k.rss_mib;
        const auto [bound, p99] = stats.TakeRecent();
        std::printf(
            "soak: %.1f min: %d cycles done; last minute: %zu pods bound, p99 %.0f ms; "
            "RSS %.0f MiB in all; load %.2f\n",
            t / 60, stats.cycles(), bound, p99, rss, sample.load1);
        std::fflush(stdout);
        next_progress += std::chrono::minutes(1);
      }
      run.samples.push_back(std::move(sample));
      next += kSampleEvery;
      while (churning && Clock::now() < next) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
    }
  });

  // The servers' own figures at the baseline, and the syncers' heap once a
  // minute, read beside the sampler so that its samples keep their pace.
  SelfByServer apiservers_at_baseline, host_at_baseline, syncers_at_baseline, operator_at_baseline,
      scheduler_at_baseline;
  std::thread self_reader([&] {
    const auto baseline_at =
        start + std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double, std::ratio<60>>(asked.baseline_minutes));
    bool baseline_read = false;
    auto next = start;
    while (churning) {
      const auto now = Clock::now();
      const bool baseline_due = !baseline_read && now >= baseline_at;
      const bool heap_due = now >= next;
      // One reading of the syncers serves both when both are due (with the
      // defaults, at minute 5).
      if (baseline_due || heap_due) {
        const SelfByServer syncers = ReadPrograms(env.dir(), "vtenant-syncer");
        if (baseline_due) {
          apiservers_at_baseline = ReadTenantApiServers(clients);
          host_at_baseline = ReadHostApiServer(env.host_kubeconfig());
          syncers_at_baseline = syncers;
          operator_at_baseline = ReadPrograms(env.dir(), "vtenant-operator");
          scheduler_at_baseline = ReadPrograms(env.dir(), "vtenant-scheduler");
          baseline_read = true;
        }
        if (heap_due) {
          const double t = std::chrono::duration<double>(now - start).count();
          if (std::optional<double> heap = MeanHeap(syncers))
            run.syncer_heap.emplace_back(t, *heap);
          next += kSyncerHeapEvery;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  });

  std::vector<std::thread> teams;
  for (int i = 0; i < asked.tenants; ++i) {
    const auto begin =
        start + std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double>(asked.stagger_seconds * i / asked.tenants));
    teams.emplace_back(Churn, TenantName(i), std::ref(*clients[i]), std::ref(tracker),
                       std::ref(stats), asked.pods, begin, end);
  }
  for (std::thread& t : teams) t.join();
  churning = false;
  sampling.join();
  self_reader.join();
  run.churn_s = std::chrono::duration<double>(Clock::now() - start).count();
  run.samples.push_back(sampler.Take(run.churn_s));
  run.tenant_apiservers = Compare(apiservers_at_baseline, ReadTenantApiServers(clients));
  run.host_apiserver = Compare(host_at_baseline, ReadHostApiServer(env.host_kubeconfig()));
  const SelfByServer syncers_at_end = ReadPrograms(env.dir(), "vtenant-syncer");
  run.syncers = Compare(syncers_at_baseline, syncers_at_end);
  run.operator_self = Compare(operator_at_baseline, ReadPrograms(env.dir(), "vtenant-operator"));
  run.scheduler_self = Compare(scheduler_at_baseline, ReadPrograms(env.dir(), "vtenant-scheduler"));
  if (std::optional<double> heap = MeanHeap(syncers_at_end)) {
    run.syncer_heap.emplace_back(run.churn_s, *heap);
  }
  tracker.Stop();
  if (interrupted) std::printf("soak: interrupted; reporting what ran\n");

  run.cycles = stats.cycles();
  run.windows = stats.windows();
  run.first_errors = stats.errors();
  run.watch_restarts = tracker.watch_restarts();
  for (const std::string& kind : bench::ProgramKinds())
    run.pids_seen[kind] = sampler.PidsSeen(kind);
  Result<cli::EnvironmentState> state = cli::EnvironmentState::Load(env.dir());
  if (state.ok()) {
    for (const cli::ComponentRecord& c : state->components) {
      if (c.restarts > 0) {
        run.restarts.push_back(c.component.name + ": restarted " + std::to_string(c.restarts) +
                               " times over the environment's life (last: " + c.last_exit + ")");
      }
    }
  }
  run.errors = bench::CountLogErrors(env.dir(), log_mark);

  const fs::path out = options.out;
  Status csv = bench::WriteSamplesCsv((out / "soak-samples.csv").string(), run.samples);
  if (!csv.ok()) std::cerr << "bench_soak: " << csv.ToString() << "\n";
  const std::string summary = bench::SummaryMarkdown(run);
  std::ofstream(out / "soak-summary.md") << summary;
  std::ofstream(out / "soak.svg") << bench::PlotSvg(run);
  std::cout << "\n"
            << summary << "\nsoak: wrote " << (out / "soak-samples.csv").string() << ", "
            << (out / "soak-summary.md").string() << ", " << (out / "soak.svg").string()
            << "\nsoak: vtenant down ...\n";
  std::cout.flush();
  clients.clear();
  up->reset();  // vtenant down; says what it left behind
  return 0;
}
