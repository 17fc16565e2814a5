#include "syncer/service_address_syncer.h"

#include <glog/logging.h>

#include "syncer/host_identity.h"
#include "syncer/names.h"

namespace vtenant::syncer {
namespace {

using kube::resources::kServices;

// How soon an address another virtual Service holds is tried again: the
// holder takes its own host address, which frees this one.
constexpr std::chrono::seconds kHeldRecheck(30);

bool HasAddress(std::string_view ip) { return !ip.empty() && ip != "None"; }

// `object`'s member `name`, or nullptr.
rapidjson::Value* Member(rapidjson::Value& object, const char* name) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(name);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

// `service` without what the API server sets, for a create.
kube::Object ForCreate(const rapidjson::Value& service) {
  kube::Object out = kube::Clone(service);
  out.RemoveMember("status");
  if (rapidjson::Value* meta = Member(out, "metadata"); meta != nullptr && meta->IsObject()) {
    for (const char* m :
         {"uid", "resourceVersion", "creationTimestamp", "managedFields", "generation",
          "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"}) {
      meta->RemoveMember(m);
    }
  }
  return out;
}

// The host port matching virtual port `p` (same port and protocol).
const rapidjson::Value* HostPortOf(const rapidjson::Value& p, const rapidjson::Value& host) {
  const rapidjson::Value* ports = kube::Find(host, {"spec", "ports"});
  if (ports == nullptr || !ports->IsArray()) return nullptr;
  std::string_view protocol = kube::GetString(p, {"protocol"});
  if (protocol.empty()) protocol = "TCP";
  for (const rapidjson::Value& h : ports->GetArray()) {
    std::string_view hp = kube::GetString(h, {"protocol"});
    if (hp.empty()) hp = "TCP";
    if (kube::GetInt(h, {"port"}, -1) == kube::GetInt(p, {"port"}, -2) && hp == protocol) return &h;
  }
  return nullptr;
}

// Gives `out`'s ports the host's node ports (none where the host has none);
// returns whether anything changed.
bool TakeNodePorts(kube::Object& out, const rapidjson::Value& host) {
  rapidjson::Value* spec = Member(out, "spec");
  rapidjson::Value* ports = spec == nullptr ? nullptr : Member(*spec, "ports");
  if (ports == nullptr || !ports->IsArray()) return false;
  bool changed = false;
  for (rapidjson::Value& p : ports->GetArray()) {
    const rapidjson::Value* h = HostPortOf(p, host);
    const int64_t want = h == nullptr ? 0 : kube::GetInt(*h, {"nodePort"}, 0);
    const int64_t have = kube::GetInt(p, {"nodePort"}, 0);
    if (want == have) continue;
    changed = true;
    p.RemoveMember("nodePort");
    if (want > 0) p.AddMember("nodePort", rapidjson::Value(want), out.GetAllocator());
  }
  return changed;
}

}  // namespace

ServiceAddressSyncer::ServiceAddressSyncer(SyncerInformers& informers, const SyncerConfig& config,
                                           SyncMetrics& metrics, kube::EventRecorder& events)
    : informers_(informers), config_(config), metrics_(metrics), events_(events) {}

kube::Object ServiceAddressSyncer::WithHostAddress(const rapidjson::Value& virt,
                                                   const rapidjson::Value& host) {
  kube::Object out = ForCreate(virt);
  auto& a = out.GetAllocator();
  const std::string ip(kube::GetString(host, {"spec", "clusterIP"}));
  kube::SetString(out, {"spec"}, "clusterIP", ip);
  rapidjson::Value& spec = kube::EnsurePath(out, {"spec"});
  spec.RemoveMember("clusterIPs");
  rapidjson::Value ips(rapidjson::kArrayType);
  ips.PushBack(rapidjson::Value(ip.c_str(), a), a);
  spec.AddMember("clusterIPs", ips, a);
  // The families follow the address.
  spec.RemoveMember("ipFamilies");
  if (const rapidjson::Value* families = kube::Find(host, {"spec", "ipFamilies"})) {
    spec.AddMember("ipFamilies", rapidjson::Value(*families, a), a);
  }
  TakeNodePorts(out, host);
  spec.RemoveMember("healthCheckNodePort");
  if (int64_t port = kube::GetInt(host, {"spec", "healthCheckNodePort"}, 0); port > 0) {
    spec.AddMember("healthCheckNodePort", rapidjson::Value(port), a);
  }
  return out;
}

void ServiceAddressSyncer::Explain(const rapidjson::Value& virt, const std::string& address,
                                   const std::string& message) {
  {
    std::lock_guard lock(mu_);
    std::string& told = told_[kube::KeyOf(virt)];
    const std::string now = std::string(kube::Uid(virt)) + "/" + address + "/" + message;
    if (told == now) return;
    told = now;
  }
  metrics_.ObjectRefused("Service", kClusterIPNotTaken);
  events_.Warning(virt, kClusterIPNotTaken, message);
}

bool ServiceAddressSyncer::Recreating(const std::string& key) {
  std::lock_guard lock(mu_);
  return recreating_.contains(key);
}

Status ServiceAddressSyncer::Recreate(const rapidjson::Value& virt, const rapidjson::Value& host) {
  const std::string ns(kube::Namespace(virt));
  const std::string name(kube::Name(virt));
  const std::string key = kube::KeyOf(virt);
  {
    std::lock_guard lock(mu_);
    recreating_.insert(key);
  }
  struct Done {
    ServiceAddressSyncer* self;
    std::string key;
    ~Done() {
      std::lock_guard lock(self->mu_);
      self->recreating_.erase(key);
    }
  } done{this, key};
  const std::string address(kube::GetString(host, {"spec", "clusterIP"}));
  kube::Client& client = informers_.virtual_client();
  Status deleted =
      client.Delete(kServices, ns, name, {.precondition_uid = std::string(kube::Uid(virt))});
  if (deleted.code() == StatusCode::kNotFound || deleted.code() == StatusCode::kConflict) {
    return Status::Ok();  // gone or changed meanwhile: its own event brings it back
  }
  if (!deleted.ok()) {
    metrics_.Error("Service", deleted);
    return deleted;
  }
  Result<kube::Object> created = client.Create(kServices, ns, WithHostAddress(virt, host));
  if (created.ok()) {
    metrics_.Synced("Service", "address");
    return Status::Ok();
  }
  // Refused: put the team's Service back as it was, at its own address if
  // it is still free, else at a new one.
  LOG(WARNING) << "Service " << ns << "/" << name << " cannot take " << address << ": "
               << created.status().message();
  Result<kube::Object> restored = client.Create(kServices, ns, ForCreate(virt));
  if (!restored.ok()) {
    kube::Object fresh = ForCreate(virt);
    rapidjson::Value& spec = kube::EnsurePath(fresh, {"spec"});
    spec.RemoveMember("clusterIP");
    spec.RemoveMember("clusterIPs");
    restored = client.Create(kServices, ns, fresh);
  }
  if (!restored.ok()) {
    metrics_.Error("Service", restored.status());
    return restored.status().WithContext("putting back Service " + ns + "/" + name);
  }
  {
    std::lock_guard lock(mu_);
    refused_[kube::KeyOf(*restored)] = std::string(kube::Uid(*restored)) + "/" + address;
  }
  Explain(*restored, address,
          "the cluster IP " + address + " its copy has on the host (the address pods reach it " +
              "at) cannot be taken here: " + created.status().message() +
              "; the Service keeps an address of its own");
  return Status::Ok();
}

Result<kube::ReconcileResult> ServiceAddressSyncer::Reconcile(const std::string& key) {
  auto [ns, name] = kube::SplitKey(key);
  kube::ObjectPtr virt = informers_.Virtual(kServices).cache().Get(key);
  if (virt == nullptr) {
    // Gone: what was told or refused for it goes too.
    std::lock_guard lock(mu_);
    told_.erase(key);
    refused_.erase(key);
    return kube::ReconcileResult{};
  }
  if (kube::IsBeingDeleted(*virt)) return kube::ReconcileResult{};
  kube::ObjectPtr host = informers_.Host(kServices).cache().Get(
      kube::MakeKey(config_.host_namespace, HostName(name, ns, config_.tenant)));
  if (host == nullptr ||
      !CheckIdentity(*host, kServices.kind, {kServices.kind, ns, name, ""}, config_.tenant).ok()) {
    return kube::ReconcileResult{};
  }
  const std::string address(kube::GetString(*host, {"spec", "clusterIP"}));
  const std::string_view own = kube::GetString(*virt, {"spec", "clusterIP"});
  if (!HasAddress(address) || !HasAddress(own)) return kube::ReconcileResult{};
  if (own == address) {
    kube::Object update = kube::Clone(*virt);
    if (!TakeNodePorts(update, *host)) return kube::ReconcileResult{};
    Result<kube::Object> updated = informers_.virtual_client().Update(kServices, ns, update);
    if (!updated.ok()) {
      metrics_.Error("Service", updated.status());
      return updated.status();
    }
    metrics_.Synced("Service", "node-ports");
    return kube::ReconcileResult{};
  }
  {
    std::lock_guard lock(mu_);
    auto it = refused_.find(key);
    if (it != refused_.end() && it->second == std::string(kube::Uid(*virt)) + "/" + address) {
      return kube::ReconcileResult{};
    }
  }
  for (const kube::ObjectPtr& other : informers_.Virtual(kServices).cache().List()) {
    if (kube::GetString(*other, {"spec", "clusterIP"}) != address || kube::KeyOf(*other) == key) {
      continue;
    }
    Explain(*virt, address,
            "the cluster IP " + address + " its copy has on the host (the address pods reach it " +
                "at) is held here by Service " + kube::KeyOf(*other) +
                "; the Service keeps an address of its own until that one moves");
    return kube::ReconcileResult{.requeue_after = kHeldRecheck};
  }
  if (const rapidjson::Value* finalizers = kube::Find(*virt, {"metadata", "finalizers"});
      finalizers != nullptr && finalizers->IsArray() && !finalizers->Empty()) {
    Explain(*virt, address,
            "the cluster IP " + address + " its copy has on the host (the address pods reach it " +
                "at) is not taken: the Service has finalizers " + kube::ToJson(*finalizers) +
                ", so deleting it to create it again would leave it terminating; it keeps an " +
                "address of its own");
    return kube::ReconcileResult{};
  }
  VT_RETURN_IF_ERROR(Recreate(*virt, *host));
  return kube::ReconcileResult{};
}

}  // namespace vtenant::syncer
