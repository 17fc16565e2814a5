#include "syncer/synced_pod_resolver.h"

#include "kube/resource.h"
#include "syncer/host_identity.h"
#include "syncer/names.h"

namespace vtenant::syncer {

SyncedPodResolver::SyncedPodResolver(SyncerInformers& informers, const SyncerConfig& config)
    : informers_(informers), tenant_(config.tenant), host_namespace_(config.host_namespace) {}

Result<HostPodName> SyncedPodResolver::Resolve(std::string_view ns, std::string_view name) const {
  const std::string pod = std::string(ns) + "/" + std::string(name);
  kube::ObjectPtr virtual_pod = informers_.Virtual(kube::resources::kPods).cache().Get(pod);
  if (virtual_pod == nullptr) return NotFound("pod " + pod + " does not exist");
  HostPodName host{host_namespace_, HostName(name, ns, tenant_)};
  kube::ObjectPtr host_pod =
      informers_.Host(kube::resources::kPods).cache().Get(host.ns + "/" + host.name);
  if (host_pod == nullptr) return NotFound("pod " + pod + " is not running on a node yet");
  const VirtualIdentity wanted{.kind = "Pod",
                               .ns = std::string(ns),
                               .name = std::string(name),
                               .uid = std::string(kube::Uid(*virtual_pod))};
  if (!CheckIdentity(*host_pod, "Pod", wanted, tenant_).ok()) {
    return NotFound("pod " + pod + " is not running on a node yet");
  }
  return host;
}

}  // namespace vtenant::syncer
