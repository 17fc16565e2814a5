#include "syncer/service_translator.h"

#include "syncer/json_edit.h"
#include "syncer/names.h"
#include "syncer/service_band.h"

namespace vtenant::syncer {
namespace {

constexpr char kTypeNotAllowed[] = "ServiceTypeNotAllowed";
constexpr char kFieldNotAllowed[] = "ServiceFieldNotAllowed";

const Schema& ServiceSchema() {
  static const Schema kPort =
      Schema().Copy({"name", "protocol", "appProtocol", "port", "targetPort"}).Custom({"nodePort"});
  static const Schema kSpec =
      Schema()
          .Copy({"sessionAffinity", "sessionAffinityConfig", "publishNotReadyAddresses",
                 "ipFamilyPolicy", "internalTrafficPolicy", "trafficDistribution"})
          .ArrayOf("ports", &kPort)
          .Custom({"type", "selector", "clusterIP", "clusterIPs", "ipFamilies", "externalIPs",
                   "externalName", "externalTrafficPolicy", "healthCheckNodePort", "loadBalancerIP",
                   "loadBalancerSourceRanges", "loadBalancerClass",
                   "allocateLoadBalancerNodePorts"});
  static const Schema kSchema =
      Schema().Custom({"apiVersion", "kind", "metadata", "status"}).Object("spec", &kSpec);
  return kSchema;
}

// The spec members Update brings level (the rest the host allocates, or
// may not change).
constexpr std::string_view kUpdated[] = {"selector",
                                         "type",
                                         "sessionAffinity",
                                         "sessionAffinityConfig",
                                         "publishNotReadyAddresses",
                                         "internalTrafficPolicy",
                                         "trafficDistribution",
                                         "externalTrafficPolicy",
                                         "loadBalancerSourceRanges",
                                         "allocateLoadBalancerNodePorts"};

bool Present(const rapidjson::Value* v) {
  if (v == nullptr || v->IsNull()) return false;
  if (v->IsString()) return v->GetStringLength() > 0;
  if (v->IsArray()) return !v->Empty();
  return true;
}

std::string AllowedTypes(const SyncerConfig& config) {
  std::string out;
  for (const std::string& t : config.allowed_service_types) out += (out.empty() ? "" : ", ") + t;
  return out;
}

}  // namespace

bool SelectsNoPods(const rapidjson::Value& service) {
  const rapidjson::Value* selector = kube::Find(service, {"spec", "selector"});
  return selector == nullptr || !selector->IsObject() || selector->ObjectEmpty();
}

const std::set<std::string, std::less<>>& ServiceAnnotationAllowlist(std::string_view host_type) {
  static const std::set<std::string, std::less<>> kAlways = {
      "service.kubernetes.io/topology-mode", "service.kubernetes.io/topology-aware-hints"};
  static const std::set<std::string, std::less<>> kLoadBalancer = [] {
    std::set<std::string, std::less<>> s = kAlways;
    s.insert({"service.beta.kubernetes.io/aws-load-balancer-internal",
              "service.beta.kubernetes.io/aws-load-balancer-scheme",
              "service.beta.kubernetes.io/aws-load-balancer-backend-protocol",
              "service.beta.kubernetes.io/aws-load-balancer-cross-zone-load-balancing-enabled",
              "networking.gke.io/load-balancer-type",
              "service.beta.kubernetes.io/azure-load-balancer-internal",
              "service.beta.kubernetes.io/azure-load-balancer-health-probe-request-path"});
    return s;
  }();
  return host_type == "LoadBalancer" ? kLoadBalancer : kAlways;
}

std::optional<Refusal> ServiceTranslator::Check(const rapidjson::Value& service) const {
  if (kube::GetString(service, {"spec", "type"}) != "ExternalName") return std::nullopt;
  return Refusal{kTypeNotAllowed,
                 "spec.type ExternalName is not copied to the host: the alias would be followed "
                 "there by host components acting for the tenant; pods reach the tenant's "
                 "Services through the addresses the syncer gives them"};
}

std::string ServiceTranslator::HostType(std::string_view type) const {
  const auto& allowed = config_.allowed_service_types;
  if (type == "LoadBalancer" && allowed.contains("LoadBalancer")) return "LoadBalancer";
  if ((type == "LoadBalancer" || type == "NodePort") && allowed.contains("NodePort")) {
    return "NodePort";
  }
  return "ClusterIP";
}

kube::Object ServiceTranslator::ToHost(const rapidjson::Value& virtual_object,
                                       TranslationNotes* notes) const {
  const rapidjson::Value* vspec = kube::Find(virtual_object, {"spec"});
  std::string_view type = kube::GetString(virtual_object, {"spec", "type"});
  if (type.empty()) type = "ClusterIP";
  const std::string host_type = HostType(type);
  MetadataRules rules = DefaultMetadataRules();
  rules.annotation_allowlist = &ServiceAnnotationAllowlist(host_type);
  kube::Object out = HostObjectBase(virtual_object, config_, rules, notes);
  Allocator& a = out.GetAllocator();
  ServiceSchema().Apply(virtual_object, out, a, "", notes != nullptr ? &notes->dropped : nullptr);
  auto warn = [&](std::string reason, std::string message) {
    if (notes != nullptr) notes->warnings.push_back({std::move(reason), std::move(message)});
  };
  if (notes != nullptr) notes->refusal = Check(virtual_object);
  rapidjson::Value& spec = ObjectMember(out, "spec", a);
  SetStringMember(spec, "type", host_type, a);
  if (type != host_type && type != "ExternalName") {
    warn(kTypeNotAllowed, "spec.type " + std::string(type) +
                              " is not allowed for this tenant (allowed: " + AllowedTypes(config_) +
                              "); the host Service is " + host_type);
  }
  if (vspec == nullptr || !vspec->IsObject()) return out;
  if (kube::GetString(*vspec, {"clusterIP"}) == "None") {
    SetStringMember(spec, "clusterIP", "None", a);
  } else if (std::optional<std::string> ip = ClusterIPToAsk(*vspec)) {
    SetStringMember(spec, "clusterIP", *ip, a);
  }
  const rapidjson::Value* selector = kube::Find(*vspec, {"selector"});
  if (selector != nullptr && selector->IsObject() && !selector->ObjectEmpty()) {
    rapidjson::Value& host_selector = ObjectMember(spec, "selector", a);
    host_selector.CopyFrom(*selector, a);
    SetStringMember(host_selector, kTenantLabel, config_.tenant, a);
    SetStringMember(host_selector, kVirtualNamespaceLabel, kube::Namespace(virtual_object), a);
  }
  if (const rapidjson::Value* ips = kube::Find(*vspec, {"externalIPs"}); Present(ips)) {
    warn(kFieldNotAllowed, "spec.externalIPs " + kube::ToJson(*ips) +
                               " are never carried to the host: the host's proxies would "
                               "capture traffic to those addresses, whoever's they are");
  }
  if (host_type == "NodePort" || host_type == "LoadBalancer") {
    CopyOrRemoveMember(*vspec, spec, "externalTrafficPolicy", a);
  }
  if (host_type == "LoadBalancer") {
    CopyOrRemoveMember(*vspec, spec, "loadBalancerSourceRanges", a);
    CopyOrRemoveMember(*vspec, spec, "allocateLoadBalancerNodePorts", a);
    for (std::string_view field : {"loadBalancerIP", "loadBalancerClass"}) {
      const rapidjson::Value* v = kube::Find(*vspec, {field});
      if (!Present(v)) continue;
      warn(kFieldNotAllowed, "spec." + std::string(field) + " " + kube::ToJson(*v) +
                                 " is not carried to the host: its load balancer picks the "
                                 "address and the implementation");
    }
  }
  return out;
}

std::optional<std::string> ServiceTranslator::ClusterIPToAsk(const rapidjson::Value& vspec) const {
  if (!config_.service_range) return std::nullopt;
  std::optional<IpAddress> address = IpAddress::Parse(kube::GetString(vspec, {"clusterIP"}));
  if (!address || BandOf(*config_.service_range, *address) != ServiceBand::kDynamic) {
    return std::nullopt;
  }
  // As judged: the host reads no other spelling of it.
  return address->ToString();
}

std::optional<kube::Object> ServiceTranslator::WithoutClusterIP(const rapidjson::Value& desired) {
  const std::string_view ip = kube::GetString(desired, {"spec", "clusterIP"});
  if (ip.empty() || ip == "None") return std::nullopt;
  kube::Object out = kube::Clone(desired);
  EraseMember(out["spec"], "clusterIP");
  return out;
}

std::optional<kube::Object> ServiceTranslator::Update(const rapidjson::Value& desired,
                                                      const rapidjson::Value& host) const {
  std::optional<kube::Object> out = WithFields(desired, host, {});
  kube::Object result = out ? std::move(*out) : kube::Clone(host);
  Allocator& a = result.GetAllocator();
  rapidjson::Value& spec = ObjectMember(result, "spec", a);
  const rapidjson::Value& want = desired["spec"];
  for (std::string_view f : kUpdated) CopyOrRemoveMember(want, spec, f, a);
  // Ports without the node ports the host assigned: compare by what we set.
  rapidjson::Value* have_ports = FindArray(spec, "ports");
  const rapidjson::Value* want_ports = kube::Find(want, {"ports"});
  if (want_ports != nullptr && want_ports->IsArray()) {
    rapidjson::Value stripped(rapidjson::kArrayType);
    if (have_ports != nullptr) {
      for (const rapidjson::Value& p : have_ports->GetArray()) {
        rapidjson::Value copy(p, a);
        EraseMember(copy, "nodePort");
        stripped.PushBack(copy, a);
      }
    }
    if (stripped != *want_ports) SetMember(spec, "ports", rapidjson::Value(*want_ports, a), a);
  }
  if (result == host) return std::nullopt;
  return result;
}

}  // namespace vtenant::syncer
