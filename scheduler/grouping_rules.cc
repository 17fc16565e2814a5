#include "scheduler/grouping_rules.h"

#include <algorithm>
#include <regex>

#include "kai/grove_gang.h"
#include "kai/knative.h"
#include "kai/kubeflow_job.h"
#include "kai/min_member.h"
#include "kai/podgroup_spec.h"
#include "kai/preemptibility.h"
#include "kai/priority_classes.h"
#include "kai/ray_gang.h"
#include "kai/top_owner.h"
#include "scheduler/kai_names.h"

namespace vtenant::scheduler {
namespace {

using rapidjson::Value;

std::string Describe(const Value& owner) {
  return std::string(kube::GetString(owner, {"kind"})) + " " + std::string(kube::Name(owner));
}

// The owner's kai.scheduler/batch-min-member (kai/min_member.h), else 1;
// a value the rule refuses is refused here too, so the user hears of it
// instead of getting no gang.
Result<int64_t> MinMemberOverride(const Value& owner) {
  std::optional<std::string_view> v = kube::Annotation(owner, kai::kBatchMinMemberAnnotation);
  if (!v) return 1;
  Result<int32_t> n = kai::ParseBatchMinMember(*v);
  if (!n.ok()) return n.status().WithContext(Describe(owner));
  return *n;
}

// The string members of metadata.<map> of `object`, less vtenant's own keys.
std::map<std::string, std::string> CopiedKeys(const Value& object, std::string_view map) {
  std::map<std::string, std::string> out;
  const Value* keys = kube::Find(object, {"metadata", map});
  if (keys == nullptr || !keys->IsObject()) return out;
  for (const auto& m : keys->GetObject()) {
    const std::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (key.starts_with("vtenant.io/") || !m.value.IsString()) continue;
    out.emplace(key, std::string(m.value.GetString(), m.value.GetStringLength()));
  }
  return out;
}

// A YAML scalar as Go's yaml.v3 writes a string: plain, or double-quoted
// where plain would read as something else (empty, a number, a boolean,
// null). Object names, UIDs, groups, versions and kinds need no escapes.
std::string YamlString(std::string_view s) {
  static const std::regex kNotAString(
      "[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?|0[xo][0-9a-fA-F]+|"
      "[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)|~|null|Null|NULL|"
      "true|True|TRUE|false|False|FALSE|"
      // YAML 1.1's booleans, which yaml.v3 quotes too.
      "y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF");
  if (s.empty() || std::regex_match(s.begin(), s.end(), kNotAString))
    return "\"" + std::string(s) + "\"";
  return std::string(s);
}

// KAI's kai.scheduler/top-owner-metadata of `owner`.
std::string TopOwnerMetadata(const kube::OwnerReference& owner) {
  const std::string group = ApiGroupOf(owner.api_version);
  const std::string version =
      group.empty() ? owner.api_version : owner.api_version.substr(group.size() + 1);
  return "name: " + YamlString(owner.name) + "\nuid: " + YamlString(owner.uid) +
         "\ngroup: " + YamlString(group) + "\nversion: " + YamlString(version) +
         "\nkind: " + YamlString(owner.kind) + "\n";
}

int32_t Clamp(int64_t n) {
  return static_cast<int32_t>(std::clamp<int64_t>(n, 1, std::numeric_limits<int32_t>::max()));
}

// The owners, top first, then the pod: where KAI's grouper looks for the
// preemptibility label and the timing annotations.
std::vector<const Value*> WorkloadObjects(const GroupInputs& in) {
  std::vector<const Value*> from(in.owners.rbegin(), in.owners.rend());
  from.push_back(in.pod);
  return from;
}

// The labels or annotations (`map`) of `first`, and those of `second` it
// has not, as KAI's grove grouper merges a PodGang's and its top owner's.
std::map<std::string, std::string> MergedKeys(const Value& first, const Value& second,
                                              std::string_view map) {
  std::map<std::string, std::string> out = CopiedKeys(first, map);
  out.merge(CopiedKeys(second, map));
  return out;
}

// The group of a Grove workload's pod, of its PodGang (grouping_rules.h).
Result<GroupPlan> PlanGroveGroup(const GroupInputs& in) {
  const Value& pod = *in.pod;
  const Value& gang = *in.pod_gang;
  const Value& top = *in.owners.back();
  GroupPlan plan;
  plan.owner = kube::ReferenceTo(gang, kai::kPodGangApiVersion, "PodGang");
  plan.name = "pg-" + plan.owner.name + "-" + plan.owner.uid;
  plan.queue = std::string(kube::Label(gang, kQueueLabel)
                               .value_or(kube::Label(pod, kQueueLabel).value_or(kDefaultQueue)));
  const std::vector<const Value*> workload = {&gang, &top, &pod};
  plan.preemptibility = kai::WorkloadPreemptibility(workload);
  plan.timings = kai::ReadWorkloadTimings(workload);

  VT_ASSIGN_OR_RETURN(plan.topology, kai::ReadGroveTopology(gang, &top));
  VT_ASSIGN_OR_RETURN(plan.gang, kai::ReadGroveGang(gang, kube::Name(pod)));
  plan.min_member = Clamp(plan.gang->min_member.value_or(1));

  plan.labels = MergedKeys(gang, top, "labels");
  plan.annotations = MergedKeys(gang, top, "annotations");
  if (auto user = kube::Label(pod, kai::kUserKey)) plan.labels.emplace(kai::kUserKey, *user);
  if (auto user = kube::Annotation(pod, kai::kUserKey))
    plan.annotations.emplace(kai::kUserKey, *user);
  plan.annotations.emplace(kai::kTopOwnerMetadataAnnotation, TopOwnerMetadata(plan.owner));

  plan.priority_class =
      std::string(kai::GrovePriorityClass(gang, &top)
                      .value_or(kai::WorkloadPriorityClass(pod, gang, kai::kTrainPriorityClass)));
  return plan;
}

}  // namespace

std::string ApiGroupOf(std::string_view api_version) {
  size_t slash = api_version.find('/');
  return slash == std::string_view::npos ? "" : std::string(api_version.substr(0, slash));
}

std::string PodOwnGroupName(std::string_view pod, std::string_view uid) {
  return "pg-" + std::string(pod) + "-" + std::string(uid);
}

bool IsOwnGroupNamedAtBind(std::string_view pod_group, std::string_view pod, std::string_view uid,
                           bool has_controller_owner) {
  return !has_controller_owner && pod_group == PodOwnGroupName(pod, uid);
}

const Value& PassOverTopOwner(std::vector<kube::Object>& owners, const Value& pod,
                              kube::Object& lone) {
  if (owners.empty()) return pod;
  const kube::Object& top = owners.back();
  if (kai::IsKnativeService(kube::GetString(top, {"apiVersion"}), kube::GetString(top, {"kind"}))) {
    const auto revision = std::find_if(owners.begin(), owners.end(), [](const kube::Object& o) {
      return kai::IsKnativeRevision(kube::GetString(o, {"apiVersion"}),
                                    kube::GetString(o, {"kind"}));
    });
    if (revision != owners.end()) owners.erase(revision + 1, owners.end());
    return pod;
  }
  const bool ray_cluster_below = std::any_of(owners.begin(), owners.end() - 1, [](const auto& o) {
    return kube::GetString(o, {"kind"}) == "RayCluster";
  });
  if (!kai::PassesOverTopOwner(kube::GetString(top, {"apiVersion"}), kube::GetString(top, {"kind"}),
                               ray_cluster_below))
    return pod;
  const bool alone = owners.size() == 1;
  if (alone) lone = kube::Clone(pod);
  kube::Object& next = alone ? lone : owners[owners.size() - 2];
  for (std::string_view map : {"labels", "annotations"}) {
    for (const auto& [key, value] : CopiedKeys(top, map)) {
      const Value* own = kube::Find(next, {"metadata", map});
      if (own == nullptr || !own->IsObject() || !own->HasMember(key.c_str()))
        kube::SetString(next, {"metadata", map}, key, value);
    }
  }
  owners.pop_back();
  return alone ? lone : pod;
}

Result<GroupPlan> PlanPodGroup(const GroupInputs& in) {
  if (in.pod_gang != nullptr && !in.owners.empty()) return PlanGroveGroup(in);
  const Value& pod = *in.pod;
  const Value& top = in.owners.empty() ? pod : *in.owners.back();
  const std::string group =
      in.owners.empty() ? "" : ApiGroupOf(kube::GetString(top, {"apiVersion"}));
  const std::string kind = in.owners.empty() ? "Pod" : std::string(kube::GetString(top, {"kind"}));
  const std::string pod_name(kube::Name(pod)), pod_uid(kube::Uid(pod));

  const kube::OwnerReference top_ref =
      in.owners.empty() ? kube::ReferenceTo(pod, "v1", "Pod")
                        : kube::ReferenceTo(top, kube::GetString(top, {"apiVersion"}), kind);

  GroupPlan plan;
  plan.owner = top_ref;
  plan.name = in.owners.empty() ? PodOwnGroupName(pod_name, pod_uid)
                                : "pg-" + plan.owner.name + "-" + plan.owner.uid;
  plan.queue = std::string(kube::Label(top, kQueueLabel)
                               .value_or(kube::Label(pod, kQueueLabel).value_or(kDefaultQueue)));
  const std::vector<const Value*> workload = WorkloadObjects(in);
  plan.preemptibility = kai::WorkloadPreemptibility(workload);
  plan.timings = kai::ReadWorkloadTimings(workload);
  plan.topology = kai::WorkloadTopology(top);
  std::string default_priority = kai::kTrainPriorityClass;

  const std::string api_version(kube::GetString(top, {"apiVersion"}));
  const Value* ray_cluster = nullptr;
  for (const Value* o : in.owners)
    if (kube::GetString(*o, {"kind"}) == "RayCluster") ray_cluster = o;
  if (!in.owners.empty()) {
    VT_ASSIGN_OR_RETURN(plan.gang, kai::ReadRolesGang(api_version, kind, top, ray_cluster, pod));
  }
  if (plan.gang) {
    plan.min_member = Clamp(plan.gang->min_member.value_or(1));
    plan.name += plan.gang->name_suffix;
  } else if (group == "batch" && kind == "Job") {
    VT_ASSIGN_OR_RETURN(int64_t m, MinMemberOverride(top));
    plan.min_member = Clamp(m);
  } else if (kai::IsKnativeRevision(api_version, kind)) {
    plan.min_member = kai::KnativeRevisionMinMember(top);
    default_priority = kai::kInferencePriorityClass;
  } else if (kai::IsKnativeService(api_version, kind)) {
    return InvalidArgument(
        "Knative Service " + plan.owner.name +
        ": no Revision of it owns the pod, and its pods are grouped by Revision");
  } else if (group == "apps" && kind == "Deployment") {
    plan.owner = kube::ReferenceTo(pod, "v1", "Pod");
    plan.name = PodOwnGroupName(pod_name, pod_uid);
    default_priority = kai::kInferencePriorityClass;
  } else if (group == kai::kKubeflowGroup && kind == "Notebook") {
    default_priority = kai::kBuildPriorityClass;  // interactive
  } else if (group == "egx.nvidia.io" && kind == "SPOTRequest") {
    default_priority = kai::kInferencePriorityClass;
  } else if (group == kai::kKubeflowGroup && kai::FindKubeflowJobKind(kind) != nullptr) {
    VT_ASSIGN_OR_RETURN(int64_t m, kai::KubeflowJobMinMember(top, in.mpi_launcher_exists));
    plan.min_member = Clamp(m);
  }
  if (kai::IsRayWorkload(api_version, kind)) {
    if (auto p = kube::Label(top, kai::kRayPriorityClassLabel))
      plan.priority_class = std::string(*p);
  }

  plan.labels = CopiedKeys(top, "labels");
  plan.annotations = CopiedKeys(top, "annotations");
  if (auto user = kube::Label(pod, kai::kUserKey)) plan.labels.emplace(kai::kUserKey, *user);
  if (auto user = kube::Annotation(pod, kai::kUserKey))
    plan.annotations.emplace(kai::kUserKey, *user);
  plan.annotations.emplace(kai::kTopOwnerMetadataAnnotation, TopOwnerMetadata(top_ref));

  if (plan.priority_class.empty())
    plan.priority_class = std::string(kai::WorkloadPriorityClass(pod, top, default_priority));
  return plan;
}

}  // namespace vtenant::scheduler
