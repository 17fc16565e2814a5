// SyncedPodResolver: the kubelet endpoint's answer to "which host pod is
// this virtual pod", from the syncer's own caches.
//
// A virtual pod is answered only by the host pod the syncer made for it:
// the host name HostName(name, ns, tenant) in the tenant's host namespace,
// holding the identity (virtual namespace, name and UID) of exactly this
// pod (host_identity.h). Whatever a team writes in its own cluster —
// annotations naming another host pod, a pod re-created under the same
// name — cannot point a request anywhere else.
#pragma once

#include <string>
#include <string_view>

#include "syncer/kubelet_server.h"
#include "syncer/syncer_config.h"
#include "syncer/syncer_informers.h"

namespace vtenant::syncer {

class SyncedPodResolver : public KubeletPodResolver {
 public:
  // `informers` must outlive this.
  SyncedPodResolver(SyncerInformers& informers, const SyncerConfig& config);

  Result<HostPodName> Resolve(std::string_view ns, std::string_view name) const override;

 private:
  SyncerInformers& informers_;
  std::string tenant_;
  std::string host_namespace_;
};

}  // namespace vtenant::syncer
