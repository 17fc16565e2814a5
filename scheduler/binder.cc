#include "scheduler/binder.h"

#include <glog/logging.h>

#include <chrono>
#include <map>

#include "kai/gpu_environment.h"
#include "kube/json_builder.h"
#include "scheduler/grouping_rules.h"
#include "scheduler/kai_names.h"

namespace vtenant::scheduler {
namespace {

using rapidjson::Value;

std::string JoinInts(const std::vector<int>& parts) {
  std::string out;
  for (int p : parts) out += (out.empty() ? "" : ",") + std::to_string(p);
  return out;
}

// `text` as one token of a JSON Pointer (RFC 6901): "~" and "/" escaped.
std::string PointerToken(std::string_view text) {
  std::string out;
  for (char c : text) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

// A pod without a controller owner and not yet in a PodGroup is a job of
// its own, and the pod grouper will name its group after it. The binding
// carries that name, so the pod is bound and annotated in one write
// instead of two, and is never seen running without its group's name
// (a kubelet stand-in such as kwok would start a pod updated again before
// it starts twice). The grouper still makes the group.
std::map<std::string, std::string> OwnGroupAnnotation(const CorePod& pod) {
  if (!pod.pod_group.empty() || pod.has_controller_owner) return {};
  return {{kPodGroupAnnotation, PodOwnGroupName(kube::SplitKey(pod.key).second, pod.uid)}};
}

// A merge patch of the pod of `uid`: `labels` set, or removed when
// `remove`. With the uid in it, the API server refuses the patch for
// another pod that has since taken the name.
std::string LabelsPatch(std::string_view uid, const std::map<std::string, std::string>& labels,
                        bool remove) {
  kube::JsonObject values;
  for (const auto& [k, v] : labels) values.Set(k, remove ? kube::JsonValue() : kube::JsonValue(v));
  return kube::ToJson(kube::BuildJson(kube::JsonObject{
      {"metadata", kube::JsonObject{{"uid", uid}, {"labels", std::move(values)}}}}));
}

}  // namespace

std::map<std::string, std::string> GpuGroupLabels(std::string_view node,
                                                  const std::vector<int>& devices) {
  std::map<std::string, std::string> labels;
  for (int d : devices) {
    std::string group = GpuGroupName(node, d);
    std::string key = kGpuGroupLabel;
    if (devices.size() > 1) key += "/" + group;
    labels[std::move(key)] = std::move(group);
  }
  return labels;
}

Binder::Binder(kube::Client& client, ClusterView& view, Reservations& reservations,
               kube::EventRecorder& events, BinderOptions options)
    : client_(client),
      view_(view),
      reservations_(reservations),
      events_(events),
      options_(options) {
  latency_ = options_.registry
                 ->AddHistogram("vtenant_scheduler_bind_duration_seconds",
                                "Time from a bind decision to the pod bound, by kind.", {"kind"},
                                kube::DefaultBuckets())
                 .value();
  results_ = options_.registry
                 ->AddCounter("vtenant_scheduler_binds_total", "Binds by kind and result.",
                              {"kind", "result"})
                 .value();
  for (int i = 0; i < std::max(1, options_.workers); ++i) workers_.emplace_back([this] { Work(); });
}

Binder::~Binder() {
  WaitIdle();
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void Binder::Bind(const std::string& key, Placement placement) {
  view_.Assume(key, placement);
  {
    std::lock_guard lock(mu_);
    queue_.emplace_back(key, std::move(placement));
  }
  cv_.notify_one();
}

void Binder::WaitIdle() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return queue_.empty() && running_ == 0; });
}

void Binder::Work() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping
    auto [key, placement] = std::move(queue_.front());
    queue_.pop_front();
    ++running_;
    lock.unlock();
    const auto start = std::chrono::steady_clock::now();
    const bool shared = placement.shared;
    Status s = BindNow(key, placement);
    const char* kind = shared ? "shared" : "whole";
    results_->WithLabelValues({kind, s.ok() ? "ok" : "error"}).Inc();
    if (s.ok()) {
      latency_->WithLabelValues({kind}).Observe(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    } else {
      // The pod is pending again; the next cycle places it anew.
      view_.Forget(key);
      LOG(WARNING) << "bind " << key << " to " << placement.node << ": " << s.ToString();
    }
    lock.lock();
    --running_;
    cv_.notify_all();
  }
}

Status Binder::BindNow(const std::string& key, const Placement& placement) {
  std::optional<CorePod> pod = view_.Pod(key);
  if (!pod) return NotFound("pod " + key + " is gone");
  Status s = BindClaims(key, placement.node);
  if (s.ok()) s = BindDevices(*pod, placement.node);
  if (s.ok())
    s = placement.shared ? BindShared(*pod, placement) : [&] {
      auto [ns, name] = kube::SplitKey(key);
      return client_.Bind(ns, name, placement.node, OwnGroupAnnotation(*pod));
    }();
  if (!s.ok()) {
    if (Result<kube::Object> obj = client_.Get(kube::resources::kPods, kube::SplitKey(key).first,
                                               kube::SplitKey(key).second);
        obj.ok())
      events_.Warning(*obj, "FailedBinding",
                      "binding to node " + placement.node + ": " + s.message());
  } else if (options_.scheduled_events != nullptr) {
    auto [ns, name] = kube::SplitKey(key);
    const kube::Object ref = kube::BuildJson(kube::JsonObject{
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", kube::JsonObject{{"name", name}, {"namespace", ns}, {"uid", pod->uid}}}});
    options_.scheduled_events->Normal(ref, "Scheduled",
                                      "Successfully assigned pod " + key + " to node " +
                                          placement.node + " at node-pool " + options_.node_pool);
  }
  return s;
}

Status Binder::BindClaims(const std::string& key, const std::string& node) {
  const std::string ns = kube::SplitKey(key).first;
  VT_ASSIGN_OR_RETURN(std::vector<VolumeClaims::ClaimBinding> bindings,
                      view_.ClaimBindings(key, node));
  for (const VolumeClaims::ClaimBinding& b : bindings) {
    if (b.volume.empty()) {
      const std::string patch = kube::ToJson(kube::BuildJson(kube::JsonObject{
          {"metadata",
           kube::JsonObject{{"annotations", kube::JsonObject{{kSelectedNodeAnnotation, node}}}}}}));
      VT_RETURN_IF_ERROR(client_
                             .Patch(kube::resources::kPersistentVolumeClaims, ns, b.claim,
                                    kube::PatchType::kMerge, patch)
                             .status()
                             .WithContext("persistentvolumeclaim " + b.claim + " selected node"));
      continue;
    }
    // The volume's claimRef, at the version it was chosen at: a volume
    // another bind took meanwhile is a conflict, and the pod tries again.
    const std::string patch = kube::ToJson(kube::BuildJson(kube::JsonObject{
        {"metadata", kube::JsonObject{{"resourceVersion", b.volume_version},
                                      {"annotations",
                                       kube::JsonObject{{kBoundByControllerAnnotation, "yes"}}}}},
        {"spec", kube::JsonObject{{"claimRef", kube::JsonObject{{"apiVersion", "v1"},
                                                                {"kind", "PersistentVolumeClaim"},
                                                                {"namespace", ns},
                                                                {"name", b.claim},
                                                                {"uid", b.claim_uid}}}}}}));
    VT_RETURN_IF_ERROR(client_
                           .Patch(kube::resources::kPersistentVolumes, "", b.volume,
                                  kube::PatchType::kMerge, patch)
                           .status()
                           .WithContext("persistentvolume " + b.volume + " for claim " + b.claim));
  }
  return Status::Ok();
}

Status Binder::BindDevices(const CorePod& pod, const std::string& node) {
  if (pod.device_claims.empty()) return Status::Ok();
  auto [ns, name] = kube::SplitKey(pod.key);
  VT_ASSIGN_OR_RETURN(std::vector<ClaimAllocation> allocations,
                      view_.AllocateDevices(pod.key, node));
  std::vector<std::string> unwritten;
  for (const ClaimAllocation& a : allocations)
    if (a.allocate) unwritten.push_back(a.claim);
  for (const ClaimAllocation& a : allocations) {
    Status written = Status::Ok();
    if (a.allocate && a.needs_finalizer)
      written = client_
                    .UpdateWithRetry(kube::resources::kResourceClaims, ns, a.claim,
                                     [&](kube::Object& claim) { return ProtectClaim(a, &claim); })
                    .status();
    if (written.ok())
      written = client_
                    .UpdateWithRetry(
                        kube::resources::kResourceClaims, ns, a.claim,
                        [&](kube::Object& claim) {
                          return WriteAllocation(a, name, pod.uid, node, &claim);
                        },
                        "status")
                    .status();
    if (!written.ok()) {
      // The devices of the claims not written are free again; those written
      // stay with their claims, which now hold the pod to this node.
      view_.ForgetDevices(pod.key, unwritten);
      return written.WithContext("resourceclaim " + a.claim);
    }
    std::erase(unwritten, a.claim);
  }
  return Status::Ok();
}

Status Binder::BindShared(const CorePod& pod, const Placement& placement) {
  auto [ns, name] = kube::SplitKey(pod.key);
  if (pod.shared_gpu_configmap.empty())
    return FailedPrecondition(
        "the pod shares a GPU but has no annotation " + std::string(kSharedGpuConfigMapAnnotation) +
        ": it was created while the vtenant-scheduler admission webhook was not registered, so its "
        "containers do not refer to the GPU ConfigMap; delete and recreate the pod");
  // The view knows the nodes and most reservations already; the API server
  // is asked only for what it does not.
  VT_ASSIGN_OR_RETURN(sched::LabelPairs labels, view_.NodeLabels(placement.node));
  bool simulated = false;
  for (const auto& [k, v] : labels)
    simulated = simulated || (k == reservations_.options().simulated_node_label && v == "true");
  std::vector<std::string> uuids;
  for (int d : placement.devices) {
    std::string uuid = view_.ReservedGpuUuid(placement.node, d);
    if (uuid.empty()) {
      VT_ASSIGN_OR_RETURN(uuid, reservations_.Ensure(placement.node, d, simulated));
    }
    uuids.push_back(std::move(uuid));
  }
  // The pod's two ConfigMaps (kai/gpu_environment.h): the first holds its
  // GPU, the second stays empty for its envFrom.
  kube::JsonObject data;
  for (const auto& [k, v] : kai::GpuConfigMapData(uuids, placement.portion)) data.Set(k, v);
  if (options_.hami_core) {
    std::string_view memory;
    for (const auto& [k, v] : labels)
      if (k == kGpuMemoryLabel) memory = v;
    if (std::string limit = kai::CudaDeviceMemoryLimit(memory, placement.portion); !limit.empty())
      data.Set(kCudaDeviceMemoryLimitKey, limit);
  }
  std::vector<MadeConfigMap> made;
  for (auto [configmap, contents] :
       {std::pair{kai::GpuConfigMapName(pod.shared_gpu_configmap, pod.share_container), data},
        std::pair{kai::DirectEnvConfigMapName(pod.shared_gpu_configmap, pod.share_container),
                  kube::JsonObject{}}}) {
    Result<std::string> uid = WriteConfigMap(pod, configmap, std::move(contents));
    if (!uid.ok()) {
      Rollback(pod, made, {});
      return uid.status();
    }
    made.push_back({std::move(configmap), *std::move(uid)});
  }
  // The GPUs' groups, as KAI's binder labels a sharing pod before binding
  // it: a label cannot ride on the Binding.
  const std::map<std::string, std::string> groups =
      GpuGroupLabels(placement.node, placement.devices);
  Status labeled = client_
                       .Patch(kube::resources::kPods, ns, name, kube::PatchType::kMerge,
                              LabelsPatch(pod.uid, groups, /*remove=*/false))
                       .status();
  if (!labeled.ok()) {
    Rollback(pod, made, {});
    return labeled.WithContext("label " + std::string(kGpuGroupLabel));
  }
  // The chosen GPU rides on the Binding: the API server copies a binding's
  // annotations onto the pod in the same write that sets its node, so a pod
  // never carries a GPU it is not bound to.
  std::map<std::string, std::string> annotations = OwnGroupAnnotation(pod);
  annotations[kGpuIndexAnnotation] = JoinInts(placement.devices);
  Status bound = client_.Bind(ns, name, placement.node, annotations);
  if (!bound.ok()) {
    Rollback(pod, made, groups);
    return bound;
  }
  return Status::Ok();
}

Result<std::string> Binder::WriteConfigMap(const CorePod& pod, const std::string& configmap,
                                           kube::JsonObject data) {
  auto [ns, name] = kube::SplitKey(pod.key);
  // Owned by the pod (garbage collected with it) and marked as the
  // binder's, so that only one it made for this pod is ever written or
  // deleted: the name comes from an annotation the pod's author could have
  // set to another object's.
  const kube::Object cm = kube::BuildJson(kube::JsonObject{
      {"apiVersion", "v1"},
      {"kind", "ConfigMap"},
      {"metadata",
       kube::JsonObject{
           {"name", configmap},
           {"namespace", ns},
           {"labels", kube::JsonObject{{kGpuEnvironmentLabel, pod.uid}}},
           {"ownerReferences",
            kube::JsonArray{kube::JsonObject{
                {"apiVersion", "v1"}, {"kind", "Pod"}, {"name", name}, {"uid", pod.uid}}}}}},
      {"data", std::move(data)}});
  Result<kube::Object> created = client_.Create(kube::resources::kConfigMaps, ns, cm);
  if (created.ok()) return std::string(kube::Uid(*created));
  if (created.status().code() != StatusCode::kAlreadyExists)
    return created.status().WithContext("configmap " + configmap);
  // Left by an earlier try for this pod (a crash between steps): taken
  // over by one JSON patch whose tests let it through only while the
  // ConfigMap is the binder's for this pod. Anything else of that name is
  // not the binder's to touch.
  const std::string label_path = "/metadata/labels/" + PointerToken(kGpuEnvironmentLabel);
  const std::string takeover = kube::ToJson(kube::BuildJson(kube::JsonArray{
      kube::JsonObject{{"op", "test"}, {"path", label_path}, {"value", pod.uid}},
      kube::JsonObject{
          {"op", "test"}, {"path", "/metadata/ownerReferences/0/uid"}, {"value", pod.uid}},
      kube::JsonObject{{"op", "add"}, {"path", "/data"}, {"value", kube::JsonValue(cm["data"])}}}));
  Result<kube::Object> taken =
      client_.Patch(kube::resources::kConfigMaps, ns, configmap, kube::PatchType::kJson, takeover);
  if (taken.ok()) return std::string(kube::Uid(*taken));
  if (taken.status().code() == StatusCode::kInvalid)  // a test failed
    return FailedPrecondition("ConfigMap " + ns + "/" + configmap + " (annotation " +
                              kSharedGpuConfigMapAnnotation +
                              ") exists and was not made by vtenant-scheduler for this pod; "
                              "it is left alone and the pod is not bound");
  return taken.status().WithContext("configmap " + configmap);
}

void Binder::Rollback(const CorePod& pod, const std::vector<MadeConfigMap>& configmaps,
                      const std::map<std::string, std::string>& group_labels) {
  auto [ns, name] = kube::SplitKey(pod.key);
  for (const MadeConfigMap& made : configmaps) {
    Status d =
        client_.Delete(kube::resources::kConfigMaps, ns, made.name, {.precondition_uid = made.uid});
    if (!d.ok() && d.code() != StatusCode::kNotFound)
      LOG(WARNING) << "rollback of " << pod.key << ": configmap " << made.name << ": "
                   << d.ToString();
  }
  if (group_labels.empty()) return;
  Status unlabeled = client_
                         .Patch(kube::resources::kPods, ns, name, kube::PatchType::kMerge,
                                LabelsPatch(pod.uid, group_labels, /*remove=*/true))
                         .status();
  if (!unlabeled.ok() && unlabeled.code() != StatusCode::kNotFound)
    LOG(WARNING) << "rollback of " << pod.key << ": label " << kGpuGroupLabel << ": "
                 << unlabeled.ToString();
}

}  // namespace vtenant::scheduler
