#include "syncer/endpoint_addresses.h"

#include "syncer/names.h"

namespace vtenant::syncer {
namespace {

IpRange Range(std::string_view cidr) {
  std::optional<IpRange> r = IpRange::Parse(cidr);
  return r ? *r : IpRange{};
}

// Why `address` is special (rules in the header), or nullopt.
std::optional<std::string> Special(const IpAddress& address) {
  struct Known {
    IpRange range;
    const char* why;
  };
  static const std::vector<Known> kSpecial = {
      {Range("0.0.0.0/8"), "an unspecified address"},
      {Range("127.0.0.0/8"), "a loopback address"},
      {Range("169.254.0.0/16"), "a link-local address, where cloud metadata services answer"},
      {Range("224.0.0.0/4"), "a multicast address"},
      {Range("240.0.0.0/4"), "a reserved address"},
      {Range("100.100.100.200/32"), "a cloud metadata service's address"},
      {Range("::/128"), "an unspecified address"},
      {Range("::1/128"), "a loopback address"},
      {Range("fe80::/10"), "a link-local address, where cloud metadata services answer"},
      {Range("ff00::/8"), "a multicast address"},
      {Range("fd00:ec2::254/128"), "a cloud metadata service's address"},
  };
  for (const Known& k : kSpecial) {
    if (k.range.Contains(address)) return k.why;
  }
  return std::nullopt;
}

}  // namespace

void HostNetwork::AddNode(const rapidjson::Value& node) {
  const std::string name(kube::Name(node));
  if (const rapidjson::Value* addresses = kube::Find(node, {"status", "addresses"});
      addresses != nullptr && addresses->IsArray()) {
    for (const rapidjson::Value& a : addresses->GetArray()) {
      if (auto ip = IpAddress::Parse(kube::GetString(a, {"address"}))) node_addresses_[*ip] = name;
    }
  }
  auto add_range = [&](std::string_view cidr) {
    if (auto range = IpRange::Parse(cidr)) pod_ranges_.emplace_back(*range, name);
  };
  add_range(kube::GetString(node, {"spec", "podCIDR"}));
  if (const rapidjson::Value* cidrs = kube::Find(node, {"spec", "podCIDRs"});
      cidrs != nullptr && cidrs->IsArray()) {
    for (const rapidjson::Value& c : cidrs->GetArray()) add_range(kube::GetString(c, {}));
  }
}

void HostNetwork::AddTenantPod(const rapidjson::Value& pod) {
  if (auto ip = IpAddress::Parse(kube::GetString(pod, {"status", "podIP"}))) {
    tenant_pods_.insert(*ip);
  }
  if (const rapidjson::Value* ips = kube::Find(pod, {"status", "podIPs"});
      ips != nullptr && ips->IsArray()) {
    for (const rapidjson::Value& i : ips->GetArray()) {
      if (auto ip = IpAddress::Parse(kube::GetString(i, {"ip"}))) tenant_pods_.insert(*ip);
    }
  }
}

std::optional<std::string> HostNetwork::WhyNot(std::string_view address) const {
  std::optional<IpAddress> ip = IpAddress::Parse(address);
  if (!ip) return "not an IP address";
  if (std::optional<std::string> special = Special(*ip)) return special;
  if (auto node = node_addresses_.find(*ip); node != node_addresses_.end()) {
    return "an address of host Node " + node->second;
  }
  if (tenant_pods_.contains(*ip)) return std::nullopt;
  for (const auto& [range, node] : pod_ranges_) {
    if (range.Contains(*ip)) {
      return "in the pod range of host Node " + node + " and not one of this tenant's pods";
    }
  }
  return std::nullopt;
}

bool LeftOffAddresses::Keep(std::string_view address, const HostNetwork& network) {
  std::optional<std::string> why = network.WhyNot(address);
  if (!why) return true;
  list_ += (list_.empty() ? "" : ", ") + std::string(address) + " (" + *why + ")";
  return false;
}

void LeftOffAddresses::Tell(TranslationNotes* notes) const {
  if (!list_.empty() && notes != nullptr) {
    notes->warnings.push_back(
        {kEndpointAddressNotAllowed, "addresses left off the host copy: " + list_});
  }
}

std::optional<rapidjson::Value> HostTargetRef(const rapidjson::Value& ref, std::string_view ns,
                                              const SyncerConfig& config, Allocator& a) {
  if (!ref.IsObject() || kube::GetString(ref, {"kind"}) != "Pod") return std::nullopt;
  const std::string_view name = kube::GetString(ref, {"name"});
  if (name.empty()) return std::nullopt;
  const std::string_view ref_ns = kube::GetString(ref, {"namespace"});
  // Only what names the host pod: the virtual uid and resourceVersion
  // would point at nothing there.
  rapidjson::Value host(rapidjson::kObjectType);
  SetStringMember(host, "kind", "Pod", a);
  SetStringMember(host, "namespace", config.host_namespace, a);
  SetStringMember(host, "name", HostName(name, ref_ns.empty() ? ns : ref_ns, config.tenant), a);
  return host;
}

void SetHostTargetRef(const rapidjson::Value& endpoint, rapidjson::Value& host_endpoint,
                      std::string_view ns, const SyncerConfig& config, Allocator& a) {
  const rapidjson::Value* ref = kube::Find(endpoint, {"targetRef"});
  if (ref == nullptr) return;
  if (std::optional<rapidjson::Value> host_ref = HostTargetRef(*ref, ns, config, a)) {
    SetMember(host_endpoint, "targetRef", std::move(*host_ref), a);
  }
}

}  // namespace vtenant::syncer
