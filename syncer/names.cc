#include "syncer/names.h"

#include <openssl/sha.h>

namespace vtenant::syncer {
namespace {

constexpr size_t kMaxName = 63;
constexpr size_t kKeptPrefix = 52;
constexpr size_t kHashDigits = 10;
constexpr std::string_view kSeparator = "-x-";

void ReplaceAll(std::string& s, std::string_view from, std::string_view to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
}

// `text` cut to 52 characters, "-", and the first 10 hex digits of the
// SHA-256 of `hashed`.
std::string Hashed(std::string_view text, std::string_view hashed) {
  std::string out(text.substr(0, kKeptPrefix));
  out += '-';
  out += HexSha256Prefix(hashed, kHashDigits);
  // "a.-b" or "a-.b" is not a DNS subdomain; the cut can leave either.
  ReplaceAll(out, ".-", "-");
  ReplaceAll(out, "-.", "-");
  return out;
}

// Occurrences of "-x-" in `s`, overlapping ones included ("a-x-x-b" has two).
size_t SeparatorCount(std::string_view s) {
  size_t n = 0;
  for (size_t at = s.find(kSeparator); at != std::string_view::npos;
       at = s.find(kSeparator, at + 1)) {
    ++n;
  }
  return n;
}

std::string VclusterForm(std::string_view name, std::string_view ns, std::string_view tenant) {
  std::string full(name);
  full += kSeparator;
  full += ns;
  full += kSeparator;
  full += tenant;
  return full;
}

}  // namespace

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

std::string SafeName(std::string_view full) {
  if (full.size() <= kMaxName) return std::string(full);
  return Hashed(full, full);
}

bool HasVclusterForm(std::string_view name, std::string_view ns) {
  std::string joined(name);
  joined += kSeparator;
  joined += ns;
  return SeparatorCount(joined) == 1;
}

std::string HostName(std::string_view name, std::string_view ns, std::string_view tenant) {
  const std::string full = VclusterForm(name, ns, tenant);
  if (HasVclusterForm(name, ns)) return SafeName(full);
  std::string encoding(ns);
  encoding += '/';
  encoding += name;
  encoding += '/';
  encoding += tenant;
  return Hashed(full, encoding);
}

std::string TokenSecretName(std::string_view pod, std::string_view ns, std::string_view tenant) {
  return HostName(pod, ns, tenant) + ".sa-token";
}

std::string WorkloadPodGroupName(std::string_view owner, std::string_view owner_uid,
                                 std::string_view ns, std::string_view tenant) {
  return HostName(owner, ns, tenant) + "." + HexSha256Prefix(owner_uid, kHashDigits) + ".pg";
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
