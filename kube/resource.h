// ResourceType: where a kind of Kubernetes object lives in the REST API.
//
// The client is generic over group/version/resource; these descriptors are
// the only place that knows a path shape, so custom resources (KAI queues,
// PodGroups, Tenants) are as easy to use as pods.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace vtenant::kube {

struct ResourceType {
  std::string group;     // "" for the core group
  std::string version;   // "v1", "v2alpha2"
  std::string resource;  // plural, lower case: "pods", "queues"
  std::string kind;      // "Pod", "Queue"
  bool namespaced = true;

  // "v1" or "apps/v1": the apiVersion field of objects of this type.
  std::string ApiVersion() const;

  // /api/v1/namespaces/<ns>/pods, or /apis/<g>/<v>/<resource> for cluster
  // scope or an empty `ns` (all namespaces).
  std::string CollectionPath(std::string_view ns) const;

  // CollectionPath(ns) + "/<name>" [+ "/<subresource>"].
  std::string ObjectPath(std::string_view ns, std::string_view name,
                         std::string_view subresource = {}) const;
};

// The types vtenant uses. Custom resources follow their CRDs in charts/.
namespace resources {
extern const ResourceType kPods;
extern const ResourceType kNodes;
extern const ResourceType kNamespaces;
extern const ResourceType kConfigMaps;
extern const ResourceType kSecrets;
extern const ResourceType kServices;
extern const ResourceType kServiceAccounts;
extern const ResourceType kEvents;
extern const ResourceType kLeases;
extern const ResourceType kEndpoints;
extern const ResourceType kEndpointSlices;
extern const ResourceType kPersistentVolumeClaims;
extern const ResourceType kPersistentVolumes;
extern const ResourceType kStorageClasses;
extern const ResourceType kCsiDrivers;
extern const ResourceType kCsiStorageCapacities;
extern const ResourceType kCsiNodes;
extern const ResourceType kResourceSlices;
extern const ResourceType kDeviceClasses;
extern const ResourceType kDeviceTaintRules;
extern const ResourceType kResourceClaims;
extern const ResourceType kJobs;
extern const ResourceType kDeployments;
extern const ResourceType kReplicaSets;
extern const ResourceType kStatefulSets;
extern const ResourceType kPodDisruptionBudgets;
extern const ResourceType kPriorityClasses;
extern const ResourceType kRuntimeClasses;
extern const ResourceType kNetworkPolicies;
extern const ResourceType kMutatingWebhookConfigurations;
extern const ResourceType kCustomResourceDefinitions;
extern const ResourceType kClusterRoles;
extern const ResourceType kClusterRoleBindings;
extern const ResourceType kRoles;
extern const ResourceType kRoleBindings;
// KAI Scheduler's API (scheduling.run.ai), kept wire-compatible.
extern const ResourceType kQueues;
extern const ResourceType kPodGroups;
// KAI's Topology (kai.scheduler), read by the scheduler.
extern const ResourceType kTopologies;
// vtenant's own API.
extern const ResourceType kTenants;

// Every type above, for looking one up by apiVersion and kind.
const std::vector<const ResourceType*>& All();
}  // namespace resources

// The known type whose objects carry `api_version` and `kind` (see
// resources::All). NotFound for any other: vtenant does not discover types.
Result<ResourceType> ResourceTypeFor(std::string_view api_version, std::string_view kind);

}  // namespace vtenant::kube
