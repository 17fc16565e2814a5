// The allowlist of a host pod: every member of a Kubernetes v1.37 PodSpec
// and what the syncer does with it (allowlist.h). A member this table does
// not name is dropped and counted (vtenant_syncer_dropped_fields_total).
//
// Decisions: copy (as written), translate (rewritten for the host), force
// (ours, whatever the tenant wrote), check (refused with an Event when the
// Tenant does not allow it; pod_policy.h, pod_security.h), omit (left out
// on purpose), drop (unknown to the table: left out and counted).
//
// PodSpec
//   containers, initContainers        translate: the container table below
//   ephemeralContainers               omit: the API refuses them on create and
//                                     the syncer never adds them later; checked
//                                     all the same (pod_security.h)
//   volumes                           translate + check: the volume table below
//   restartPolicy, terminationGracePeriodSeconds, activeDeadlineSeconds,
//   shareProcessNamespace, readinessGates, os, hostUsers,
//   setHostnameAsFQDN, hostnameOverride, schedulingGates,
//   resources (requests, limits)      copy
//   dnsPolicy, dnsConfig              copy; translate to the virtual cluster's
//                                     DNS when the syncer has one
//                                     (pod_translator.h)
//   resourceClaims                    check: only when the Tenant allows
//                                     device classes (pod_policy.h), then
//                                     translate: names to the host copies
//                                     of the claims and templates
//                                     (device_claim_translator.h)
//   hostNetwork, hostPID, hostIPC     check (Pod Security), then copy
//   securityContext                   check (Pod Security), then copy its
//                                     known members (pod_schema.cc)
//   nodeSelector                      copy, the Tenant's merged over it (its
//                                     values win)
//   affinity.nodeAffinity             copy
//   affinity.podAffinity,
//   affinity.podAntiAffinity          translate: terms see the tenant's host
//                                     namespace only; `namespaces` and
//                                     `namespaceSelector` become a
//                                     vtenant.io/virtual-namespace In (...)
//                                     requirement of the term's labelSelector
//   topologySpreadConstraints         translate: labelSelector scoped to the
//                                     pod's virtual namespace the same way
//   tolerations                       check: only those an allowedTolerations
//                                     entry matches (others dropped, with an
//                                     Event), plus the Tenant's own
//   schedulerName                     force: the host's vtenant scheduler
//   priorityClassName                 check: a host class the Tenant allows;
//                                     system-* classes omitted
//   priority, preemptionPolicy        omit: the host's admission derives them
//                                     from the class
//   overhead                          omit: the host's RuntimeClass admission
//                                     sets it from the host's RuntimeClass
//   runtimeClassName                  check: allowedRuntimeClasses, then copy
//   serviceAccountName, serviceAccount omit: no host service account
//   automountServiceAccountToken      force false (virtual tokens come as a
//                                     Secret, pod_translator.h)
//   enableServiceLinks                force false (the virtual Services'
//                                     variables are written out instead)
//   nodeName                          omit: the host scheduler places the pod
//   hostname                          copy; the virtual name when unset
//   subdomain                         translate: the host Service's name
//   hostAliases                       copy, plus kubernetes.default's
//   imagePullSecrets                  translate: host copies
//   schedulingGroup,
//   evictionResponders                drop (they name host objects)
// Container (init, regular)
//   name, image, command, args, workingDir, imagePullPolicy, stdin,
//   stdinOnce, tty, terminationMessagePath, terminationMessagePolicy,
//   restartPolicy, restartPolicyRules, resizePolicy, volumeMounts,
//   volumeDevices                     copy
//   ports                             copy; hostPort checked (Pod Security)
//   env, envFrom                      translate: ConfigMap/Secret names to
//                                     host copies, downward API to virtual
//                                     values, virtual Service variables added
//   resources                         copy limits, requests and claims (they
//                                     name the pod's own resourceClaims)
//   securityContext                   check (Pod Security), then copy
//   livenessProbe, readinessProbe,
//   startupProbe, lifecycle           copy; httpGet.host / tcpSocket.host
//                                     checked (Pod Security: no exception)
// Volume
//   name                              copy
//   configMap, secret,
//   persistentVolumeClaim             translate: host copies
//   projected                         translate: host copies; a
//                                     serviceAccountToken becomes the host
//                                     Secret with the virtual token;
//                                     clusterTrustBundle and podCertificate
//                                     dropped (host signers and bundles)
//   downwardAPI                       translate: virtual values
//   emptyDir, image                   copy
//   ephemeral                         translate: labels and annotations as a
//                                     pod's; claim spec copied but for
//                                     selector and volumeName (refused) and a
//                                     dataSource(Ref), which must be a claim
//                                     of the same virtual namespace (its host
//                                     copy) or is refused
//   csi                               check (allowedCSIDrivers), then copy;
//                                     nodePublishSecretRef to its host copy
//   hostPath                          check (privileged feature hostPath)
//   gitRepo                           check: never allowed
//   every other in-tree type          check (allowedVolumeTypes), then copy;
//                                     their secretRef to its host copy
// Metadata: name and namespace forced; labels and annotations the tenant's
// minus reserved keys (reserved_keys.h, with PodKeyExceptions()), plus the
// syncer's own; everything else omitted.
#pragma once

#include <string_view>

#include "syncer/allowlist.h"
#include "syncer/reserved_keys.h"

namespace vtenant::syncer {

// The PodSpec table above (the Custom members are the translator's).
const Schema& PodSpecSchema();

// The reserved-unless-excepted keys a host pod may carry from the tenant:
// the recommended app.kubernetes.io/ labels, the ones workload controllers
// put on pods that Services and downward API volumes read (a StatefulSet
// pod's name and index, a Job's name and completion index), kubectl's
// default container, none of which a host component selects on in a
// tenant's namespace; and vtenant.dev/run-duration, with which a pod on the
// local environment's simulated nodes ends its own run.
const KeyExceptions& PodKeyExceptions();

// The pod volume's type: its one member besides "name" ("configMap",
// "hostPath", ...), or "" when it has none.
std::string_view VolumeType(const rapidjson::Value& volume);

}  // namespace vtenant::syncer
