// ClaimTranslator: PersistentVolumeClaims to their host copies
// (object_translators.h says what every host copy shares).
//
// The spec, member by member:
//   accessModes, resources (requests, limits), volumeMode: kept;
//   storageClassName, volumeAttributesClassName: kept. The host's classes
//     are what the platform offers every tenant, and naming one asks for
//     that kind of storage; a list of classes per Tenant does not exist
//     yet;
//   volumeName: refused. It names a host PersistentVolume, and none is the
//     tenant's to name: the host binds the copy to a volume provisioned
//     for it;
//   selector: refused. It picks host PersistentVolumes by label, anyone's;
//   dataSource, dataSourceRef: a PersistentVolumeClaim of the claim's own
//     virtual namespace (no apiGroup; no namespace, or the claim's own)
//     becomes its host copy; anything else is refused: a claim of another
//     namespace, a VolumeSnapshot (none reaches the host), a volume
//     populator's object. The source's host copy exists only while a pod
//     mounts it (claims are copied on demand), so a clone waits for that;
//   any other member: left out and reported.
// A refusal is a Warning Event VolumeClaimNotAllowed on the virtual claim
// naming the field; no host copy is made (one already there keeps what it
// had, and its data), and pods that mount the claim wait for it.
#pragma once

#include <optional>

#include "kube/object.h"
#include "syncer/object_translators.h"
#include "syncer/syncer_config.h"

namespace vtenant::syncer {

// ToHost, then Update of the host's copy: the shape every translator has,
// a parallel on purpose (each kind's rules are its own).
class ClaimTranslator {
 public:
  explicit ClaimTranslator(const SyncerConfig& config) : config_(config) {}

  // The host copy of virtual claim `virtual_object`; a refusal and the
  // members left out go to `notes` when not null.
  kube::Object ToHost(const rapidjson::Value& virtual_object,
                      TranslationNotes* notes = nullptr) const;

  // `host` with the labels and annotations of `desired` (a ToHost answer),
  // keeping the reserved kubernetes.io annotations the host's controllers
  // wrote (binding, provisioning, the selected node), its storage request
  // when that changed (a shrink is sent too: the host refuses it) and its
  // volumeAttributesClassName when `desired` names one; nullopt when it has
  // them.
  // Nothing else of a claim's spec may change once made.
  std::optional<kube::Object> Update(const rapidjson::Value& desired,
                                     const rapidjson::Value& host) const;

 private:
  const SyncerConfig& config_;
};

}  // namespace vtenant::syncer
