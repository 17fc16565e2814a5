// The host objects a Tenant owns, rendered from its spec: one function per
// kind, pure, so each is unit-tested on its own and the reconciler only
// decides when to write them.
#pragma once

#include <string>

#include "kube/object.h"
#include "kube/resource.h"
#include "operator/certificates.h"
#include "operator/tenant.h"

namespace vtenant::op {

namespace resources {
extern const kube::ResourceType kNetworkPolicies;
extern const kube::ResourceType kStatefulSets;
}  // namespace resources

inline constexpr char kSyncerServiceAccount[] = "vtenant-syncer";
inline constexpr char kNetworkPolicyName[] = "vtenant-isolation";
// Shared by every tenant's syncer: reading nodes is cluster-scoped.
inline constexpr char kSyncerNodeReaderRole[] = "vtenant:syncer-node-reader";
std::string SyncerNodeReaderBinding(std::string_view tenant);  // vtenant:syncer:<t>
std::string KubeconfigReaderRole(std::string_view tenant);     // vc-<t>-kubeconfig-reader

// Namespace vtenant-<t>, labelled with the tenant and annotated with the
// backend its control plane was built with (what CheckImmutable compares).
kube::Object RenderNamespace(const TenantSpec& spec);

// Secret vc-<t>-certs with the PKI (see certificates.h).
kube::Object RenderCertificateSecret(const TenantSpec& spec, const TenantCertificates& certs);

// Secret vc-<t>, key `config`: a kubeconfig for `endpoint` as the virtual
// cluster's admin.
kube::Object RenderKubeconfigSecret(const TenantSpec& spec, const TenantCertificates& certs,
                                    const std::string& endpoint);

// The syncer's ServiceAccount, its Role over the host namespace only
// (pods and what pods reference, PodGroups, events) and the binding.
kube::Object RenderSyncerServiceAccount(const TenantSpec& spec);
kube::Object RenderSyncerRole(const TenantSpec& spec);
kube::Object RenderSyncerRoleBinding(const TenantSpec& spec);
// The node reader ClusterRole (shared) and this tenant's binding to it.
kube::Object RenderSyncerNodeReaderRole();
kube::Object RenderSyncerNodeReaderBinding(const TenantSpec& spec);

// Read access to the kubeconfig Secret, and only it, for spec.admins.
kube::Object RenderKubeconfigReaderRole(const TenantSpec& spec);
kube::Object RenderKubeconfigReaderBinding(const TenantSpec& spec);

// Ingress into the host namespace from the same namespace only, plus the
// virtual API server's port (admins and the operator must reach it).
kube::Object RenderNetworkPolicy(const TenantSpec& spec);

// KAI Queue <t> under spec.queue.parentQueue with the spec's quotas.
kube::Object RenderQueue(const TenantSpec& spec);

}  // namespace vtenant::op
