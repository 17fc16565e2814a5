#include "syncer/virtual_lookup.h"

#include <optional>
#include <string>

#include "kai/kubeflow_job.h"
#include "syncer/gang.h"
#include "syncer/resources.h"

namespace vtenant::syncer {
namespace {

bool IsJobSet(std::string_view api_version, std::string_view kind) {
  const kube::ResourceType& type = resources::kJobSets;
  return kind == type.kind && api_version == type.group + "/" + type.version;
}

// The Kubeflow training job `kind` of `api_version` (kai/kubeflow_job.h)
// at the version it is served at, or nullopt: an owner reference is the
// tenant's to write, so a path is made only from the list's own names.
std::optional<kube::ResourceType> KubeflowJobType(std::string_view api_version,
                                                  std::string_view kind) {
  const kai::KubeflowJobKind* job = kai::FindKubeflowJobKind(kind);
  if (job == nullptr ||
      api_version != std::string(kai::kKubeflowGroup) + "/" + std::string(job->version)) {
    return std::nullopt;
  }
  return kube::ResourceType{std::string(kai::kKubeflowGroup), std::string(job->version),
                            std::string(job->resource), std::string(job->kind), true};
}

}  // namespace

kube::ObjectPtr VirtualLookup::Get(std::string_view api_version, std::string_view kind,
                                   std::string_view ns, std::string_view name) {
  const std::string key = kube::MakeKey(ns, name);
  if (api_version == "apps/v1" && kind == "ReplicaSet") {
    return informers_.Virtual(resources::kReplicaSets).cache().Get(key);
  }
  if (api_version == "apps/v1" && kind == "StatefulSet") {
    return informers_.Virtual(resources::kStatefulSets).cache().Get(key);
  }
  if (api_version == "apps/v1" && kind == "Deployment") {
    return informers_.Virtual(kube::resources::kDeployments).cache().Get(key);
  }
  if (api_version == "batch/v1" && kind == "Job") {
    return informers_.Virtual(kube::resources::kJobs).cache().Get(key);
  }
  if (api_version == "batch/v1" && kind == "CronJob") {
    return informers_.Virtual(resources::kCronJobs).cache().Get(key);
  }
  if (IsJobSet(api_version, kind)) {
    return informers_.Virtual(resources::kJobSets).cache().Get(key);
  }
  if (api_version == kPodGroupApiVersion && kind == kai::kPodGroupKind) {
    // Cached once the virtual cluster has the CRD; a group created a moment
    // before its pods may not be yet, so a miss still asks the server.
    if (kube::ObjectPtr cached = informers_.Virtual(kube::resources::kPodGroups).cache().Get(key)) {
      return cached;
    }
  }
  if (!live_reads_) return nullptr;
  const kube::ResourceType* type = nullptr;
  if (api_version == kPodGroupApiVersion && kind == kai::kPodGroupKind)
    type = &kube::resources::kPodGroups;
  std::optional<kube::ResourceType> kubeflow_job = KubeflowJobType(api_version, kind);
  if (kubeflow_job) type = &*kubeflow_job;
  if (type == nullptr) return nullptr;
  Result<kube::Object> object = informers_.virtual_client().Get(*type, ns, name);
  if (!object.ok()) return nullptr;
  return std::make_shared<const kube::Object>(std::move(*object));
}

bool VirtualLookup::Knows(std::string_view api_version, std::string_view kind) {
  if (api_version == "apps/v1") {
    return kind == "ReplicaSet" || kind == "StatefulSet" || kind == "Deployment";
  }
  if (api_version == "batch/v1") return kind == "Job" || kind == "CronJob";
  // Known once the CRD is served and listed; before, a JobSet's pods do not
  // wait for an informer that may never sync.
  if (IsJobSet(api_version, kind)) return informers_.Virtual(resources::kJobSets).HasSynced();
  if (!live_reads_) return false;
  return (api_version == kPodGroupApiVersion && kind == kai::kPodGroupKind) ||
         KubeflowJobType(api_version, kind).has_value();
}

}  // namespace vtenant::syncer
