#include "syncer/syncer_app.h"

#include <glog/logging.h>

#include <filesystem>
#include <string>
#include <thread>

#include "base/file.h"
#include "base/flags.h"
#include "kube/heap_trimmer.h"
#include "kube/http_transport.h"
#include "kube/kubeconfig.h"
#include "kube/pod_address.h"
#include "syncer/cluster_dns_service.h"
#include "syncer/names.h"
#include "syncer/pod_endpoints.h"

namespace vtenant::syncer {
namespace {

// One syncer runs per tenant, so its memory is multiplied by the tenants of
// a cluster. Its threads mostly wait; these keep what they cost small.
constexpr size_t kHttpIoThreads = 4;  // cpprestsdk's default is 40
constexpr int kMallocArenas = 2;      // glibc's default is 8 per core
// How often freed heap goes back to the system (glibc keeps free pages
// inside its arenas otherwise, and a burst of pods leaves many).
constexpr auto kTrimPeriod = std::chrono::seconds(10);

// In a StatefulSet control plane the operator writes the syncer's virtual
// credential only once the API server in the same pod answers, and the
// kubelet adds it to the mounted (optional) Secret some seconds later.
// Waiting here beats exiting: a container that exits is restarted with a
// backoff that grows to minutes.
// Said again every half minute, so that a path given wrong is not a
// silent hang.
void WaitForFile(const std::string& path) {
  std::error_code ec;
  for (int seconds = 0; !std::filesystem::exists(path, ec); ++seconds) {
    if (seconds % 30 == 0) {
      LOG(WARNING) << "waiting for " << path << " to appear (--virtual-kubeconfig; " << seconds
                   << " s so far)";
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

Result<kube::RestConfig> ConfigFor(const std::string& kubeconfig, const std::string& what,
                                   const SyncerFlags& flags) {
  Result<kube::RestConfig> config =
      kubeconfig.empty() ? kube::InClusterConfig() : kube::LoadKubeconfig(kubeconfig);
  if (!config.ok()) return config.status().WithContext("loading the " + what + " kubeconfig");
  config->user_agent = "vtenant-syncer";
  config->qps = flags.kube_api_qps;
  config->burst = flags.kube_api_burst;
  return config;
}

Result<std::string> ReadPem(const std::string& path, const std::string& flag) {
  std::string pem = ReadFileOrEmpty(path);
  if (pem.empty()) return InvalidArgument("--" + flag + ": cannot read " + path);
  return pem;
}

}  // namespace

Result<std::unique_ptr<SyncerApp>> SyncerApp::Create(const SyncerFlags& flags) {
  kube::LimitMallocArenas(kMallocArenas);
  if (Status s = kube::SetHttpIoThreads(kHttpIoThreads); !s.ok()) LOG(WARNING) << s.ToString();
  std::unique_ptr<SyncerApp> app(new SyncerApp());
  WaitForFile(flags.virtual_kubeconfig);
  VT_ASSIGN_OR_RETURN(kube::RestConfig virtual_config,
                      ConfigFor(flags.virtual_kubeconfig, "virtual", flags));
  VT_ASSIGN_OR_RETURN(kube::RestConfig host_config,
                      ConfigFor(flags.host_kubeconfig, "host", flags));
  VT_ASSIGN_OR_RETURN(app->virtual_client_, kube::RestClient::Create(virtual_config));
  VT_ASSIGN_OR_RETURN(app->host_client_, kube::RestClient::Create(host_config));
  kube::ManagerOptions options = SyncerManagerOptions(flags.config, flags.leader_elect);
  options.health_address = flags.health_address;
  VT_ASSIGN_OR_RETURN(app->manager_, kube::Manager::Create(*app->host_client_, std::move(options)));
  // Pods that ask for the cluster's DNS are pointed at the host Service in
  // front of the virtual cluster's, made before any pod is translated.
  SyncerConfig config = flags.config;
  if (!flags.pod_dns_address.empty()) {
    VT_ASSIGN_OR_RETURN(HostPort dns, ParseAddressFlag("pod-dns-address", flags.pod_dns_address));
    Result<std::string> cluster_ip =
        EnsureClusterDnsService(*app->host_client_, config.host_namespace, dns.host, dns.port);
    if (!cluster_ip.ok()) return cluster_ip.status().WithContext("the host Service of the DNS");
    config.cluster_dns = *cluster_ip;
  }
  kube::ClusterHandle& virtual_cluster =
      app->manager_->AddCluster("virtual", *app->virtual_client_);
  app->syncer_ = std::make_unique<Syncer>(*app->manager_, virtual_cluster, config,
                                          SyncerOptions{.pod_workers = flags.pod_workers});
  if (!flags.config.kubelet_address.empty()) {
    // Certificates are read once: a renewed one is served from the
    // syncer's next start (the operator's leaves last a year and are
    // renewed a month ahead).
    KubeletServerOptions kubelet{.address = flags.config.kubelet_address,
                                 .port = flags.config.kubelet_port,
                                 .host = host_config};
    VT_ASSIGN_OR_RETURN(kubelet.certificate_pem,
                        ReadPem(flags.kubelet_tls_cert_file, "kubelet-tls-cert-file"));
    VT_ASSIGN_OR_RETURN(kubelet.key_pem,
                        ReadPem(flags.kubelet_tls_key_file, "kubelet-tls-key-file"));
    VT_ASSIGN_OR_RETURN(kubelet.client_ca_pem,
                        ReadPem(flags.kubelet_client_ca_file, "kubelet-client-ca-file"));
    app->pod_resolver_ =
        std::make_unique<SyncedPodResolver>(app->syncer_->informers(), flags.config);
    Result<std::unique_ptr<KubeletServer>> server =
        KubeletServer::Start(kubelet, app->pod_resolver_.get());
    if (!server.ok()) return server.status().WithContext("--kubelet-address");
    app->kubelet_server_ = std::move(*server);
    LOG(INFO) << "kubelet endpoint of the virtual Nodes on " << flags.config.kubelet_address << ":"
              << app->kubelet_server_->port();
  }
  kube::AddHeapTrimmer(*app->manager_, kTrimPeriod);
  if (!flags.pod_api_address.empty()) {
    VT_ASSIGN_OR_RETURN(kube::RestConfig virtual_config,
                        kube::LoadKubeconfig(flags.virtual_kubeconfig));
    VT_ASSIGN_OR_RETURN(auto target, ApiRelayTarget(virtual_config.server));
    VT_RETURN_IF_ERROR(
        AddPodApiRelay(*app->manager_, flags.pod_netns, flags.pod_api_address, std::move(target))
            .WithContext("opening the pods' API endpoint"));
  }
  if (!flags.pod_dns_address.empty()) {
    // A Service's address: its host copy's, which kube-proxy routes (the
    // virtual one takes the same, service_address_syncer.h).
    SyncerInformers& informers = app->syncer_->informers();
    dns::ServiceAddressLookup lookup = [&informers, config](
                                           std::string_view ns,
                                           std::string_view name) -> std::optional<std::string> {
      kube::ObjectPtr service =
          informers.Virtual(kube::resources::kServices).cache().Get(kube::MakeKey(ns, name));
      if (service == nullptr) return std::nullopt;
      kube::ObjectPtr copy =
          informers.Host(kube::resources::kServices)
              .cache()
              .Get(kube::MakeKey(config.host_namespace, HostName(name, ns, config.tenant)));
      return std::string(
          kube::GetString(copy != nullptr ? *copy : *service, {"spec", "clusterIP"}));
    };
    // Every pod on the node can send it a packet; only this tenant's pods,
    // known by address from the host pods the syncer made, hear an answer.
    dns::AskerCheck check = [&informers, tenant = config.tenant](std::string_view from) {
      const std::vector<kube::ObjectPtr> pods =
          kube::PodsAt(informers.Host(kube::resources::kPods).cache(), from);
      if (pods.empty()) return dns::Asker::kUnknown;
      for (const kube::ObjectPtr& pod : pods) {
        if (kube::Label(*pod, kTenantLabel) != tenant) return dns::Asker::kUnknown;
      }
      return dns::Asker::kAnswered;
    };
    VT_RETURN_IF_ERROR(AddPodDnsServer(*app->manager_, flags.pod_netns, flags.pod_dns_address,
                                       std::move(check), std::move(lookup),
                                       {.kubernetes_address = config.virtual_service_host})
                           .WithContext("opening the pods' DNS endpoint"));
  }
  return app;
}

Status SyncerApp::Run() { return manager_->Run(); }

}  // namespace vtenant::syncer
