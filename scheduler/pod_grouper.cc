#include "scheduler/pod_grouper.h"

#include <algorithm>

#include "base/ascii.h"
#include "kai/grove_gang.h"
#include "kube/json_builder.h"
#include "kube/owner_reference.h"
#include "scheduler/core_pod.h"
#include "scheduler/grouping_rules.h"
#include "scheduler/kai_names.h"

namespace vtenant::scheduler {
namespace {

using rapidjson::Value;

// Where objects of an owner reference live: the common kinds exactly,
// others by the usual plural.
kube::ResourceType TypeOf(const Value& ref) {
  std::string api(kube::GetString(ref, {"apiVersion"}));
  std::string kind(kube::GetString(ref, {"kind"}));
  kube::ResourceType t;
  if (size_t slash = api.find('/'); slash != std::string::npos) {
    t.group = api.substr(0, slash);
    t.version = api.substr(slash + 1);
  } else {
    t.version = api;
  }
  t.kind = kind;
  t.resource = AsciiLower(kind) + "s";
  return t;
}

// Grove's PodGangs (kai/grove_gang.h): a Grove workload's pods are grouped
// by theirs.
const kube::ResourceType kPodGangs{"scheduler.grove.io", "v1alpha1", "podgangs", "PodGang", true};

// Whether a workload whose PodGroup is made elsewhere says so on `object`
// (the pod or any owner), as KAI's grouper reads it.
bool SkipsPodGrouper(const Value& object) {
  return kube::Annotation(object, kai::kSkipPodGrouperAnnotation) == "true";
}

}  // namespace

Status PodGrouper::FollowPlan(const Value* current, const kube::Object& planned) {
  if (current == nullptr) return Status::Ok();
  const std::string name(kube::Name(planned));
  const std::string ns(kube::Namespace(planned));
  kube::JsonObject spec;
  bool differs = false;
  for (const char* field : {"minMember", "minSubGroup", "subGroups"}) {
    const Value* want = kube::Find(planned, {"spec", field});
    const Value* have = kube::Find(*current, {"spec", field});
    if ((want == nullptr) == (have == nullptr) && (want == nullptr || *want == *have)) continue;
    differs = true;
    spec.Set(field, want == nullptr ? kube::JsonValue(nullptr) : kube::JsonValue(*want));
  }
  if (!differs) return Status::Ok();
  const std::string patch =
      kube::ToJson(kube::BuildJson(kube::JsonObject{{"spec", std::move(spec)}}));
  Result<kube::Object> patched =
      client_.Patch(kube::resources::kPodGroups, ns, name, kube::PatchType::kMerge, patch);
  if (!patched.ok() && patched.status().code() != StatusCode::kNotFound)
    return patched.status().WithContext("updating PodGroup " + name);
  return Status::Ok();
}

bool PodGrouper::MpiLauncherExists(const std::string& ns, std::string_view job) const {
  for (const kube::ObjectPtr& p : pods_.cache().List())
    if (kube::Namespace(*p) == ns && !kube::IsBeingDeleted(*p) &&
        kube::Label(*p, kMpiJobNameLabel) == job && kube::Label(*p, kMpiJobRoleLabel) == "launcher")
      return true;
  return false;
}

Result<kube::ReconcileResult> PodGrouper::Reconcile(const std::string& key) {
  kube::ObjectPtr pod = pods_.cache().Get(key);
  if (pod == nullptr || kube::IsBeingDeleted(*pod)) return kube::ReconcileResult{};
  if (kube::GetString(*pod, {"spec", "schedulerName"}) != scheduler_name_ || SkipsPodGrouper(*pod))
    return kube::ReconcileResult{};
  const std::string ns(kube::Namespace(*pod));
  const std::optional<std::string_view> named = kube::Annotation(*pod, kPodGroupAnnotation);
  const Value* controller = kube::ControllerReference(*pod);
  if (named) {
    // Only the group the binder named for a bare pod is still ours to make.
    const bool binders =
        IsOwnGroupNamedAtBind(*named, kube::Name(*pod), kube::Uid(*pod), controller != nullptr);
    if (!binders || podgroup_(kube::MakeKey(ns, *named)) != nullptr) return kube::ReconcileResult{};
  }
  if (controller == nullptr && kube::GetString(*pod, {"spec", "nodeName"}).empty()) {
    const auto created = std::chrono::system_clock::from_time_t(
        ParseTimestamp(kube::GetString(*pod, {"metadata", "creationTimestamp"})));
    const auto wait = created + bare_pod_delay_ - now_();
    if (wait > std::chrono::system_clock::duration::zero())
      return kube::ReconcileResult{std::chrono::ceil<std::chrono::milliseconds>(wait)};
  }

  // Walk to the top owner; an owner that cannot be read ends the walk, and
  // its reference stands for it.
  std::vector<kube::Object> owners;
  for (const Value* ref = controller; ref != nullptr && owners.size() < 8;) {
    Result<kube::Object> owner = client_.Get(TypeOf(*ref), ns, kube::GetString(*ref, {"name"}));
    if (!owner.ok()) {
      kube::Object unread = kube::Clone(*ref);
      kube::SetString(unread, {"metadata"}, "name", kube::GetString(*ref, {"name"}));
      kube::SetString(unread, {"metadata"}, "uid", kube::GetString(*ref, {"uid"}));
      owners.push_back(std::move(unread));
      break;
    }
    owners.push_back(std::move(owner).value());
    ref = kube::ControllerReference(owners.back());
  }
  if (std::any_of(owners.begin(), owners.end(), SkipsPodGrouper)) return kube::ReconcileResult{};
  kube::Object lone;
  GroupInputs in{.pod = &PassOverTopOwner(owners, *pod, lone)};
  for (const kube::Object& o : owners) in.owners.push_back(&o);
  if (!owners.empty() && kube::GetString(owners.back(), {"kind"}) == "MPIJob")
    in.mpi_launcher_exists = MpiLauncherExists(ns, kube::Name(owners.back()));
  std::optional<kube::Object> pod_gang;
  if (!owners.empty() && kai::IsGroveWorkload(kube::GetString(owners.back(), {"apiVersion"}),
                                              kube::GetString(owners.back(), {"kind"}))) {
    const std::optional<std::string_view> gang = kube::Label(*pod, kai::kPodGangLabel);
    if (!gang) {
      const std::string why = std::string("a pod of a Grove workload without label ") +
                              kai::kPodGangLabel + ", which names its PodGang";
      events_.Warning(*pod, kai::kPodGrouperWarningReason, why);
      return InvalidArgument(why).WithContext("grouping pod " + key);
    }
    // Grove writes the PodGang once the pods are made: until then, retried.
    Result<kube::Object> read = client_.Get(kPodGangs, ns, *gang);
    if (!read.ok()) return read.status().WithContext("grouping pod " + key);
    pod_gang = std::move(read).value();
    in.pod_gang = &*pod_gang;
  }
  Result<GroupPlan> plan = PlanPodGroup(in);
  if (!plan.ok()) {
    events_.Warning(*pod, kai::kPodGrouperWarningReason, plan.status().message());
    return plan.status().WithContext("grouping pod " + key);
  }
  // As KAI's grouper: the group is of the pod's node pool when its owner
  // names none. Each shard groups the pods of its own pool.
  if (!pool_.label_key.empty() && !plan->labels.contains(pool_.label_key))
    if (std::optional<std::string_view> v = kube::Label(*pod, pool_.label_key))
      plan->labels.emplace(pool_.label_key, *v);
  if (!pool_.Includes(plan->labels)) return kube::ReconcileResult{};
  // A group made before its kind had sub-groups keeps none, as KAI's Ray
  // grouper keeps such groups: its running pods carry no sub-group label,
  // and would be left out of a group that gained some. The pod joins it
  // as they did.
  const kube::ObjectPtr existing = podgroup_(kube::MakeKey(ns, plan->name));
  if (existing != nullptr && plan->gang &&
      kube::Find(*existing, {"spec", "subGroups"}) == nullptr) {
    plan->gang.reset();
  }

  kube::JsonObject spec{{"queue", plan->queue}, {"priorityClassName", plan->priority_class}};
  kube::Object scratch;
  if (plan->gang && plan->gang->min_sub_group) {
    spec.Set("minSubGroup", *plan->gang->min_sub_group);
  } else {
    spec.Set("minMember", plan->min_member);
  }
  if (plan->gang) {
    spec.Set("subGroups",
             kube::JsonValue(kai::SubGroupsValue(*plan->gang, scratch.GetAllocator())));
  }
  if (!plan->preemptibility.empty()) spec.Set("preemptibility", plan->preemptibility);
  if (!plan->timings.preemption_delay.empty())
    spec.Set("preemptionDelay", plan->timings.preemption_delay);
  if (!plan->timings.staleness_grace_period.empty())
    spec.Set("stalenessGracePeriod", plan->timings.staleness_grace_period);
  if (!plan->topology.empty()) {
    spec.Set("topologyConstraint",
             kube::JsonValue(kai::TopologyConstraintValue(plan->topology, scratch.GetAllocator())));
  }
  kube::Object pg = kube::BuildJson(kube::JsonObject{
      {"apiVersion", kai::kPodGroupApiVersion},
      {"kind", kai::kPodGroupKind},
      {"metadata", kube::JsonObject{{"name", plan->name},
                                    {"namespace", ns},
                                    {"labels", kube::StringMap(plan->labels)},
                                    {"annotations", kube::StringMap(plan->annotations)},
                                    {"ownerReferences", kube::JsonArray{kube::JsonObject{
                                                            {"apiVersion", plan->owner.api_version},
                                                            {"kind", plan->owner.kind},
                                                            {"name", plan->owner.name},
                                                            {"uid", plan->owner.uid}}}}}},
      {"spec", std::move(spec)}});
  Result<kube::Object> created = client_.Create(kube::resources::kPodGroups, ns, pg);
  if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists)
    return created.status().WithContext("creating PodGroup " + plan->name);
  if (!created.ok()) VT_RETURN_IF_ERROR(FollowPlan(existing.get(), pg));
  // The pod names its group, and a pod with a role (a JobSet's replica, a
  // LeaderWorkerSet's leader or worker) its sub-group, as KAI's grouper
  // labels it.
  const std::string sub_group = plan->gang ? plan->gang->pod_sub_group : "";
  if (named && sub_group.empty()) return kube::ReconcileResult{};
  kube::JsonObject metadata;
  if (!named) metadata.Set("annotations", kube::JsonObject{{kPodGroupAnnotation, plan->name}});
  if (!sub_group.empty())
    metadata.Set("labels", kube::JsonObject{{kai::kSubGroupLabel, sub_group}});
  const std::string patch =
      kube::ToJson(kube::BuildJson(kube::JsonObject{{"metadata", std::move(metadata)}}));
  Result<kube::Object> patched =
      client_.Patch(kube::resources::kPods, ns, kube::Name(*pod), kube::PatchType::kMerge, patch);
  if (!patched.ok() && patched.status().code() != StatusCode::kNotFound)
    return patched.status().WithContext("annotating pod " + key);
  return kube::ReconcileResult{};
}

}  // namespace vtenant::scheduler
