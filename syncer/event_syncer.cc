#include "syncer/event_syncer.h"

#include <glog/logging.h>

#include "syncer/host_identity.h"
#include "syncer/names.h"
#include "syncer/resources.h"

namespace vtenant::syncer {
namespace {

using kube::resources::kEvents;
using kube::resources::kPodGroups;
using kube::resources::kPods;

// The host kind an Event's involvedObject names, when it is one the syncer
// makes: "Pod" or "PodGroup"; "" otherwise.
std::string_view SyncedKind(const rapidjson::Value& event) {
  std::string_view kind = kube::GetString(event, {"involvedObject", "kind"});
  std::string_view api_version = kube::GetString(event, {"involvedObject", "apiVersion"});
  if (kind == "Pod" && (api_version.empty() || api_version == "v1")) return "Pod";
  if (kind == kai::kPodGroupKind &&
      (api_version.empty() || api_version.starts_with("scheduling.run.ai/"))) {
    return kai::kPodGroupKind;
  }
  return "";
}

std::string RememberKey(std::string_view kind, std::string_view name) {
  return std::string(kind) + "/" + std::string(name);
}

}  // namespace

EventSyncer::EventSyncer(SyncerInformers& informers, const SyncerConfig& config,
                         SyncMetrics& metrics, EventRateLimit& limit, const kube::Clock& clock)
    : informers_(informers),
      config_(config),
      metrics_(metrics),
      limit_(limit),
      clock_(clock),
      translator_(config) {}

std::optional<EventSyncer::Known> EventSyncer::KnownOf(std::string_view kind,
                                                       const rapidjson::Value& object) {
  std::optional<std::string_view> ns = kube::Annotation(object, kVirtualNamespaceAnnotation);
  std::optional<std::string_view> name = kube::Annotation(object, kVirtualNameAnnotation);
  std::optional<std::string_view> uid = kube::Annotation(object, kVirtualUidAnnotation);
  if (!ns || !name || ns->empty() || name->empty()) return std::nullopt;
  Known known{std::string(kube::Uid(object)),
              {"v1", "Pod", std::string(*ns), std::string(*name), std::string(uid.value_or(""))}};
  if (kind == "Pod") return known;
  // A host PodGroup stands for the first entry of its owner chain: a
  // virtual PodGroup, or a workload.
  std::optional<std::string_view> chain = kube::Annotation(object, kOwnerChainAnnotation);
  if (!chain) return std::nullopt;
  Result<kube::Object> parsed = kube::ParseJson(*chain);
  if (!parsed.ok() || !parsed->IsArray() || parsed->Empty()) return std::nullopt;
  const rapidjson::Value& owner = (*parsed)[0];
  known.target.api_version = kube::GetString(owner, {"apiVersion"});
  known.target.kind = kube::GetString(owner, {"kind"});
  if (known.target.api_version.empty() || known.target.kind.empty()) return std::nullopt;
  if (known.target.uid.empty()) known.target.uid = kube::GetString(owner, {"uid"});
  return known;
}

void EventSyncer::ForgetOld(kube::Clock::TimePoint now) {
  while (!deleted_order_.empty() && (now - deleted_order_.front().first > kRememberDeleted ||
                                     deleted_order_.size() > kMaxRemembered)) {
    auto it = deleted_.find(deleted_order_.front().second);
    // A name deleted again later is kept for its later deletion.
    if (it != deleted_.end() && it->second.at == deleted_order_.front().first) deleted_.erase(it);
    deleted_order_.pop_front();
  }
  metrics_.DeletedObjectsRemembered(deleted_.size());
}

bool EventSyncer::TeamStillHas(const VirtualTarget& pod) {
  kube::ObjectPtr virt = informers_.Virtual(kPods).cache().Get(kube::MakeKey(pod.ns, pod.name));
  return virt != nullptr && (pod.uid.empty() || kube::Uid(*virt) == pod.uid) &&
         !kube::IsBeingDeleted(*virt);
}

void EventSyncer::HostObjectDeleted(std::string_view kind, const rapidjson::Value& object) {
  std::optional<Known> known = KnownOf(kind, object);
  if (!known) return;
  if (kind == "Pod" && !TeamStillHas(known->target)) return;
  const kube::Clock::TimePoint now = clock_.Now();
  std::lock_guard lock(mu_);
  const std::string key = RememberKey(kind, kube::Name(object));
  deleted_[key] = Remembered{std::move(*known), now};
  deleted_order_.emplace_back(now, key);
  ForgetOld(now);
}

std::optional<EventSyncer::Known> EventSyncer::Resolve(std::string_view kind, std::string_view name,
                                                       std::string_view uid) {
  const kube::ResourceType& type = kind == "Pod" ? kPods : kPodGroups;
  if (kube::ObjectPtr object =
          informers_.Host(type).cache().Get(kube::MakeKey(config_.host_namespace, name))) {
    if (uid.empty() || kube::Uid(*object) == uid) return KnownOf(kind, *object);
  }
  std::lock_guard lock(mu_);
  ForgetOld(clock_.Now());
  auto it = deleted_.find(RememberKey(kind, name));
  if (it == deleted_.end()) return std::nullopt;
  if (!uid.empty() && it->second.known.host_uid != uid) return std::nullopt;
  return it->second.known;
}

std::optional<std::string> EventSyncer::TeamNameOf(std::string_view host_name) {
  for (std::string_view kind : {std::string_view("Pod"), std::string_view(kai::kPodGroupKind)}) {
    if (std::optional<Known> known = Resolve(kind, host_name, "")) {
      return known->target.ns + "/" + known->target.name;
    }
  }
  // The copies a pod uses ("configmap \"cfg-x-ml-x-nlp\" not found"), but
  // not what the syncer makes for itself (a token Secret records a pod).
  const std::string key = kube::MakeKey(config_.host_namespace, host_name);
  for (const kube::ResourceType* type :
       {&kube::resources::kConfigMaps, &kube::resources::kSecrets,
        &resources::kPersistentVolumeClaims, &kube::resources::kServices}) {
    kube::ObjectPtr copy = informers_.Host(*type).cache().Get(key);
    if (copy == nullptr || kube::Annotation(*copy, kVirtualKindAnnotation)) continue;
    if (std::optional<std::string> virtual_key = VirtualKeyOf(*copy)) return virtual_key;
  }
  return std::nullopt;
}

std::vector<std::string> EventSyncer::EventKeysAbout(std::string_view kind, std::string_view name) {
  std::vector<std::string> keys;
  Result<std::vector<kube::ObjectPtr>> events =
      informers_.Host(kEvents).cache().ByIndex(kInvolvedIndex, RememberKey(kind, name));
  if (events.ok()) {
    for (const kube::ObjectPtr& e : *events) keys.push_back(kube::KeyOf(*e));
  }
  return keys;
}

Result<kube::ReconcileResult> EventSyncer::Reconcile(const std::string& key) {
  kube::ObjectPtr event = informers_.Host(kEvents).cache().Get(key);
  if (event == nullptr) return kube::ReconcileResult{};
  const std::string_view kind = SyncedKind(*event);
  if (kind.empty() ||
      kube::GetString(*event, {"involvedObject", "namespace"}) != config_.host_namespace) {
    return kube::ReconcileResult{};
  }
  // Not (or no longer) one of the syncer's: it stays on the host. One not
  // seen yet is looked at again when its object appears.
  std::optional<Known> known = Resolve(kind, kube::GetString(*event, {"involvedObject", "name"}),
                                       kube::GetString(*event, {"involvedObject", "uid"}));
  if (!known) return kube::ReconcileResult{};

  const VirtualTarget& target = known->target;
  kube::Object wanted = translator_.FromHost(
      *event, target, [this](std::string_view name) { return TeamNameOf(name); });
  const std::string name(kube::Name(wanted));
  kube::ObjectPtr existing =
      informers_.Virtual(kEvents).cache().Get(kube::MakeKey(target.ns, name));
  std::optional<kube::Object> update;
  if (existing != nullptr) {
    update = translator_.Update(*existing, wanted);
    if (!update) return kube::ReconcileResult{};
  }
  const kube::Clock::Duration wait = limit_.Take(target.kind + "/" + target.ns + "/" + target.name);
  if (wait > kube::Clock::Duration::zero()) {
    metrics_.EventDelayed();
    return kube::ReconcileResult{.requeue_after =
                                     std::chrono::ceil<std::chrono::milliseconds>(wait)};
  }
  Result<kube::Object> written =
      update ? informers_.virtual_client().Update(kEvents, target.ns, *update)
             : informers_.virtual_client().Create(kEvents, target.ns, wanted);
  if (written.ok()) {
    metrics_.Synced("Event", update ? "update" : "create");
    return kube::ReconcileResult{};
  }
  const StatusCode code = written.status().code();
  // The virtual namespace is gone or going: nobody is left to read it.
  if (code == StatusCode::kNotFound || code == StatusCode::kForbidden) {
    VLOG(1) << "host Event " << key << " not carried: " << written.status().ToString();
    return kube::ReconcileResult{};
  }
  // Refused as written: retrying the same text will not help.
  if (code == StatusCode::kInvalid) {
    LOG(WARNING) << "host Event " << key << " not carried: " << written.status().ToString();
    metrics_.Error("Event", written.status());
    return kube::ReconcileResult{};
  }
  metrics_.Error("Event", written.status());
  // AlreadyExists or Conflict: the cache is behind; its next event retries.
  return written.status();
}

}  // namespace vtenant::syncer
