// Network addresses written "host:port", the way flags, API server URLs and
// HTTP CONNECT requests give them. Every program splits them here, so that
// "[::1]:8081", ":8081" and a bad port mean the same everywhere.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace vtenant {

struct HostPort {
  std::string host;  // an IPv6 literal without its brackets; may be empty
  uint16_t port = 0;
};

// Splits `text` at its last ':' into a host and a port from 1 to 65535.
// "[::1]:8081" is {"::1", 8081}; ":8081" has an empty host, and what that
// means is the caller's. InvalidArgument for text with no ':' (saying
// "\"<text>\" is not host:port") or a port that is not a whole number from
// 1 to 65535 (saying "port \"<port>\" must be a whole number from 1 to 65535").
Result<HostPort> ParseHostPort(std::string_view text);

// ParseHostPort for an address to listen on: an empty host is 0.0.0.0, all
// interfaces, as ":8081" is to the Kubernetes components.
Result<HostPort> ParseListenAddress(std::string_view text);

}  // namespace vtenant
