// The host objects a Tenant owns, rendered from its spec: one function per
// kind, pure, so each is unit-tested on its own and the reconciler only
// decides when to write them.
#pragma once

#include <string>

#include "kube/object.h"
#include "kube/resource.h"
#include "operator/certificates.h"
#include "operator/operator_identity.h"
#include "operator/tenant.h"
#include "syncer/names.h"

namespace vtenant::op {

// The operator's own names; the syncer's are syncer/names.h's, KAI's
// kai/names.h's.
inline constexpr char kSyncerServiceAccount[] = "vtenant-syncer";
inline constexpr char kNetworkPolicyName[] = "vtenant-isolation";
// ClusterRoles the chart installs (charts/vtenant/templates/operator-rbac.yaml):
// the syncer's rights in its tenant's namespace (kSyncerRole) and, further
// down, its cluster-scoped read of nodes (kSyncerNodeReaderRole), which the
// operator binds but never holds; and the operator's own rights in a
// tenant's namespace (kOperatorTenantRole), which it binds to itself there.
inline constexpr char kSyncerRole[] = "vtenant:syncer";
inline constexpr char kControlPlaneNetworkPolicyName[] = "vtenant-control-plane";
// The label host components select the control-plane pod by (a vtenant.io
// key: the syncer never copies one from a tenant), and the label every
// synced pod carries, which selectors of the control plane exclude.
inline constexpr char kComponentLabel[] = "vtenant.io/component";
inline constexpr char kControlPlaneComponent[] = "control-plane";
inline constexpr const auto& kSyncerManagedByLabel = syncer::kManagedByLabel;
inline constexpr char kSyncerNodeReaderRole[] = "vtenant:syncer-node-reader";
inline constexpr char kOperatorTenantRole[] = "vtenant:operator-tenant-namespace";
// The RoleBindings of those roles in vtenant-<t>.
inline constexpr char kSyncerRoleBinding[] = "vtenant:syncer";
inline constexpr char kOperatorRoleBinding[] = "vtenant:operator";
// The Role and RoleBinding older operators gave the syncer, removed when the
// binding above replaces them (a RoleBinding's roleRef cannot change).
inline constexpr char kLegacySyncerRole[] = "vtenant-syncer";
std::string SyncerNodeReaderBinding(std::string_view tenant);  // vtenant:syncer:<t>
std::string KubeconfigReaderRole(std::string_view tenant);     // vc-<t>-kubeconfig-reader

// Namespace vtenant-<t>, labelled with the tenant and its Pod Security
// Admission level (PodSecurityLabels) and annotated with the backend its
// control plane was built with (what CheckImmutable compares).
kube::Object RenderNamespace(const TenantSpec& spec);

// Secret vc-<t>-certs with the PKI (see certificates.h), in `ns`: the
// operator's own namespace, never the tenant's, whose Secrets the syncer
// reads (it holds the tenant's CA keys).
kube::Object RenderCertificateSecret(const TenantSpec& spec, const TenantCertificates& certs,
                                     const std::string& ns);

// Secret vc-<t>, key `config`: a kubeconfig for `endpoint` with the team's
// credential (certs.tenant_admin), annotated with the last rotation carried
// out (kCredentialsRotationAnnotation), which `vtenant rotate-credentials`
// waits for.
kube::Object RenderKubeconfigSecret(const TenantSpec& spec, const TenantCertificates& certs,
                                    const std::string& endpoint);
inline constexpr char kCredentialsRotationAnnotation[] = "vtenant.io/credentials-rotation";

// The operator's own RoleBinding in vtenant-<t> to kOperatorTenantRole:
// how it may write there at all (`self` is who it is on the host).
kube::Object RenderOperatorRoleBinding(const TenantSpec& spec, const RbacSubject& self);

// The syncer's ServiceAccount and its binding to kSyncerRole in the host
// namespace only (pods and what pods reference, PodGroups; reading Events).
kube::Object RenderSyncerServiceAccount(const TenantSpec& spec);
kube::Object RenderSyncerRoleBinding(const TenantSpec& spec);
// This tenant's binding to the shared node reader ClusterRole.
kube::Object RenderSyncerNodeReaderBinding(const TenantSpec& spec);

// Read access to the kubeconfig Secret, and only it, for spec.admins.
kube::Object RenderKubeconfigReaderRole(const TenantSpec& spec);
kube::Object RenderKubeconfigReaderBinding(const TenantSpec& spec);

// The NetworkPolicy "vtenant-isolation" over every pod of the host
// namespace. Admits, and nothing else:
//   ingress from pods of the same namespace (the tenant's pods, their
//     Services, and their virtual API server in the control-plane pod);
//   egress to pods of the same namespace; to port 53 (UDP and TCP) anywhere,
//     for DNS wherever the cluster serves it (other tenants' pods refuse it
//     with their own ingress rule); and to addresses outside the private,
//     shared (100.64/10), link-local and loopback ranges, i.e. outside the
//     cluster, as long as the cluster's pods, Services, nodes and its
//     API server use those ranges (a public host API server address stays
//     reachable, though with no credential for it on the tenant's pods).
// So the tenant's pods reach neither other tenants' namespaces, nor the
// host control plane, nor vtenant's own namespaces. Nor a private address
// outside the cluster (a database on the company network behind a
// selector-less Service): NetworkPolicies add up, so an admin who wants
// that adds a policy of their own in the namespace.
kube::Object RenderNetworkPolicy(const TenantSpec& spec);

// The NetworkPolicy "vtenant-control-plane" over the control-plane pod only
// (label vtenant.io/component=control-plane and no vtenant.io/managed-by,
// which every synced pod carries; the statefulset backend's pod). Admits,
// besides the above: ingress to the virtual API server's port 6443 from
// pods of `operator_namespace` (the operator, with its own `operator` client
// certificate, installs KAI's PodGroup CRD and the RBAC bindings in the
// virtual cluster and issues the syncer's token there), and egress anywhere
// (the syncer in that pod works on the host API server). Admins reach the
// virtual API server through `kubectl port-forward`, which no NetworkPolicy
// sees.
kube::Object RenderControlPlaneNetworkPolicy(const TenantSpec& spec,
                                             std::string_view operator_namespace);

// KAI Queue <t> under spec.queue.parentQueue with the spec's quotas.
kube::Object RenderQueue(const TenantSpec& spec);

// In the virtual cluster: the team's group is cluster-admin (its
// credential is not system:masters, so that it can be revoked), and the
// syncer acts as ServiceAccount kube-system/vtenant-syncer, cluster-admin
// there too, by a binding the operator can remove and with tokens that
// expire.
inline constexpr char kVirtualSyncerNamespace[] = "kube-system";
kube::Object RenderTenantAdminsBinding();          // ClusterRoleBinding vtenant:tenant-admins
kube::Object RenderVirtualSyncerServiceAccount();  // kube-system/vtenant-syncer
kube::Object RenderVirtualSyncerBinding();         // ClusterRoleBinding vtenant:syncer

}  // namespace vtenant::op
