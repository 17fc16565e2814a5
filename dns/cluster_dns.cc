#include "dns/cluster_dns.h"

#include <arpa/inet.h>

#include <array>
#include <vector>

#include "dns/dns_message.h"

namespace vtenant::dns {

namespace {

std::optional<std::array<uint8_t, 4>> Ipv4(const std::string& text) {
  std::array<uint8_t, 4> bytes{};
  if (inet_pton(AF_INET, text.c_str(), bytes.data()) != 1) return std::nullopt;
  return bytes;
}

}  // namespace

std::string AnswerClusterDns(std::string_view packet, const ServiceAddressLookup& lookup,
                             const ClusterDnsOptions& options) {
  Result<DnsQuery> parsed = ParseDnsQuery(packet);
  if (!parsed.ok()) return EncodeDnsFormatError(packet);
  const DnsQuery& q = *parsed;
  auto answer = [&](DnsRcode rcode, std::vector<std::array<uint8_t, 4>> addresses = {}) {
    return EncodeDnsResponse(q, rcode, addresses, options.ttl_seconds);
  };
  if (q.opcode != 0 || q.qclass != kDnsClassIn) return answer(DnsRcode::kNotImplemented);

  // <service>.<namespace>.svc.cluster.local, nothing else.
  const std::string suffix = std::string(".svc.") + kClusterDomain;
  const std::string& name = q.name;
  if (name.size() <= suffix.size() ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return answer(DnsRcode::kNameError);
  }
  const std::string service_ns = name.substr(0, name.size() - suffix.size());
  const size_t dot = service_ns.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == service_ns.size() ||
      service_ns.find('.', dot + 1) != std::string::npos) {
    return answer(DnsRcode::kNameError);
  }
  const std::string service = service_ns.substr(0, dot), ns = service_ns.substr(dot + 1);

  std::optional<std::string> address;
  if (service == "kubernetes" && ns == "default" && !options.kubernetes_address.empty()) {
    address = options.kubernetes_address;
  } else {
    address = lookup(ns, service);
  }
  if (!address.has_value()) return answer(DnsRcode::kNameError);
  // The name exists: A records for an IPv4 cluster IP, an empty answer for
  // any other type or a Service without one.
  std::optional<std::array<uint8_t, 4>> ip = Ipv4(*address);
  if (q.type != kDnsTypeA || !ip.has_value()) return answer(DnsRcode::kNoError);
  return answer(DnsRcode::kNoError, {*ip});
}

std::string AnswerClusterDnsFor(std::string_view query, std::string_view from,
                                const AskerCheck& check, const ServiceAddressLookup& lookup,
                                const ClusterDnsOptions& options) {
  switch (check(from)) {
    case Asker::kAnswered:
      return AnswerClusterDns(query, lookup, options);
    case Asker::kUnknown:
      return "";
    case Asker::kRefused:
      break;
  }
  Result<DnsQuery> parsed = ParseDnsQuery(query);
  if (!parsed.ok()) return EncodeDnsFormatError(query);
  return EncodeDnsResponse(*parsed, DnsRcode::kRefused, {}, 0);
}

}  // namespace vtenant::dns
