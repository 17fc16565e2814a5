// PodPolicy: what a tenant's pod may ask of the shared host.
//
// The guard rails of the syncer (design.md, "Rules the syncer never
// breaks", rule 4): a pod that asks for a host feature its Tenant does not
// allow, or whose GPU annotations the scheduler could not honour, never
// reaches the host. The refusal says which field and why, for the Event and
// the condition the tenant sees on the virtual pod.
#pragma once

#include <optional>
#include <string>

#include "kube/object.h"
#include "syncer/syncer_config.h"

namespace vtenant::syncer {

struct Refusal {
  std::string reason;   // CamelCase: "PrivilegedFeatureNotAllowed", "InvalidGpuAnnotation", ...
  std::string message;  // names the field and what would be allowed
};

// The first rule `pod` (a virtual Pod) breaks, or nullopt when it may run on
// the host. Checked, in order:
//   - hostNetwork, hostPID, hostIPC, hostPath volumes, privileged containers
//     and added capabilities (in init, regular and ephemeral containers),
//     each unless `config.allowed_privileged_features` names it;
//   - the GPU request (annotations gpu-fraction, gpu-memory,
//     gpu-fraction-num-devices; nvidia.com/gpu and MIG limits) by
//     kai::ParseGpuRequest's rules, which the host's admission webhook and
//     scheduler apply too (reason InvalidGpuAnnotation);
//   - priorityClassName: empty, a system class, or one the config allows.
std::optional<Refusal> CheckPod(const rapidjson::Value& pod, const SyncerConfig& config);

}  // namespace vtenant::syncer
