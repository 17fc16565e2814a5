// bench_kube_client: how fast the kube/ client creates objects and receives
// watch events against a local kube-apiserver, side by side with the real
// kubectl doing the same creates, in one run on one machine.
//
//   bench_kube_client [--objects=2000] [--kubectl-objects=100]
//                     [--concurrency=1,4,16] [--connections=50]
//                     [--only=connections]
//
// Starts etcd + kube-apiserver on loopback (localenv), then measures:
//   - ConfigMaps created per second through RestClient at each concurrency
//     (one shared client, rate limiter off), and once with the default
//     client-side limit (100 qps, burst 200) to show what it caps;
//   - the same ConfigMaps created by `kubectl create -f -` of one List, and
//     by one `kubectl create -f -` process per object;
//   - watch events per second: live (events of creates as they happen, with
//     create-to-event latency) and replayed (a watch from resourceVersion 0
//     over every existing object), and an informer's initial sync;
//   - the CPU this process spends per new TLS connection: `--connections`
//     fresh clients, one GET each (every client opens its own connection),
//     against the same GETs over one warm connection. `--only=connections`
//     runs just this.
// Prints a Markdown table for bench/RESULTS.md. Each number here is one timed
// run of a bulk operation, not a micro-benchmark loop.
#include <glog/logging.h>
#include <sys/resource.h>
#include <sys/utsname.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/flags.h"
#include "kube/informer.h"
#include "kube/json_builder.h"
#include "kube/rest_client.h"
#include "localenv/command.h"
#include "localenv/local_cluster.h"
#include "localenv/tools.h"

namespace vtenant::bench {
namespace {

using Clock = std::chrono::steady_clock;
using kube::Object;
namespace res = kube::resources;

struct Options {
  bool help = false;
  int objects = 2000;
  int kubectl_objects = 100;
  std::vector<int> concurrency = {1, 4, 16};
  int connections = 50;
  bool only_connections = false;
};

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

Object ConfigMapManifest(const std::string& name, const std::string& ns) {
  using kube::JsonObject;
  return kube::BuildJson(JsonObject{
      {"apiVersion", "v1"},
      {"kind", "ConfigMap"},
      {"metadata",
       JsonObject{{"name", name}, {"namespace", ns}, {"labels", JsonObject{{"app", "bench"}}}}},
      {"data", JsonObject{{"gpu", "l40s"}, {"share", "0.5"}}}});
}

std::string Name(int i) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "cm-%05d", i);
  return buffer;
}

// One row of the results table.
struct Row {
  std::string what;
  int count;
  double seconds;
  std::string note;
};

void Print(const std::vector<Row>& rows) {
  std::cout << "\n| measurement | objects/events | seconds | per second | notes |\n"
            << "| --- | ---: | ---: | ---: | --- |\n";
  for (const Row& r : rows) {
    char line[512];
    std::snprintf(line, sizeof(line), "| %s | %d | %.2f | %.0f | %s |\n", r.what.c_str(), r.count,
                  r.seconds, r.seconds > 0 ? r.count / r.seconds : 0.0, r.note.c_str());
    std::cout << line;
  }
  std::cout.flush();
}

std::string FirstLineWith(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) == 0) {
      size_t colon = line.find(':');
      std::string value = colon == std::string::npos ? line : line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      return value;
    }
  }
  return "unknown";
}

void PrintMachine(const std::string& kubectl) {
  utsname u{};
  uname(&u);
  std::cout << "machine: nproc=" << std::thread::hardware_concurrency()
            << ", cpu=" << FirstLineWith("/proc/cpuinfo", "model name")
            << ", memory=" << FirstLineWith("/proc/meminfo", "MemTotal") << ", kernel=" << u.release
            << "\n";
  Result<localenv::CommandResult> version = localenv::RunCommand({kubectl, "version", "--client"});
  if (version.ok()) std::cout << "kubectl: " << version->out.substr(0, version->out.find('\n'));
  std::cout << "\n";
}

Status CreateNamespace(kube::Client& client, const std::string& ns) {
  return client
      .Create(res::kNamespaces, "",
              kube::BuildJson(kube::JsonObject{{"metadata", kube::JsonObject{{"name", ns}}}}))
      .status();
}

std::unique_ptr<kube::Client> NewClient(const kube::RestConfig& base, bool rate_limited) {
  kube::RestConfig config = base;
  if (!rate_limited) config.qps = 0;
  Result<std::unique_ptr<kube::RestClient>> client = kube::RestClient::Create(config);
  CHECK(client.ok()) << client.status().ToString();
  return std::move(client).value();
}

// Creates `count` ConfigMaps in `ns` from `threads` threads sharing `client`.
// Calls `before_create(i)` just before each request. Returns the elapsed time.
Result<Clock::duration> CreateMany(kube::Client& client, const std::string& ns, int count,
                                   int threads,
                                   const std::function<void(int)>& before_create = nullptr) {
  std::vector<Object> docs;
  docs.reserve(count);
  for (int i = 0; i < count; ++i) {
    docs.push_back(ConfigMapManifest(Name(i), ns));
  }
  std::atomic<int> next{0};
  std::mutex mu;
  Status failure;
  const Clock::time_point start = Clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      for (int i; (i = next++) < count;) {
        if (before_create) before_create(i);
        Status s = client.Create(res::kConfigMaps, ns, docs[i]).status();
        if (!s.ok()) {
          std::lock_guard lock(mu);
          failure = s;
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  const Clock::duration elapsed = Clock::now() - start;
  if (!failure.ok()) return failure;
  return elapsed;
}

Status CheckCount(kube::Client& client, const std::string& ns, int expected) {
  VT_ASSIGN_OR_RETURN(kube::ObjectList list, client.ListAll(res::kConfigMaps, ns, {.limit = 500}));
  if (static_cast<int>(list.items.size()) != expected) {
    return Internal(ns + " holds " + std::to_string(list.items.size()) + " ConfigMaps, expected " +
                    std::to_string(expected));
  }
  return Status::Ok();
}

std::string Percentiles(std::vector<double> ms) {
  if (ms.empty()) return "";
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) {
    return ms[std::min(ms.size() - 1, static_cast<size_t>(q * ms.size()))];
  };
  char out[128];
  std::snprintf(out, sizeof(out), "create-to-event latency p50 %.1f ms, p99 %.1f ms, max %.1f ms",
                at(0.5), at(0.99), ms.back());
  return out;
}

// CPU seconds this process has used so far, all threads (cpprestsdk's I/O
// threads do the TLS work).
double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// `count` GETs, each by a fresh client (so over a new TLS connection), and
// the same GETs over one warm connection; the difference in CPU per GET is
// what a new connection costs this process.
Result<Row> NewConnections(const kube::RestConfig& admin, int count) {
  const kube::ListOptions one{.limit = 1};
  std::unique_ptr<kube::Client> warm = NewClient(admin, false);
  VT_RETURN_IF_ERROR(warm->List(res::kNamespaces, "", one).status());
  double cpu = ProcessCpuSeconds();
  for (int i = 0; i < count; ++i)
    VT_RETURN_IF_ERROR(warm->List(res::kNamespaces, "", one).status());
  const double warm_cpu = ProcessCpuSeconds() - cpu;
  cpu = ProcessCpuSeconds();
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < count; ++i) {
    std::unique_ptr<kube::Client> fresh = NewClient(admin, false);
    VT_RETURN_IF_ERROR(fresh->List(res::kNamespaces, "", one).status());
  }
  const Clock::duration elapsed = Clock::now() - start;
  const double fresh_cpu = ProcessCpuSeconds() - cpu;
  char note[256];
  std::snprintf(note, sizeof(note),
                "CPU per GET: %.1f ms on a new connection, %.1f ms on a warm one; "
                "a new connection costs %.1f ms of CPU",
                1e3 * fresh_cpu / count, 1e3 * warm_cpu / count,
                1e3 * (fresh_cpu - warm_cpu) / count);
  return Row{"GET over a new TLS connection (a fresh client each)", count, Seconds(elapsed), note};
}

Status Run(const Options& options) {
  const std::string dir =
      std::filesystem::temp_directory_path() / ("vtenant-bench-kube-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  VT_ASSIGN_OR_RETURN(std::unique_ptr<localenv::LocalCluster> cluster,
                      localenv::LocalCluster::Start(
                          {.dir = dir, .controller_manager = false, .node_agent = false}));
  VT_ASSIGN_OR_RETURN(std::string kubectl, localenv::FindTool("kubectl"));
  PrintMachine(kubectl);
  const kube::RestConfig& admin = cluster->api_server().admin_config();
  const std::string kubeconfig = cluster->api_server().kubeconfig_path();
  std::vector<Row> rows;
  const int n = options.objects;
  // The last row of every run, and the only one of --only=connections.
  auto connections_then_finish = [&]() -> Status {
    VT_ASSIGN_OR_RETURN(Row row, NewConnections(admin, options.connections));
    rows.push_back(row);
    Print(rows);
    cluster->Stop();
    std::filesystem::remove_all(dir);
    return Status::Ok();
  };
  if (options.only_connections) return connections_then_finish();

  // Warm-up: the first requests pay for TLS handshakes and the API server's
  // first-use caches; nobody's numbers should include that.
  {
    std::unique_ptr<kube::Client> client = NewClient(admin, false);
    VT_RETURN_IF_ERROR(CreateNamespace(*client, "bench-warmup"));
    VT_RETURN_IF_ERROR(CreateMany(*client, "bench-warmup", 200, 4).status());
  }

  // 1. Creates through this client.
  std::string largest_ns;
  for (int threads : options.concurrency) {
    std::unique_ptr<kube::Client> client = NewClient(admin, false);
    const std::string ns = "bench-client-c" + std::to_string(threads);
    VT_RETURN_IF_ERROR(CreateNamespace(*client, ns));
    VT_ASSIGN_OR_RETURN(Clock::duration elapsed, CreateMany(*client, ns, n, threads));
    VT_RETURN_IF_ERROR(CheckCount(*client, ns, n));
    rows.push_back({"kube::RestClient create, " + std::to_string(threads) + " thread(s)", n,
                    Seconds(elapsed), "one shared client, rate limiter off"});
    largest_ns = ns;
  }
  {
    std::unique_ptr<kube::Client> client = NewClient(admin, true);
    const std::string ns = "bench-client-limited";
    VT_RETURN_IF_ERROR(CreateNamespace(*client, ns));
    const int threads = options.concurrency.back();
    VT_ASSIGN_OR_RETURN(Clock::duration elapsed, CreateMany(*client, ns, n, threads));
    VT_RETURN_IF_ERROR(CheckCount(*client, ns, n));
    rows.push_back(
        {"kube::RestClient create, " + std::to_string(threads) + " threads, default limiter", n,
         Seconds(elapsed), "qps 100, burst 200 (RestConfig defaults)"});
  }

  // 2. The same creates by kubectl.
  std::unique_ptr<kube::Client> checker = NewClient(admin, false);
  {
    const std::string ns = "bench-kubectl-list";
    VT_RETURN_IF_ERROR(CreateNamespace(*checker, ns));
    kube::JsonArray items;
    for (int i = 0; i < n; ++i) items.Add(kube::JsonValue(ConfigMapManifest(Name(i), ns)));
    const std::string list = kube::ToJson(kube::BuildJson(
        kube::JsonObject{{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(items)}}));
    const Clock::time_point start = Clock::now();
    VT_ASSIGN_OR_RETURN(
        localenv::CommandResult r,
        localenv::RunCommand(
            {kubectl, "--kubeconfig=" + kubeconfig, "create", "-f", "-", "-o", "name"}, list));
    const Clock::duration elapsed = Clock::now() - start;
    if (r.exit_code != 0) return Internal("kubectl create of a List failed: " + r.err);
    VT_RETURN_IF_ERROR(CheckCount(*checker, ns, n));
    const bool throttled = r.err.find("client-side throttling") != std::string::npos;
    rows.push_back({"kubectl create -f (one List)", n, Seconds(elapsed),
                    std::string("one process; sequential POSTs") +
                        (throttled ? "; reported client-side throttling" : "")});
  }
  {
    const std::string ns = "bench-kubectl-each";
    VT_RETURN_IF_ERROR(CreateNamespace(*checker, ns));
    const int m = options.kubectl_objects;
    const Clock::time_point start = Clock::now();
    for (int i = 0; i < m; ++i) {
      VT_ASSIGN_OR_RETURN(localenv::CommandResult r,
                          localenv::RunCommand({kubectl, "--kubeconfig=" + kubeconfig, "create",
                                                "-f", "-", "-o", "name"},
                                               kube::ToJson(ConfigMapManifest(Name(i), ns))));
      if (r.exit_code != 0) return Internal("kubectl create failed: " + r.err);
    }
    const Clock::duration elapsed = Clock::now() - start;
    VT_RETURN_IF_ERROR(CheckCount(*checker, ns, m));
    rows.push_back({"kubectl create -f, one process per object", m, Seconds(elapsed),
                    "sequential, as a shell loop would"});
  }

  // 3. Watch events: live, as creates happen.
  {
    const std::string ns = "bench-watch-live";
    VT_RETURN_IF_ERROR(CreateNamespace(*checker, ns));
    VT_ASSIGN_OR_RETURN(kube::ObjectList start_list, checker->List(res::kConfigMaps, ns));
    std::unique_ptr<kube::Client> watcher = NewClient(admin, false);
    std::vector<Clock::time_point> sent(n), received(n);
    std::mutex mu;
    std::condition_variable cv;
    int seen = 0;
    kube::Cancellation cancel;
    Status watch_status;
    std::thread watch([&] {
      watch_status = watcher->Watch(
          res::kConfigMaps, ns, {.resource_version = start_list.resource_version},
          [&](kube::WatchEvent& e) {
            if (e.type != kube::WatchEvent::Type::kAdded) return true;
            const Clock::time_point now = Clock::now();
            const int i = std::stoi(std::string(kube::Name(e.object)).substr(3));
            std::lock_guard lock(mu);
            received[i] = now;
            if (++seen == n) cv.notify_all();
            return seen < n;
          },
          &cancel);
    });
    const int threads = options.concurrency.back();
    std::unique_ptr<kube::Client> creator = NewClient(admin, false);
    const Clock::time_point start = Clock::now();
    Result<Clock::duration> created = CreateMany(*creator, ns, n, threads, [&](int i) {
      sent[i] = Clock::now();  // each index is written by one thread only
    });
    bool complete;
    {
      std::unique_lock lock(mu);
      complete = cv.wait_for(lock, std::chrono::minutes(2), [&] { return seen == n; });
    }
    cancel.Cancel();
    watch.join();
    VT_RETURN_IF_ERROR(created.status());
    if (!complete) return Internal("the live watch missed events: " + watch_status.ToString());
    const Clock::time_point last = *std::max_element(received.begin(), received.end());
    std::vector<double> latency_ms;
    for (int i = 0; i < n; ++i) {
      latency_ms.push_back(
          std::chrono::duration<double, std::milli>(received[i] - sent[i]).count());
    }
    rows.push_back({"watch events, live (" + std::to_string(threads) + " creating threads)", n,
                    Seconds(last - start), Percentiles(latency_ms)});
  }

  // 4. Watch events: replayed from resourceVersion 0 over existing objects.
  {
    std::unique_ptr<kube::Client> watcher = NewClient(admin, false);
    int seen = 0;
    const Clock::time_point start = Clock::now();
    Status s = watcher->Watch(
        res::kConfigMaps, largest_ns, {.resource_version = "0"},
        [&](kube::WatchEvent& e) {
          if (e.type == kube::WatchEvent::Type::kAdded) ++seen;
          return seen < n;
        },
        nullptr);
    const Clock::duration elapsed = Clock::now() - start;
    VT_RETURN_IF_ERROR(s);
    if (seen != n) return Internal("the replayed watch gave " + std::to_string(seen) + " events");
    rows.push_back({"watch events, replayed from resourceVersion 0", n, Seconds(elapsed),
                    "synthetic ADDED per existing object, one stream"});
  }

  // 5. An informer's initial sync: paginated list into the cache, handlers told.
  {
    std::unique_ptr<kube::Client> client = NewClient(admin, false);
    kube::SharedInformer informer(*client, res::kConfigMaps, {.ns = largest_ns});
    std::atomic<int> adds{0};
    informer.AddEventHandler({.on_add = [&](const kube::ObjectPtr&) { ++adds; }});
    const Clock::time_point start = Clock::now();
    VT_RETURN_IF_ERROR(informer.Run());
    if (!informer.WaitForSynced(std::chrono::minutes(2))) return Internal("informer never synced");
    const Clock::duration elapsed = Clock::now() - start;
    informer.Stop();
    if (adds.load() != n) return Internal("informer delivered " + std::to_string(adds.load()));
    rows.push_back({"SharedInformer initial sync (pages of 500)", n, Seconds(elapsed),
                    "list + cache + on_add for each"});
  }

  // 6. New TLS connections.
  return connections_then_finish();
}

const char kUsage[] =
    "usage: bench_kube_client [--objects=2000] [--kubectl-objects=100] [--concurrency=1,4,16]\n"
    "                         [--connections=50] [--only=connections]\n"
    "Times the kube/ client's creates, watches and new TLS connections against a local\n"
    "kube-apiserver, beside kubectl doing the same creates.\n";

// The flags (base/flags.h's syntax), a table like every tool's: alike in
// form on purpose, the flags differ.
Result<Options> ParseOptions(const std::vector<std::string>& args) {
  Options o;
  VT_ASSIGN_OR_RETURN(
      SplitCommandLine split,
      ApplyFlags(args, {WholeNumberFlag("objects", &o.objects, 1, 1000000),
                        WholeNumberFlag("kubectl-objects", &o.kubectl_objects, 1, 1000000),
                        WholeNumberFlag("connections", &o.connections, 1, 1000000),
                        {"concurrency",
                         [&o](const std::string& v) {
                           // A comma-separated list of thread counts, each run in turn.
                           o.concurrency.clear();
                           std::stringstream items(v);
                           for (std::string item; std::getline(items, item, ',');) {
                             VT_ASSIGN_OR_RETURN(
                                 int64_t n, ParseWholeNumberFlag("concurrency", item, 1, 1024));
                             o.concurrency.push_back(static_cast<int>(n));
                           }
                           if (o.concurrency.empty())
                             return InvalidArgument("--concurrency needs a thread count");
                           return Status::Ok();
                         }},
                        {"only", [&o](const std::string& v) {
                           if (v != "connections")
                             return InvalidArgument("--only takes only \"connections\"");
                           o.only_connections = true;
                           return Status::Ok();
                         }}}));
  o.help = split.help;
  return o;
}

}  // namespace
}  // namespace vtenant::bench

int main(int argc, char** argv) {
  google::InitGoogleLogging(argv[0]);
  FLAGS_minloglevel = 1;  // warnings and errors only: stdout is the report
  const vtenant::bench::Options options = vtenant::ParseFlagsOrExit<vtenant::bench::Options>(
      "bench_kube_client", argc, argv, vtenant::bench::ParseOptions, vtenant::bench::kUsage);
  vtenant::Status status = vtenant::bench::Run(options);
  if (!status.ok()) {
    std::cerr << "bench_kube_client: " << status.ToString() << "\n";
    return 1;
  }
  return 0;
}
