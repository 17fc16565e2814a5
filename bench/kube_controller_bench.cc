// bench_kube_controller: what an informer costs in memory and how fast a
// controller drains its keys, against a local kube-apiserver.
//
//   bench_kube_controller [--pods=10000] [--workers=2]
//
// Starts etcd + kube-apiserver on loopback (localenv), creates `pods` Pods
// (small ones, as a syncer's host namespace holds: labels, one container,
// resource requests), then measures:
//   - an informer holding them: the process's resident memory before the
//     informer and after its sync, per object, beside the objects' own JSON
//     size as the server sent them;
//   - a no-op Reconciler behind a Controller over that informer: keys
//     reconciled per second from Run until every pod's key was reconciled.
// Prints a Markdown table for bench/RESULTS.md.
#include <glog/logging.h>
#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "base/flags.h"
#include "base/testing/temp_dir.h"
#include "kube/controller.h"
#include "kube/informer.h"
#include "kube/json_builder.h"
#include "kube/rest_client.h"
#include "localenv/local_cluster.h"

namespace vtenant::bench {
namespace {

using Clock = std::chrono::steady_clock;
using kube::Object;
namespace res = kube::resources;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Resident set size of this process in bytes (/proc/self/statm), after
// handing freed heap back to the system so that only live memory counts.
int64_t ResidentBytes() {
  malloc_trim(0);
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

// A pod as the syncer writes it to the host: labels, annotations, one
// container with requests. syncer_bench.cc's PodManifest is the team's pod
// before translation: alike in form only.
Object PodManifest(int i) {
  using kube::JsonArray;
  using kube::JsonObject;
  const std::string name = "pod-" + std::to_string(i);
  return kube::BuildJson(JsonObject{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", JsonObject{{"name", name},
                              {"labels", JsonObject{{"app", "bench"},
                                                    {"vtenant.io/tenant", "nlp"},
                                                    {"vtenant.io/managed-by", "vtenant-syncer"}}},
                              {"annotations", JsonObject{{"gpu-fraction", "0.33"},
                                                         {"vtenant.io/virtual-name", name}}}}},
      {"spec",
       JsonObject{
           {"schedulerName", "kai-scheduler"},
           {"containers",
            JsonArray{JsonObject{
                {"name", "main"},
                {"image", "registry.example/trainer:v1"},
                {"resources",
                 JsonObject{{"requests", JsonObject{{"cpu", "100m"}, {"memory", "128Mi"}}}}}}}}}}});
}

class NoOpReconciler : public kube::Reconciler {
 public:
  explicit NoOpReconciler(size_t expected) : expected_(expected) {}
  Result<kube::ReconcileResult> Reconcile(const std::string& key) override {
    std::lock_guard lock(mu_);
    if (seen_.insert(key).second && seen_.size() == expected_) done_at_ = Clock::now();
    return kube::ReconcileResult{};
  }
  std::optional<Clock::time_point> DoneAt() {
    std::lock_guard lock(mu_);
    return done_at_;
  }

 private:
  const size_t expected_;
  std::mutex mu_;
  std::unordered_set<std::string> seen_;
  std::optional<Clock::time_point> done_at_;
};

struct Options {
  bool help = false;
  int pods = 10000;
  int workers = 2;
};

const char kUsage[] =
    "usage: bench_kube_controller [--pods=10000] [--workers=2]\n"
    "An informer's memory per pod and a no-op controller's keys per second over N pods\n"
    "on a local kube-apiserver.\n";

// The flags (base/flags.h's syntax), a table like every tool's: alike in
// form on purpose, the flags differ.
Result<Options> ParseOptions(const std::vector<std::string>& args) {
  Options o;
  VT_ASSIGN_OR_RETURN(SplitCommandLine split,
                      ApplyFlags(args, {WholeNumberFlag("pods", &o.pods, 1, 1000000),
                                        WholeNumberFlag("workers", &o.workers, 1, 1000000)}));
  o.help = split.help;
  return o;
}

Status Run(int pods, int workers) {
  // Removed on every return, after the cluster (declared below it) stops.
  const TempDir dir("vtenant-bench-controller");
  VT_ASSIGN_OR_RETURN(std::unique_ptr<localenv::LocalCluster> cluster,
                      localenv::LocalCluster::Start(
                          {.dir = dir.path(), .controller_manager = false, .node_agent = false}));
  kube::RestConfig config = cluster->api_server().admin_config();
  config.qps = 0;
  VT_ASSIGN_OR_RETURN(std::unique_ptr<kube::RestClient> client, kube::RestClient::Create(config));
  const std::string ns = "bench";
  VT_ASSIGN_OR_RETURN(Object namespace_doc, kube::ParseJson(R"({"metadata":{"name":"bench"}})"));
  VT_RETURN_IF_ERROR(client->Create(res::kNamespaces, "", namespace_doc).status());
  // The default ServiceAccount must exist before pods are admitted.
  VT_ASSIGN_OR_RETURN(Object sa,
                      kube::ParseJson(R"({"metadata":{"name":"default","namespace":"bench"}})"));
  Status sa_status = client->Create(res::kServiceAccounts, ns, sa).status();
  if (!sa_status.ok() && sa_status.code() != StatusCode::kAlreadyExists) return sa_status;

  std::cerr << "creating " << pods << " pods\n";
  std::atomic<int> next{0};
  std::atomic<bool> failed{false};
  std::string failure;
  std::mutex failure_mu;
  std::vector<std::thread> threads;
  const auto create_start = Clock::now();
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&] {
      for (int i; (i = next++) < pods && !failed;) {
        Status s = client->Create(res::kPods, ns, PodManifest(i)).status();
        if (!s.ok()) {
          std::lock_guard lock(failure_mu);
          failed = true;
          failure = s.ToString();
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  if (failed) return Internal("creating pods: " + failure);
  std::cerr << "created in " << Seconds(Clock::now() - create_start) << " s\n";

  // Memory: what the informer holds once synced (its cache, indexes and
  // queues), the list's pages freed and trimmed away.
  int64_t json_bytes = 0;
  {
    VT_ASSIGN_OR_RETURN(kube::ObjectList list, client->ListAll(res::kPods, ns, {.limit = 500}));
    if (static_cast<int>(list.items.size()) != pods) return Internal("list size mismatch");
    for (const Object& pod : list.items)
      json_bytes += static_cast<int64_t>(kube::ToJson(pod).size());
  }
  const int64_t rss_before = ResidentBytes();
  kube::Registry registry;
  kube::SharedInformer informer(*client, res::kPods, {.ns = ns, .registry = &registry});
  const auto sync_start = Clock::now();
  VT_RETURN_IF_ERROR(informer.Run());
  if (!informer.WaitForSynced(std::chrono::minutes(5))) return Internal("informer never synced");
  const double sync_seconds = Seconds(Clock::now() - sync_start);
  const int64_t rss_after = ResidentBytes();

  // A no-op controller over the synced informer: every key once.
  NoOpReconciler reconciler(static_cast<size_t>(pods));
  kube::Controller controller({.name = "noop", .workers = workers, .registry = &registry},
                              reconciler);
  controller.Watch(informer);  // a late handler: gets every cached pod as an add
  const auto reconcile_start = Clock::now();
  std::thread runner([&] { controller.Run(); });
  while (!reconciler.DoneAt()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const double reconcile_seconds = Seconds(*reconciler.DoneAt() - reconcile_start);
  controller.Stop();
  runner.join();
  informer.Stop();

  const double per_object = static_cast<double>(rss_after - rss_before) / pods;
  std::printf("| measurement | value |\n|---|---|\n");
  std::printf("| pods | %d |\n", pods);
  std::printf("| informer initial sync (list pages of 500) | %.2f s |\n", sync_seconds);
  std::printf("| RSS growth holding the informer | %.1f MiB |\n",
              (rss_after - rss_before) / (1024.0 * 1024.0));
  std::printf("| bytes per object in memory | %.0f |\n", per_object);
  std::printf("| object's JSON size (mean, compact) | %.0f |\n",
              static_cast<double>(json_bytes) / pods);
  std::printf("| no-op controller, %d workers: keys reconciled per second | %.0f |\n", workers,
              pods / reconcile_seconds);
  return Status::Ok();
}

}  // namespace
}  // namespace vtenant::bench

int main(int argc, char** argv) {
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  FLAGS_minloglevel = 1;
  const vtenant::bench::Options options = vtenant::ParseFlagsOrExit<vtenant::bench::Options>(
      "bench_kube_controller", argc, argv, vtenant::bench::ParseOptions, vtenant::bench::kUsage);
  vtenant::Status status = vtenant::bench::Run(options.pods, options.workers);
  if (!status.ok()) {
    std::cerr << status.ToString() << "\n";
    return 1;
  }
  return 0;
}
