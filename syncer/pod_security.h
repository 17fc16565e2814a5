// PodSecurity: the Pod Security Standards (Kubernetes v1.37, as the
// PodSecurity admission plugin of that release checks them) on a tenant's
// pod, with the exceptions its Tenant allows.
//
// Every container kind is checked: init, regular and ephemeral. Each rule
// and the allowedPrivilegedFeatures entry that lifts it:
//
// baseline (every Tenant)
//   windowsOptions.hostProcess true (pod, containers)     windowsHostProcess
//   hostNetwork / hostPID / hostIPC true                    hostNetwork / hostPID / hostIPC
//   securityContext.privileged true                         privileged
//   capabilities.add beyond AUDIT_WRITE, CHOWN,
//     DAC_OVERRIDE, FOWNER, FSETID, KILL, MKNOD,
//     NET_BIND_SERVICE, SETFCAP, SETGID, SETPCAP, SETUID,
//     SYS_CHROOT                                            capabilities
//   a hostPath volume                                       hostPath
//   ports[].hostPort other than 0                           hostPorts
//   appArmorProfile.type Unconfined (pod, containers), or
//     annotation container.apparmor.security.beta.
//     kubernetes.io/* other than runtime/default,
//     localhost/*                                           unconfinedAppArmor
//   seLinuxOptions.type other than container_t,
//     container_init_t, container_kvm_t,
//     container_engine_t; seLinuxOptions.user or .role      seLinux
//   procMount other than Default, unless hostUsers false    procMount
//   seccompProfile.type Unconfined (pod, containers)        unconfinedSeccomp
//   sysctls other than the safe set of v1.37                unsafeSysctls
//   probes' and lifecycle hooks' httpGet.host or
//     tcpSocket.host set (requests from the node)           none
// restricted (podSecurity: restricted), in addition
//   volumes other than configMap, csi, downwardAPI,
//     emptyDir, ephemeral, image, persistentVolumeClaim,
//     projected, secret                                     hostPath for hostPath; else none
//   allowPrivilegeEscalation not false (not on Windows)     privileged
//   runAsNonRoot not true (pod, or every container),
//     unless hostUsers false                                none
//   runAsUser 0, unless hostUsers false                     none
//   seccompProfile.type not RuntimeDefault or Localhost
//     (pod, or every container; not on Windows)             unconfinedSeccomp
//   capabilities.drop without ALL, or add other than
//     NET_BIND_SERVICE (not on Windows)                     capabilities
//   procMount other than Default, even with hostUsers false procMount
#pragma once

#include <set>
#include <string>
#include <vector>

#include "kube/object.h"
#include "syncer/syncer_config.h"

namespace vtenant::syncer {

// One rule a pod breaks.
struct PodSecurityViolation {
  std::string field;    // "spec.containers[main].securityContext.privileged"
  std::string what;     // "is true", "adds NET_ADMIN", ...
  std::string feature;  // the allowedPrivilegedFeatures entry that lifts it; "" when none does
  PodSecurityLevel level = PodSecurityLevel::kBaseline;  // the level whose rule it is
};

// Every rule of `level` that `pod` (a virtual Pod) breaks and `allowed`
// (allowedPrivilegedFeatures) does not lift: baseline's before restricted's;
// within a level the pod's own fields first (for baseline: Windows host
// process, host namespaces, hostPath volumes, AppArmor, SELinux, seccomp,
// sysctls; for restricted: volume types, runAsNonRoot, runAsUser), then
// each container in turn (init, regular, ephemeral), which is not the
// table's order. Empty when the pod may run.
std::vector<PodSecurityViolation> CheckPodSecurity(
    const rapidjson::Value& pod, PodSecurityLevel level,
    const std::set<std::string, std::less<>>& allowed);

}  // namespace vtenant::syncer
