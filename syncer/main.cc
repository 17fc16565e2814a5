// vtenant-syncer: one tenant's syncer, as a sidecar of its control plane or
// as a process the local environment supervises. See flags.cc for the
// command line and syncer.h for what it does.
//
// Not on kube::Manager yet: the Manager ends Run when the Lease is lost,
// and the syncer must keep its caches through an API server outage that
// costs the Lease (docs/architecture.md, syncer/). Kept thin so the move is
// small once the Manager can compete again.
#include <glog/logging.h>
#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

#include "kube/cancellation.h"
#include "kube/health_server.h"
#include "kube/http_transport.h"
#include "kube/kubeconfig.h"
#include "kube/leader_election.h"
#include "kube/rest_client.h"
#include "syncer/flags.h"
#include "syncer/syncer.h"

namespace {

using namespace vtenant;

// Sets `*own_ca` to whether the server is verified against a CA of its own
// (certificate-authority-data, or the in-cluster CA) or TLS is not verified.
Result<std::unique_ptr<kube::RestClient>> ClientFor(const std::string& kubeconfig,
                                                    const std::string& what,
                                                    const syncer::SyncerFlags& flags,
                                                    bool* own_ca) {
  Result<kube::RestConfig> config =
      kubeconfig.empty() ? kube::InClusterConfig() : kube::LoadKubeconfig(kubeconfig);
  if (!config.ok()) return config.status().WithContext("loading the " + what + " kubeconfig");
  *own_ca = !config->ca_pem.empty() || config->insecure_skip_tls_verify ||
            config->server.rfind("http://", 0) == 0;
  config->user_agent = "vtenant-syncer";
  config->qps = flags.kube_api_qps;
  config->burst = flags.kube_api_burst;
  return kube::RestClient::Create(*config);
}

std::string Identity() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return std::string(host) + "-" + std::to_string(getpid());
}

// One syncer runs per tenant, so its memory is multiplied by the tenants of
// a cluster. Its threads mostly wait; these keep what they cost small.
constexpr size_t kHttpIoThreads = 4;  // cpprestsdk's default is 40
constexpr int kMallocArenas = 2;      // glibc's default is 8 per core
// How often freed heap goes back to the system (glibc keeps free pages
// inside its arenas otherwise, and a burst of pods leaves many).
constexpr auto kTrimPeriod = std::chrono::seconds(10);

int Run(const syncer::SyncerFlags& flags) {
  mallopt(M_ARENA_MAX, kMallocArenas);
  if (Status s = kube::SetHttpIoThreads(kHttpIoThreads); !s.ok()) {
    LOG(WARNING) << s.ToString();
  }
  bool virtual_own_ca = false;
  bool host_own_ca = false;
  Result<std::unique_ptr<kube::RestClient>> virtual_client =
      ClientFor(flags.virtual_kubeconfig, "virtual", flags, &virtual_own_ca);
  Result<std::unique_ptr<kube::RestClient>> host_client =
      ClientFor(flags.host_kubeconfig, "host", flags, &host_own_ca);
  for (const Status& s : {virtual_client.status(), host_client.status()}) {
    if (!s.ok()) {
      LOG(ERROR) << s.ToString();
      return 1;
    }
  }
  if (virtual_own_ca && host_own_ca) {
    // Neither server is verified against the system roots, yet cpprestsdk
    // parses the system bundle into every new connection's TLS context
    // before the transport replaces its store (kube/http_transport.cc): CPU
    // for each of dozens of connections. OpenSSL reads the bundle's path
    // from here and skips a file that is not there; nothing else in this
    // process verifies a peer, and no connection is open yet.
    setenv("SSL_CERT_FILE", "/nonexistent/vtenant-syncer-trusts-only-its-kubeconfigs-ca", 1);
  }
  syncer::Syncer syncer(**virtual_client, **host_client, flags.config,
                        {.pod_workers = flags.pod_workers});

  kube::HealthServer health;
  health.AddHealthCheck("ping", [] { return Status::Ok(); });
  health.AddReadyCheck("syncer", [&syncer] { return syncer.Ready(); });
  if (!flags.health_address.empty()) {
    auto [host, port] = *syncer::ParseAddress(flags.health_address);
    Status s = health.Start(host, port);
    if (!s.ok()) {
      LOG(ERROR) << "health endpoint " << flags.health_address << ": " << s.ToString();
      return 1;
    }
    LOG(INFO) << "serving /healthz /readyz /metrics on " << health.url();
  }

  Status started = syncer.Start();
  if (!started.ok()) {
    LOG(ERROR) << started.ToString();
    return 1;
  }
  kube::Cancellation stop_trimming;
  std::thread trimmer([&stop_trimming] {
    while (!stop_trimming.WaitFor(kTrimPeriod)) malloc_trim(0);
  });
  // Controllers run while leading (always, without --leader-elect), once
  // both caches hold a first list: their first keys are then every object
  // on both sides, the relist that converges.
  std::mutex lead_mu;
  bool leading = false;
  bool shutting_down = false;
  std::vector<std::thread> starters;
  auto start_leading = [&] {
    std::lock_guard lock(lead_mu);
    leading = true;
    starters.emplace_back([&] {
      while (!syncer.WaitForSynced(std::chrono::seconds(5))) {
        std::lock_guard lock(lead_mu);
        if (!leading || shutting_down) return;
        LOG(INFO) << "waiting for the caches of both clusters";
      }
      std::lock_guard lock(lead_mu);
      if (leading && !shutting_down) syncer.StartControllers();
    });
  };
  auto stop_leading = [&] {
    std::lock_guard lock(lead_mu);
    leading = false;
    // A standby again, caches warm; the elector keeps competing, so an API
    // server outage that cost the Lease costs no restart.
    syncer.StopControllers();
    if (!shutting_down) LOG(WARNING) << "lost the lease; controllers stopped until it is back";
  };

  std::unique_ptr<kube::LeaderElector> elector;
  if (flags.leader_elect) {
    Result<std::unique_ptr<kube::LeaderElector>> created = kube::LeaderElector::Create(
        **host_client,
        {.lease_namespace = flags.config.host_namespace,
         .lease_name = "vtenant-syncer-" + flags.config.tenant,
         .identity = Identity(),
         .callbacks = {.on_started_leading = start_leading, .on_stopped_leading = stop_leading}});
    if (!created.ok()) {
      LOG(ERROR) << "leader election: " << created.status().ToString();
      return 1;
    }
    elector = std::move(*created);
    Status s = elector->Run();
    if (!s.ok()) {
      LOG(ERROR) << s.ToString();
      return 1;
    }
  } else {
    start_leading();
  }

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  int signal = 0;
  sigwait(&signals, &signal);
  LOG(INFO) << "signal " << signal << ": shutting down";
  {
    std::lock_guard lock(lead_mu);
    shutting_down = true;
  }
  syncer.StopControllers();
  if (elector) elector->Stop();  // releases the Lease for the next replica
  for (std::thread& t : starters) t.join();
  stop_trimming.Cancel();
  trimmer.join();
  syncer.Stop();
  health.Stop();
  LOG(INFO) << "stopped";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  FLAGS_logtostderr = true;
  google::InitGoogleLogging(argv[0]);
  // Every thread inherits this mask, so only sigwait in Run sees the signals.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  Result<syncer::SyncerFlags> flags =
      syncer::ParseFlags(std::vector<std::string>(argv + 1, argv + argc));
  if (!flags.ok()) {
    std::cerr << "vtenant-syncer: " << flags.status().message() << "\n\n" << syncer::Usage();
    return 2;
  }
  if (flags->help) {
    std::cout << syncer::Usage();
    return 0;
  }
  return Run(*flags);
}
