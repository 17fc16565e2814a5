// PodPolicy: what a tenant's pod may ask of the shared host.
//
// The guard rails of the syncer (docs/architecture.md, "Syncer rules",
// rule 4): a pod that asks for a host feature its Tenant does not allow,
// or whose GPU annotations the scheduler could not honour, never reaches
// the host. The refusal says which field and why, for the Event and
// the condition the tenant sees on the virtual pod.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "kube/object.h"
#include "syncer/syncer_config.h"

namespace vtenant::syncer {

// Where a refusal's message points the team: "(Tenant spec.isolation.
// <setting>: <the names it allows, or none>)".
std::string TenantSetting(std::string_view setting,
                          const std::set<std::string, std::less<>>& names);

struct Refusal {
  std::string reason;   // CamelCase: "PrivilegedFeatureNotAllowed", "InvalidGpuAnnotation", ...
  std::string message;  // names the field and what would be allowed
};

// The first rule `pod` (a virtual Pod) breaks, or nullopt when it may run on
// the host. Checked, in order:
//   - the Pod Security Standards at `config.pod_security`, less the
//     exceptions `config.allowed_privileged_features` names
//     (pod_security.h); reason PrivilegedFeatureNotAllowed when an
//     exception would allow the first violation, else PodSecurityViolation;
//     the message names every field that breaks a rule (the first five);
//   - volume types: `config.allowed_volume_types` (hostPath is the Pod
//     Security rule's, gitRepo never passes), inline csi volumes only with a
//     driver of `config.allowed_csi_drivers` (VolumeTypeNotAllowed,
//     CSIDriverNotAllowed); an inline ephemeral claim as a tenant's claim
//     (VolumeClaimNotAllowed): no selector or volumeName (they would bind a
//     volume of the host's), a dataSource or dataSourceRef only of a claim
//     of the same namespace, named without one (IsSameNamespaceClaim);
//   - runtimeClassName: empty or one of `config.allowed_runtime_classes`
//     (RuntimeClassNotAllowed);
//   - resource claims, pod or container, only when the Tenant lists device
//     classes (`config.allowed_device_classes`; ResourceClaimsNotAllowed).
//     Which classes a claim asks for, and how, the claim's own translation
//     checks (device_claim_translator.h): a pod names claims, and waits on
//     the host for those that may not be copied;
//   - the GPU request (annotations gpu-fraction, gpu-memory,
//     gpu-fraction-num-devices; nvidia.com/gpu and MIG limits) by
//     kai::ParseGpuRequest's rules, which the host's admission webhook and
//     scheduler apply too (reason InvalidGpuAnnotation);
//   - the NVIDIA container toolkit's device variables (NVIDIA_VISIBLE_DEVICES,
//     NVIDIA_MIG_CONFIG_DEVICES, NVIDIA_MIG_MONITOR_DEVICES) in any
//     container's env: only "", "void" or "none", unless the Tenant allows
//     the privileged feature "gpuDevices" (PrivilegedFeatureNotAllowed).
//     A device variable from an image or an envFrom source the syncer
//     cannot see; the node's toolkit must ignore those (docs/security.md);
//   - priorityClassName: empty, a system class, or one the config allows;
//     the label priorityClassName, which KAI's pod grouper reads when the
//     pod names no class: empty or one the config allows
//     (PriorityClassNotAllowed).
std::optional<Refusal> CheckPod(const rapidjson::Value& pod, const SyncerConfig& config);

}  // namespace vtenant::syncer
