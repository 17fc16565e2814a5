#include "syncer/gang.h"

#include <algorithm>

#include "kai/grove_gang.h"
#include "kai/knative.h"
#include "kai/kubeflow_job.h"
#include "kai/min_member.h"
#include "kai/podgroup_admission.h"
#include "kai/podgroup_spec.h"
#include "kai/preemptibility.h"
#include "kai/ray_gang.h"
#include "kai/top_owner.h"
#include "kai/workload_topology.h"
#include "syncer/names.h"
#include "syncer/podgroup_fields.h"

namespace vtenant::syncer {
namespace {

// A Kubeflow training job KAI gangs (kai/kubeflow_job.h); other
// kubeflow.org kinds are owners like any other.
bool IsKubeflowJob(const kube::OwnerReference& owner) {
  return owner.api_version.starts_with(std::string(kai::kKubeflowGroup) + "/") &&
         kai::FindKubeflowJobKind(owner.kind) != nullptr;
}

// The pod's owners, top first, then the pod: where KAI's pod grouper looks
// for a workload's preemptibility label and timing annotations. `keep`
// holds the owners while they are read. FailedPrecondition while an owner
// of a kind the lookup caches is not in it yet, or the chain has grown
// since it was read: its label may be the one that counts.
Result<std::vector<const rapidjson::Value*>> WorkloadObjects(
    const rapidjson::Value& pod, const std::vector<kube::OwnerReference>& chain,
    std::string_view ns, ObjectLookup& lookup, std::vector<kube::ObjectPtr>& keep) {
  // The chain was read from the caches a moment ago; an owner that has
  // arrived since may have owners of its own, whose label counts first.
  if (OwnerChain(pod, lookup).size() != chain.size()) {
    return FailedPrecondition("the owners of pod " + std::string(ns) + "/" +
                              std::string(kube::Name(pod)) + " changed while read");
  }
  std::vector<const rapidjson::Value*> objects;
  for (auto owner = chain.rbegin(); owner != chain.rend(); ++owner) {
    keep.push_back(lookup.Get(owner->api_version, owner->kind, ns, owner->name));
    if (keep.back() == nullptr && lookup.Knows(owner->api_version, owner->kind)) {
      return FailedPrecondition("waiting for " + owner->kind + " " + std::string(ns) + "/" +
                                owner->name);
    }
    objects.push_back(keep.back().get());
  }
  objects.push_back(&pod);
  return objects;
}

// Sets or removes spec.`field` of `pg` to `value` ("" removes it).
void SetOrRemoveString(kube::Object& pg, const char* field, const std::string& value) {
  rapidjson::Value& spec = kube::EnsurePath(pg, {"spec"});
  if (value.empty()) {
    spec.RemoveMember(field);
  } else {
    kube::SetString(pg, {"spec"}, field, value);
  }
}

// Sets or removes spec.`field` of `pg` to the JSON `value` ("" removes it).
void SetOrRemoveJson(kube::Object& pg, const char* field, const std::string& value) {
  rapidjson::Value& spec = kube::EnsurePath(pg, {"spec"});
  spec.RemoveMember(field);
  if (value.empty()) return;
  Result<kube::Object> parsed = kube::ParseJson(value);
  if (parsed.ok()) {
    spec.AddMember(rapidjson::Value(field, pg.GetAllocator()),
                   rapidjson::Value(*parsed, pg.GetAllocator()), pg.GetAllocator());
  }
}

// spec.minMember, or spec.minSubGroup when the gang has one: never both.
void SetGangMinimum(kube::Object& pg, const Gang& gang) {
  rapidjson::Value& spec = kube::EnsurePath(pg, {"spec"});
  spec.RemoveMember("minMember");
  spec.RemoveMember("minSubGroup");
  if (gang.min_sub_group) {
    spec.AddMember("minSubGroup", rapidjson::Value(*gang.min_sub_group), pg.GetAllocator());
  } else {
    spec.AddMember("minMember", rapidjson::Value(gang.min_member), pg.GetAllocator());
  }
}

void SetOrRemoveBool(kube::Object& pg, const char* field, std::optional<bool> value) {
  rapidjson::Value& spec = kube::EnsurePath(pg, {"spec"});
  spec.RemoveMember(field);
  if (value) {
    spec.AddMember(rapidjson::Value(field, pg.GetAllocator()), rapidjson::Value(*value),
                   pg.GetAllocator());
  }
}

// The RayCluster whose gang a pod of KubeRay workload `workload`
// (chain[top]) joins: the workload itself, else the RayCluster in the
// pod's owner chain, else null (kai::ReadRolesGang refuses that).
// FailedPrecondition while the RayCluster is not read yet.
Result<kube::ObjectPtr> RayClusterOf(const std::vector<kube::OwnerReference>& chain, size_t top,
                                     kube::ObjectPtr workload, std::string_view ns,
                                     ObjectLookup& lookup) {
  if (chain[top].kind == "RayCluster") return workload;
  for (size_t i = 0; i < top; ++i) {
    if (chain[i].kind != "RayCluster") continue;
    kube::ObjectPtr cluster = lookup.Get(chain[i].api_version, chain[i].kind, ns, chain[i].name);
    if (cluster == nullptr)
      return FailedPrecondition("waiting for RayCluster " + std::string(ns) + "/" + chain[i].name);
    return cluster;
  }
  return kube::ObjectPtr();
}

// The gang of `pod`, a pod of Grove workload chain.back(): its PodGang's
// (kai/grove_gang.h), which the pod's label grove.io/podgang names. Its
// priority class and topology are read from the PodGang, then the
// workload (kai::GrovePriorityClass, kai::ReadGroveTopology), as the
// host's grouper reads them; the class is taken when the tenant may use
// it. InvalidArgument without the label or when the reader refuses the
// PodGang; FailedPrecondition while the PodGang is not read yet (Grove
// writes it once it has made the pods).
Result<std::optional<Gang>> GroveGangOf(const rapidjson::Value& pod,
                                        const std::vector<kube::OwnerReference>& chain,
                                        const std::string& ns, ObjectLookup& lookup,
                                        const SyncerConfig& config) {
  const std::optional<std::string_view> name = kube::Label(pod, kai::kPodGangLabel);
  if (!name) {
    return InvalidArgument("a pod of Grove " + chain.back().kind + " " + chain.back().name +
                           " without label " + kai::kPodGangLabel + ", which names its PodGang");
  }
  kube::ObjectPtr pod_gang = lookup.Get(kai::kPodGangApiVersion, "PodGang", ns, *name);
  if (pod_gang == nullptr)
    return FailedPrecondition("waiting for PodGang " + ns + "/" + std::string(*name));
  std::vector<kube::ObjectPtr> keep;
  VT_ASSIGN_OR_RETURN(std::vector<const rapidjson::Value*> objects,
                      WorkloadObjects(pod, chain, ns, lookup, keep));
  const rapidjson::Value* workload = objects.front();  // chain.back(), the PodCliqueSet
  VT_ASSIGN_OR_RETURN(kai::SubGroupGang roles, kai::ReadGroveGang(*pod_gang, kube::Name(pod)));
  VT_ASSIGN_OR_RETURN(const kai::TopologyConstraint topology,
                      kai::ReadGroveTopology(*pod_gang, workload));
  const kube::OwnerReference owner{kai::kPodGangApiVersion, "PodGang", std::string(*name),
                                   std::string(kube::Uid(*pod_gang))};
  Gang gang{WorkloadPodGroupName(owner.name, owner.uid, ns, config.tenant),
            roles.min_member.value_or(1), owner};
  rapidjson::Document scratch;
  gang.sub_groups = kube::ToJson(kai::SubGroupsValue(roles, scratch.GetAllocator()));
  gang.pod_sub_group = std::move(roles.pod_sub_group);
  const std::string_view priority_class = kai::GrovePriorityClass(*pod_gang, workload).value_or("");
  if (config.allowed_priority_classes.contains(priority_class))
    gang.priority_class = std::string(priority_class);

  objects.insert(objects.begin(), pod_gang.get());
  gang.preemptibility = kai::WorkloadPreemptibility(objects);
  kai::WorkloadTimings timings = kai::ReadWorkloadTimings(objects);
  gang.preemption_delay = std::move(timings.preemption_delay);
  gang.staleness_grace_period = std::move(timings.staleness_grace_period);
  const rapidjson::Value value = kai::TopologyConstraintValue(topology, scratch.GetAllocator());
  if (!value.IsNull()) gang.topology_constraint = kube::ToJson(value);
  return std::optional<Gang>(std::move(gang));
}

}  // namespace

bool Gang::FollowsPodGroup() const {
  return owner.api_version == kPodGroupApiVersion && owner.kind == kai::kPodGroupKind;
}

Result<std::optional<Gang>> GangOf(const rapidjson::Value& pod,
                                   const std::vector<kube::OwnerReference>& chain,
                                   ObjectLookup& lookup, const SyncerConfig& config) {
  const std::string ns(kube::Namespace(pod));
  if (std::optional<std::string_view> group = kube::Annotation(pod, kPodGroupAnnotation)) {
    kube::ObjectPtr pg = lookup.Get(kPodGroupApiVersion, kai::kPodGroupKind, ns, *group);
    if (pg == nullptr) {
      return FailedPrecondition("waiting for PodGroup " + ns + "/" + std::string(*group) +
                                " named by the pod's pod-group-name annotation");
    }
    VT_ASSIGN_OR_RETURN(Gang gang, GangOfPodGroup(*pg, ns, config));
    return std::optional<Gang>(std::move(gang));
  }
  if (chain.empty()) return std::optional<Gang>();

  size_t top = chain.size() - 1;
  // One run of the workload; a TrainJob's pods are its JobSet's, a RayJob's
  // submitter its Job's, and a pod an Argo Workflow owns is a job of its
  // own, as a bare pod is (kai/top_owner.h).
  const bool ray_cluster_below = std::any_of(chain.begin(), chain.end() - 1,
                                             [](const auto& o) { return o.kind == "RayCluster"; });
  const bool passed_over =
      kai::PassesOverTopOwner(chain[top].api_version, chain[top].kind, ray_cluster_below);
  if (top == 0 && passed_over) return std::optional<Gang>();
  if (top > 0 && (chain[top].kind == "Deployment" || chain[top].kind == "CronJob" || passed_over))
    --top;
  // A Knative Service's pods are its Revision's (kai/knative.h).
  if (kai::IsKnativeService(chain[top].api_version, chain[top].kind)) {
    const auto revision = std::find_if(chain.begin(), chain.begin() + top, [](const auto& o) {
      return kai::IsKnativeRevision(o.api_version, o.kind);
    });
    if (revision == chain.begin() + top)
      return InvalidArgument("Knative Service " + chain[top].name +
                             ": no Revision of it owns the pod, and its pods are grouped by "
                             "Revision");
    top = static_cast<size_t>(revision - chain.begin());
  }
  if (kai::IsGroveWorkload(chain[top].api_version, chain[top].kind))
    return GroveGangOf(pod, chain, ns, lookup, config);
  const kube::OwnerReference& owner = chain[top];
  int64_t min_member = 1;
  std::optional<kai::SubGroupGang> roles;
  kube::ObjectPtr object = lookup.Get(owner.api_version, owner.kind, ns, owner.name);
  if (object == nullptr &&
      (IsKubeflowJob(owner) || kai::IsRayWorkload(owner.api_version, owner.kind) ||
       lookup.Knows(owner.api_version, owner.kind))) {
    // Not seen yet: guessing 1 would let a gang start piecemeal.
    return FailedPrecondition("waiting for " + owner.kind + " " + ns + "/" + owner.name);
  }
  if (object != nullptr) {
    kube::ObjectPtr ray_cluster;
    if (kai::IsRayWorkload(owner.api_version, owner.kind)) {
      VT_ASSIGN_OR_RETURN(ray_cluster, RayClusterOf(chain, top, object, ns, lookup));
    }
    VT_ASSIGN_OR_RETURN(
        roles, kai::ReadRolesGang(owner.api_version, owner.kind, *object, ray_cluster.get(), pod));
  }
  if (!roles && IsKubeflowJob(owner)) {
    // As KAI's grouper counts an MPIJob before its launcher exists: the
    // gang forms from the workers, and a launcher created once they run
    // joins it (counting it would wait for a pod that waits for the gang).
    Result<int64_t> m = kai::KubeflowJobMinMember(*object, /*mpi_launcher_exists=*/false);
    if (!m.ok()) return m.status();
    min_member = std::clamp<int64_t>(*m, 1, kai::kMaxMinMember);
  } else if (object != nullptr && kai::IsKnativeRevision(owner.api_version, owner.kind)) {
    min_member = kai::KnativeRevisionMinMember(*object);
  } else if (!roles && object != nullptr) {
    if (std::optional<std::string_view> v =
            kube::Annotation(*object, kai::kBatchMinMemberAnnotation)) {
      Result<int32_t> parsed = kai::ParseBatchMinMember(*v);
      if (!parsed.ok()) return parsed.status().WithContext(owner.kind + " " + owner.name);
      min_member = *parsed;
    }
  }
  // A workload with one group per replica (a LeaderWorkerSet) names each
  // after the replica.
  const std::string group_of = owner.name + (roles ? roles->name_suffix : "");
  Gang gang{WorkloadPodGroupName(group_of, owner.uid, ns, config.tenant), min_member, owner};
  // KubeRay's own label names the group's priority class, as KAI reads
  // it; only a class the tenant may use on the host.
  if (object != nullptr && kai::IsRayWorkload(owner.api_version, owner.kind)) {
    std::optional<std::string_view> p = kube::Label(*object, kai::kRayPriorityClassLabel);
    if (p && config.allowed_priority_classes.contains(*p)) gang.priority_class = std::string(*p);
  }
  if (roles) {
    if (roles->min_member) gang.min_member = *roles->min_member;
    gang.min_sub_group = roles->min_sub_group;
    rapidjson::Document scratch;
    gang.sub_groups = kube::ToJson(kai::SubGroupsValue(*roles, scratch.GetAllocator()));
    gang.pod_sub_group = std::move(roles->pod_sub_group);
  }
  std::vector<kube::ObjectPtr> keep;
  VT_ASSIGN_OR_RETURN(std::vector<const rapidjson::Value*> objects,
                      WorkloadObjects(pod, chain, ns, lookup, keep));
  gang.preemptibility = kai::WorkloadPreemptibility(objects);
  kai::WorkloadTimings timings = kai::ReadWorkloadTimings(objects);
  gang.preemption_delay = std::move(timings.preemption_delay);
  gang.staleness_grace_period = std::move(timings.staleness_grace_period);
  if (object != nullptr) {
    // KAI's pod grouper's topologyConstraint for the workload, as JSON.
    rapidjson::Document scratch;
    const rapidjson::Value topology =
        kai::TopologyConstraintValue(kai::WorkloadTopology(*object), scratch.GetAllocator());
    if (!topology.IsNull()) gang.topology_constraint = kube::ToJson(topology);
  }
  return std::optional<Gang>(std::move(gang));
}

void KeepHostGroupShape(Gang& gang, const rapidjson::Value* host) {
  if (host == nullptr || gang.FollowsPodGroup() || gang.sub_groups.empty()) return;
  if (kube::Find(*host, {"spec", "subGroups"}) != nullptr) return;
  gang.sub_groups.clear();
  gang.pod_sub_group.clear();
  gang.min_sub_group.reset();
}

Result<Gang> GangOfPodGroup(const rapidjson::Value& pg, std::string_view ns,
                            const SyncerConfig& config) {
  const std::string name(kube::Name(pg));
  const std::string where = "PodGroup " + std::string(ns) + "/" + name;
  // KAI's rules for the spec, which the host scheduler applies to the host
  // group too: a spec refused here would be refused there.
  Result<kai::PodGroupSpec> spec = kai::ReadPodGroupSpec(pg);
  if (!spec.ok()) return spec.status().WithContext(where);
  // And what KAI's PodGroup webhook refuses, as the host's refuses the host
  // group when it is made.
  if (kai::Verdict review = kai::ReviewPodGroup(pg, /*create=*/true); !review.errors.empty()) {
    std::string why;
    for (const std::string& e : review.errors) why += (why.empty() ? "" : "; ") + e;
    return InvalidArgument(where + ": " + why);
  }
  Gang gang{HostName(name, ns, config.tenant), spec->min_member,
            kube::OwnerReference{kPodGroupApiVersion, kai::kPodGroupKind, name,
                                 std::string(kube::Uid(pg))}};
  const std::string& priority_class = spec->priority_class;
  if (config.allowed_priority_classes.contains(priority_class)) {
    gang.priority_class = priority_class;
  } else if (!priority_class.empty() && !priority_class.starts_with("system-")) {
    return InvalidArgument(where + ": spec.priorityClassName \"" + priority_class +
                           "\" is not a priority class of the host");
  }
  gang.min_sub_group = spec->min_sub_group;
  gang.preemptibility = spec->preemptibility;
  gang.mark_unschedulable = spec->mark_unschedulable;
  // As written: kai::ReadPodGroupSpec has checked them.
  gang.preemption_delay = std::string(kube::GetString(pg, {"spec", "preemptionDelay"}));
  gang.staleness_grace_period = std::string(kube::GetString(pg, {"spec", "stalenessGracePeriod"}));
  // kai::ReadPodGroupSpec has checked subGroups; the host group carries
  // only their known members (podgroup_fields.h).
  VT_RETURN_IF_ERROR(TakePodGroupSpec(pg, gang).WithContext(where));
  return gang;
}

bool StandsForVirtualPodGroup(const rapidjson::Value& host) {
  std::optional<std::string_view> chain = kube::Annotation(host, kOwnerChainAnnotation);
  if (!chain) return false;
  Result<kube::Object> parsed = kube::ParseJson(*chain);
  if (!parsed.ok() || !parsed->IsArray() || parsed->Empty()) return false;
  const rapidjson::Value& owner = (*parsed)[0];
  return kube::GetString(owner, {"apiVersion"}) == kPodGroupApiVersion &&
         kube::GetString(owner, {"kind"}) == kai::kPodGroupKind;
}

std::optional<kube::Object> PodGroupUpdate(const rapidjson::Value& host, const Gang& gang,
                                           const SyncerConfig& config) {
  kube::Object out = kube::Clone(host);
  rapidjson::Value& spec = kube::EnsurePath(out, {"spec"});
  auto& a = out.GetAllocator();
  SetGangMinimum(out, gang);
  spec.RemoveMember("subGroups");
  if (!gang.sub_groups.empty()) {
    Result<kube::Object> sub = kube::ParseJson(gang.sub_groups);
    if (sub.ok()) spec.AddMember("subGroups", rapidjson::Value(*sub, a), a);
  }
  kube::SetString(out, {"spec"}, "queue", config.queue);
  if (gang.FollowsPodGroup()) {
    SetOrRemoveString(out, "priorityClassName", gang.priority_class);
    SetOrRemoveBool(out, "markUnschedulable", gang.mark_unschedulable);
    SetOrRemoveJson(out, "topologyConstraint", gang.topology_constraint);
  } else if (!gang.priority_class.empty()) {
    kube::SetString(out, {"spec"}, "priorityClassName", gang.priority_class);
  }
  SetOrRemoveString(out, "preemptibility", gang.preemptibility);
  SetOrRemoveString(out, "preemptionDelay", gang.preemption_delay);
  SetOrRemoveString(out, "stalenessGracePeriod", gang.staleness_grace_period);
  if (!gang.owner.uid.empty()) {
    kube::SetString(out, {"metadata", "annotations"}, kVirtualUidAnnotation, gang.owner.uid);
  }
  if (out == host) return std::nullopt;
  return out;
}

kube::Object PodGroupToHost(const Gang& gang, std::string_view ns, std::string_view priority_class,
                            const SyncerConfig& config) {
  kube::Object pg(rapidjson::kObjectType);
  kube::SetString(pg, {}, "apiVersion", kPodGroupApiVersion);
  kube::SetString(pg, {}, "kind", kai::kPodGroupKind);
  kube::SetString(pg, {"metadata"}, "name", gang.host_name);
  kube::SetString(pg, {"metadata"}, "namespace", config.host_namespace);
  kube::SetString(pg, {"metadata", "labels"}, kTenantLabel, config.tenant);
  kube::SetString(pg, {"metadata", "labels"}, kVirtualNamespaceLabel, ns);
  kube::SetString(pg, {"metadata", "labels"}, kManagedByLabel, kManagedByValue);
  kube::SetString(pg, {"metadata", "labels"}, kQueueLabel, config.queue);
  kube::SetString(pg, {"metadata", "annotations"}, kVirtualNameAnnotation, gang.owner.name);
  kube::SetString(pg, {"metadata", "annotations"}, kVirtualNamespaceAnnotation, ns);
  kube::SetString(pg, {"metadata", "annotations"}, kVirtualUidAnnotation, gang.owner.uid);
  kube::SetString(pg, {"metadata", "annotations"}, kOwnerChainAnnotation,
                  OwnerChainJson({gang.owner}));
  rapidjson::Value& spec = kube::EnsurePath(pg, {"spec"});
  SetGangMinimum(pg, gang);
  if (!gang.sub_groups.empty()) {
    Result<kube::Object> sub = kube::ParseJson(gang.sub_groups);
    if (sub.ok())
      spec.AddMember("subGroups", rapidjson::Value(*sub, pg.GetAllocator()), pg.GetAllocator());
  }
  kube::SetString(pg, {"spec"}, "queue", config.queue);
  if (!gang.priority_class.empty()) {
    kube::SetString(pg, {"spec"}, "priorityClassName", gang.priority_class);
  } else if (!gang.FollowsPodGroup() && config.allowed_priority_classes.contains(priority_class)) {
    kube::SetString(pg, {"spec"}, "priorityClassName", priority_class);
  }
  SetOrRemoveString(pg, "preemptibility", gang.preemptibility);
  SetOrRemoveString(pg, "preemptionDelay", gang.preemption_delay);
  SetOrRemoveString(pg, "stalenessGracePeriod", gang.staleness_grace_period);
  SetOrRemoveBool(pg, "markUnschedulable", gang.mark_unschedulable);
  SetOrRemoveJson(pg, "topologyConstraint", gang.topology_constraint);
  return pg;
}

}  // namespace vtenant::syncer
