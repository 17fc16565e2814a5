#include "syncer/pod_syncer.h"

#include <glog/logging.h>

#include <algorithm>

#include "base/rfc3339.h"
#include "kai/priority_classes.h"
#include "kube/base64.h"
#include "kube/conditions.h"
#include "kube/wall_time.h"
#include "syncer/host_identity.h"
#include "syncer/json_edit.h"
#include "syncer/names.h"
#include "syncer/pod_references.h"
#include "syncer/virtual_lookup.h"

namespace vtenant::syncer {
namespace {

using kube::resources::kPods;
using kube::resources::kSecrets;

constexpr char kTokenPurposeLabel[] = "vtenant.io/purpose";
constexpr char kTokenPurpose[] = "service-account-token";
// What the kubelet asks for by default; tokens are refreshed at 80 % of
// the lifetime the API server grants.
constexpr int64_t kTokenSeconds = 3607;
// On the token Secret: when its token expires and when to re-request it.
constexpr char kTokenExpirationAnnotation[] = "vtenant.io/token-expiration";
constexpr char kTokenRefreshAfterAnnotation[] = "vtenant.io/token-refresh-after";
// How soon a pod whose host name (or its token's, group's or a reference's)
// is held by another object is looked at again: the holder may be one the
// host caches never see leave.
constexpr std::chrono::seconds kClashRecheck(30);
// How long a token Secret this syncer wrote is trusted before the host
// cache shows it: far longer than a watch event takes, far shorter than a
// token's life.
constexpr std::chrono::seconds kCacheCatchUp(30);

// What the host pod and the token Secret of virtual pod ns/name record.
VirtualIdentity PodIdentity(std::string_view ns, std::string_view name) {
  return {"Pod", std::string(ns), std::string(name), ""};
}

bool IsTerminal(const rapidjson::Value& pod) {
  std::string_view phase = kube::GetString(pod, {"status", "phase"});
  return phase == "Succeeded" || phase == "Failed";
}

bool HasCondition(const rapidjson::Value& pod, std::string_view type, std::string_view status) {
  std::optional<kube::Condition> c = kube::FindCondition(pod, type);
  return c && c->status == status;
}

// The pod's status came from a host pod: it was scheduled there. (A pod with
// a preset nodeName has no such status; no kubelet runs in the virtual cluster.)
bool RanOnHost(const rapidjson::Value& pod) {
  return kube::GetString(pod, {"status", "phase"}) == "Running" ||
         HasCondition(pod, "PodScheduled", "True");
}

bool HasController(const rapidjson::Value& pod) {
  return kube::ControllerReference(pod) != nullptr;
}

// Sets a pod condition (corev1.PodCondition); true when it changed.
bool SetPodCondition(kube::Object& pod, std::string_view type, std::string_view status,
                     std::string_view reason, std::string_view message) {
  Allocator& a = pod.GetAllocator();
  rapidjson::Value& conditions = ArrayMember(ObjectMember(pod, "status", a), "conditions", a);
  for (rapidjson::Value& c : conditions.GetArray()) {
    if (kube::GetString(c, {"type"}) != type) continue;
    if (kube::GetString(c, {"status"}) == status && kube::GetString(c, {"reason"}) == reason &&
        kube::GetString(c, {"message"}) == message) {
      return false;
    }
    if (kube::GetString(c, {"status"}) != status) {
      SetStringMember(c, "lastTransitionTime", FormatRfc3339(kube::SystemNow()), a);
    }
    SetStringMember(c, "status", status, a);
    SetStringMember(c, "reason", reason, a);
    SetStringMember(c, "message", message, a);
    return true;
  }
  rapidjson::Value c(rapidjson::kObjectType);
  SetStringMember(c, "type", type, a);
  SetStringMember(c, "status", status, a);
  SetStringMember(c, "reason", reason, a);
  SetStringMember(c, "message", message, a);
  SetStringMember(c, "lastTransitionTime", FormatRfc3339(kube::SystemNow()), a);
  conditions.PushBack(c, a);
  return true;
}

bool SetStatusString(kube::Object& pod, std::string_view key, std::string_view value) {
  if (kube::GetString(pod, {"status", key}) == value) return false;
  kube::SetString(pod, {"status"}, key, value);
  return true;
}

// Why a host pod went away, from its last state.
std::string LostReason(const rapidjson::Value& host) {
  const rapidjson::Value* conditions = kube::Find(host, {"status", "conditions"});
  if (conditions != nullptr && conditions->IsArray()) {
    for (const rapidjson::Value& c : conditions->GetArray()) {
      if (kube::GetString(c, {"type"}) == "DisruptionTarget") {
        return std::string(kube::GetString(c, {"reason"})) + ": " +
               std::string(kube::GetString(c, {"message"}));
      }
    }
  }
  std::string_view reason = kube::GetString(host, {"status", "reason"});
  if (!reason.empty()) {
    return std::string(reason) + ": " + std::string(kube::GetString(host, {"status", "message"}));
  }
  return "the host pod " + std::string(kube::Name(host)) + " was deleted";
}

}  // namespace

PodSyncer::PodSyncer(SyncerInformers& informers, const SyncerConfig& config, PodDependencies deps,
                     kube::EventRecorder& events, SyncMetrics& metrics, kube::WallClock wall_clock,
                     std::chrono::milliseconds token_recheck)
    : informers_(informers),
      config_(config),
      deps_(deps),
      events_(events),
      metrics_(metrics),
      translator_(config),
      wall_clock_(std::move(wall_clock)),
      token_recheck_(token_recheck) {}

void PodSyncer::VirtualPodSeen(const rapidjson::Value& pod) {
  std::lock_guard lock(mu_);
  first_seen_.try_emplace(std::string(kube::Uid(pod)), std::chrono::steady_clock::now());
  metrics_.PodsAwaitingHost(first_seen_.size());
}

void PodSyncer::VirtualPodDeleted(const rapidjson::Value& pod) {
  const std::string uid(kube::Uid(pod));
  std::lock_guard lock(mu_);
  lost_reasons_.erase(uid);
  ForgetFirstSeenLocked(uid);
}

void PodSyncer::HostPodDeleted(const rapidjson::Value& host_pod) {
  // Only a loss the virtual pod has yet to hear of is kept: a host pod
  // deleted because its virtual pod is going (or gone) is no loss, and
  // keeping its reason would hold one entry for every pod ever deleted.
  std::optional<std::string_view> uid = kube::Annotation(host_pod, kVirtualUidAnnotation);
  std::optional<std::string> key = VirtualKeyOf(host_pod);
  if (!uid || !key) return;
  kube::ObjectPtr pod = informers_.Virtual(kPods).cache().Get(*key);
  if (pod == nullptr || kube::Uid(*pod) != *uid || kube::IsBeingDeleted(*pod)) return;
  std::lock_guard lock(mu_);
  lost_reasons_[std::string(*uid)] = LostReason(host_pod);
}

void PodSyncer::ForgetFirstSeen(std::string_view uid) {
  std::lock_guard lock(mu_);
  ForgetFirstSeenLocked(uid);
}

void PodSyncer::ForgetFirstSeenLocked(std::string_view uid) {
  auto it = first_seen_.find(uid);
  if (it == first_seen_.end()) return;
  first_seen_.erase(it);
  metrics_.PodsAwaitingHost(first_seen_.size());
}

Result<kube::ReconcileResult> PodSyncer::Reconcile(const std::string& key) {
  auto [ns, name] = kube::SplitKey(key);
  kube::ObjectPtr pod = informers_.Virtual(kPods).cache().Get(key);
  const std::string host_name = HostName(name, ns, config_.tenant);
  kube::ObjectPtr host =
      informers_.Host(kPods).cache().Get(kube::MakeKey(config_.host_namespace, host_name));

  if (host != nullptr) {
    // A host pod that stands for another virtual pod is never written or
    // deleted for this one.
    if (Status clash = CheckIdentity(*host, kPods.kind, PodIdentity(ns, name), config_.tenant);
        !clash.ok()) {
      metrics_.Error("Pod", clash);
      if (pod == nullptr) return kube::ReconcileResult{};
      if (!kube::IsBeingDeleted(*pod)) {
        VT_RETURN_IF_ERROR(Refuse(*pod, {kHostNameClash, clash.message()}));
        return kube::ReconcileResult{.requeue_after = kClashRecheck};
      }
      host = nullptr;  // nothing of this pod's runs on the host
    }
  }
  if (pod == nullptr) {
    if (host != nullptr) VT_RETURN_IF_ERROR(DeleteHostPod(*host, std::nullopt));
    VT_RETURN_IF_ERROR(DeleteTokenSecret(ns, name));
    return kube::ReconcileResult{};
  }
  if (host != nullptr && kube::Annotation(*host, kVirtualUidAnnotation) != kube::Uid(*pod)) {
    // A new pod of the same name: the old one's host pod goes first.
    if (!kube::IsBeingDeleted(*host)) VT_RETURN_IF_ERROR(DeleteHostPod(*host, 0));
    VT_RETURN_IF_ERROR(DeleteTokenSecret(ns, name));
    return kube::ReconcileResult{};
  }
  if (kube::IsBeingDeleted(*pod)) {
    if (host != nullptr) {
      if (!kube::IsBeingDeleted(*host)) {
        const rapidjson::Value* grace =
            kube::Find(*pod, {"metadata", "deletionGracePeriodSeconds"});
        std::optional<int64_t> seconds;
        if (grace != nullptr && grace->IsInt64()) seconds = grace->GetInt64();
        VT_RETURN_IF_ERROR(DeleteHostPod(*host, seconds));
      }
      return kube::ReconcileResult{};  // the host pod's deletion brings us back
    }
    // Nothing runs it any more: finish the deletion the kubelet would finish.
    Status s = informers_.virtual_client().Delete(
        kPods, ns, name,
        {.precondition_uid = std::string(kube::Uid(*pod)), .grace_period_seconds = 0});
    if (!s.ok() && s.code() != StatusCode::kNotFound && s.code() != StatusCode::kConflict) {
      metrics_.Error("Pod", s);
      return s;
    }
    VT_RETURN_IF_ERROR(DeleteTokenSecret(ns, name));
    return kube::ReconcileResult{};
  }
  if (host == nullptr) {
    if (IsTerminal(*pod)) {
      ForgetFirstSeen(kube::Uid(*pod));
      return kube::ReconcileResult{};
    }
    if (RanOnHost(*pod)) {
      VT_RETURN_IF_ERROR(HostPodLost(*pod));
      return kube::ReconcileResult{};
    }
    if (std::optional<Refusal> refusal = CheckPod(*pod, config_)) {
      VT_RETURN_IF_ERROR(Refuse(*pod, *refusal));
      return kube::ReconcileResult{};
    }
    return CreateHostPod(*pod);
  }
  ForgetFirstSeen(kube::Uid(*pod));  // seen first when its host pod already ran
  VT_RETURN_IF_ERROR(SyncExisting(*pod, *host));
  // A finished pod runs nothing that could use a new token.
  if (!kube::IsBeingDeleted(*host) && !IsTerminal(*pod) &&
      ReferencesOf(*pod).service_account_token) {
    Result<std::chrono::seconds> next_refresh =
        EnsureTokenSecret(*pod, TokenSecretName(name, ns, config_.tenant));
    if (next_refresh.status().code() == StatusCode::kAlreadyExists) {
      events_.Warning(*pod, kHostNameClash, next_refresh.status().message());
      return kube::ReconcileResult{.requeue_after = kClashRecheck};
    }
    if (!next_refresh.ok()) return next_refresh.status();
    // At least a second, so a token granted for almost nothing cannot spin;
    // at most token_recheck (see the constructor).
    const std::chrono::milliseconds due = std::max(*next_refresh, std::chrono::seconds(1));
    return kube::ReconcileResult{.requeue_after = std::min(due, token_recheck_)};
  }
  return kube::ReconcileResult{};
}

Status PodSyncer::DeleteHostPod(const rapidjson::Value& host, std::optional<int64_t> grace) {
  Status s = informers_.host_client().Delete(
      kPods, config_.host_namespace, kube::Name(host),
      {.precondition_uid = std::string(kube::Uid(host)), .grace_period_seconds = grace});
  if (!s.ok() && s.code() != StatusCode::kNotFound && s.code() != StatusCode::kConflict) {
    metrics_.Error("Pod", s);
    return s;
  }
  metrics_.Synced("Pod", "delete");
  return Status::Ok();
}

Status PodSyncer::DeleteTokenSecret(std::string_view ns, std::string_view name) {
  const std::string secret = TokenSecretName(name, ns, config_.tenant);
  {
    std::lock_guard lock(mu_);
    written_tokens_.erase(secret);
  }
  kube::ObjectPtr existing =
      informers_.Host(kSecrets).cache().Get(kube::MakeKey(config_.host_namespace, secret));
  if (existing == nullptr) return Status::Ok();
  if (Status clash = CheckIdentity(*existing, kSecrets.kind, PodIdentity(ns, name), config_.tenant);
      !clash.ok()) {
    LOG(WARNING) << "token Secret " << secret << " left alone: " << clash.message();
    return Status::Ok();
  }
  Status s =
      informers_.host_client().Delete(kSecrets, config_.host_namespace, secret,
                                      {.precondition_uid = std::string(kube::Uid(*existing))});
  if (!s.ok() && s.code() != StatusCode::kNotFound && s.code() != StatusCode::kConflict) {
    metrics_.Error("Secret", s);
    return s;
  }
  metrics_.Synced("Secret", "delete");
  return Status::Ok();
}

Result<PodContext> PodSyncer::ContextOf(const rapidjson::Value& pod) {
  PodContext context;
  const std::string ns(kube::Namespace(pod));
  VirtualLookup lookup(informers_);
  context.owner_chain = OwnerChain(pod, lookup);
  VT_ASSIGN_OR_RETURN(context.gang, GangOf(pod, context.owner_chain, lookup, config_));
  if (context.gang) {
    KeepHostGroupShape(*context.gang,
                       informers_.Host(kube::resources::kPodGroups)
                           .cache()
                           .Get(kube::MakeKey(config_.host_namespace, context.gang->host_name))
                           .get());
  }
  const kube::Cache& host_services = informers_.Host(kube::resources::kServices).cache();
  for (const kube::ObjectPtr& svc : informers_.Virtual(kube::resources::kServices).cache().List()) {
    if (kube::Namespace(*svc) != ns) continue;
    kube::ObjectPtr copy = host_services.Get(
        kube::MakeKey(config_.host_namespace, HostName(kube::Name(*svc), ns, config_.tenant)));
    if (copy == nullptr) continue;  // not on the host yet: no address to give
    ServiceEnv env{std::string(kube::Name(*svc)),
                   std::string(kube::GetString(*copy, {"spec", "clusterIP"})),
                   {}};
    if (const rapidjson::Value* ports = kube::Find(*svc, {"spec", "ports"});
        ports != nullptr && ports->IsArray()) {
      for (const rapidjson::Value& p : ports->GetArray()) {
        std::string protocol(kube::GetString(p, {"protocol"}));
        env.ports.push_back({std::string(kube::GetString(p, {"name"})), kube::GetInt(p, {"port"}),
                             protocol.empty() ? "TCP" : protocol});
      }
    }
    context.services.push_back(std::move(env));
  }
  if (kube::ObjectPtr namespace_object =
          informers_.Virtual(kube::resources::kNamespaces).cache().Get(ns)) {
    if (const rapidjson::Value* labels = kube::Find(*namespace_object, {"metadata", "labels"});
        labels != nullptr && labels->IsObject()) {
      for (const auto& m : labels->GetObject()) {
        if (m.value.IsString()) context.namespace_labels[m.name.GetString()] = m.value.GetString();
      }
    }
  }
  if (ReferencesOf(pod).service_account_token) {
    context.token_secret = TokenSecretName(kube::Name(pod), ns, config_.tenant);
  }
  if (UsesNamespaceSelector(pod)) {
    for (const kube::ObjectPtr& n :
         informers_.Virtual(kube::resources::kNamespaces).cache().List()) {
      context.virtual_namespaces[std::string(kube::Name(*n))] =
          kube::GetStringMap(*n, {"metadata", "labels"});
    }
  }
  return context;
}

Result<std::chrono::seconds> PodSyncer::EnsureTokenSecret(const rapidjson::Value& pod,
                                                          const std::string& secret_name) {
  using std::chrono::seconds;
  const std::chrono::system_clock::time_point now = wall_clock_();
  const std::string ns(kube::Namespace(pod));
  const VirtualIdentity wanted = PodIdentity(ns, kube::Name(pod));
  kube::ObjectPtr existing =
      informers_.Host(kSecrets).cache().Get(kube::MakeKey(config_.host_namespace, secret_name));
  {
    // Written by this syncer a moment ago, and the cache has not caught up:
    // the token there is fresh. Only for a moment, so a Secret deleted
    // since is made again on the next reconcile after that.
    std::lock_guard lock(mu_);
    auto it = written_tokens_.find(secret_name);
    if (it != written_tokens_.end()) {
      const bool recent = std::chrono::steady_clock::now() - it->second.written < kCacheCatchUp;
      if (recent && it->second.refresh_after > now) {
        return std::chrono::ceil<seconds>(it->second.refresh_after - now);
      }
      if (!recent) written_tokens_.erase(it);
    }
  }
  if (existing != nullptr) {
    if (Status clash = CheckIdentity(*existing, kSecrets.kind, wanted, config_.tenant);
        !clash.ok()) {
      metrics_.Error("Secret", clash);
      return clash;
    }
    // A Secret without a readable refresh time (written before refreshes
    // existed, or edited) is refreshed now rather than trusted forever.
    if (auto after = kube::Annotation(*existing, kTokenRefreshAfterAnnotation)) {
      if (auto due = ParseRfc3339(*after); due && *due > now) {
        return std::chrono::ceil<seconds>(*due - now);
      }
    }
  }
  std::string account(kube::GetString(pod, {"spec", "serviceAccountName"}));
  if (account.empty()) account = "default";
  kube::Object request(rapidjson::kObjectType);
  Allocator& a = request.GetAllocator();
  kube::SetString(request, {}, "apiVersion", "authentication.k8s.io/v1");
  kube::SetString(request, {}, "kind", "TokenRequest");
  kube::SetString(request, {"metadata"}, "name", account);
  kube::SetString(request, {"metadata"}, "namespace", ns);
  rapidjson::Value& spec = kube::EnsurePath(request, {"spec"});
  spec.AddMember("expirationSeconds", rapidjson::Value(kTokenSeconds), a);
  kube::SetString(request, {"spec", "boundObjectRef"}, "apiVersion", "v1");
  kube::SetString(request, {"spec", "boundObjectRef"}, "kind", "Pod");
  kube::SetString(request, {"spec", "boundObjectRef"}, "name", kube::Name(pod));
  kube::SetString(request, {"spec", "boundObjectRef"}, "uid", kube::Uid(pod));
  Result<kube::Object> token =
      informers_.virtual_client().Create(kube::resources::kServiceAccounts, ns, request, "token");
  if (!token.ok()) {
    metrics_.Error("TokenRequest", token.status());
    return token.status().WithContext("requesting a token of service account " + ns + "/" +
                                      account + " from the virtual API server");
  }
  const std::string_view expiration_text =
      kube::GetString(*token, {"status", "expirationTimestamp"});
  std::optional<std::chrono::system_clock::time_point> expiration = ParseRfc3339(expiration_text);
  if (!expiration) {
    // Without it there is no knowing when to refresh; a real API server
    // always writes it.
    Status bad = Internal("TokenRequest for service account " + ns + "/" + account +
                          " answered without a valid status.expirationTimestamp (\"" +
                          std::string(expiration_text) + "\")");
    metrics_.Error("TokenRequest", bad);
    return bad;
  }
  const auto lifetime = std::max(*expiration - now, std::chrono::system_clock::duration::zero());
  const std::chrono::system_clock::time_point refresh_after =
      std::chrono::time_point_cast<seconds>(now + lifetime * 8 / 10);

  kube::Object secret =
      existing != nullptr ? kube::Clone(*existing) : kube::Object(rapidjson::kObjectType);
  kube::SetString(secret, {}, "apiVersion", "v1");
  kube::SetString(secret, {}, "kind", "Secret");
  kube::SetString(secret, {}, "type", "Opaque");
  kube::SetString(secret, {"metadata"}, "name", secret_name);
  kube::SetString(secret, {"metadata"}, "namespace", config_.host_namespace);
  kube::SetString(secret, {"metadata", "labels"}, kTenantLabel, config_.tenant);
  kube::SetString(secret, {"metadata", "labels"}, kVirtualNamespaceLabel, ns);
  kube::SetString(secret, {"metadata", "labels"}, kManagedByLabel, kManagedByValue);
  kube::SetString(secret, {"metadata", "labels"}, kTokenPurposeLabel, kTokenPurpose);
  kube::SetString(secret, {"metadata", "annotations"}, kVirtualKindAnnotation, "Pod");
  kube::SetString(secret, {"metadata", "annotations"}, kVirtualNamespaceAnnotation, ns);
  kube::SetString(secret, {"metadata", "annotations"}, kVirtualNameAnnotation, kube::Name(pod));
  kube::SetString(secret, {"metadata", "annotations"}, kVirtualUidAnnotation, kube::Uid(pod));
  kube::SetString(secret, {"metadata", "annotations"}, kTokenExpirationAnnotation,
                  FormatRfc3339(*expiration));
  kube::SetString(secret, {"metadata", "annotations"}, kTokenRefreshAfterAnnotation,
                  FormatRfc3339(refresh_after));
  kube::SetString(secret, {"data"}, "token",
                  kube::EncodeBase64(kube::GetString(*token, {"status", "token"})));
  if (existing != nullptr) {
    // In place, so the kubelet swaps the mounted file under the running pod.
    Result<kube::Object> updated =
        informers_.host_client().Update(kSecrets, config_.host_namespace, secret);
    if (!updated.ok()) {
      metrics_.Error("Secret", updated.status());
      return updated.status().WithContext("refreshing token Secret " + secret_name);
    }
    metrics_.Synced("Secret", "update");
  } else {
    Result<kube::Object> created =
        informers_.host_client().Create(kSecrets, config_.host_namespace, secret);
    if (created.status().code() == StatusCode::kAlreadyExists) {
      Status taken = CheckTakenName(informers_.host_client(), kSecrets, config_.host_namespace,
                                    secret_name, wanted, config_.tenant);
      if (!taken.ok()) {
        metrics_.Error("Secret", taken);
        return taken;
      }
    } else if (!created.ok()) {
      metrics_.Error("Secret", created.status());
      return created.status();
    } else {
      metrics_.Synced("Secret", "create");
    }
  }
  {
    std::lock_guard lock(mu_);
    written_tokens_[secret_name] = {refresh_after, std::chrono::steady_clock::now()};
  }
  return std::chrono::ceil<seconds>(
      std::max(refresh_after - now, std::chrono::system_clock::duration::zero()));
}

Result<kube::ReconcileResult> PodSyncer::CreateHostPod(const rapidjson::Value& pod) {
  const std::string ns(kube::Namespace(pod));
  Result<PodContext> context = ContextOf(pod);
  if (!context.ok()) {
    if (context.status().code() == StatusCode::kInvalidArgument) {
      VT_RETURN_IF_ERROR(Refuse(pod, {"InvalidGang", context.status().message()}));
      return kube::ReconcileResult{};
    }
    if (context.status().code() == StatusCode::kFailedPrecondition) {
      LOG(INFO) << "pod " << ns << "/" << kube::Name(pod) << ": " << context.status().message();
      return kube::ReconcileResult{.requeue_after = std::chrono::seconds(2)};
    }
    return context.status();
  }
  // Everything the host pod will name must be this pod's own (or its
  // gang's, its references'), never an object that holds the name for
  // another: a clash keeps the pod off the host, saying why. The first step
  // that fails ends this attempt.
  auto failed = [&](Status step) -> std::optional<Result<kube::ReconcileResult>> {
    if (step.ok()) return std::nullopt;
    if (step.code() == StatusCode::kAlreadyExists) return Clash(pod, step);
    return Result<kube::ReconcileResult>(std::move(step));
  };
  if (context->gang) {
    // The pod's class, else its label priorityClassName, as KAI's grouper
    // reads them (a class the tenant may not use is left out there).
    if (auto r = failed(deps_.pod_groups.Ensure(*context->gang, ns,
                                                kai::WorkloadPriorityClass(pod, pod, "")))) {
      return std::move(*r);
    }
  }
  PodReferences refs = ReferencesOf(pod);
  for (const std::string& n : refs.config_maps) {
    if (auto r = failed(deps_.config_maps.Ensure(ns, n))) return std::move(*r);
  }
  for (const std::string& n : refs.secrets) {
    if (auto r = failed(deps_.secrets.Ensure(ns, n))) return std::move(*r);
  }
  for (const std::string& n : refs.claims) {
    if (auto r = failed(deps_.claims.Ensure(ns, n))) return std::move(*r);
  }
  for (const auto& [names, copies] : {std::pair{&refs.resource_claims, deps_.resource_claims},
                                      std::pair{&refs.claim_templates, deps_.claim_templates}}) {
    if (copies == nullptr) continue;
    for (const std::string& n : *names) {
      if (auto r = failed(copies->Ensure(ns, n))) return std::move(*r);
    }
  }
  if (!context->token_secret.empty()) {
    if (auto r = failed(EnsureTokenSecret(pod, context->token_secret).status())) {
      return std::move(*r);
    }
  }
  PodTranslationNotes notes;
  kube::Object host = translator_.ToHost(pod, *context, &notes);
  Result<kube::Object> created =
      informers_.host_client().Create(kPods, config_.host_namespace, host);
  if (created.status().code() == StatusCode::kAlreadyExists) {
    // Our own create the cache has not shown yet, an older pod of the same
    // name (replaced next), or another pod's.
    Status taken =
        CheckTakenName(informers_.host_client(), kPods, config_.host_namespace, kube::Name(host),
                       PodIdentity(ns, kube::Name(pod)), config_.tenant);
    if (taken.code() == StatusCode::kAlreadyExists) return Clash(pod, taken);
    VT_RETURN_IF_ERROR(taken);
  } else if (!created.ok()) {
    metrics_.Error("Pod", created.status());
    return created.status();
  }
  if (created.ok()) {
    metrics_.Synced("Pod", "create");
    metrics_.Dropped("Pod", notes.dropped_fields);
    if (!notes.dropped_tolerations.empty()) {
      std::string list;
      for (const std::string& t : notes.dropped_tolerations) {
        list += (list.empty() ? "" : ", ") + t;
      }
      events_.Warning(pod, "TolerationDropped",
                      "tolerations left off the host pod, which this tenant may not use (Tenant "
                      "spec.isolation.allowedTolerations): " +
                          list);
    }
    std::lock_guard lock(mu_);
    auto it = first_seen_.find(kube::Uid(pod));
    if (it != first_seen_.end()) {
      metrics_.PodSyncLatency(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - it->second).count());
      ForgetFirstSeenLocked(kube::Uid(pod));
    }
  }
  return kube::ReconcileResult{};
}

Result<kube::ReconcileResult> PodSyncer::Clash(const rapidjson::Value& pod, const Status& clash) {
  metrics_.Error("Pod", clash);
  VT_RETURN_IF_ERROR(Refuse(pod, {kHostNameClash, clash.message()}));
  return kube::ReconcileResult{.requeue_after = kClashRecheck};
}

Status PodSyncer::WriteVirtualStatus(const kube::Object& pod) {
  Result<kube::Object> updated =
      informers_.virtual_client().Update(kPods, kube::Namespace(pod), pod, "status");
  if (!updated.ok()) {
    metrics_.Error("Pod", updated.status());
    return updated.status();
  }
  metrics_.Synced("Pod", "status");
  return Status::Ok();
}

Status PodSyncer::Refuse(const rapidjson::Value& pod, const Refusal& refusal) {
  ForgetFirstSeen(kube::Uid(pod));
  kube::Object status = kube::Clone(pod);
  bool changed = SetPodCondition(status, "PodScheduled", "False", refusal.reason,
                                 "not synced to the host: " + refusal.message);
  changed |= SetStatusString(status, "reason", refusal.reason);
  changed |= SetStatusString(status, "message", refusal.message);
  if (!changed) return Status::Ok();  // already told
  metrics_.Refused(refusal.reason);
  events_.Warning(pod, refusal.reason, refusal.message);
  return WriteVirtualStatus(status);
}

Status PodSyncer::HostPodLost(const rapidjson::Value& pod) {
  const std::string ns(kube::Namespace(pod));
  const std::string name(kube::Name(pod));
  std::string why;
  {
    std::lock_guard lock(mu_);
    auto it = lost_reasons_.find(kube::Uid(pod));
    why = it != lost_reasons_.end() ? it->second : "the host pod is gone";
    if (it != lost_reasons_.end()) lost_reasons_.erase(it);
  }
  if (HasController(pod)) {
    events_.Warning(pod, "HostPodLost", why + "; deleting the pod so its controller replaces it");
    Status s = informers_.virtual_client().Delete(
        kPods, ns, name,
        {.precondition_uid = std::string(kube::Uid(pod)), .grace_period_seconds = 0});
    if (!s.ok() && s.code() != StatusCode::kNotFound && s.code() != StatusCode::kConflict) {
      metrics_.Error("Pod", s);
      return s;
    }
    metrics_.Synced("Pod", "delete-virtual");
    return Status::Ok();
  }
  events_.Warning(pod, "HostPodLost", why);
  kube::Object status = kube::Clone(pod);
  SetStatusString(status, "phase", "Failed");
  SetStatusString(status, "reason", "HostPodLost");
  SetStatusString(status, "message", why);
  SetPodCondition(status, "Ready", "False", "HostPodLost", why);
  return WriteVirtualStatus(status);
}

Status PodSyncer::SyncExisting(const rapidjson::Value& pod, const rapidjson::Value& host) {
  const std::string ns(kube::Namespace(pod));
  const std::string name(kube::Name(pod));
  if (!kube::IsBeingDeleted(host)) {
    // Updates only need what lands in labels and annotations; no API reads.
    PodContext context;
    VirtualLookup cached(informers_, /*live_reads=*/false);
    context.owner_chain = OwnerChain(pod, cached);
    if (auto group = kube::Annotation(host, kPodGroupAnnotation)) {
      context.gang = Gang{std::string(*group), 1, {}};
    }
    if (kube::ObjectPtr namespace_object =
            informers_.Virtual(kube::resources::kNamespaces).cache().Get(ns)) {
      if (const rapidjson::Value* labels = kube::Find(*namespace_object, {"metadata", "labels"});
          labels != nullptr && labels->IsObject()) {
        for (const auto& m : labels->GetObject()) {
          if (m.value.IsString())
            context.namespace_labels[m.name.GetString()] = m.value.GetString();
        }
      }
    }
    if (auto owner_chain = kube::Annotation(host, kOwnerChainAnnotation);
        owner_chain && *owner_chain != OwnerChainJson(context.owner_chain)) {
      // An owner the caches have not seen yet: keep what was written.
      context.owner_chain.clear();
      Result<kube::Object> parsed = kube::ParseJson(*owner_chain);
      if (parsed.ok() && parsed->IsArray()) {
        for (const rapidjson::Value& o : parsed->GetArray()) {
          context.owner_chain.push_back(kube::ReadOwnerReference(o));
        }
      }
    }
    if (std::optional<kube::Object> update = translator_.Update(pod, host, context)) {
      Result<kube::Object> updated =
          informers_.host_client().Update(kPods, config_.host_namespace, *update);
      if (!updated.ok()) {
        metrics_.Error("Pod", updated.status());
        return updated.status();
      }
      metrics_.Synced("Pod", "update");
    }
  }
  std::string_view host_node = kube::GetString(host, {"spec", "nodeName"});
  if (!host_node.empty() && kube::GetString(pod, {"spec", "nodeName"}).empty()) {
    // The Node first, or the virtual pod garbage collector deletes the pod.
    VT_RETURN_IF_ERROR(deps_.nodes.EnsureExists(std::string(host_node)));
    Status bound = informers_.virtual_client().Bind(ns, name, host_node);
    if (!bound.ok() && bound.code() != StatusCode::kConflict) {
      metrics_.Error("Pod", bound);
      return bound;
    }
    metrics_.Synced("Pod", "bind");
    return Status::Ok();  // the bound pod's update event brings the status next
  }
  if (std::optional<kube::Object> status = translator_.StatusFromHost(host, pod)) {
    return WriteVirtualStatus(*status);
  }
  return Status::Ok();
}

}  // namespace vtenant::syncer
