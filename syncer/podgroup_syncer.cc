#include "syncer/podgroup_syncer.h"

#include "syncer/names.h"

namespace vtenant::syncer {

using kube::resources::kPodGroups;

PodGroupSyncer::PodGroupSyncer(SyncerInformers& informers, const SyncerConfig& config,
                               SyncMetrics& metrics)
    : informers_(informers), config_(config), metrics_(metrics) {}

Status PodGroupSyncer::Ensure(const Gang& gang, std::string_view ns,
                              std::string_view priority_class) {
  kube::Client& client = informers_.host_client();
  kube::ObjectPtr have = informers_.Host(kPodGroups)
                             .cache()
                             .Get(kube::MakeKey(config_.host_namespace, gang.host_name));
  if (have == nullptr) {
    Result<kube::Object> created = client.Create(kPodGroups, config_.host_namespace,
                                                 PodGroupToHost(gang, ns, priority_class, config_));
    if (created.ok()) {
      metrics_.Synced("PodGroup", "create");
      return Status::Ok();
    }
    if (created.status().code() == StatusCode::kAlreadyExists) return Status::Ok();
    metrics_.Error("PodGroup", created.status());
    return created.status();
  }
  const rapidjson::Value* have_sub = kube::Find(*have, {"spec", "subGroups"});
  const std::string have_sub_json =
      have_sub == nullptr || have_sub->IsNull() ? "" : kube::ToJson(*have_sub);
  if (kube::GetInt(*have, {"spec", "minMember"}) == gang.min_member &&
      have_sub_json == gang.sub_groups) {
    return Status::Ok();
  }
  kube::Object update = kube::Clone(*have);
  rapidjson::Value& spec = kube::EnsurePath(update, {"spec"});
  spec.RemoveMember("minMember");
  spec.AddMember("minMember", rapidjson::Value(static_cast<int64_t>(gang.min_member)),
                 update.GetAllocator());
  spec.RemoveMember("subGroups");
  if (!gang.sub_groups.empty()) {
    VT_ASSIGN_OR_RETURN(kube::Object sub, kube::ParseJson(gang.sub_groups));
    spec.AddMember("subGroups", rapidjson::Value(sub, update.GetAllocator()),
                   update.GetAllocator());
  }
  Result<kube::Object> updated = client.Update(kPodGroups, config_.host_namespace, update);
  if (!updated.ok()) {
    metrics_.Error("PodGroup", updated.status());
    return updated.status();
  }
  metrics_.Synced("PodGroup", "update");
  return Status::Ok();
}

Result<kube::ReconcileResult> PodGroupSyncer::Reconcile(const std::string& key) {
  kube::ObjectPtr pg = informers_.Host(kPodGroups).cache().Get(key);
  if (pg == nullptr) return kube::ReconcileResult{};
  const std::string name(kube::Name(*pg));
  Result<size_t> host_pods =
      informers_.Host(kube::resources::kPods).cache().CountByIndex(kPodGroupIndex, name);
  if (host_pods.ok() && *host_pods > 0) return kube::ReconcileResult{};
  // A workload whose pods are about to be created still needs its group.
  const kube::Cache& virtual_pods = informers_.Virtual(kube::resources::kPods).cache();
  std::string owner_uid(kube::Annotation(*pg, kVirtualUidAnnotation).value_or(""));
  std::string ns(kube::Annotation(*pg, kVirtualNamespaceAnnotation).value_or(""));
  std::string vname(kube::Annotation(*pg, kVirtualNameAnnotation).value_or(""));
  for (const std::string& value : {owner_uid, "podgroup/" + ns + "/" + vname}) {
    if (value.empty()) continue;
    Result<size_t> pods = virtual_pods.CountByIndex(kOwnerUidIndex, value);
    if (pods.ok() && *pods > 0) return kube::ReconcileResult{};
  }
  Status s = informers_.host_client().Delete(kPodGroups, config_.host_namespace, name,
                                             {.precondition_uid = std::string(kube::Uid(*pg))});
  if (!s.ok() && s.code() != StatusCode::kNotFound && s.code() != StatusCode::kConflict) {
    metrics_.Error("PodGroup", s);
    return s;
  }
  metrics_.Synced("PodGroup", "delete");
  return kube::ReconcileResult{};
}

}  // namespace vtenant::syncer
