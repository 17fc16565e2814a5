// IP addresses and ranges as every vtenant program reads them: the syncer
// judges endpoint addresses and Service cluster IPs with them, and the
// operator and syncer check their address and range flags.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vtenant {

// An IPv4 or IPv6 address; IPv4-mapped IPv6 addresses are read as IPv4.
struct IpAddress {
  bool v6 = false;
  std::array<uint8_t, 16> bytes{};  // IPv4: the first 4

  // The address in numeric text ("10.96.3.3", "fd00::5"); nullopt for
  // anything else, a host name among them.
  static std::optional<IpAddress> Parse(std::string_view text);
  // The address in its canonical text ("10.96.3.3", "fd00::5").
  std::string ToString() const;
  auto operator<=>(const IpAddress&) const = default;
};

// An address range, "10.244.0.0/24".
struct IpRange {
  IpAddress base;
  int bits = 0;

  // "ADDRESS/BITS" with BITS at most the address's length; nullopt for
  // anything else.
  static std::optional<IpRange> Parse(std::string_view cidr);
  bool Contains(const IpAddress& address) const;
};

}  // namespace vtenant
