#include "base/host_port.h"

#include <charconv>

namespace vtenant {

Result<HostPort> ParseHostPort(std::string_view text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) {
    return InvalidArgument("\"" + std::string(text) + "\" is not host:port");
  }
  HostPort out;
  out.host = std::string(text.substr(0, colon));
  if (out.host.size() >= 2 && out.host.front() == '[' && out.host.back() == ']') {
    out.host = out.host.substr(1, out.host.size() - 2);
  }
  const std::string_view port = text.substr(colon + 1);
  int n = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), n);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || n < 1 || n > 65535) {
    return InvalidArgument("port \"" + std::string(port) +
                           "\" must be a whole number from 1 to 65535");
  }
  out.port = static_cast<uint16_t>(n);
  return out;
}

Result<HostPort> ParseListenAddress(std::string_view text) {
  VT_ASSIGN_OR_RETURN(HostPort address, ParseHostPort(text));
  if (address.host.empty()) address.host = "0.0.0.0";
  return address;
}

}  // namespace vtenant
