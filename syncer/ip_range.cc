#include "syncer/ip_range.h"

#include <arpa/inet.h>

#include <charconv>
#include <cstring>
#include <string>

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

std::optional<IpAddress> IpAddress::Parse(std::string_view text) {
  if (text.empty() || text.size() > 45) return std::nullopt;
  const std::string s(text);
  IpAddress out;
  if (inet_pton(AF_INET, s.c_str(), out.bytes.data()) == 1) return out;
  if (inet_pton(AF_INET6, s.c_str(), out.bytes.data()) != 1) return std::nullopt;
  static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(out.bytes.data(), kMapped, 12) == 0) {
    std::memmove(out.bytes.data(), out.bytes.data() + 12, 4);
    std::memset(out.bytes.data() + 4, 0, 12);
    return out;
  }
  out.v6 = true;
  return out;
}

std::string IpAddress::ToString() const {
  char text[INET6_ADDRSTRLEN] = {};
  if (inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), text, sizeof text) == nullptr) return "";
  return text;
}

std::optional<IpRange> IpRange::Parse(std::string_view cidr) {
  const size_t slash = cidr.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  std::optional<IpAddress> base = IpAddress::Parse(cidr.substr(0, slash));
  if (!base) return std::nullopt;
  const std::string_view bits_text = cidr.substr(slash + 1);
  int bits = -1;
  auto [end, ec] = std::from_chars(bits_text.data(), bits_text.data() + bits_text.size(), bits);
  if (ec != std::errc() || end != bits_text.data() + bits_text.size() || bits < 0 ||
      bits > (base->v6 ? 128 : 32)) {
    return std::nullopt;
  }
  return IpRange{*base, bits};
}

bool IpRange::Contains(const IpAddress& address) const {
  if (address.v6 != base.v6) return false;
  const int whole = bits / 8;
  if (std::memcmp(address.bytes.data(), base.bytes.data(), whole) != 0) return false;
  const int rest = bits % 8;
  if (rest == 0) return true;
  const uint8_t mask = static_cast<uint8_t>(0xff << (8 - rest));
  return (address.bytes[whole] & mask) == (base.bytes[whole] & mask);
}

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
