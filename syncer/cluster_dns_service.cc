#include "syncer/cluster_dns_service.h"

#include "kube/json_builder.h"
#include "kube/resource.h"
#include "syncer/resources.h"

namespace vtenant::syncer {

namespace {

// The one object of `type` named kClusterDnsServiceName in the namespace,
// by list (the syncer may not get).
Result<kube::Object> Find(kube::Client& host, const kube::ResourceType& type,
                          const std::string& ns) {
  VT_ASSIGN_OR_RETURN(
      kube::ObjectList list,
      host.List(type, ns,
                {.field_selector = std::string("metadata.name=") + kClusterDnsServiceName}));
  if (list.items.empty()) {
    return NotFound(type.resource + " " + ns + "/" + kClusterDnsServiceName + " is gone");
  }
  return std::move(list.items.front());
}

// Creates `object` unless it exists; returns what the server holds.
Result<kube::Object> CreateOrFind(kube::Client& host, const kube::ResourceType& type,
                                  const std::string& ns, const kube::Object& object) {
  Result<kube::Object> created = host.Create(type, ns, object);
  if (created.ok()) return created;
  if (created.status().code() != StatusCode::kAlreadyExists) return created.status();
  return Find(host, type, ns);
}

}  // namespace

kube::Object ClusterDnsService(const std::string& host_namespace) {
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "v1"},
      {"kind", "Service"},
      {"metadata",
       kube::JsonObject{
           {"name", kClusterDnsServiceName},
           {"namespace", host_namespace},
           {"labels", kube::JsonObject{{"app.kubernetes.io/name", "vtenant-dns"},
                                       {"app.kubernetes.io/managed-by", "vtenant-syncer"}}}}},
      {"spec",
       kube::JsonObject{{"type", "ClusterIP"},
                        {"ports", kube::JsonArray{kube::JsonObject{
                                      {"name", "dns"}, {"protocol", "UDP"}, {"port", 53}}}}}}});
}

kube::Object ClusterDnsEndpointSlice(const std::string& host_namespace,
                                     const std::string& node_address, int port) {
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "discovery.k8s.io/v1"},
      {"kind", "EndpointSlice"},
      {"metadata",
       kube::JsonObject{
           {"name", kClusterDnsServiceName},
           {"namespace", host_namespace},
           {"labels",
            kube::JsonObject{{"kubernetes.io/service-name", kClusterDnsServiceName},
                             {"endpointslice.kubernetes.io/managed-by", "vtenant-syncer"}}}}},
      {"addressType", "IPv4"},
      {"endpoints",
       kube::JsonArray{kube::JsonObject{{"addresses", kube::JsonArray{node_address}},
                                        {"conditions", kube::JsonObject{{"ready", true}}}}}},
      {"ports",
       kube::JsonArray{kube::JsonObject{{"name", "dns"}, {"protocol", "UDP"}, {"port", port}}}}});
}

Result<std::string> EnsureClusterDnsService(kube::Client& host, const std::string& host_namespace,
                                            const std::string& node_address, int port) {
  VT_ASSIGN_OR_RETURN(kube::Object service,
                      CreateOrFind(host, kube::resources::kServices, host_namespace,
                                   ClusterDnsService(host_namespace)));
  const kube::Object wanted = ClusterDnsEndpointSlice(host_namespace, node_address, port);
  VT_ASSIGN_OR_RETURN(kube::Object slice,
                      CreateOrFind(host, resources::kEndpointSlices, host_namespace, wanted));
  auto member = [](const kube::Object& o, const char* name) {
    const rapidjson::Value* v = kube::Find(o, {name});
    return v == nullptr ? std::string() : kube::ToJson(*v);
  };
  if (member(slice, "endpoints") != member(wanted, "endpoints") ||
      member(slice, "ports") != member(wanted, "ports")) {
    kube::Object updated = kube::Clone(wanted);
    kube::Object& u = updated;
    u["metadata"].AddMember(
        "resourceVersion",
        rapidjson::Value(
            std::string(kube::GetString(slice, {"metadata", "resourceVersion"})).c_str(),
            u.GetAllocator()),
        u.GetAllocator());
    VT_RETURN_IF_ERROR(host.Update(resources::kEndpointSlices, host_namespace, updated).status());
  }
  const std::string cluster_ip(kube::GetString(service, {"spec", "clusterIP"}));
  if (cluster_ip.empty() || cluster_ip == "None") {
    return Internal("Service " + host_namespace + "/" + kClusterDnsServiceName +
                    " has no cluster IP");
  }
  return cluster_ip;
}

}  // namespace vtenant::syncer
