// Names, labels and annotations that mark what the syncer writes on the host.
//
// Host objects get deterministic names, so after a crash the syncer finds
// what it already created instead of creating it twice, and the virtual UID
// annotation tells an object from an older one of the same name.
// KAI's own names are kai/names.h's; these are vtenant's.
#pragma once

#include <string>
#include <string_view>

#include "kai/names.h"

namespace vtenant::syncer {

// Labels on every synced host object.
inline constexpr char kTenantLabel[] = "vtenant.io/tenant";
inline constexpr char kVirtualNamespaceLabel[] = "vtenant.io/virtual-namespace";
inline constexpr char kManagedByLabel[] = "vtenant.io/managed-by";
inline constexpr char kManagedByValue[] = "vtenant-syncer";
// Labels of the tenant's virtual namespace, carried onto host pods under
// this prefix so NetworkPolicy namespace selectors can still tell them apart:
// "vtenant.io/ns-label.<key>" (a key with a prefix keeps only its name part).
inline constexpr char kNamespaceLabelPrefix[] = "vtenant.io/ns-label.";

// Annotations on every synced host object: which virtual object it stands
// for (host_identity.h reads them before every write or delete).
inline constexpr char kVirtualNameAnnotation[] = "vtenant.io/virtual-name";
inline constexpr char kVirtualNamespaceAnnotation[] = "vtenant.io/virtual-namespace";
inline constexpr char kVirtualUidAnnotation[] = "vtenant.io/virtual-uid";
// The virtual object's kind, on host objects whose own kind is not it: a
// pod's token Secret says "Pod". (A host PodGroup's is in its owner chain.)
inline constexpr char kVirtualKindAnnotation[] = "vtenant.io/virtual-kind";
inline constexpr char kOwnerChainAnnotation[] = "vtenant.io/owner-chain";
// Host pods only: what downward-API volumes read instead of the host values.
inline constexpr char kVirtualLabelsAnnotation[] = "vtenant.io/virtual-labels";
inline constexpr char kVirtualAnnotationsAnnotation[] = "vtenant.io/virtual-annotations";
inline constexpr char kVirtualServiceAccountAnnotation[] = "vtenant.io/virtual-service-account";

// KAI Scheduler's pod contract, spelled once in kai/names.h.
using kai::kGpuFractionAnnotation;
using kai::kGpuMemoryAnnotation;
using kai::kPodGroupAnnotation;
using kai::kPodGroupApiVersion;
using kai::kPreemptibilityLabel;
using kai::kQueueLabel;

// The host name of the virtual object `name` in virtual namespace `ns` of
// `tenant`, for every host object that stands for one virtual object of its
// own kind: pods, the copies of ConfigMaps, Secrets, PVCs, ResourceClaims
// and their templates, Services, Endpoints and EndpointSlices, and the host
// PodGroup of a virtual PodGroup.
//
// vCluster's "<name>-x-<ns>-x-<tenant>" when that can be read back only
// one way: "-x-" occurs exactly once in "<name>-x-<ns>" (so neither holds
// "-x-", the name does not end in "-x" and the namespace does not start
// with "x-"). Longer than 63 characters, it is the first 52 characters,
// "-", and the first 10 hex digits of the SHA-256 of the full name; a ".-"
// or "-." the cut leaves becomes "-", so the result stays a valid DNS name.
// People recognise it, as in vCluster.
//
// Any other pair would share vCluster's form with another ("a-x-b" in "c"
// and "a" in "b-x-c" are both "a-x-b-x-c-x-<tenant>"), so it always gets
// the hashed form: that text cut to 52 characters, "-", and the first 10
// hex digits of the SHA-256 of "<ns>/<name>/<tenant>" ('/' is in no name).
//
// So two different (namespace, name) pairs share a host name only if 40
// bits of SHA-256 agree, which a determined tenant can search for; that is
// why every host write and delete checks the identity the host object
// records (host_identity.h) rather than trusting the name.
std::string HostName(std::string_view name, std::string_view ns, std::string_view tenant);

// The first `digits` (at most 64) lowercase hex digits of SHA-256(`text`):
// the hash part of every name the syncer derives.
std::string HexSha256Prefix(std::string_view text, size_t digits);

// Whether HostName gives (name, ns) vCluster's form (before any shortening).
bool HasVclusterForm(std::string_view name, std::string_view ns);

// Host names of what the syncer makes for its own purposes, beside the
// host name of what it stands for and never equal to any HostName: a
// HostName's last dot-separated part ends in "-x-<tenant>" or in "-" and
// 10 hex digits, these end in a fixed part that does neither.
//
// The Secret holding virtual pod `pod`'s service-account token:
// "<HostName(pod, ns, tenant)>.sa-token".
std::string TokenSecretName(std::string_view pod, std::string_view ns, std::string_view tenant);
// The host PodGroup of a workload (a Job, a ReplicaSet, a Kubeflow job...)
// named `owner` with UID `owner_uid` in `ns`:
// "<HostName(owner, ns, tenant)>.<first 10 hex of SHA-256 of the UID>.pg".
// The UID keeps a re-created workload of the same name out of the old
// group; hashed, since an ownerReference's UID is whatever the tenant wrote.
std::string WorkloadPodGroupName(std::string_view owner, std::string_view owner_uid,
                                 std::string_view ns, std::string_view tenant);

// The same shortening applied to any name: itself when at most 63
// characters, else the hashed form above.
std::string SafeName(std::string_view full);

// A valid DNS label (RFC 1123, at most 63 characters) made from `name`:
// dots become dashes, it is cut at 63, and dashes the cut leaves at the end
// go. A pod's hostname must be one.
std::string DnsLabel(std::string_view name);

}  // namespace vtenant::syncer
