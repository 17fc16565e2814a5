// IP addresses and ranges as the syncer judges them: endpoint addresses
// (endpoint_addresses.h) and the cluster IPs a tenant's Services ask for
// (service_translator.h).
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vtenant::syncer {

// An IPv4 or IPv6 address; IPv4-mapped IPv6 addresses are read as IPv4.
struct IpAddress {
  bool v6 = false;
  std::array<uint8_t, 16> bytes{};  // IPv4: the first 4

  static std::optional<IpAddress> Parse(std::string_view text);
  // The address in its canonical text ("10.96.3.3", "fd00::5").
  std::string ToString() const;
  auto operator<=>(const IpAddress&) const = default;
};

// An address range, "10.244.0.0/24".
struct IpRange {
  IpAddress base;
  int bits = 0;

  static std::optional<IpRange> Parse(std::string_view cidr);
  bool Contains(const IpAddress& address) const;
};

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
