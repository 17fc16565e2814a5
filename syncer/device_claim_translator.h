// DeviceClaimTranslator: ResourceClaims and ResourceClaimTemplates
// (resource.k8s.io/v1) to their host copies (object_translators.h says
// what every host copy shares).
//
// A claim asks the host's scheduler for devices of the host, by class and
// by the claim's own CEL selectors, so it is the tenant's only within what
// its Tenant lists (`config.allowed_device_classes`). A copy is made only
// while a pod names the claim or template (copy_syncer.h, kReferenced); the
// host pod names the copy. A template's copy makes the host's resourceclaim
// controller create each pod's claim on the host, owned by the host pod.
//
// The claim spec, member by member (a template's spec.spec likewise):
//   devices.requests[]: name; exactly or firstAvailable[] (each a name in
//     the latter) with
//     deviceClassName: kept when the Tenant lists it, else refused. The
//       class is the host's: a DeviceClass of the same name that the team
//       made in its own cluster is never read;
//     selectors[].cel.expression, allocationMode, count: kept (the host's
//       API server bounds the expressions' cost; the scheduler refuses
//       what it cannot read);
//     adminAccess: true refused. Admin access reaches devices that other
//       tenants' pods hold;
//     tolerations: refused. A device taint is the host's word that a device
//       is not to be used;
//     capacity: refused (consumable capacity is not offered to tenants);
//     any other member: left out and reported;
//   devices.constraints[] (requests, matchAttribute, distinctAttribute):
//     kept;
//   devices.config[]: refused. A driver's configuration of the devices it
//     hands out is the host's to give, in the DeviceClass;
//   any other member: left out and reported.
// Labels and annotations are kept as on every copy; a claim's copy, and the
// claims a template's copy makes, carry the tenant's queue label
// (kai.scheduler/queue), which the scheduler asks of a GPU claim that
// pods share. Status is never copied to the host: the host's scheduler
// writes it. It goes the other way instead: a virtual claim's status shows
// its copy's allocation (the devices, their node, the driver's device
// status), so that `kubectl get resourceclaims` in the team's cluster says
// what the team got; never reservedFor, which names host pods.
//
// A refusal is a Warning Event DeviceClaimNotAllowed on the virtual object
// naming the field; no host copy is made (one already there keeps what it
// had), and pods that name it wait on the host, saying the claim is
// missing.
#pragma once

#include <optional>

#include "kube/object.h"
#include "syncer/object_translators.h"
#include "syncer/syncer_config.h"

namespace vtenant::syncer {

// ToHost, then Update of the host's copy: the shape every translator has,
// a parallel on purpose (each kind's rules are its own).
class DeviceClaimTranslator {
 public:
  explicit DeviceClaimTranslator(const SyncerConfig& config) : config_(config) {}

  // The host copy of virtual ResourceClaim or ResourceClaimTemplate
  // `virtual_object`; a refusal and the members left out go to `notes`
  // when not null.
  kube::Object ToHost(const rapidjson::Value& virtual_object,
                      TranslationNotes* notes = nullptr) const;

  // `host` with the labels and annotations of `desired` (a ToHost answer);
  // nullopt when it has them. A claim's and a template's spec cannot
  // change once made, and the virtual ones cannot either.
  std::optional<kube::Object> Update(const rapidjson::Value& desired,
                                     const rapidjson::Value& host) const;

  // Virtual ResourceClaim `virtual_claim` with the status its host copy
  // `host` (null: none) calls for: the copy's status.allocation and
  // status.devices, nothing else. An allocation cannot change once set, so
  // one that differs from the copy's is first cleared (the next call sets
  // the new one). nullopt when the status is already that, and for a
  // template (which has no status).
  std::optional<kube::Object> StatusFromHost(const rapidjson::Value* host,
                                             const rapidjson::Value& virtual_claim) const;

 private:
  const SyncerConfig& config_;
};

}  // namespace vtenant::syncer
