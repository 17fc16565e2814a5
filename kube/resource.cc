#include "kube/resource.h"

#include "kai/names.h"
#include "kai/topology.h"

namespace vtenant::kube {

std::string ResourceType::ApiVersion() const {
  return group.empty() ? version : group + "/" + version;
}

std::string ResourceType::CollectionPath(std::string_view ns) const {
  std::string path = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  if (namespaced && !ns.empty()) {
    path += "/namespaces/";
    path += ns;
  }
  path += "/";
  path += resource;
  return path;
}

std::string ResourceType::ObjectPath(std::string_view ns, std::string_view name,
                                     std::string_view subresource) const {
  std::string path = CollectionPath(ns);
  path += "/";
  path += name;
  if (!subresource.empty()) {
    path += "/";
    path += subresource;
  }
  return path;
}

namespace resources {
const ResourceType kPods{"", "v1", "pods", "Pod", true};
const ResourceType kNodes{"", "v1", "nodes", "Node", false};
const ResourceType kNamespaces{"", "v1", "namespaces", "Namespace", false};
const ResourceType kConfigMaps{"", "v1", "configmaps", "ConfigMap", true};
const ResourceType kSecrets{"", "v1", "secrets", "Secret", true};
const ResourceType kServices{"", "v1", "services", "Service", true};
const ResourceType kServiceAccounts{"", "v1", "serviceaccounts", "ServiceAccount", true};
const ResourceType kEvents{"", "v1", "events", "Event", true};
const ResourceType kLeases{"coordination.k8s.io", "v1", "leases", "Lease", true};
const ResourceType kEndpoints{"", "v1", "endpoints", "Endpoints", true};
const ResourceType kEndpointSlices{"discovery.k8s.io", "v1", "endpointslices", "EndpointSlice",
                                   true};
const ResourceType kPersistentVolumeClaims{"", "v1", "persistentvolumeclaims",
                                           "PersistentVolumeClaim", true};
const ResourceType kPersistentVolumes{"", "v1", "persistentvolumes", "PersistentVolume", false};
const ResourceType kStorageClasses{"storage.k8s.io", "v1", "storageclasses", "StorageClass", false};
const ResourceType kCsiDrivers{"storage.k8s.io", "v1", "csidrivers", "CSIDriver", false};
const ResourceType kCsiStorageCapacities{"storage.k8s.io", "v1", "csistoragecapacities",
                                         "CSIStorageCapacity", true};
const ResourceType kCsiNodes{"storage.k8s.io", "v1", "csinodes", "CSINode", false};
const ResourceType kResourceSlices{"resource.k8s.io", "v1", "resourceslices", "ResourceSlice",
                                   false};
const ResourceType kDeviceClasses{"resource.k8s.io", "v1", "deviceclasses", "DeviceClass", false};
const ResourceType kDeviceTaintRules{"resource.k8s.io", "v1", "devicetaintrules", "DeviceTaintRule",
                                     false};
const ResourceType kResourceClaims{"resource.k8s.io", "v1", "resourceclaims", "ResourceClaim",
                                   true};
const ResourceType kJobs{"batch", "v1", "jobs", "Job", true};
const ResourceType kDeployments{"apps", "v1", "deployments", "Deployment", true};
const ResourceType kReplicaSets{"apps", "v1", "replicasets", "ReplicaSet", true};
const ResourceType kStatefulSets{"apps", "v1", "statefulsets", "StatefulSet", true};
const ResourceType kPodDisruptionBudgets{"policy", "v1", "poddisruptionbudgets",
                                         "PodDisruptionBudget", true};
const ResourceType kPriorityClasses{"scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass",
                                    false};
const ResourceType kRuntimeClasses{"node.k8s.io", "v1", "runtimeclasses", "RuntimeClass", false};
const ResourceType kNetworkPolicies{"networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy",
                                    true};
const ResourceType kMutatingWebhookConfigurations{"admissionregistration.k8s.io", "v1",
                                                  "mutatingwebhookconfigurations",
                                                  "MutatingWebhookConfiguration", false};
const ResourceType kCustomResourceDefinitions{
    "apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", false};
const ResourceType kClusterRoles{"rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole",
                                 false};
const ResourceType kClusterRoleBindings{"rbac.authorization.k8s.io", "v1", "clusterrolebindings",
                                        "ClusterRoleBinding", false};
const ResourceType kRoles{"rbac.authorization.k8s.io", "v1", "roles", "Role", true};
const ResourceType kRoleBindings{"rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding",
                                 true};
const ResourceType kQueues{kai::kApiGroup, kai::kQueueVersion, kai::kQueueResource, kai::kQueueKind,
                           false};
const ResourceType kPodGroups{kai::kApiGroup, kai::kPodGroupVersion, kai::kPodGroupResource,
                              kai::kPodGroupKind, true};
const ResourceType kTopologies{kai::kTopologyApiGroup, kai::kTopologyVersion,
                               kai::kTopologyResource, kai::kTopologyKind, false};
const ResourceType kTenants{"vtenant.io", "v1alpha1", "tenants", "Tenant", false};

const std::vector<const ResourceType*>& All() {
  static const std::vector<const ResourceType*> all = {
      &kPods,
      &kNodes,
      &kNamespaces,
      &kConfigMaps,
      &kSecrets,
      &kServices,
      &kServiceAccounts,
      &kEvents,
      &kLeases,
      &kEndpoints,
      &kEndpointSlices,
      &kPersistentVolumeClaims,
      &kPersistentVolumes,
      &kStorageClasses,
      &kCsiDrivers,
      &kCsiStorageCapacities,
      &kCsiNodes,
      &kResourceSlices,
      &kDeviceClasses,
      &kResourceClaims,
      &kJobs,
      &kDeployments,
      &kReplicaSets,
      &kStatefulSets,
      &kPodDisruptionBudgets,
      &kPriorityClasses,
      &kRuntimeClasses,
      &kNetworkPolicies,
      &kMutatingWebhookConfigurations,
      &kCustomResourceDefinitions,
      &kClusterRoles,
      &kClusterRoleBindings,
      &kRoles,
      &kRoleBindings,
      &kQueues,
      &kPodGroups,
      &kTopologies,
      &kTenants,
  };
  return all;
}
}  // namespace resources

Result<ResourceType> ResourceTypeFor(std::string_view api_version, std::string_view kind) {
  for (const ResourceType* type : resources::All()) {
    if (type->kind == kind && type->ApiVersion() == api_version) return *type;
  }
  return NotFound("no known resource for apiVersion " + std::string(api_version) + ", kind " +
                  std::string(kind));
}

}  // namespace vtenant::kube
