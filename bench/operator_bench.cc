// bench_operator: seconds from Tenant created to Ready with the process
// backend, for one tenant and for N created at once, and resident memory per
// tenant (kube-apiserver + kube-controller-manager + vtenant-syncer).
//
// Runs a host cluster on loopback (etcd + kube-apiserver) with the chart's
// CRDs and accounts, the real vtenant-operator binary against it, and the
// tenants' control planes it starts. Results: bench/RESULTS.md. Exits 1
// when a tenant was not Ready within 10 minutes.
//
//   build/bench/bench_operator [--tenants 20] [--operator build/operator/vtenant-operator]
//       [--starting-apiservers N]   (passed to the operator; default: the operator's)
#include <glog/logging.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

#include "base/file.h"
#include "base/flags.h"
#include "kube/json_builder.h"
#include "kube/object.h"
#include "localenv/chart_accounts.h"
#include "localenv/environment_processes.h"
#include "localenv/local_cluster.h"
#include "localenv/process.h"
#include "localenv/testing/source_tree.h"
#include "operator/state_layout.h"

namespace fs = std::filesystem;
using namespace vtenant;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  bool help = false;
  int many = 20;                    // --tenants: the N created at once (0: only the one)
  std::string starting_apiservers;  // "": the operator's default
  std::string operator_binary = (fs::canonical("/proc/self/exe").parent_path().parent_path() /
                                 "operator" / "vtenant-operator")
                                    .string();
};

const char kUsage[] =
    "usage: bench_operator [--tenants N (default 20)] [--operator PATH]\n"
    "                      [--starting-apiservers N (default: the operator's)]\n"
    "Times Tenant created -> Ready (process backend) for 1 and for N tenants at once,\n"
    "and resident memory per tenant.\n"
    "Environment: VTENANT_SOURCE_DIR, VTENANT_TOOLS_BIN, VTENANT_SYNCER_BINARY.\n";

// The flags (base/flags.h's syntax), a table like every tool's: alike in
// form on purpose, the flags differ.
Result<Options> ParseOptions(const std::vector<std::string>& args) {
  Options o;
  VT_ASSIGN_OR_RETURN(
      SplitCommandLine split,
      ApplyFlags(args, {TextFlag("operator", &o.operator_binary),
                        WholeNumberFlag("tenants", &o.many, 0, 1000),
                        {"starting-apiservers", [&o](const std::string& v) {
                           VT_RETURN_IF_ERROR(
                               ParseWholeNumberFlag("starting-apiservers", v, 1, 1000).status());
                           o.starting_apiservers = v;  // passed on as given
                           return Status::Ok();
                         }}}));
  o.help = split.help;
  return o;
}

// VmRSS of `pid` in MB (10^6 bytes), 0 if gone.
double RssMb(int pid) {
  std::string status = ReadFileOrEmpty("/proc/" + std::to_string(pid) + "/status");
  size_t at = status.find("VmRSS:");
  if (at == std::string::npos) return 0;
  return std::stod(status.substr(at + 6)) * 1024 / 1e6;
}

// CPU seconds `pid` has used (user + system).
double CpuSeconds(int pid) {
  std::string stat = ReadFileOrEmpty("/proc/" + std::to_string(pid) + "/stat");
  size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream fields(stat.substr(paren + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; fields >> field && i <= 15; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(field);  // utime, stime
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

kube::Object Json(const std::string& text) { return std::move(kube::ParseJson(text)).value(); }

// A Tenant under bench-org with a small GPU quota, on the process backend.
kube::Object TenantManifest(const std::string& name) {
  using kube::JsonObject;
  return kube::BuildJson(JsonObject{
      {"apiVersion", "vtenant.io/v1alpha1"},
      {"kind", "Tenant"},
      {"metadata", JsonObject{{"name", name}}},
      {"spec",
       JsonObject{
           {"queue", JsonObject{{"parentQueue", "bench-org"},
                                {"resources",
                                 JsonObject{{"gpu", JsonObject{{"quota", 0.05}, {"limit", 1}}}}}}},
           {"controlPlane", JsonObject{{"backend", "process"}}}}}});
}

// Creates `names` at once and returns each one's seconds to Ready. Polls
// with one list every 100 ms (not one GET per tenant), so the benchmark
// itself costs the host API server little CPU.
std::vector<double> TimeToReady(kube::Client& client, const std::vector<std::string>& names) {
  const auto start = Clock::now();
  for (const auto& n : names) {
    Status s = client.Create(kube::resources::kTenants, "", TenantManifest(n)).status();
    CHECK(s.ok()) << s.ToString();
  }
  std::map<std::string, double> seconds;
  for (const auto& n : names) seconds[n] = -1;
  size_t ready = 0;
  while (ready < names.size() && Clock::now() - start < std::chrono::minutes(10)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    Result<kube::ObjectList> list = client.List(kube::resources::kTenants, "");
    if (!list.ok()) continue;
    const double now = std::chrono::duration<double>(Clock::now() - start).count();
    for (const auto& t : list->items) {
      auto it = seconds.find(std::string(kube::Name(t)));
      if (it == seconds.end() || it->second >= 0) continue;
      if (kube::GetString(t, {"status", "phase"}) != "Ready") continue;
      it->second = now;
      ++ready;
    }
  }
  std::vector<double> out;
  for (const auto& n : names) out.push_back(seconds[n]);
  return out;
}

// Prints one line of times to Ready; returns whether every tenant was.
bool Report(const std::string& what, std::vector<double> s) {
  std::sort(s.begin(), s.end());
  const bool all = !s.empty() && s.front() >= 0;
  std::printf("%s: %zu tenants, %s; first %.1f s, median %.1f s, last %.1f s\n", what.c_str(),
              s.size(), all ? "all Ready" : "NOT all Ready within 10 min", s.front(),
              s[s.size() / 2], s.back());
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  FLAGS_logtostderr = true;
  google::InitGoogleLogging(argv[0]);
  const Options options =
      ParseFlagsOrExit<Options>("bench_operator", argc, argv, ParseOptions, kUsage);
  const int many = options.many;
  const std::string& operator_binary = options.operator_binary;
  const std::string& starting_apiservers = options.starting_apiservers;

  std::string tmpl = "/tmp/vtenant-bench-operator-XXXXXX";
  CHECK(mkdtemp(tmpl.data()) != nullptr);
  const fs::path dir = tmpl;
  // With the chart's CRDs: Tenants, Queues, and PodGroups, which the
  // syncers keep on the host for gangs.
  Result<std::unique_ptr<localenv::LocalCluster>> cluster =
      localenv::LocalCluster::Start({.dir = (dir / "host").string(),
                                     .controller_manager = false,
                                     .node_agent = false,
                                     .manifests = localenv::CrdManifests()});
  CHECK(cluster.ok()) << cluster.status().ToString();
  kube::Client& client = (*cluster)->client();
  // The operator runs as the chart's ServiceAccount with the chart's rights
  // (and the syncers with theirs), as on a real cluster; this also makes
  // its namespace, where it keeps each tenant's credentials.
  const Status accounts = localenv::InstallChartAccounts(
      client, {.chart_dir = localenv::SourcePath("charts/vtenant"), .ns = "vtenant-system"});
  CHECK(accounts.ok()) << accounts.ToString();
  const std::string operator_kubeconfig = (dir / "operator.kubeconfig").string();
  const Status written = localenv::WriteServiceAccountKubeconfig(
      (*cluster)->api_server(), "vtenant-system", "vtenant-operator", operator_kubeconfig);
  CHECK(written.ok()) << written.ToString();
  CHECK(
      client
          .Create(
              kube::resources::kQueues, "",
              Json(
                  R"({"apiVersion":"scheduling.run.ai/v2","kind":"Queue","metadata":{"name":"bench-org"},"spec":{"resources":{"gpu":{"quota":-1,"limit":-1}}}})"))
          .ok());

  // $VTENANT_SYNCER_BINARY names a syncer built elsewhere (another branch).
  const fs::path syncer =
      getenv("VTENANT_SYNCER_BINARY") != nullptr
          ? fs::path(getenv("VTENANT_SYNCER_BINARY"))
          : fs::path(operator_binary).parent_path().parent_path() / "syncer" / "vtenant-syncer";
  const std::string state = (dir / "operator").string();
  localenv::ProcessOptions p;
  p.argv = {operator_binary,
            "--kubeconfig=" + operator_kubeconfig,
            "--state-dir=" + state,
            "--health-address=",
            "--workers=" + std::to_string(std::max(many, 2)),
            fs::exists(syncer) ? "--syncer-binary=" + syncer.string() : "--no-syncer"};
  if (!starting_apiservers.empty()) {
    p.argv.push_back("--starting-apiservers=" + starting_apiservers);
  }
  p.log_path = (dir / "operator.log").string();
  Result<localenv::Process> op = localenv::Process::Start(p);
  CHECK(op.ok()) << op.status().ToString();
  std::printf("syncer: %s\n", fs::exists(syncer) ? syncer.c_str() : "not built (--no-syncer)");

  // CPU of the machine and of the host's own processes over the 20-tenant
  // run: how much of the two cores went where.
  auto machine = [] {  // {busy, total} jiffies from /proc/stat
    std::istringstream cpu(ReadFileOrEmpty("/proc/stat").substr(4));
    double v, busy = 0, total = 0;
    for (int i = 0; cpu >> v && i < 8; ++i) {
      total += v;
      if (i != 3 && i != 4) busy += v;  // idle, iowait
    }
    return std::make_pair(busy, total);
  };
  const std::vector<std::pair<std::string, int>> host_pids = {
      {"vtenant-operator", op->pid()},
      {"host kube-apiserver", (*cluster)->api_server().pid()},
      {"etcd", (*cluster)->etcd().pid()}};

  bool all_ready = Report("1 tenant", TimeToReady(client, {"one"}));
  std::vector<std::string> names;
  for (int i = 1; i <= many; ++i) names.push_back("t" + std::to_string(i));
  std::map<std::string, double> host_before;
  for (const auto& [what, pid] : host_pids) host_before[what] = CpuSeconds(pid);
  const auto machine_before = machine();
  if (many > 0) {
    const auto start = Clock::now();
    all_ready = Report(std::to_string(many) + " at once", TimeToReady(client, names)) && all_ready;
    const auto machine_after = machine();
    const double wall = std::chrono::duration<double>(Clock::now() - start).count();
    std::printf("machine during the %d: %.0f %% busy of %ld cores over %.1f s; host side:", many,
                100 * (machine_after.first - machine_before.first) /
                    (machine_after.second - machine_before.second),
                sysconf(_SC_NPROCESSORS_ONLN), wall);
    for (const auto& [what, pid] : host_pids) {
      std::printf(" %s %.1f s", what.c_str(), CpuSeconds(pid) - host_before[what]);
    }
    std::printf(" CPU\n");
  }

  std::this_thread::sleep_for(std::chrono::seconds(10));  // let start-up garbage be collected
  names.push_back("one");
  double total = 0, worst = 0;
  std::map<std::string, double> rss, cpu;
  for (const auto& n : names) {
    double tenant = 0;
    // The tenant's API server, controller manager and syncer: every
    // process whose command line names a file in its folder.
    for (const localenv::EnvironmentProcess& p :
         localenv::FindEnvironmentProcesses(vtenant::op::TenantsFolder(state) / n)) {
      double mb = RssMb(p.pid);
      cpu[p.name] += CpuSeconds(p.pid);
      rss[p.name] += mb;
      tenant += mb;
    }
    total += tenant;
    worst = std::max(worst, tenant);
  }
  const double n = static_cast<double>(names.size());
  std::printf(
      "resident memory per tenant (%zu tenants): mean %.0f MB, max %.0f MB "
      "(kube-apiserver %.0f, kube-controller-manager %.0f, vtenant-syncer %.0f, means)\n",
      names.size(), total / n, worst, rss["kube-apiserver"] / n, rss["kube-controller-manager"] / n,
      rss["vtenant-syncer"] / n);
  std::printf(
      "CPU per tenant since start: %.1f s (kube-apiserver %.1f, kube-controller-manager %.1f, "
      "vtenant-syncer %.1f)\n",
      (cpu["kube-apiserver"] + cpu["kube-controller-manager"] + cpu["vtenant-syncer"]) / n,
      cpu["kube-apiserver"] / n, cpu["kube-controller-manager"] / n, cpu["vtenant-syncer"] / n);
  std::fflush(stdout);
  // The operator leaves its tenants' control planes and its etcd running
  // for a successor; nothing succeeds it here.
  op->Stop();
  localenv::StopEnvironmentProcesses(state);
  (*cluster)->Stop();
  if (getenv("VTENANT_BENCH_KEEP") != nullptr) {
    std::printf("kept %s (operator log, tenants' logs)\n", dir.c_str());
  } else {
    fs::remove_all(dir);
  }
  return all_ready ? 0 : 1;  // the figures are printed either way
}
