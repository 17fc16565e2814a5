#include "syncer/names.h"

#include <openssl/sha.h>

namespace vtenant::syncer {
namespace {

constexpr size_t kMaxName = 63;
constexpr size_t kKeptPrefix = 52;
constexpr size_t kHashDigits = 10;

std::string HexSha256Prefix(std::string_view text, size_t digits) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char byte : digest) {
    out += kHex[byte >> 4];
    out += kHex[byte & 0xf];
    if (out.size() >= digits) break;
  }
  out.resize(digits);
  return out;
}

void ReplaceAll(std::string& s, std::string_view from, std::string_view to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
}

}  // namespace

std::string SafeName(std::string_view full) {
  if (full.size() <= kMaxName) return std::string(full);
  std::string out(full.substr(0, kKeptPrefix));
  out += '-';
  out += HexSha256Prefix(full, kHashDigits);
  // "a.-b" or "a-.b" is not a DNS subdomain; the cut can leave either.
  ReplaceAll(out, ".-", "-");
  ReplaceAll(out, "-.", "-");
  return out;
}

std::string HostName(std::string_view name, std::string_view ns, std::string_view tenant) {
  std::string full(name);
  full += "-x-";
  full += ns;
  full += "-x-";
  full += tenant;
  return SafeName(full);
}

std::string DnsLabel(std::string_view name) {
  std::string out(name.substr(0, kMaxName));
  for (char& c : out) {
    if (c == '.') c = '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

}  // namespace vtenant::syncer
