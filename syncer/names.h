// Names, labels and annotations that mark what the syncer writes on the host.
//
// Host objects get deterministic names, so after a crash the syncer finds
// what it already created instead of creating it twice, and the virtual UID
// annotation tells an object from an older one of the same name.
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

// Annotations on every synced host object.
inline constexpr char kVirtualNameAnnotation[] = "vtenant.io/virtual-name";
inline constexpr char kVirtualNamespaceAnnotation[] = "vtenant.io/virtual-namespace";
inline constexpr char kVirtualUidAnnotation[] = "vtenant.io/virtual-uid";
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
inline constexpr const auto& kGpuFractionDevicesAnnotation = kai::kGpuFractionNumDevicesAnnotation;

// The host name of virtual object `name` in virtual namespace `ns` of
// `tenant`: "<name>-x-<ns>-x-<tenant>". Longer than 63 characters, it is the
// first 52 characters, "-", and the first 10 hex digits of the SHA-256 of
// the full name; a ".-" or "-." the cut leaves becomes "-", so the result
// stays a valid DNS name. The same as vCluster's, so people recognise it.
std::string HostName(std::string_view name, std::string_view ns, std::string_view tenant);

// The same shortening applied to any name: itself when at most 63
// characters, else the hashed form above.
std::string SafeName(std::string_view full);

// A valid DNS label (RFC 1123, at most 63 characters) made from `name`:
// dots become dashes, it is cut at 63, and dashes the cut leaves at the end
// go. A pod's hostname must be one.
std::string DnsLabel(std::string_view name);

}  // namespace vtenant::syncer
