#include "dns/dns_message.h"

#include <cctype>

namespace vtenant::dns {

namespace {

constexpr size_t kHeaderSize = 12;
constexpr size_t kMaxLabel = 63;
constexpr size_t kMaxName = 255;  // in wire form, length bytes included

uint16_t Read16(std::string_view p, size_t at) {
  return static_cast<uint16_t>((static_cast<uint8_t>(p[at]) << 8) |
                               static_cast<uint8_t>(p[at + 1]));
}

void Append16(std::string& out, uint16_t v) {
  out.push_back(static_cast<char>(v >> 8));
  out.push_back(static_cast<char>(v & 0xff));
}

void Append32(std::string& out, uint32_t v) {
  Append16(out, static_cast<uint16_t>(v >> 16));
  Append16(out, static_cast<uint16_t>(v & 0xffff));
}

// The header of a response to `id` with these bits and counts.
std::string Header(uint16_t id, uint8_t opcode, bool rd, DnsRcode rcode, uint16_t qdcount,
                   uint16_t ancount) {
  std::string out;
  Append16(out, id);
  // QR=1, opcode, AA=1, TC=0, RD as asked; RA=0, Z=0, rcode.
  out.push_back(static_cast<char>(0x80 | ((opcode & 0x0f) << 3) | 0x04 | (rd ? 0x01 : 0x00)));
  out.push_back(static_cast<char>(static_cast<uint8_t>(rcode) & 0x0f));
  Append16(out, qdcount);
  Append16(out, ancount);
  Append16(out, 0);  // authority
  Append16(out, 0);  // additional
  return out;
}

}  // namespace

Result<DnsQuery> ParseDnsQuery(std::string_view p) {
  if (p.size() < kHeaderSize) return InvalidArgument("shorter than a DNS header");
  DnsQuery q;
  q.id = Read16(p, 0);
  const uint8_t flags = static_cast<uint8_t>(p[2]);
  if (flags & 0x80) return InvalidArgument("a response, not a query");
  q.opcode = (flags >> 3) & 0x0f;
  q.recursion_desired = flags & 0x01;
  if (Read16(p, 4) != 1) return InvalidArgument("not exactly one question");
  if (Read16(p, 6) != 0 || Read16(p, 8) != 0) {
    return InvalidArgument("a query with answer or authority records");
  }
  size_t at = kHeaderSize;
  size_t wire_length = 0;
  while (true) {
    if (at >= p.size()) return InvalidArgument("the name runs past the packet");
    const uint8_t length = static_cast<uint8_t>(p[at]);
    if ((length & 0xc0) != 0) return InvalidArgument("a compressed or extended label");
    wire_length += 1 + length;
    if (wire_length > kMaxName) return InvalidArgument("a name over 255 bytes");
    ++at;
    if (length == 0) break;
    if (length > kMaxLabel) return InvalidArgument("a label over 63 bytes");
    if (at + length > p.size()) return InvalidArgument("the name runs past the packet");
    if (!q.name.empty()) q.name.push_back('.');
    for (size_t i = 0; i < length; ++i) {
      q.name.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(p[at + i]))));
    }
    at += length;
  }
  if (at + 4 > p.size()) return InvalidArgument("a question without its type and class");
  q.type = Read16(p, at);
  q.qclass = Read16(p, at + 2);
  q.question = std::string(p.substr(kHeaderSize, at + 4 - kHeaderSize));
  return q;
}

std::string EncodeDnsResponse(const DnsQuery& query, DnsRcode rcode,
                              const std::vector<std::array<uint8_t, 4>>& addresses, uint32_t ttl) {
  const bool answer = rcode == DnsRcode::kNoError;
  const uint16_t count = answer ? static_cast<uint16_t>(addresses.size()) : 0;
  std::string out =
      Header(query.id, query.opcode, query.recursion_desired, rcode, /*qdcount=*/1, count);
  out += query.question;
  for (uint16_t i = 0; i < count; ++i) {
    Append16(out, 0xc000 | kHeaderSize);  // the question's name
    Append16(out, kDnsTypeA);
    Append16(out, kDnsClassIn);
    Append32(out, ttl);
    Append16(out, 4);
    for (uint8_t byte : addresses[i]) out.push_back(static_cast<char>(byte));
  }
  return out;
}

std::string EncodeDnsFormatError(std::string_view packet) {
  if (packet.size() < kHeaderSize || (static_cast<uint8_t>(packet[2]) & 0x80)) return "";
  const uint8_t flags = static_cast<uint8_t>(packet[2]);
  return Header(Read16(packet, 0), (flags >> 3) & 0x0f, flags & 0x01, DnsRcode::kFormatError,
                /*qdcount=*/0, /*ancount=*/0);
}

}  // namespace vtenant::dns
