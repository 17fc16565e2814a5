#include "base/ip_address.h"

#include <arpa/inet.h>

#include <charconv>
#include <cstring>
#include <string>

namespace vtenant {

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

}  // namespace vtenant
