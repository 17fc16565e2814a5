#include "syncer/copy_syncer.h"

#include <glog/logging.h>

#include "syncer/host_identity.h"
#include "syncer/names.h"

namespace vtenant::syncer {
namespace {

// How soon a key whose host name is held by another object is looked at
// again: the holder may be one the host caches never see leave.
constexpr std::chrono::seconds kClashRecheck(30);

}  // namespace

CopySyncer::CopySyncer(SyncerInformers& informers, const SyncerConfig& config,
                       kube::ResourceType type, CopyTranslator translator, Scope scope,
                       std::string reference_prefix, SyncMetrics& metrics,
                       kube::EventRecorder& events)
    : informers_(informers),
      config_(config),
      type_(std::move(type)),
      translator_(std::move(translator)),
      scope_(scope),
      reference_prefix_(std::move(reference_prefix)),
      metrics_(metrics),
      events_(events) {}

bool CopySyncer::Needed(std::string_view ns, std::string_view name) const {
  if (scope_ == Scope::kAll) return true;
  std::string value = reference_prefix_ + "/" + std::string(ns) + "/" + std::string(name);
  Result<size_t> pods =
      informers_.Virtual(kube::resources::kPods).cache().CountByIndex(kReferenceIndex, value);
  return pods.ok() && *pods > 0;
}

Status CopySyncer::DeleteCopy(const rapidjson::Value& host) {
  Status s = informers_.host_client().Delete(type_, config_.host_namespace, kube::Name(host),
                                             {.precondition_uid = std::string(kube::Uid(host))});
  if (!s.ok() && s.code() != StatusCode::kNotFound && s.code() != StatusCode::kConflict) {
    metrics_.Error(type_.kind, s);
    return s;
  }
  metrics_.Synced(type_.kind, "delete");
  return Status::Ok();
}

void CopySyncer::Tell(const rapidjson::Value& virt, const TranslationNotes& notes) {
  const std::string key = kube::KeyOf(virt);
  {
    std::lock_guard lock(mu_);
    if (!notes.refusal && notes.warnings.empty()) {
      told_.erase(key);
      return;
    }
    std::string version =
        std::string(kube::Uid(virt)) + "/" + std::string(kube::ResourceVersion(virt));
    auto [it, added] = told_.try_emplace(key, version);
    if (!added) {
      if (it->second == version) return;
      it->second = std::move(version);
    }
  }
  if (notes.refusal) {
    metrics_.ObjectRefused(type_.kind, notes.refusal->reason);
    events_.Warning(virt, notes.refusal->reason,
                    notes.refusal->message +
                        "; not copied to the host (a copy already there keeps what it had)");
  }
  for (const Refusal& warning : notes.warnings) {
    metrics_.ObjectRefused(type_.kind, warning.reason);
    events_.Warning(virt, warning.reason, warning.message);
  }
}

Status CopySyncer::Clash(const rapidjson::Value* virt, Status clash) {
  metrics_.Error(type_.kind, clash);
  if (virt != nullptr) events_.Warning(*virt, kHostNameClash, clash.message());
  return clash;
}

Result<kube::ReconcileResult> CopySyncer::Reconcile(const std::string& key) {
  auto [ns, name] = kube::SplitKey(key);
  kube::ObjectPtr virt = informers_.Virtual(type_).cache().Get(key);
  kube::ObjectPtr host = informers_.Host(type_).cache().Get(
      kube::MakeKey(config_.host_namespace, HostName(name, ns, config_.tenant)));
  if (virt == nullptr || !Needed(ns, name) || (translator_.wanted && !translator_.wanted(*virt))) {
    if (virt == nullptr && translator_.keep_copy && translator_.keep_copy(key)) {
      return kube::ReconcileResult{.requeue_after = std::chrono::seconds(1)};
    }
    if (virt == nullptr && translator_.confirm_absence) {
      Result<kube::Object> live = informers_.virtual_client().Get(type_, ns, name);
      if (live.ok()) return kube::ReconcileResult{};  // its add event comes next
      if (live.status().code() != StatusCode::kNotFound) return live.status();
    }
    if (virt == nullptr) {
      std::lock_guard lock(mu_);
      told_.erase(key);
    }
    // Only this object's own copy goes; another's is not ours to delete.
    if (host != nullptr &&
        CheckIdentity(*host, type_.kind, {type_.kind, ns, name, ""}, config_.tenant).ok()) {
      VT_RETURN_IF_ERROR(DeleteCopy(*host));
    }
    if (virt != nullptr) VT_RETURN_IF_ERROR(StatusUp(nullptr, *virt));
    return kube::ReconcileResult{};
  }
  Status ensured = Ensure(ns, name);
  if (ensured.code() == StatusCode::kAlreadyExists) {
    return kube::ReconcileResult{.requeue_after = kClashRecheck};
  }
  VT_RETURN_IF_ERROR(ensured);
  // The cache's copy: the write Ensure made, if any, comes back as an event
  // of the copy, which brings this key here again.
  if (host != nullptr &&
      !CheckIdentity(*host, type_.kind, {type_.kind, ns, name, ""}, config_.tenant).ok()) {
    host = nullptr;
  }
  VT_RETURN_IF_ERROR(StatusUp(host.get(), *virt));
  return kube::ReconcileResult{};
}

Status CopySyncer::StatusUp(const rapidjson::Value* host, const rapidjson::Value& virt) {
  if (!translator_.status_from_host) return Status::Ok();
  std::optional<kube::Object> up = translator_.status_from_host(host, virt);
  if (!up) return Status::Ok();
  Result<kube::Object> updated =
      informers_.virtual_client().Update(type_, kube::Namespace(virt), *up, "status");
  if (!updated.ok()) {
    metrics_.Error(type_.kind, updated.status());
    return updated.status();
  }
  metrics_.Synced(type_.kind, "status");
  return Status::Ok();
}

Status CopySyncer::Ensure(std::string_view ns, std::string_view name) {
  kube::ObjectPtr virt = informers_.Virtual(type_).cache().Get(kube::MakeKey(ns, name));
  const std::string host_name = HostName(name, ns, config_.tenant);
  kube::ObjectPtr host =
      informers_.Host(type_).cache().Get(kube::MakeKey(config_.host_namespace, host_name));
  const VirtualIdentity wanted{type_.kind, std::string(ns), std::string(name), ""};
  if (host != nullptr) {
    // Checked even without a virtual object: a pod must not mount another's.
    if (Status clash = CheckIdentity(*host, type_.kind, wanted, config_.tenant); !clash.ok()) {
      return Clash(virt.get(), std::move(clash));
    }
  }
  if (virt == nullptr) {
    // Not (yet) in the virtual cache: nothing to copy, and the pod may wait
    // on the host for the copy as it would for a missing object. But the
    // host name must not be held by an object the host cache never sees
    // (one without the syncer's labels): the pod would mount that one.
    if (host != nullptr) return Status::Ok();
    Status taken = CheckTakenName(informers_.host_client(), type_, config_.host_namespace,
                                  host_name, wanted, config_.tenant);
    if (taken.code() == StatusCode::kAlreadyExists) return Clash(nullptr, std::move(taken));
    if (taken.code() == StatusCode::kUnavailable) return Status::Ok();  // no such host object
    return taken;
  }
  if (translator_.wanted && !translator_.wanted(*virt)) return Status::Ok();
  TranslationNotes notes;
  kube::Object desired = translator_.to_host(*virt, &notes);
  Tell(*virt, notes);
  if (notes.refusal) return Status::Ok();
  kube::Client& client = informers_.host_client();
  if (host != nullptr && translator_.needs_replace && translator_.needs_replace(desired, *host)) {
    VT_RETURN_IF_ERROR(DeleteCopy(*host));
    host = nullptr;
  }
  if (host == nullptr) {
    Result<kube::Object> created = client.Create(type_, config_.host_namespace, desired);
    if (created.status().code() == StatusCode::kInvalid && translator_.instead_of_invalid) {
      if (std::optional<kube::Object> instead = translator_.instead_of_invalid(desired)) {
        VLOG(1) << "host " << type_.kind << " " << host_name << " refused ("
                << created.status().message() << "); creating the translator's fallback";
        created = client.Create(type_, config_.host_namespace, *instead);
      }
    }
    if (created.ok()) {
      metrics_.Synced(type_.kind, "create");
      metrics_.Dropped(type_.kind, notes.dropped);
      return Status::Ok();
    }
    if (created.status().code() != StatusCode::kAlreadyExists) {
      metrics_.Error(type_.kind, created.status());
      return created.status();
    }
    // Either the cache had not seen our own earlier create yet (the update
    // event that follows brings it level), or the name is another's.
    Status taken =
        CheckTakenName(client, type_, config_.host_namespace, host_name, wanted, config_.tenant);
    if (taken.code() == StatusCode::kAlreadyExists) return Clash(virt.get(), std::move(taken));
    return taken;
  }
  std::optional<kube::Object> update = translator_.update(desired, *host);
  if (!update) return Status::Ok();
  Result<kube::Object> updated = client.Update(type_, config_.host_namespace, *update);
  if (!updated.ok()) {
    metrics_.Error(type_.kind, updated.status());
    return updated.status();
  }
  metrics_.Synced(type_.kind, "update");
  metrics_.Dropped(type_.kind, notes.dropped);
  return Status::Ok();
}

}  // namespace vtenant::syncer
