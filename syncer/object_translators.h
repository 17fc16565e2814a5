// What every translator of a virtual object to its host copy shares (the
// pod's aside): the host metadata, what a translation has to tell, and the
// update that brings a host copy level with its translation.
//
// A host copy is built member by member from what its translator knows to
// be safe (allowlist.h), never copied whole: it is named HostName(name, ns,
// tenant) in the tenant's host namespace, carries the tenant's labels
// (vtenant.io/tenant, -virtual-namespace, -managed-by) and the virtual
// name, namespace and UID annotations, and no ownerReferences, finalizers
// or status. The virtual object's own labels and annotations travel
// unless reserved (reserved_keys.h); a kind may let some kubernetes.io keys
// through, or (Services) keep only the annotations it names.
//
// One translator per kind, each with the same verbs:
//   ToHost(virtual, notes)  the host copy, and what the team must hear of
//                           (Endpoints and EndpointSlices also take the
//                           host's network, to judge addresses by);
//   Update(desired, host)   `host` brought level with a ToHost answer.
// Whoever writes a ToHost answer passes notes: a refusal is told only
// there.
// ConfigMaps and Secrets: data_translator.h; PersistentVolumeClaims:
// claim_translator.h; Services: service_translator.h; Endpoints:
// endpoints_translator.h; EndpointSlices: endpoint_slice_translator.h.
#pragma once

#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "kube/object.h"
#include "syncer/allowlist.h"
#include "syncer/pod_policy.h"
#include "syncer/reserved_keys.h"
#include "syncer/syncer_config.h"

namespace vtenant::syncer {

// What translating one virtual object came to besides the host copy.
struct TranslationNotes {
  // Members no allowlist takes, for vtenant_syncer_dropped_fields_total.
  DroppedFields dropped;
  // Set: the object may not reach the host as written. ToHost's answer is
  // not to be written; a host copy already there keeps what it had.
  std::optional<Refusal> refusal;
  // Fields changed or left out that the team must hear of (a Warning Event
  // on the virtual object); the host copy is still written.
  std::vector<Refusal> warnings;
};

// Which label and annotation keys of a virtual object its host copy keeps.
struct MetadataRules {
  // The kubernetes.io / k8s.io keys let through (reserved_keys.h); every
  // other key is kept unless reserved.
  KeyExceptions labels;
  KeyExceptions annotations;
  // When not null, the only annotation keys kept (a list of vtenant's, so
  // `annotations` is not consulted).
  const std::set<std::string, std::less<>>* annotation_allowlist = nullptr;
};

// What every kind but Services keeps: labels and annotations that are not
// reserved, the recommended app.kubernetes.io/ labels and annotations, and
// the kubernetes.io/description annotation.
const MetadataRules& DefaultMetadataRules();

// A new object of `virtual_object`'s apiVersion and kind with the host
// metadata above, its labels and annotations kept by `rules`. Label and
// annotation keys left out, and metadata members no translator knows, go
// to `notes->dropped` (when not null); kubectl's last-applied annotation
// is left out silently (it is the tenant's record, of no use on the host).
kube::Object HostObjectBase(const rapidjson::Value& virtual_object, const SyncerConfig& config,
                            const MetadataRules& rules, TranslationNotes* notes);

// `host` with the labels, annotations and `fields` (top-level members, set
// or removed) of `desired`, a translator's ToHost; nullopt when nothing
// differs. Everything else the host holds (resourceVersion, what the host
// filled in) is kept.
std::optional<kube::Object> WithFields(const rapidjson::Value& desired,
                                       const rapidjson::Value& host,
                                       std::initializer_list<std::string_view> fields);

// Sets member `key` of `to` to a copy of `from`'s, or removes it from `to`
// when `from` has none.
void CopyOrRemoveMember(const rapidjson::Value& from, rapidjson::Value& to, std::string_view key,
                        Allocator& a);

}  // namespace vtenant::syncer
