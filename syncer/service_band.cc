#include "syncer/service_band.h"

#include <algorithm>

namespace vtenant::syncer {
namespace {

using Uint128 = unsigned __int128;

Uint128 AsInteger(const IpAddress& address) {
  Uint128 value = 0;
  for (size_t i = 0; i < (address.v6 ? 16u : 4u); ++i) value = (value << 8) | address.bytes[i];
  return value;
}

// The size of the static band of a range with `host_bits` free bits:
// min(max(16, size/16), 256), and none when the range has fewer than 16
// addresses. (Kubernetes releases differ on a range of exactly 16: some
// give it no band; here all of it is one, the answer that honours fewer
// requests.)
Uint128 StaticBandSize(int host_bits) {
  if (host_bits < 4) return 0;
  if (host_bits >= 12) return 256;
  return std::max<Uint128>(16, (Uint128{1} << host_bits) / 16);
}

}  // namespace

ServiceBand BandOf(const IpRange& service_range, const IpAddress& address) {
  if (!service_range.Contains(address)) return ServiceBand::kOutside;
  const int host_bits = (address.v6 ? 128 : 32) - service_range.bits;
  if (host_bits <= 0) return ServiceBand::kOutside;
  const Uint128 host_mask = host_bits >= 128 ? ~Uint128{0} : (Uint128{1} << host_bits) - 1;
  const Uint128 index = AsInteger(address) & host_mask;
  if (index == 0 || index == host_mask) return ServiceBand::kOutside;
  // The band starts at the first address the allocator gives, index 1.
  return index <= StaticBandSize(host_bits) ? ServiceBand::kStatic : ServiceBand::kDynamic;
}

}  // namespace vtenant::syncer
