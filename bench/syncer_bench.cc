// bench_syncer: how fast vtenant-syncer carries pods from a virtual cluster
// to the host, against the ceiling of kube/ alone creating the same pods on
// the host, in one run on one machine.
//
//   bench_syncer [--pods=1000] [--paced-rate=100] [--workers=16] [--backlog=0]
//                [--bound-first] [--syncer=PATH, default the vtenant-syncer of this build]
//
// Starts etcd + a host kube-apiserver and a virtual kube-apiserver on the
// same etcd (localenv; no controller managers, so only the syncer writes),
// then measures:
//   - the ceiling: `--pods` host pods (the syncer's own translation of the
//     benchmark pod, so the same bytes) created through kube::RestClient from
//     16 threads, limiter off;
//   - the burst: `--pods` virtual pods created at once from 16 threads; the
//     time until all exist on the host (a host watch sees each ADDED), per-pod
//     latency from the start of its virtual create to its host ADDED;
//   - backlog (with --backlog=N): N virtual pods created before the syncer
//     starts; the time from its start until all are on the host, where the
//     syncer works alone like the ceiling (the burst also pays for the
//     virtual creates, on the same cores);
//   - paced: `--pods` more at `--paced-rate` pods/s, same latencies;
//   - bound (after the syncer stops): the same burst through a syncer that
//     does nothing beyond one host create per virtual pod (in this process:
//     a watch on the virtual pods and `--workers` threads each translating a
//     pod and creating it on the host), measured the same way; the burst
//     through the real syncer is printed as a share of it, (a)/(b);
//   - pipeline (after the syncer stops; a second reference line beside the
//     ceiling, which stays as it is): kube/ alone doing the burst's whole
//     work, each pod created on the virtual API server and then, translated,
//     on the host, from 16 threads;
//   - the syncer process's peak RSS (VmHWM) and CPU seconds (utime+stime);
//   - where the machine's CPU went in the ceiling and in the burst (each API
//     server, etcd, this benchmark's own clients, the syncer), and from that
//     the best burst / ceiling this machine allows even with a syncer that
//     costs nothing: on a few cores the burst also pays for the virtual API
//     server's creates, which the ceiling does not.
// The syncer runs as the real program with --kube-api-qps=0, like the
// ceiling. Prints a Markdown table for bench/RESULTS.md.
#include <glog/logging.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/flags.h"
#include "kube/json_builder.h"
#include "kube/rest_client.h"
#include "localenv/local_cluster.h"
#include "localenv/process.h"
#include "localenv/testing/source_tree.h"
#include "localenv/testing/virtual_cluster.h"
#include "localenv/tools.h"
#include "syncer/names.h"
#include "syncer/pod_translator.h"

namespace vtenant::bench {
namespace {

using Clock = std::chrono::steady_clock;
using kube::resources::kPods;

constexpr char kHostNs[] = "vtenant-nlp";
constexpr char kVirtualNs[] = "bench";

struct Options {
  bool help = false;
  int pods = 1000;
  double paced_rate = 100;
  int workers = 16;
  int backlog = 0;
  // Run (b), the create-only syncer's burst, before the real syncer starts
  // (its pods removed again first), so that alternating runs show whether
  // going second, on servers that have seen 2,000 more pods, favours (b).
  bool bound_first = false;
  std::string syncer = VTENANT_SYNCER;
};

const char kUsage[] =
    "usage: bench_syncer [--pods=1000] [--paced-rate=100] [--workers=16] [--backlog=0]\n"
    "                    [--bound-first] [--syncer=PATH (the vtenant-syncer of this build)]\n"
    "Times vtenant-syncer carrying pods from a virtual cluster to the host against kube/\n"
    "alone creating them (bench/syncer_bench.cc says what each run measures).\n";

// The flags (base/flags.h's syntax), a table like every tool's: alike in
// form on purpose, the flags differ.
Result<Options> ParseOptions(const std::vector<std::string>& args) {
  Options o;
  VT_ASSIGN_OR_RETURN(
      SplitCommandLine split,
      ApplyFlags(args, {WholeNumberFlag("pods", &o.pods, 1, 1000000),
                        NumberFlag("paced-rate", &o.paced_rate, 0.1),
                        WholeNumberFlag("workers", &o.workers, 1, 1000000),
                        WholeNumberFlag("backlog", &o.backlog, 0, 1000000),
                        SwitchFlag("bound-first", &o.bound_first), TextFlag("syncer", &o.syncer)}));
  o.help = split.help;
  return o;
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// A client of `api_server` as its admin, unthrottled (qps 0).
std::unique_ptr<kube::RestClient> UnthrottledAdminClient(localenv::ApiServer& api_server) {
  kube::RestConfig config = api_server.admin_config();
  config.qps = 0;
  Result<std::unique_ptr<kube::RestClient>> client = kube::RestClient::Create(config);
  CHECK(client.ok());
  return std::move(*client);
}

// A team's pod in the virtual cluster: a GPU fraction, one container.
kube::Object PodManifest(const std::string& name) {
  using kube::JsonArray;
  using kube::JsonObject;
  return kube::BuildJson(JsonObject{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", JsonObject{{"name", name},
                              {"namespace", kVirtualNs},
                              {"labels", JsonObject{{"app", "bench"}}},
                              {"annotations", JsonObject{{"gpu-fraction", "0.33"}}}}},
      {"spec",
       JsonObject{
           {"schedulerName", "kai-scheduler"},
           {"containers",
            JsonArray{JsonObject{
                {"name", "main"},
                {"image", "pytorch:2"},
                {"env", JsonArray{JsonObject{{"name", "MODE"}, {"value", "train"}}}},
                {"resources",
                 JsonObject{{"requests", JsonObject{{"cpu", "100m"}, {"memory", "128Mi"}}}}}}}}}}});
}

std::string PodName(const std::string& prefix, int i) {
  char buffer[48];
  std::snprintf(buffer, sizeof(buffer), "%s-%05d", prefix.c_str(), i);
  return buffer;
}

kube::Object Parse(const std::string& json) {
  Result<kube::Object> o = kube::ParseJson(json);
  CHECK(o.ok()) << o.status().ToString();
  return std::move(*o);
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * (v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

// Runs `n` creates from `workers` threads; create(i) returns once done.
void Parallel(int n, int workers, const std::function<void(int)>& create) {
  std::atomic<int> next{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < workers; ++t) {
    threads.emplace_back([&] {
      for (int i = next++; i < n; i = next++) create(i);
    });
  }
  for (std::thread& t : threads) t.join();
}

// On a thread of its own: watches the pods of `ns` from now on (for at
// most 10 minutes), handing each one added to `on_added`, until `cancel`
// fires. `client` and `cancel` must outlive the thread.
std::thread WatchAddedPods(kube::Client& client, const char* ns, kube::Cancellation& cancel,
                           std::function<void(kube::Object&)> on_added) {
  Result<kube::ObjectList> list = client.List(kPods, ns, {.limit = 1});
  CHECK(list.ok()) << list.status().ToString();
  return std::thread(
      [&client, ns, &cancel, on_added = std::move(on_added), rv = list->resource_version] {
        kube::ListOptions options{.resource_version = rv, .timeout_seconds = 600};
        Status s = client.Watch(
            kPods, ns, options,
            [&](kube::WatchEvent& e) {
              if (e.type == kube::WatchEvent::Type::kAdded) on_added(e.object);
              return true;
            },
            &cancel);
        if (!s.ok() && !cancel.cancelled()) LOG(ERROR) << "watch: " << s.ToString();
      });
}

// Host pod arrivals, by virtual name, from a watch on the host namespace.
class Arrivals {
 public:
  explicit Arrivals(kube::Client& host) : host_(host) {
    thread_ = WatchAddedPods(host_, kHostNs, cancel_, [this](kube::Object& pod) {
      auto name = kube::Annotation(pod, syncer::kVirtualNameAnnotation);
      if (!name) return;
      std::lock_guard lock(mu_);
      at_.emplace(std::string(*name), Clock::now());
    });
  }
  ~Arrivals() {
    cancel_.Cancel();
    thread_.join();
  }
  bool WaitFor(const std::vector<std::string>& names, std::chrono::seconds limit) {
    auto deadline = Clock::now() + limit;
    while (Clock::now() < deadline) {
      {
        std::lock_guard lock(mu_);
        if (std::all_of(names.begin(), names.end(),
                        [&](const std::string& n) { return at_.contains(n); })) {
          return true;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }
  Clock::time_point At(const std::string& name) {
    std::lock_guard lock(mu_);
    return at_.at(name);
  }

 private:
  kube::Client& host_;
  kube::Cancellation cancel_;
  std::mutex mu_;
  std::map<std::string, Clock::time_point> at_;
  std::thread thread_;
};

struct ProcessUsage {
  double peak_rss_mib = 0;
  double rss_mib = 0;
  double anon_mib = 0;  // heap and stacks; the rest of RSS is mapped files
  int threads = 0;
  double cpu_seconds = 0;
};

ProcessUsage UsageOf(pid_t pid) {
  ProcessUsage usage;
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("VmHWM:")) usage.peak_rss_mib = std::stod(line.substr(6)) / 1024.0;
    if (line.starts_with("VmRSS:")) usage.rss_mib = std::stod(line.substr(6)) / 1024.0;
    if (line.starts_with("RssAnon:")) usage.anon_mib = std::stod(line.substr(8)) / 1024.0;
    if (line.starts_with("Threads:")) usage.threads = std::stoi(line.substr(8));
  }
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  std::istringstream rest(all.substr(all.rfind(')') + 2));
  std::vector<std::string> fields;
  for (std::string f; rest >> f;) fields.push_back(f);
  // Fields 14 and 15 of stat (utime, stime) are 12 and 13 after "pid (comm) ".
  if (fields.size() > 13) {
    usage.cpu_seconds =
        (std::stod(fields[11]) + std::stod(fields[12])) / static_cast<double>(sysconf(_SC_CLK_TCK));
  }
  return usage;
}

// CPU seconds of every process that takes part, at one moment.
struct CpuSnapshot {
  double host_api = 0, virtual_api = 0, etcd = 0, bench = 0, syncer = 0;
  double Total() const { return host_api + virtual_api + etcd + bench + syncer; }
};

struct Pids {
  pid_t host_api = 0, virtual_api = 0, etcd = 0, syncer = 0;
};

CpuSnapshot CpuOf(const Pids& pids) {
  auto cpu = [](pid_t pid) { return pid > 0 ? UsageOf(pid).cpu_seconds : 0.0; };
  return {cpu(pids.host_api), cpu(pids.virtual_api), cpu(pids.etcd), cpu(getpid()),
          cpu(pids.syncer)};
}

CpuSnapshot operator-(const CpuSnapshot& a, const CpuSnapshot& b) {
  return {a.host_api - b.host_api, a.virtual_api - b.virtual_api, a.etcd - b.etcd,
          a.bench - b.bench, a.syncer - b.syncer};
}

struct Burst {
  double seconds = 0;
  std::vector<double> latencies;
};

// The least a syncer must do: watch the virtual pods and create each one,
// translated, on the host, from `workers` threads. Nothing else (no caches,
// no status, no references, no gangs): what the burst is measured against.
class MinimalSyncer {
 public:
  MinimalSyncer(kube::Client& virt, kube::Client& host, const syncer::PodTranslator& translator,
                int workers)
      : virt_(virt), host_(host), translator_(translator) {
    watch_ = WatchAddedPods(virt_, kVirtualNs, cancel_, [this](kube::Object& pod) {
      std::lock_guard lock(mu_);
      queue_.push_back(std::make_shared<const kube::Object>(std::move(pod)));
      cv_.notify_one();
    });
    for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { Work(); });
  }
  ~MinimalSyncer() {
    cancel_.Cancel();
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
      cv_.notify_all();
    }
    watch_.join();
    for (std::thread& t : workers_) t.join();
  }

 private:
  void Work() {
    while (true) {
      kube::ObjectPtr pod;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (stopping_) return;
        pod = std::move(queue_.front());
        queue_.pop_front();
      }
      Result<kube::Object> created = host_.Create(kPods, kHostNs, translator_.ToHost(*pod, {}));
      CHECK(created.ok()) << created.status().ToString();
    }
  }

  kube::Client& virt_;
  kube::Client& host_;
  const syncer::PodTranslator& translator_;
  kube::Cancellation cancel_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<kube::ObjectPtr> queue_;
  bool stopping_ = false;
  std::thread watch_;
  std::vector<std::thread> workers_;
};

// Creates `n` virtual pods `prefix`-i, the i-th not before start + i / rate
// (rate 0: all at once), and waits for all on the host.
Burst Run(kube::Client& virt, Arrivals& arrivals, const std::string& prefix, int n, int workers,
          double rate) {
  std::vector<Clock::time_point> started(n);
  std::vector<std::string> names(n);
  for (int i = 0; i < n; ++i) names[i] = PodName(prefix, i);
  const Clock::time_point t0 = Clock::now();
  Parallel(n, workers, [&](int i) {
    if (rate > 0) {
      std::this_thread::sleep_until(t0 + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(i / rate)));
    }
    kube::Object pod = PodManifest(names[i]);
    started[i] = Clock::now();
    Result<kube::Object> created = virt.Create(kPods, kVirtualNs, pod);
    CHECK(created.ok()) << created.status().ToString();
  });
  CHECK(arrivals.WaitFor(names, std::chrono::seconds(600))) << "pods did not reach the host";
  Burst burst;
  Clock::time_point last = t0;
  for (int i = 0; i < n; ++i) {
    Clock::time_point at = arrivals.At(names[i]);
    last = std::max(last, at);
    burst.latencies.push_back(Seconds(at - started[i]));
  }
  burst.seconds = Seconds(last - t0);
  return burst;
}

int Main(const Options& options) {
  char tmpl[] = "/tmp/vtenant-bench-syncer-XXXXXX";
  CHECK(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl;
  Result<std::unique_ptr<localenv::LocalCluster>> host = localenv::LocalCluster::Start(
      {.dir = dir,
       .controller_manager = false,
       .node_agent = false,
       .manifests = {localenv::CrdManifest("scheduling.run.ai_podgroups.yaml")}});
  CHECK(host.ok()) << host.status().ToString();
  std::unique_ptr<kube::RestClient> host_client = UnthrottledAdminClient((*host)->api_server());
  kube::Client& host_api = *host_client;
  for (const char* ns : {kHostNs, "ceiling"}) {
    CHECK(
        host_api
            .Create(kube::resources::kNamespaces, "",
                    kube::BuildJson(kube::JsonObject{{"apiVersion", "v1"},
                                                     {"kind", "Namespace"},
                                                     {"metadata", kube::JsonObject{{"name", ns}}}}))
            .ok());
  }
  // A fresh API server builds a custom resource's storage on its first
  // request and answers 429 (Retry-After 1 s) until then. On a real host
  // KAI's scheduler watches PodGroups long before any syncer starts, so the
  // syncer's first list must not pay for it here either. (404 until the
  // new CRD is served; the client itself waits out the 429.)
  Result<kube::ObjectList> pod_groups = NotFound("not listed yet");
  for (auto deadline = Clock::now() + std::chrono::seconds(30);
       pod_groups.status().code() == StatusCode::kNotFound && Clock::now() < deadline;) {
    pod_groups = host_api.List(kube::resources::kPodGroups, kHostNs, {.limit = 1});
    if (!pod_groups.ok()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(pod_groups.ok()) << pod_groups.status().ToString();

  Result<std::unique_ptr<localenv::VirtualCluster>> vc =
      localenv::VirtualCluster::Start({.dir = dir + "/vc-nlp",
                                       .etcd_url = (*host)->etcd().client_url(),
                                       .etcd_tls = (*host)->etcd().client_tls(),
                                       .name = "nlp",
                                       .controller_manager = false});
  CHECK(vc.ok()) << vc.status().ToString();
  std::unique_ptr<kube::RestClient> virt = UnthrottledAdminClient((*vc)->api_server());
  kube::Client& virt_api = *virt;
  CHECK(virt_api
            .Create(kube::resources::kNamespaces, "",
                    Parse(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"bench"}})"))
            .ok());

  // The ceiling: the translated pods, written straight to the host.
  syncer::SyncerConfig config;
  config.tenant = "nlp";
  config.queue = "nlp";
  config.host_namespace = "ceiling";
  syncer::PodTranslator translator(config);
  Pids pids{.host_api = (*host)->api_server().pid(),
            .virtual_api = (*vc)->api_server().pid(),
            .etcd = (*host)->etcd().pid()};
  const CpuSnapshot ceiling_cpu0 = CpuOf(pids);
  const Clock::time_point c0 = Clock::now();
  Parallel(options.pods, 16, [&](int i) {
    kube::Object pod = PodManifest(PodName("ceiling", i));
    kube::SetString(pod, {"metadata"}, "uid", "uid-" + std::to_string(i));
    kube::Object host_pod = translator.ToHost(pod, {});
    Result<kube::Object> created = host_api.Create(kPods, "ceiling", host_pod);
    CHECK(created.ok()) << created.status().ToString();
  });
  const double ceiling_seconds = Seconds(Clock::now() - c0);
  const CpuSnapshot ceiling_cpu = CpuOf(pids) - ceiling_cpu0;

  Arrivals arrivals(*host_client);
  // The backlog: virtual pods that exist before the syncer starts, as after
  // a restart; then only the syncer works (the ceiling's conditions).
  std::vector<std::string> backlog_names;
  for (int i = 0; i < options.backlog; ++i) backlog_names.push_back(PodName("backlog", i));
  Parallel(options.backlog, 16, [&](int i) {
    Result<kube::Object> created =
        virt_api.Create(kPods, kVirtualNs, PodManifest(backlog_names[i]));
    CHECK(created.ok()) << created.status().ToString();
  });

  // (b): the same burst through a syncer that only creates each pod on the
  // host, on the same servers, after the same warm-up.
  Burst bound;
  CpuSnapshot bound_cpu;
  auto run_bound = [&] {
    syncer::SyncerConfig bound_config = config;
    bound_config.host_namespace = kHostNs;
    syncer::PodTranslator bound_translator(bound_config);
    MinimalSyncer minimal(virt_api, host_api, bound_translator, options.workers);
    Run(*virt, arrivals, "bound-warmup", 1, 1, 0);
    const CpuSnapshot bound_cpu0 = CpuOf(pids);
    bound = Run(*virt, arrivals, "bound", options.pods, 16, 0);
    bound_cpu = CpuOf(pids) - bound_cpu0;
  };
  if (options.bound_first) {
    run_bound();
    // Gone again on both sides, so the real syncer starts on what it would
    // have found had (b) not run: nothing of (b) left to sync.
    std::vector<std::string> names = {PodName("bound-warmup", 0)};
    for (int i = 0; i < options.pods; ++i) names.push_back(PodName("bound", i));
    Parallel(static_cast<int>(names.size()), 16, [&](int i) {
      Status v = virt_api.Delete(kPods, kVirtualNs, names[i]);
      CHECK(v.ok() || v.code() == StatusCode::kNotFound) << v.ToString();
      Status h = host_api.Delete(kPods, kHostNs, syncer::HostName(names[i], kVirtualNs, "nlp"));
      CHECK(h.ok() || h.code() == StatusCode::kNotFound) << h.ToString();
    });
  }

  Result<int> port = localenv::PickFreeLoopbackPort();
  CHECK(port.ok());
  const Clock::time_point syncer_start = Clock::now();
  Result<localenv::Process> syncer = localenv::Process::Start(
      {.argv = {options.syncer, "--tenant=nlp", "--virtual-kubeconfig=" + (*vc)->kubeconfig_path(),
                "--host-kubeconfig=" + (*host)->api_server().kubeconfig_path(),
                "--health-address=127.0.0.1:" + std::to_string(*port), "--kube-api-qps=0",
                "--pod-workers=" + std::to_string(options.workers)},
       .log_path = dir + "/syncer.log"});
  CHECK(syncer.ok()) << syncer.status().ToString();
  pids.syncer = syncer->pid();
  double backlog_seconds = 0;
  if (options.backlog > 0) {
    CHECK(arrivals.WaitFor(backlog_names, std::chrono::seconds(600))) << "backlog not synced";
    Clock::time_point last = syncer_start;
    for (const std::string& name : backlog_names) last = std::max(last, arrivals.At(name));
    backlog_seconds = Seconds(last - syncer_start);
  }
  // Warm-up: the syncer is ready once one pod made it.
  Run(*virt, arrivals, "warmup", 1, 1, 0);
  const ProcessUsage idle = UsageOf(syncer->pid());
  const CpuSnapshot burst_cpu0 = CpuOf(pids);
  Burst burst = Run(*virt, arrivals, "burst", options.pods, 16, 0);
  const CpuSnapshot burst_cpu = CpuOf(pids) - burst_cpu0;
  const ProcessUsage after_burst = UsageOf(syncer->pid());
  const double cpu_burst = after_burst.cpu_seconds - idle.cpu_seconds;
  Burst paced = Run(*virt, arrivals, "paced", options.pods, 16, options.paced_rate);
  ProcessUsage usage = UsageOf(syncer->pid());
  syncer->Stop();
  pids.syncer = 0;  // gone: nothing left to read

  if (!options.bound_first) run_bound();

  const CpuSnapshot pipeline_cpu0 = CpuOf(pids);
  const Clock::time_point p0 = Clock::now();
  Parallel(options.pods, 16, [&](int i) {
    Result<kube::Object> created =
        virt_api.Create(kPods, kVirtualNs, PodManifest(PodName("pipeline", i)));
    CHECK(created.ok()) << created.status().ToString();
    created = host_api.Create(kPods, "ceiling", translator.ToHost(*created, {}));
    CHECK(created.ok()) << created.status().ToString();
  });
  const double pipeline_seconds = Seconds(Clock::now() - p0);
  const CpuSnapshot pipeline_cpu = CpuOf(pids) - pipeline_cpu0;

  double load[3] = {0, 0, 0};
  getloadavg(load, 3);
  std::printf("\n| measurement | pods | seconds | pods/s | p50 s | p99 s |\n");
  std::printf("| --- | ---: | ---: | ---: | ---: | ---: |\n");
  std::printf(
      "| ceiling: kube/ RestClient creates the host pods, 16 threads | %d | %.2f | %.0f | | |\n",
      options.pods, ceiling_seconds, options.pods / ceiling_seconds);
  std::printf(
      "| pipeline: kube/ alone creates each pod on the virtual API server, then on the host, "
      "16 threads | %d | %.2f | %.0f | | |\n",
      options.pods, pipeline_seconds, options.pods / pipeline_seconds);
  std::printf(
      "| burst: virtual pods created at once → all on the host | %d | %.2f | %.0f | %.3f | %.3f "
      "|\n",
      options.pods, burst.seconds, options.pods / burst.seconds, Percentile(burst.latencies, 0.5),
      Percentile(burst.latencies, 0.99));
  std::printf(
      "| bound: the same burst through a syncer that only creates each pod on the host | %d | "
      "%.2f | %.0f | %.3f | %.3f |\n",
      options.pods, bound.seconds, options.pods / bound.seconds, Percentile(bound.latencies, 0.5),
      Percentile(bound.latencies, 0.99));
  if (options.backlog > 0) {
    std::printf(
        "| backlog: %d virtual pods exist, the syncer starts → all on the host | %d | %.2f | %.0f "
        "| | |\n",
        options.backlog, options.backlog, backlog_seconds, options.backlog / backlog_seconds);
  }
  std::printf("| paced at %.0f pods/s | %d | %.2f | %.0f | %.3f | %.3f |\n", options.paced_rate,
              options.pods, paced.seconds, options.pods / paced.seconds,
              Percentile(paced.latencies, 0.5), Percentile(paced.latencies, 0.99));
  const int before = options.backlog + 1;  // pods each side before the burst
  std::printf(
      "\nsyncer vs ceiling: %.0f%% in the burst, %.0f%% on the backlog; syncer RSS %.1f MiB idle "
      "(%d pods), %.1f MiB after the burst (%d pods each side), peak %.1f MiB after the paced "
      "run (%d); CPU %.2f s in the burst, %.2f s in all; load average at the end %.2f %.2f %.2f\n"
      "syncer RSS anonymous (heap, stacks) %.1f MiB idle, %.1f after the burst, %.1f at the end; "
      "%d threads\n",
      100.0 * ceiling_seconds / burst.seconds,
      options.backlog > 0
          ? 100.0 * ceiling_seconds / backlog_seconds * options.backlog / options.pods
          : 0.0,
      idle.rss_mib, before, after_burst.rss_mib, before + options.pods, usage.peak_rss_mib,
      before + 2 * options.pods, cpu_burst, usage.cpu_seconds, load[0], load[1], load[2],
      idle.anon_mib, after_burst.anon_mib, usage.anon_mib, usage.threads);
  std::printf(
      "\n(a)/(b): burst through the syncer / burst through a syncer that only creates: %.0f%% "
      "(%.2f s against %.2f s; %s ran first); CPU s in (b): host API server %.2f, virtual API "
      "server %.2f, "
      "etcd %.2f, benchmark client and the create-only syncer %.2f\n",
      100.0 * bound.seconds / burst.seconds, burst.seconds, bound.seconds,
      options.bound_first ? "(b)" : "(a)", bound_cpu.host_api, bound_cpu.virtual_api,
      bound_cpu.etcd, bound_cpu.bench);
  // With the syncer's CPU taken out and everything else as it was, the
  // burst could not end before the others' CPU fits on the machine's cores.
  const double cores = static_cast<double>(std::thread::hardware_concurrency());
  const double floor_seconds = (burst_cpu.Total() - burst_cpu.syncer) / cores;
  std::printf(
      "CPU s in the ceiling (%.2f s): host API server %.2f, etcd %.2f, benchmark client %.2f; "
      "total %.2f = %.0f%% of %.0f cores\n"
      "CPU s in the burst (%.2f s): host API server %.2f, virtual API server %.2f, etcd %.2f, "
      "benchmark client %.2f, syncer %.2f; total %.2f = %.0f%% of %.0f cores\n"
      "without the syncer's CPU the others' %.2f CPU s need at least %.2f s on %.0f cores: "
      "a burst at most %.0f%% of the ceiling on this machine\n"
      "CPU s in the pipeline (%.2f s): host API server %.2f, virtual API server %.2f, etcd %.2f, "
      "benchmark client %.2f; total %.2f = %.0f%% of %.0f cores; burst / pipeline %.0f%%\n",
      ceiling_seconds, ceiling_cpu.host_api, ceiling_cpu.etcd, ceiling_cpu.bench,
      ceiling_cpu.Total(), 100.0 * ceiling_cpu.Total() / (ceiling_seconds * cores), cores,
      burst.seconds, burst_cpu.host_api, burst_cpu.virtual_api, burst_cpu.etcd, burst_cpu.bench,
      burst_cpu.syncer, burst_cpu.Total(), 100.0 * burst_cpu.Total() / (burst.seconds * cores),
      cores, burst_cpu.Total() - burst_cpu.syncer, floor_seconds, cores,
      100.0 * ceiling_seconds / floor_seconds, pipeline_seconds, pipeline_cpu.host_api,
      pipeline_cpu.virtual_api, pipeline_cpu.etcd, pipeline_cpu.bench, pipeline_cpu.Total(),
      100.0 * pipeline_cpu.Total() / (pipeline_seconds * cores), cores,
      100.0 * pipeline_seconds / burst.seconds);
  (*vc)->Stop();
  (*host)->Stop();
  if (std::getenv("VTENANT_KEEP_TEST_DIRS") == nullptr) {
    std::filesystem::remove_all(dir);
  } else {
    std::printf("kept %s (the syncer's log is syncer.log)\n", dir.c_str());
  }
  return 0;
}

}  // namespace
}  // namespace vtenant::bench

int main(int argc, char** argv) {
  FLAGS_logtostderr = true;
  google::InitGoogleLogging(argv[0]);
  return vtenant::bench::Main(vtenant::ParseFlagsOrExit<vtenant::bench::Options>(
      "bench_syncer", argc, argv, vtenant::bench::ParseOptions, vtenant::bench::kUsage));
}
