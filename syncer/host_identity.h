// Which virtual object a host object stands for, as the syncer recorded it,
// and the check made before every write or delete of a host object
// (docs/architecture.md, "Syncer rules", rule 5).
//
// Host names are unique per virtual object only up to 40 bits of a hash
// (names.h), and the host namespace also holds objects the syncer did not
// make (the operator's Secrets, whatever an admin put there). So the syncer
// never trusts a name alone: before it updates or deletes a host object on
// behalf of a virtual object, and after a create that found the name
// taken, it compares the identity the host object records with the one it
// acts for. A clash is never overwritten nor deleted; the caller puts a
// Warning Event (kHostNameClash, with the message made here) on its
// virtual object and leaves both objects as they are.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "kube/client.h"
#include "kube/object.h"

namespace vtenant::syncer {

inline constexpr char kHostNameClash[] = "HostNameClash";

struct VirtualIdentity {
  // The virtual object's kind: the host object's own for copies; "Pod" for
  // a pod's token Secret; the workload's ("Job", "ReplicaSet", ...) or
  // "PodGroup" for a host PodGroup.
  std::string kind;
  std::string ns;
  std::string name;
  // Wanted identities: empty matches any UID (an older incarnation of the
  // same virtual object is the syncer's to update or replace, as each
  // kind's rules say); otherwise it must be equal.
  std::string uid;

  // In the tenant's names: "ConfigMap ml/settings", "the service-account
  // token of Pod ml/trainer", "the PodGroup of Job ml/etl", for a host
  // object of kind `host_kind`.
  std::string Describe(std::string_view host_kind) const;
};

// The key ("namespace/name") of the virtual object a host object stands
// for, from its virtual-namespace and virtual-name annotations; nullopt
// without them. Only a key to look up: CheckIdentity decides whether the
// host object may be acted on for it.
std::optional<std::string> VirtualKeyOf(const rapidjson::Value& host);

// The identity `host`, of kind `host_kind`, records: the virtual namespace,
// name and UID annotations; the kind from vtenant.io/virtual-kind, else (a
// PodGroup) the first entry of its owner chain, else `host_kind`. nullopt
// when it is not one vtenant-syncer made for `tenant` (labels
// vtenant.io/managed-by and vtenant.io/tenant) or records no virtual
// namespace and name.
std::optional<VirtualIdentity> RecordedIdentity(const rapidjson::Value& host,
                                                std::string_view host_kind,
                                                std::string_view tenant);

// OK when `host` (of kind `host_kind`) stands for `wanted`: the same kind,
// namespace and name, and the same UID when `wanted` names one. Otherwise
// AlreadyExists whose message says, in the tenant's names, what holds the
// host name and that `wanted` is not synced while it does.
Status CheckIdentity(const rapidjson::Value& host, std::string_view host_kind,
                     const VirtualIdentity& wanted, std::string_view tenant);

// After a create in `ns` answered AlreadyExists, or when neither cache
// knows `name`: reads the object that holds it (a list by metadata.name,
// which the syncer's host Role allows for every kind it writes, and which
// also finds objects its label-selected caches never see) and checks it as
// CheckIdentity does. OK: it is the syncer's own and the cache has not
// caught up; Unavailable: no object holds it (gone again); else the list's
// error.
Status CheckTakenName(kube::Client& host, const kube::ResourceType& type, std::string_view ns,
                      std::string_view name, const VirtualIdentity& wanted,
                      std::string_view tenant);

}  // namespace vtenant::syncer
