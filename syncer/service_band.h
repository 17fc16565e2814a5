// Which band of a Service range a cluster IP falls in, as the syncer judges
// the cluster IPs a tenant's Services ask for (service_translator.h).
#pragma once

#include "base/ip_address.h"

namespace vtenant::syncer {

// Where an address falls in a Service range, as kube-apiserver's cluster IP
// allocator divides it (KEP-3070, "reserve Service IP ranges for dynamic
// and static allocation"):
//   kOutside: not in the range, or its first or last address, which the
//     allocator never gives;
//   kStatic: the lower band, the min(max(16, size/16), 256) addresses after
//     the first (all of a range of 16 addresses; none of a smaller one).
//     The allocator takes these last, so a platform gives them out by hand
//     (the cluster DNS's 10.96.0.10) and counts on finding them free;
//   kDynamic: the rest, which the allocator picks from at random.
enum class ServiceBand { kOutside, kStatic, kDynamic };
ServiceBand BandOf(const IpRange& service_range, const IpAddress& address);

}  // namespace vtenant::syncer
