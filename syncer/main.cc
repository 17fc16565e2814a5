// vtenant-syncer: one tenant's syncer, as a sidecar of its control plane or
// as a process the local environment supervises. See flags.cc for the
// command line and syncer.h for what it does. A kube::Manager runs it: the
// host is its primary cluster (the Lease lives in the host namespace, the
// one place the syncer's host credentials may write), the virtual API
// server its second; it serves /healthz /readyz /metrics and stops
// gracefully on SIGTERM.
#include <glog/logging.h>
#include <malloc.h>

#include <iostream>
#include <vector>

#include "kube/cancellation.h"
#include "kube/http_transport.h"
#include "kube/kubeconfig.h"
#include "kube/manager.h"
#include "kube/rest_client.h"
#include "syncer/flags.h"
#include "syncer/syncer.h"

namespace {

using namespace vtenant;

Result<std::unique_ptr<kube::RestClient>> ClientFor(const std::string& kubeconfig,
                                                    const std::string& what,
                                                    const syncer::SyncerFlags& flags) {
  Result<kube::RestConfig> config =
      kubeconfig.empty() ? kube::InClusterConfig() : kube::LoadKubeconfig(kubeconfig);
  if (!config.ok()) return config.status().WithContext("loading the " + what + " kubeconfig");
  config->user_agent = "vtenant-syncer";
  config->qps = flags.kube_api_qps;
  config->burst = flags.kube_api_burst;
  return kube::RestClient::Create(*config);
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
  Result<std::unique_ptr<kube::RestClient>> virtual_client =
      ClientFor(flags.virtual_kubeconfig, "virtual", flags);
  Result<std::unique_ptr<kube::RestClient>> host_client =
      ClientFor(flags.host_kubeconfig, "host", flags);
  for (const Status& s : {virtual_client.status(), host_client.status()}) {
    if (!s.ok()) {
      LOG(ERROR) << s.ToString();
      return 1;
    }
  }
  kube::ManagerOptions options = syncer::SyncerManagerOptions(flags.config, flags.leader_elect);
  options.health_address = flags.health_address;
  Result<std::unique_ptr<kube::Manager>> manager =
      kube::Manager::Create(**host_client, std::move(options));
  if (!manager.ok()) {
    LOG(ERROR) << manager.status().ToString();
    return 1;
  }
  kube::ClusterHandle& virtual_cluster = (*manager)->AddCluster("virtual", **virtual_client);
  syncer::Syncer syncer(**manager, virtual_cluster, flags.config,
                        {.pod_workers = flags.pod_workers});
  (*manager)->AddRunnable(
      "malloc-trim",
      [](kube::Cancellation& stop) {
        while (!stop.WaitFor(kTrimPeriod)) malloc_trim(0);
      },
      /*needs_leader=*/false);
  Status stopped = (*manager)->Run();
  if (!stopped.ok()) {
    LOG(ERROR) << stopped.ToString();
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  FLAGS_logtostderr = true;
  google::InitGoogleLogging(argv[0]);
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
