// The few DNS messages a virtual cluster's DNS server (cluster_dns.h)
// reads and writes (RFC 1035, section 4): a standard query with one
// question in, an authoritative answer with A records or an error code
// out. Pure: bytes in, bytes out. A query is untrusted input from any pod
// of the node, so parsing checks every length against the packet and
// refuses what a stub resolver never sends (compression pointers in the
// question, several questions, answers in a query).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace vtenant::dns {

inline constexpr uint16_t kDnsTypeA = 1;
inline constexpr uint16_t kDnsTypeAaaa = 28;
inline constexpr uint16_t kDnsClassIn = 1;

// Response codes (RFC 1035 4.1.1).
enum class DnsRcode : uint8_t {
  kNoError = 0,
  kFormatError = 1,
  kServerFailure = 2,
  kNameError = 3,  // NXDOMAIN
  kNotImplemented = 4,
  kRefused = 5,
};

struct DnsQuery {
  uint16_t id = 0;
  uint8_t opcode = 0;
  bool recursion_desired = false;
  // The question, its name in lower case without the final dot
  // ("web.default.svc.cluster.local"; "" for the root).
  std::string name;
  uint16_t type = 0;
  uint16_t qclass = 0;
  // The question section as sent (name, type, class), echoed in the answer.
  std::string question;
};

// The query in `packet`. InvalidArgument, saying what is wrong, for a
// packet shorter than a header, a response, a question count other than
// one, answer or authority records, a name that runs past the packet, uses
// a compression pointer (or another label type), has a label over 63 bytes
// or is over 255 bytes in all, or a question without its type and class.
// Additional records (an EDNS OPT record) are allowed and ignored.
Result<DnsQuery> ParseDnsQuery(std::string_view packet);

// The answer to `query`: its id, opcode, question and recursion-desired
// bit echoed, authoritative, recursion not available, `rcode`, and one A
// record of `ttl` seconds per address (none unless rcode is kNoError).
std::string EncodeDnsResponse(const DnsQuery& query, DnsRcode rcode,
                              const std::vector<std::array<uint8_t, 4>>& addresses, uint32_t ttl);

// A FORMERR answer to a packet ParseDnsQuery refused, echoing its id, or
// "" when the packet is too short to have one or is itself a response
// (nothing is sent back then).
std::string EncodeDnsFormatError(std::string_view packet);

}  // namespace vtenant::dns
