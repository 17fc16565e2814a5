#include "syncer/virtual_lookup.h"

#include <algorithm>
#include <optional>
#include <string>

#include "base/ascii.h"
#include "kai/grove_gang.h"
#include "kai/knative.h"
#include "kai/kubeflow_job.h"
#include "kai/ray_gang.h"
#include "syncer/gang.h"
#include "syncer/resources.h"

namespace vtenant::syncer {
namespace {

bool Is(const kube::ResourceType& type, std::string_view api_version, std::string_view kind) {
  return kind == type.kind && api_version == type.group + "/" + type.version;
}

// The optional informer of a kind whose CRD a team may install (JobSets,
// LeaderWorkerSets), or nullptr for other kinds.
const kube::ResourceType* OptionalKind(std::string_view api_version, std::string_view kind) {
  for (const kube::ResourceType* type : {&resources::kJobSets, &resources::kLeaderWorkerSets})
    if (Is(*type, api_version, kind)) return type;
  return nullptr;
}

// Whether `version` reads as a Kubernetes API version ("v1", "v2beta1").
bool IsApiVersionName(std::string_view version) {
  if (version.size() < 2 || version.size() > 16 || version[0] != 'v') return false;
  return std::all_of(version.begin(), version.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); });
}

// The resource of a workload read from the virtual API server when a pod
// needs it (a Kubeflow training job of kai/kubeflow_job.h's list, a KubeRay
// RayCluster, RayJob or RayService, a Knative Revision, Configuration or
// Service, a Grove PodClique, PodCliqueScalingGroup, PodCliqueSet or
// PodGangSet, and a Grove pod's PodGang), at the version the owner reference
// names, or nullopt. An owner reference is the tenant's to write: the path
// is made from the lists' own names and a version that can only be a
// version.
std::optional<kube::ResourceType> LiveType(std::string_view api_version, std::string_view kind) {
  const size_t slash = api_version.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const std::string group(api_version.substr(0, slash));
  const std::string_view version = api_version.substr(slash + 1);
  if (!IsApiVersionName(version)) return std::nullopt;
  std::string resource;
  if (const kai::KubeflowJobKind* job = kai::FindKubeflowJobKind(kind);
      job != nullptr && group == kai::kKubeflowGroup) {
    resource = job->resource;
  } else if (kai::IsRayWorkload(api_version, kind)) {
    resource = AsciiLower(kind) + "s";  // rayclusters, rayjobs, rayservices
  } else if (group == kai::kKnativeServingGroup &&
             (kind == "Revision" || kind == "Configuration" || kind == "Service")) {
    resource = AsciiLower(kind) + "s";  // a Knative Service's chain to its Revision
  } else if ((group == "grove.io" && (kind == "PodClique" || kind == "PodCliqueScalingGroup" ||
                                      kai::IsGroveWorkload(api_version, kind))) ||
             (api_version == kai::kPodGangApiVersion && kind == "PodGang")) {
    resource = AsciiLower(kind) + "s";  // a Grove pod's chain, and its PodGang
  } else {
    return std::nullopt;
  }
  return kube::ResourceType{group, std::string(version), resource, std::string(kind), true};
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
  // A LeaderWorkerSet's workers are owned through their leader pod.
  if (api_version == "v1" && kind == "Pod") {
    return informers_.Virtual(kube::resources::kPods).cache().Get(key);
  }
  const kube::ResourceType* optional = OptionalKind(api_version, kind);
  if (optional != nullptr && informers_.Virtual(*optional).HasSynced()) {
    return informers_.Virtual(*optional).cache().Get(key);
  }
  if (api_version == kPodGroupApiVersion && kind == kai::kPodGroupKind) {
    // Cached once the virtual cluster has the CRD; a group created a moment
    // before its pods may not be yet, so a miss still asks the server.
    if (kube::ObjectPtr cached = informers_.Virtual(kube::resources::kPodGroups).cache().Get(key)) {
      return cached;
    }
  }
  if (!live_reads_) return nullptr;
  // A team's CRD that came after the informer last looked (it looks again
  // at each backoff): the server has the object, and a pod of a new JobSet
  // or LeaderWorkerSet is not grouped as an unknown kind's.
  const kube::ResourceType* type = optional;
  if (api_version == kPodGroupApiVersion && kind == kai::kPodGroupKind)
    type = &kube::resources::kPodGroups;
  std::optional<kube::ResourceType> live = LiveType(api_version, kind);
  if (live) type = &*live;
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
  if (api_version == "v1") return kind == "Pod";
  // Known once the CRD is served and listed; before, a JobSet's pods do not
  // wait for an informer that may never sync.
  if (const kube::ResourceType* type = OptionalKind(api_version, kind)) {
    return informers_.Virtual(*type).HasSynced();
  }
  if (!live_reads_) return false;
  return (api_version == kPodGroupApiVersion && kind == kai::kPodGroupKind) ||
         LiveType(api_version, kind).has_value();
}

}  // namespace vtenant::syncer
