#include "syncer/podgroup_syncer.h"

#include <glog/logging.h>

#include "syncer/host_identity.h"
#include "syncer/names.h"

namespace vtenant::syncer {
namespace {

using kube::resources::kPodGroups;

// What the host PodGroup of `gang` records: the virtual PodGroup (any UID:
// one re-created under the same name keeps its host group), or the
// workload, whose UID is part of its group's name.
VirtualIdentity IdentityOf(const Gang& gang, std::string_view ns) {
  return {gang.owner.kind, std::string(ns), gang.owner.name,
          gang.FollowsPodGroup() ? "" : gang.owner.uid};
}

}  // namespace

PodGroupSyncer::PodGroupSyncer(SyncerInformers& informers, const SyncerConfig& config,
                               SyncMetrics& metrics)
    : informers_(informers), config_(config), metrics_(metrics) {}

std::string PodGroupSyncer::HostKeyOf(const rapidjson::Value& pg) const {
  return kube::MakeKey(config_.host_namespace,
                       HostName(kube::Name(pg), kube::Namespace(pg), config_.tenant));
}

Status PodGroupSyncer::Write(const kube::Object& update, const Gang& gang) {
  Result<kube::Object> updated =
      informers_.host_client().Update(kPodGroups, config_.host_namespace, update);
  if (!updated.ok()) {
    metrics_.Error("PodGroup", updated.status());
    return updated.status();
  }
  metrics_.Synced("PodGroup", "update");
  metrics_.Dropped("PodGroup", gang.dropped);
  return Status::Ok();
}

Status PodGroupSyncer::Ensure(const Gang& gang, std::string_view ns,
                              std::string_view priority_class) {
  kube::ObjectPtr have = informers_.Host(kPodGroups)
                             .cache()
                             .Get(kube::MakeKey(config_.host_namespace, gang.host_name));
  const VirtualIdentity wanted = IdentityOf(gang, ns);
  if (have == nullptr) {
    Result<kube::Object> created = informers_.host_client().Create(
        kPodGroups, config_.host_namespace, PodGroupToHost(gang, ns, priority_class, config_));
    if (created.ok()) {
      metrics_.Synced("PodGroup", "create");
      metrics_.Dropped("PodGroup", gang.dropped);
      return Status::Ok();
    }
    if (created.status().code() != StatusCode::kAlreadyExists) {
      metrics_.Error("PodGroup", created.status());
      return created.status();
    }
    Status taken = CheckTakenName(informers_.host_client(), kPodGroups, config_.host_namespace,
                                  gang.host_name, wanted, config_.tenant);
    if (!taken.ok()) metrics_.Error("PodGroup", taken);
    return taken;
  }
  if (Status clash = CheckIdentity(*have, kPodGroups.kind, wanted, config_.tenant); !clash.ok()) {
    metrics_.Error("PodGroup", clash);
    return clash;
  }
  std::optional<kube::Object> update = PodGroupUpdate(*have, gang, config_);
  if (!update) return Status::Ok();
  return Write(*update, gang);
}

Status PodGroupSyncer::FollowVirtual(const rapidjson::Value& host) {
  const std::string ns(kube::Annotation(host, kVirtualNamespaceAnnotation).value_or(""));
  const std::string name(kube::Annotation(host, kVirtualNameAnnotation).value_or(""));
  kube::ObjectPtr virt = informers_.Virtual(kPodGroups).cache().Get(kube::MakeKey(ns, name));
  if (virt == nullptr) return Status::Ok();
  Result<Gang> gang = GangOfPodGroup(*virt, ns, config_);
  if (!gang.ok()) {
    LOG(WARNING) << "host PodGroup " << kube::Name(host)
                 << " keeps its spec: " << gang.status().message();
    metrics_.Error("PodGroup", gang.status());
    return Status::Ok();
  }
  std::optional<kube::Object> update = PodGroupUpdate(host, *gang, config_);
  if (!update) return Status::Ok();
  return Write(*update, *gang);
}

Result<kube::ReconcileResult> PodGroupSyncer::Reconcile(const std::string& key) {
  kube::ObjectPtr pg = informers_.Host(kPodGroups).cache().Get(key);
  if (pg == nullptr) return kube::ReconcileResult{};  // made with the gang's first pod
  // What it stands for decides whether it is still needed; without that
  // record there is no telling, so it is left alone.
  if (!RecordedIdentity(*pg, kPodGroups.kind, config_.tenant)) return kube::ReconcileResult{};
  if (StandsForVirtualPodGroup(*pg)) VT_RETURN_IF_ERROR(FollowVirtual(*pg));
  const std::string name(kube::Name(*pg));
  Result<size_t> host_pods =
      informers_.Host(kube::resources::kPods).cache().CountByIndex(kPodGroupIndex, name);
  if (host_pods.ok() && *host_pods > 0) return kube::ReconcileResult{};
  // A workload whose pods are about to be created still needs its group:
  // pods it owns, or that name it (a virtual PodGroup by annotation, a
  // Grove PodGang, which owns none of them, by label).
  const kube::Cache& virtual_pods = informers_.Virtual(kube::resources::kPods).cache();
  std::string owner_uid(kube::Annotation(*pg, kVirtualUidAnnotation).value_or(""));
  std::string ns(kube::Annotation(*pg, kVirtualNamespaceAnnotation).value_or(""));
  std::string vname(kube::Annotation(*pg, kVirtualNameAnnotation).value_or(""));
  for (const std::string& value :
       {owner_uid, NamedPodGroupKey(ns, vname), NamedPodGangKey(ns, vname)}) {
    if (value.empty()) continue;
    Result<size_t> pods = virtual_pods.CountByIndex(kOwnerUidIndex, value);
    if (pods.ok() && *pods > 0) return kube::ReconcileResult{};
  }
  // A workload that owns its pods through Jobs of its own (a JobSet), or
  // its leaders through a StatefulSet (a LeaderWorkerSet, whose groups all
  // stay while any of its leaders does).
  for (const kube::ResourceType* middle :
       {&kube::resources::kJobs, &kube::resources::kStatefulSets}) {
    if (owner_uid.empty()) break;
    Result<std::vector<kube::ObjectPtr>> owned =
        informers_.Virtual(*middle).cache().ByIndex(kOwnerUidIndex, owner_uid);
    if (!owned.ok()) continue;
    for (const kube::ObjectPtr& object : *owned) {
      Result<size_t> pods =
          virtual_pods.CountByIndex(kOwnerUidIndex, std::string(kube::Uid(*object)));
      if (pods.ok() && *pods > 0) return kube::ReconcileResult{};
    }
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
