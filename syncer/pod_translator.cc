#include "syncer/pod_translator.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "base/ascii.h"
#include "base/ip_address.h"
#include "dns/cluster_dns.h"
#include "kai/names.h"
#include "kube/pod_object_refs.h"
#include "syncer/json_edit.h"
#include "syncer/names.h"
#include "syncer/pod_references.h"
#include "syncer/pod_schema.h"
#include "syncer/pod_tolerations.h"
#include "syncer/reserved_keys.h"

namespace vtenant::syncer {
namespace {

constexpr std::string_view kContainerLists[] = {"initContainers", "containers"};

std::string EnvName(std::string_view service) {
  std::string out;
  for (char c : service) out += c == '-' ? '_' : static_cast<char>(std::toupper(c));
  return out;
}

// The variables the kubelet would set for `svc`, in its order.
std::vector<std::pair<std::string, std::string>> ServiceVariables(const ServiceEnv& svc) {
  std::vector<std::pair<std::string, std::string>> vars;
  if (svc.cluster_ip.empty() || svc.cluster_ip == "None" || svc.ports.empty()) return vars;
  const std::string prefix = EnvName(svc.name);
  const ServiceEnv::Port& first = svc.ports.front();
  vars.emplace_back(prefix + "_SERVICE_HOST", svc.cluster_ip);
  vars.emplace_back(prefix + "_SERVICE_PORT", std::to_string(first.port));
  for (const ServiceEnv::Port& p : svc.ports) {
    if (!p.name.empty()) {
      vars.emplace_back(prefix + "_SERVICE_PORT_" + EnvName(p.name), std::to_string(p.port));
    }
  }
  vars.emplace_back(prefix + "_PORT", AsciiLower(first.protocol) + "://" + svc.cluster_ip + ":" +
                                          std::to_string(first.port));
  for (const ServiceEnv::Port& p : svc.ports) {
    std::string base = prefix + "_PORT_" + std::to_string(p.port) + "_" + p.protocol;
    vars.emplace_back(
        base, AsciiLower(p.protocol) + "://" + svc.cluster_ip + ":" + std::to_string(p.port));
    vars.emplace_back(base + "_PROTO", AsciiLower(p.protocol));
    vars.emplace_back(base + "_PORT", std::to_string(p.port));
    vars.emplace_back(base + "_ADDR", svc.cluster_ip);
  }
  return vars;
}

std::vector<std::pair<std::string, std::string>> KubernetesVariables(const SyncerConfig& config) {
  if (config.virtual_service_host.empty()) return {};
  const std::string host = config.virtual_service_host;
  const std::string port = std::to_string(config.virtual_service_port);
  return {{"KUBERNETES_SERVICE_HOST", host},
          {"KUBERNETES_SERVICE_PORT", port},
          {"KUBERNETES_SERVICE_PORT_HTTPS", port},
          {"KUBERNETES_PORT", "tcp://" + host + ":" + port},
          {"KUBERNETES_PORT_" + port + "_TCP", "tcp://" + host + ":" + port},
          {"KUBERNETES_PORT_" + port + "_TCP_PROTO", "tcp"},
          {"KUBERNETES_PORT_" + port + "_TCP_PORT", port},
          {"KUBERNETES_PORT_" + port + "_TCP_ADDR", host}};
}

// The value a downward-API env fieldRef has in the virtual cluster, if the
// host value would differ.
std::optional<std::string> VirtualFieldValue(std::string_view path, const rapidjson::Value& pod) {
  if (path == "metadata.name") return std::string(kube::Name(pod));
  if (path == "metadata.namespace") return std::string(kube::Namespace(pod));
  if (path == "metadata.uid") return std::string(kube::Uid(pod));
  if (path == "spec.serviceAccountName" || path == "spec.serviceAccount") {
    return std::string(kube::GetString(pod, {"spec", "serviceAccountName"}));
  }
  for (auto [prefix, is_label] : {std::pair{std::string_view("metadata.labels['"), true},
                                  std::pair{std::string_view("metadata.annotations['"), false}}) {
    if (path.starts_with(prefix) && path.ends_with("']")) {
      std::string_view key = path.substr(prefix.size(), path.size() - prefix.size() - 2);
      auto v = is_label ? kube::Label(pod, key) : kube::Annotation(pod, key);
      return std::string(v.value_or(""));
    }
  }
  return std::nullopt;
}

// Where a downward-API volume item reads the virtual value on the host pod.
std::optional<std::string> VirtualFieldPath(std::string_view path) {
  auto annotation = [](std::string_view key) {
    return "metadata.annotations['" + std::string(key) + "']";
  };
  if (path == "metadata.name") return annotation(kVirtualNameAnnotation);
  if (path == "metadata.namespace") return annotation(kVirtualNamespaceAnnotation);
  if (path == "metadata.uid") return annotation(kVirtualUidAnnotation);
  if (path == "metadata.labels") return annotation(kVirtualLabelsAnnotation);
  if (path == "metadata.annotations") return annotation(kVirtualAnnotationsAnnotation);
  if (path == "spec.serviceAccountName") return annotation(kVirtualServiceAccountAnnotation);
  // Single labels and annotations: host pods carry the virtual ones verbatim.
  return std::nullopt;
}

class Renamer {
 public:
  Renamer(const rapidjson::Value& pod, const SyncerConfig& config, const PodContext& context,
          Allocator& a, DroppedFields* dropped)
      : pod_(pod),
        ns_(kube::Namespace(pod)),
        config_(config),
        context_(context),
        a_(a),
        dropped_(dropped) {}

  void Rename(rapidjson::Value& obj, std::string_view key) {
    rapidjson::Value* name = obj.IsObject() ? FindValue(obj, key) : nullptr;
    if (name == nullptr || !name->IsString()) return;
    std::string host = HostName({name->GetString(), name->GetStringLength()}, ns_, config_.tenant);
    *name = JsonString(host, a_);
  }

  // Every name the pod gives an object of its namespace (a ConfigMap, a
  // Secret, a claim), to that object's host copy's.
  void References(rapidjson::Value& spec) {
    kube::ForEachObjectRef(spec, [&](const kube::PodObjectRef<rapidjson::Value>& ref) {
      Rename(*ref.holder, ref.member);
    });
  }

  void Containers(rapidjson::Value& spec) {
    std::vector<std::pair<std::string, std::string>> injected = KubernetesVariables(config_);
    std::vector<const ServiceEnv*> services;
    for (const ServiceEnv& s : context_.services) services.push_back(&s);
    std::sort(services.begin(), services.end(),
              [](const ServiceEnv* x, const ServiceEnv* y) { return x->name < y->name; });
    for (const ServiceEnv* s : services) {
      for (auto& var : ServiceVariables(*s)) injected.push_back(std::move(var));
    }
    for (std::string_view list : kContainerLists) {
      rapidjson::Value* containers = FindArray(spec, list);
      if (containers == nullptr) continue;
      for (rapidjson::Value& c : containers->GetArray()) Container(c, injected);
    }
  }

  void Volumes(rapidjson::Value& spec) {
    rapidjson::Value* volumes = FindArray(spec, "volumes");
    if (volumes == nullptr) return;
    for (rapidjson::Value& v : volumes->GetArray()) {
      if (rapidjson::Value* ephemeral = FindObject(v, "ephemeral")) {
        EphemeralClaim(*ephemeral, kube::GetString(v, {"name"}));
      }
      if (rapidjson::Value* d = FindObject(v, "downwardAPI")) DownwardItems(*d);
      rapidjson::Value* projected = FindObject(v, "projected");
      rapidjson::Value* sources = projected ? FindArray(*projected, "sources") : nullptr;
      if (sources == nullptr) continue;
      // A source the allowlist emptied (a host signer's certificate, a host
      // trust bundle) is no source at all on the host.
      for (auto it = sources->Begin(); it != sources->End();) {
        it = it->IsObject() && it->ObjectEmpty() ? sources->Erase(it) : it + 1;
      }
      for (rapidjson::Value& s : sources->GetArray()) {
        if (rapidjson::Value* d = FindObject(s, "downwardAPI")) DownwardItems(*d);
        if (rapidjson::Value* token = FindObject(s, "serviceAccountToken")) {
          // The virtual API server's token, as a file at the same path.
          std::string path(kube::GetString(*token, {"path"}));
          rapidjson::Value secret(rapidjson::kObjectType);
          SetStringMember(secret, "name", context_.token_secret, a_);
          rapidjson::Value items(rapidjson::kArrayType);
          rapidjson::Value item(rapidjson::kObjectType);
          SetStringMember(item, "key", "token", a_);
          SetStringMember(item, "path", path.empty() ? "token" : path, a_);
          items.PushBack(item, a_);
          SetMember(secret, "items", std::move(items), a_);
          EraseMember(s, "serviceAccountToken");
          SetMember(s, "secret", std::move(secret), a_);
        }
      }
    }
  }

 private:
  static rapidjson::Value* FindValue(rapidjson::Value& obj, std::string_view key) {
    auto it = obj.FindMember(rapidjson::Value(rapidjson::StringRef(key.data(), key.size())));
    return it == obj.MemberEnd() ? nullptr : &it->value;
  }

  // An inline claim's template: the tenant's labels and annotations as a
  // pod's, and a data source only when it is a claim of the pod's virtual
  // namespace, then its host copy (CheckPod refuses every other).
  void EphemeralClaim(rapidjson::Value& ephemeral, std::string_view volume) {
    rapidjson::Value* host_template = FindObject(ephemeral, "volumeClaimTemplate");
    const rapidjson::Value* virtual_template = nullptr;
    if (const rapidjson::Value* volumes = kube::Find(pod_, {"spec", "volumes"});
        volumes != nullptr && volumes->IsArray()) {
      for (const rapidjson::Value& v : volumes->GetArray()) {
        if (kube::GetString(v, {"name"}) == volume) {
          virtual_template = kube::Find(v, {"ephemeral", "volumeClaimTemplate"});
        }
      }
    }
    if (host_template == nullptr || virtual_template == nullptr) return;
    if (const rapidjson::Value* meta = kube::Find(*virtual_template, {"metadata"})) {
      rapidjson::Value host_meta(rapidjson::kObjectType);
      for (std::string_view map : {"labels", "annotations"}) {
        const rapidjson::Value* keys = kube::Find(*meta, {map});
        if (keys == nullptr) continue;
        rapidjson::Value kept(rapidjson::kObjectType);
        CopyTenantKeys(keys, kept, a_, PodKeyExceptions(),
                       "spec.volumes[].ephemeral.volumeClaimTemplate.metadata." + std::string(map),
                       dropped_);
        SetMember(host_meta, map, std::move(kept), a_);
      }
      SetMember(*host_template, "metadata", std::move(host_meta), a_);
    }
    rapidjson::Value* claim_spec = FindObject(*host_template, "spec");
    if (claim_spec == nullptr) return;
    for (std::string_view field : {"dataSource", "dataSourceRef"}) {
      const rapidjson::Value* source = kube::Find(*virtual_template, {"spec", field});
      if (!IsSameNamespaceClaim(source)) continue;
      rapidjson::Value host_source(rapidjson::kObjectType);
      SetStringMember(host_source, "kind", "PersistentVolumeClaim", a_);
      SetStringMember(host_source, "name",
                      HostName(kube::GetString(*source, {"name"}), ns_, config_.tenant), a_);
      SetMember(*claim_spec, field, std::move(host_source), a_);
    }
  }

  void DownwardItems(rapidjson::Value& downward) {
    rapidjson::Value* items = FindArray(downward, "items");
    if (items == nullptr) return;
    for (rapidjson::Value& item : items->GetArray()) {
      rapidjson::Value* ref = FindObject(item, "fieldRef");
      if (ref == nullptr) continue;
      if (auto path = VirtualFieldPath(kube::GetString(*ref, {"fieldPath"}))) {
        SetStringMember(*ref, "fieldPath", *path, a_);
      }
    }
  }

  void Container(rapidjson::Value& c,
                 const std::vector<std::pair<std::string, std::string>>& injected) {
    rapidjson::Value& env = ArrayMember(c, "env", a_);
    std::set<std::string, std::less<>> defined;
    for (rapidjson::Value& e : env.GetArray()) {
      defined.emplace(kube::GetString(e, {"name"}));
      rapidjson::Value* from = FindObject(e, "valueFrom");
      if (from == nullptr) continue;
      if (rapidjson::Value* ref = FindObject(*from, "fieldRef")) {
        if (auto value = VirtualFieldValue(kube::GetString(*ref, {"fieldPath"}), pod_)) {
          EraseMember(e, "valueFrom");
          SetStringMember(e, "value", *value, a_);
        }
      }
    }
    // The kubelet puts service variables first and lets the container's own
    // win; the host pod spells them out, so the container's are not repeated.
    rapidjson::Value merged(rapidjson::kArrayType);
    for (const auto& [name, value] : injected) {
      if (defined.contains(name)) continue;
      rapidjson::Value var(rapidjson::kObjectType);
      SetStringMember(var, "name", name, a_);
      SetStringMember(var, "value", value, a_);
      merged.PushBack(var, a_);
    }
    for (rapidjson::Value& e : env.GetArray()) merged.PushBack(e, a_);
    if (merged.Empty()) {
      EraseMember(c, "env");
    } else {
      env = std::move(merged);
    }
  }

  const rapidjson::Value& pod_;
  const std::string ns_;
  const SyncerConfig& config_;
  const PodContext& context_;
  Allocator& a_;
  DroppedFields* dropped_;
};

bool SameToleration(const rapidjson::Value& x, const rapidjson::Value& y) { return x == y; }

void AddTolerations(rapidjson::Value& spec, const rapidjson::Value& extra, Allocator& a) {
  if (!extra.IsArray() || extra.Empty()) return;
  rapidjson::Value& tolerations = ArrayMember(spec, "tolerations", a);
  for (const rapidjson::Value& t : extra.GetArray()) {
    bool present =
        std::any_of(tolerations.Begin(), tolerations.End(),
                    [&](const rapidjson::Value& have) { return SameToleration(have, t); });
    if (!present) tolerations.PushBack(rapidjson::Value(t, a), a);
  }
}

// The label keys of a DownwardApiMap text.
std::set<std::string> MapKeys(std::string_view text) {
  std::set<std::string> keys;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    size_t eq = line.find('=');
    if (eq != std::string_view::npos) keys.emplace(line.substr(0, eq));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return keys;
}

void Escape(std::string_view in, std::string& out) {
  for (char c : in) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

// A pod that asked for the cluster's DNS (dnsPolicy ClusterFirst, which is
// the default, or ClusterFirstWithHostNet) gets its virtual cluster's, as
// on vCluster: the host's would answer the host's names. dnsPolicy None,
// the tenant's DNS server first, the search list of the pod's namespace,
// ndots:5 unless the pod sets it, and the pod's own dnsConfig after them
// (within the API's limits: 3 nameservers, 32 search domains). A pod on
// the host network with ClusterFirst gets the node's, as Kubernetes does;
// Default and None are the team's to choose.
void UseClusterDns(rapidjson::Value& spec, const rapidjson::Value& vspec, std::string_view ns,
                   const std::string& nameserver, Allocator& a) {
  const std::string_view policy = kube::GetString(vspec, {"dnsPolicy"});
  const bool host_network = kube::Find(vspec, {"hostNetwork"}) != nullptr &&
                            kube::Find(vspec, {"hostNetwork"})->IsBool() &&
                            kube::Find(vspec, {"hostNetwork"})->GetBool();
  if (!(policy.empty() || policy == "ClusterFirstWithHostNet" ||
        (policy == "ClusterFirst" && !host_network))) {
    return;
  }
  const rapidjson::Value* own = kube::Find(vspec, {"dnsConfig"});
  auto strings = [&](const char* member) {
    std::vector<std::string> out;
    const rapidjson::Value* list = own != nullptr ? kube::Find(*own, {member}) : nullptr;
    if (list == nullptr || !list->IsArray()) return out;
    for (const rapidjson::Value& v : list->GetArray()) {
      if (v.IsString()) out.emplace_back(v.GetString(), v.GetStringLength());
    }
    return out;
  };
  std::vector<std::string> nameservers = {nameserver};
  for (std::string& n : strings("nameservers")) {
    if (nameservers.size() < 3 && n != nameserver) nameservers.push_back(std::move(n));
  }
  const std::string domain = dns::kClusterDomain;
  std::vector<std::string> searches = {std::string(ns) + ".svc." + domain, "svc." + domain, domain};
  for (std::string& d : strings("searches")) {
    if (searches.size() < 32 && std::find(searches.begin(), searches.end(), d) == searches.end()) {
      searches.push_back(std::move(d));
    }
  }
  rapidjson::Value config(rapidjson::kObjectType);
  rapidjson::Value& servers = ArrayMember(config, "nameservers", a);
  for (const std::string& n : nameservers) servers.PushBack(JsonString(n, a), a);
  rapidjson::Value& search = ArrayMember(config, "searches", a);
  for (const std::string& d : searches) search.PushBack(JsonString(d, a), a);
  rapidjson::Value& options = ArrayMember(config, "options", a);
  bool own_ndots = false;
  if (const rapidjson::Value* list = own != nullptr ? kube::Find(*own, {"options"}) : nullptr;
      list != nullptr && list->IsArray()) {
    for (const rapidjson::Value& o : list->GetArray()) {
      if (!o.IsObject() || kube::GetString(o, {"name"}).empty()) continue;
      own_ndots = own_ndots || kube::GetString(o, {"name"}) == "ndots";
      rapidjson::Value option(rapidjson::kObjectType);
      SetStringMember(option, "name", kube::GetString(o, {"name"}), a);
      if (const rapidjson::Value* value = kube::Find(o, {"value"}); value && value->IsString()) {
        SetStringMember(option, "value", kube::GetString(o, {"value"}), a);
      }
      options.PushBack(option, a);
    }
  }
  if (!own_ndots) {
    rapidjson::Value ndots(rapidjson::kObjectType);
    SetStringMember(ndots, "name", "ndots", a);
    SetStringMember(ndots, "value", "5", a);
    options.PushBack(ndots, a);
  }
  SetStringMember(spec, "dnsPolicy", "None", a);
  SetMember(spec, "dnsConfig", std::move(config), a);
}

}  // namespace

std::string DownwardApiMap(const rapidjson::Value* map) {
  std::vector<std::pair<std::string_view, std::string_view>> entries;
  if (map != nullptr && map->IsObject()) {
    for (const auto& m : map->GetObject()) {
      if (!m.value.IsString()) continue;
      entries.emplace_back(std::string_view(m.name.GetString(), m.name.GetStringLength()),
                           std::string_view(m.value.GetString(), m.value.GetStringLength()));
    }
  }
  std::sort(entries.begin(), entries.end());
  std::string out;
  for (const auto& [k, v] : entries) {
    if (!out.empty()) out += '\n';
    out += k;
    out += "=\"";
    Escape(v, out);
    out += '"';
  }
  return out;
}

kube::Object PodTranslator::ToHost(const rapidjson::Value& pod, const PodContext& context,
                                   PodTranslationNotes* notes) const {
  kube::Object host(rapidjson::kObjectType);
  Allocator& a = host.GetAllocator();
  DroppedFields* dropped = notes != nullptr ? &notes->dropped_fields : nullptr;
  const std::string name(kube::Name(pod));
  const std::string ns(kube::Namespace(pod));
  SetStringMember(host, "apiVersion", "v1", a);
  SetStringMember(host, "kind", "Pod", a);

  // metadata: name, namespace, and the tenant's labels and annotations
  // without reserved keys; then the syncer's own.
  rapidjson::Value& meta = ObjectMember(host, "metadata", a);
  SetStringMember(meta, "name", HostName(name, ns, config_.tenant), a);
  SetStringMember(meta, "namespace", config_.host_namespace, a);
  rapidjson::Value& labels = ObjectMember(meta, "labels", a);
  CopyTenantKeys(kube::Find(pod, {"metadata", "labels"}), labels, a, PodKeyExceptions(),
                 "metadata.labels", dropped);
  // KAI's pod grouper takes the group's priority class from this label
  // when the pod names none: only a class the tenant may use, as for
  // spec.priorityClassName (a label changed after CheckPod ends here).
  if (std::optional<std::string_view> c = kube::Label(pod, kai::kPriorityClassLabel);
      c && !c->empty() && !config_.allowed_priority_classes.contains(*c)) {
    EraseMember(labels, kai::kPriorityClassLabel);
    if (dropped != nullptr)
      dropped->push_back("metadata.labels['" + std::string(kai::kPriorityClassLabel) + "']");
  }
  for (const auto& [key, value] : context.namespace_labels) {
    std::string_view name_part = key;
    if (size_t slash = name_part.rfind('/'); slash != std::string_view::npos) {
      name_part.remove_prefix(slash + 1);
    }
    std::string carried = std::string(kNamespaceLabelPrefix) + std::string(name_part);
    // A name part longer than a label name allows cannot be carried.
    if (carried.size() - std::string_view("vtenant.io/").size() <= 63) {
      SetStringMember(labels, carried, value, a);
    }
  }
  SetStringMember(labels, kTenantLabel, config_.tenant, a);
  SetStringMember(labels, kVirtualNamespaceLabel, ns, a);
  SetStringMember(labels, kManagedByLabel, kManagedByValue, a);
  SetStringMember(labels, kQueueLabel, config_.queue, a);
  rapidjson::Value& annotations = ObjectMember(meta, "annotations", a);
  CopyTenantKeys(kube::Find(pod, {"metadata", "annotations"}), annotations, a, PodKeyExceptions(),
                 "metadata.annotations", dropped);
  SetStringMember(annotations, kVirtualNameAnnotation, name, a);
  SetStringMember(annotations, kVirtualNamespaceAnnotation, ns, a);
  SetStringMember(annotations, kVirtualUidAnnotation, kube::Uid(pod), a);
  SetStringMember(annotations, kOwnerChainAnnotation, OwnerChainJson(context.owner_chain), a);
  SetStringMember(annotations, kVirtualLabelsAnnotation,
                  DownwardApiMap(kube::Find(pod, {"metadata", "labels"})), a);
  SetStringMember(annotations, kVirtualAnnotationsAnnotation,
                  DownwardApiMap(kube::Find(pod, {"metadata", "annotations"})), a);
  SetStringMember(annotations, kVirtualServiceAccountAnnotation,
                  kube::GetString(pod, {"spec", "serviceAccountName"}), a);
  if (context.gang) SetStringMember(annotations, kPodGroupAnnotation, context.gang->host_name, a);
  if (context.gang && !context.gang->pod_sub_group.empty())
    SetStringMember(labels, kai::kSubGroupLabel, context.gang->pod_sub_group, a);

  // spec: what the allowlist takes, then what the translator writes.
  rapidjson::Value& spec = ObjectMember(host, "spec", a);
  static const rapidjson::Value kEmpty(rapidjson::kObjectType);
  const rapidjson::Value* found = kube::Find(pod, {"spec"});
  const rapidjson::Value& vspec = found != nullptr ? *found : kEmpty;
  PodSpecSchema().Apply(vspec, spec, a, "spec", dropped);

  Renamer renamer(pod, config_, context, a, dropped);
  renamer.References(spec);
  renamer.Containers(spec);
  renamer.Volumes(spec);
  if (std::string_view subdomain = kube::GetString(vspec, {"subdomain"}); !subdomain.empty()) {
    SetStringMember(spec, "subdomain", HostName(subdomain, ns, config_.tenant), a);
  }
  ScopeToTenant(spec, ns, context.virtual_namespaces, a);

  SetStringMember(spec, "schedulerName", config_.scheduler_name, a);
  SetMember(spec, "automountServiceAccountToken", rapidjson::Value(false), a);
  SetMember(spec, "enableServiceLinks", rapidjson::Value(false), a);
  std::string_view priority_class = kube::GetString(vspec, {"priorityClassName"});
  if (config_.allowed_priority_classes.contains(priority_class)) {
    SetStringMember(spec, "priorityClassName", priority_class, a);
  }
  if (kube::GetString(spec, {"hostname"}).empty()) {
    SetStringMember(spec, "hostname", DnsLabel(name), a);
  }
  if (IpAddress::Parse(config_.virtual_service_host)) {
    rapidjson::Value& aliases = ArrayMember(spec, "hostAliases", a);
    rapidjson::Value alias(rapidjson::kObjectType);
    SetStringMember(alias, "ip", config_.virtual_service_host, a);
    rapidjson::Value names(rapidjson::kArrayType);
    for (std::string_view n : {"kubernetes", "kubernetes.default", "kubernetes.default.svc",
                               "kubernetes.default.svc.cluster.local"}) {
      names.PushBack(JsonString(n, a), a);
    }
    SetMember(alias, "hostnames", std::move(names), a);
    aliases.PushBack(alias, a);
  }
  if (!config_.cluster_dns.empty()) UseClusterDns(spec, vspec, ns, config_.cluster_dns, a);
  if (!config_.node_selector.empty()) {
    rapidjson::Value& selector = ObjectMember(spec, "nodeSelector", a);
    for (const auto& [key, value] : config_.node_selector) {
      SetStringMember(selector, key, value, a);
    }
  }
  if (const rapidjson::Value* tolerations = kube::Find(vspec, {"tolerations"});
      tolerations != nullptr && tolerations->IsArray()) {
    rapidjson::Value& kept = ArrayMember(spec, "tolerations", a);
    for (const rapidjson::Value& t : tolerations->GetArray()) {
      if (TolerationAllowed(t, config_.allowed_tolerations)) {
        kept.PushBack(rapidjson::Value(t, a), a);
      } else if (notes != nullptr) {
        notes->dropped_tolerations.push_back(DescribeToleration(t));
      }
    }
  }
  AddTolerations(spec, config_.tolerations, a);
  return host;
}

std::optional<kube::Object> PodTranslator::Update(const rapidjson::Value& pod,
                                                  const rapidjson::Value& host,
                                                  const PodContext& context) const {
  kube::Object desired = ToHost(pod, context);
  kube::Object out;
  out.CopyFrom(host, out.GetAllocator());
  Allocator& a = out.GetAllocator();

  // Labels and annotations: the virtual pod's keys as now, minus the keys it
  // had at the last sync and has since dropped; keys the host added stay.
  auto merge = [&](std::string_view field, std::string_view previous_annotation) {
    std::set<std::string> previous =
        MapKeys(kube::Annotation(host, previous_annotation).value_or(""));
    rapidjson::Value& have = ObjectMember(ObjectMember(out, "metadata", a), field, a);
    const rapidjson::Value* want = kube::Find(desired, {"metadata", field});
    for (const std::string& key : previous) {
      // A reserved key on the host was written by the syncer or a host
      // component (the binder's GPU annotations), never by the tenant.
      if (IsReservedKey(key, PodKeyExceptions())) continue;
      if (want == nullptr || !want->HasMember(key.c_str())) EraseMember(have, key);
    }
    if (want != nullptr && want->IsObject()) {
      for (const auto& m : want->GetObject()) {
        SetMember(have, {m.name.GetString(), m.name.GetStringLength()},
                  rapidjson::Value(m.value, a), a);
      }
    }
  };
  merge("labels", kVirtualLabelsAnnotation);
  merge("annotations", kVirtualAnnotationsAnnotation);

  rapidjson::Value& spec = ObjectMember(out, "spec", a);
  const rapidjson::Value* want_spec = kube::Find(desired, {"spec"});
  for (std::string_view list : kContainerLists) {
    rapidjson::Value* have = FindArray(spec, list);
    const rapidjson::Value* want = kube::Find(*want_spec, {list});
    if (have == nullptr || want == nullptr || !want->IsArray()) continue;
    for (rapidjson::Value& c : have->GetArray()) {
      for (const rapidjson::Value& w : want->GetArray()) {
        if (kube::GetString(w, {"name"}) == kube::GetString(c, {"name"}) &&
            kube::Find(w, {"image"}) != nullptr) {
          SetMember(c, "image", rapidjson::Value(w["image"], a), a);
        }
      }
    }
  }
  if (const rapidjson::Value* deadline = kube::Find(*want_spec, {"activeDeadlineSeconds"})) {
    SetMember(spec, "activeDeadlineSeconds", rapidjson::Value(*deadline, a), a);
  }
  if (const rapidjson::Value* tolerations = kube::Find(*want_spec, {"tolerations"})) {
    AddTolerations(spec, *tolerations, a);  // the API server allows additions only
  }
  if (rapidjson::Value* gates = FindArray(spec, "schedulingGates")) {
    const rapidjson::Value* want = kube::Find(*want_spec, {"schedulingGates"});
    rapidjson::Value kept(rapidjson::kArrayType);
    for (rapidjson::Value& g : gates->GetArray()) {
      bool still = want != nullptr && want->IsArray() &&
                   std::any_of(want->Begin(), want->End(),
                               [&](const rapidjson::Value& w) { return w == g; });
      if (still) kept.PushBack(rapidjson::Value(g, a), a);  // removals only, too
    }
    if (kept.Empty()) {
      EraseMember(spec, "schedulingGates");
    } else {
      *gates = std::move(kept);
    }
  }
  if (out == host) return std::nullopt;
  return out;
}

std::optional<kube::Object> PodTranslator::StatusFromHost(const rapidjson::Value& host,
                                                          const rapidjson::Value& pod) const {
  kube::Object out;
  out.CopyFrom(pod, out.GetAllocator());
  Allocator& a = out.GetAllocator();
  const rapidjson::Value* host_status = kube::Find(host, {"status"});
  rapidjson::Value status(rapidjson::kObjectType);
  if (host_status != nullptr && host_status->IsObject()) status.CopyFrom(*host_status, a);
  EraseMember(status, "qosClass");
  // The host's claims made for the pod's templates (and for extended
  // resources backed by devices) have no virtual counterpart to name.
  EraseMember(status, "resourceClaimStatuses");
  EraseMember(status, "extendedResourceClaimStatus");
  if (rapidjson::Value* conditions = FindArray(status, "conditions")) {
    const std::string_view host_name = kube::Name(host);
    const std::string team_name =
        std::string(kube::Namespace(pod)) + "/" + std::string(kube::Name(pod));
    const HostNameLookup names = [&](std::string_view name) -> std::optional<std::string> {
      if (name == host_name) return team_name;
      return std::nullopt;
    };
    for (rapidjson::Value& c : conditions->GetArray()) {
      std::string_view message = kube::GetString(c, {"message"});
      if (message.empty()) continue;
      SetStringMember(c, "message", messages_.TranslateText(message, kube::Namespace(pod), names),
                      a);
    }
  }
  if (const rapidjson::Value* qos = kube::Find(pod, {"status", "qosClass"})) {
    SetMember(status, "qosClass", rapidjson::Value(*qos, a), a);
  }
  const rapidjson::Value* current = kube::Find(pod, {"status"});
  if (current != nullptr && *current == status) return std::nullopt;
  SetMember(out, "status", std::move(status), a);
  return out;
}

}  // namespace vtenant::syncer
