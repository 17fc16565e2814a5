#include "kai/jobset_gang.h"

#include <algorithm>

#include "kai/min_member.h"
#include "kai/names.h"
#include "kai/object_fields.h"
#include "kai/workload_topology.h"

namespace vtenant::kai {
namespace {

// A whole number at `path` of a replicatedJob, or 1 when absent.
int32_t CountOr1(const rapidjson::Value& rj, std::initializer_list<std::string_view> path) {
  const rapidjson::Value* v = MemberAt(rj, path);
  return v != nullptr && v->IsInt() ? v->GetInt() : 1;
}

}  // namespace

Result<SubGroupGang> ReadJobSetGang(const rapidjson::Value& jobset, const rapidjson::Value& pod) {
  const std::string where = "JobSet " + StringAt(jobset, {"metadata", "name"});
  const rapidjson::Value* jobs = MemberAt(jobset, {"spec", "replicatedJobs"});
  if (jobs == nullptr || !jobs->IsArray() || jobs->Empty())
    return InvalidArgument(where + " has no spec.replicatedJobs");
  SubGroupGang gang;
  for (rapidjson::SizeType i = 0; i < jobs->Size(); ++i) {
    const rapidjson::Value& rj = (*jobs)[i];
    const rapidjson::Value* name = Member(rj, "name");
    if (name == nullptr || !name->IsString() || name->GetStringLength() == 0)
      return InvalidArgument(where + ": replicatedJobs[" + std::to_string(i) + "] has no name");
    const std::string parent = name->GetString();
    const int32_t replicas = CountOr1(rj, {"replicas"});
    int32_t min_member = CountOr1(rj, {"template", "spec", "parallelism"});
    if (const rapidjson::Value* v =
            MemberAt(rj, {"template", "metadata", "annotations", kBatchMinMemberAnnotation});
        v != nullptr && v->IsString()) {
      Result<int32_t> m = ParseBatchMinMember(v->GetString());
      if (!m.ok())
        return m.status().WithContext(where + ": replicatedJob " + parent + "'s template");
      min_member = *m;
    }
    const TopologyConstraint topology = TemplateTopology(Member(rj, "template"));
    gang.sub_groups.push_back({parent, "", std::nullopt, replicas});
    for (int32_t r = 0; r < replicas; ++r)
      gang.sub_groups.push_back(
          {parent + "-replica-" + std::to_string(r), parent, min_member, std::nullopt, topology});
  }
  const int32_t jobs_count = static_cast<int32_t>(jobs->Size());
  if (std::optional<std::string_view> v = Annotation(jobset, kBatchMinMemberAnnotation)) {
    Result<int32_t> m = ParseBatchMinMember(*v);
    if (!m.ok()) return m.status().WithContext(where);
    gang.min_sub_group = std::min(*m, jobs_count);
  } else {
    const bool in_order =
        StringAt(jobset, {"spec", "startupPolicy", "startupPolicyOrder"}) == "InOrder";
    gang.min_sub_group = in_order ? 1 : jobs_count;
  }
  const std::optional<std::string_view> rj = Label(pod, kJobSetReplicatedJobLabel);
  const std::optional<std::string_view> index = Label(pod, kJobSetJobIndexLabel);
  if (!rj || rj->empty() || !index || index->empty())
    return InvalidArgument(where + ": the pod lacks the labels " + kJobSetReplicatedJobLabel +
                           " and " + kJobSetJobIndexLabel + " that place it in a replica");
  gang.pod_sub_group = std::string(*rj) + "-replica-" + std::string(*index);
  const auto& subs = gang.sub_groups;
  if (std::none_of(subs.begin(), subs.end(), [&](const GangSubGroup& s) {
        return s.name == gang.pod_sub_group && !s.parent.empty();
      }))
    return InvalidArgument(where + " has no replica " + gang.pod_sub_group +
                           " for the pod (its replicatedJob and job-index labels)");
  return gang;
}

}  // namespace vtenant::kai
