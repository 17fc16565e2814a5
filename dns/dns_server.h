// The UDP loop of a DNS server: one answer per query, on the socket the
// query came in on, to the address it came from.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace vtenant::dns {

// The answer to one query packet from the numeric address `from`
// ("10.244.0.7"), or "" when nothing is to be sent back (AnswerClusterDns,
// for example).
using DnsAnswerer = std::function<std::string(std::string_view packet, std::string_view from)>;

// Reads datagrams from the bound UDP socket `fd` and sends each one
// `answer`'s reply, until `stopped()` is true (asked at least every half
// second). Datagrams over 4096 bytes are cut there, as no DNS query over
// UDP is that long. The caller keeps owning `fd`.
void ServeDnsQueries(int fd, const DnsAnswerer& answer, const std::function<bool()>& stopped);

}  // namespace vtenant::dns
