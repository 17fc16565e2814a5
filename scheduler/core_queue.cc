#include "scheduler/core_queue.h"

#include <optional>
#include <string>
#include <string_view>

#include "scheduler-core/annotations.h"
#include "scheduler/core_pod.h"

namespace vtenant::scheduler {
namespace {

using kube::Find;
using rapidjson::Value;

// Member `field` of `share` (KAI writes plain JSON numbers) as its shortest
// text, which reads back as the same number, for the parsers the simulator
// uses too; nullopt when absent.
Result<std::optional<std::string>> NumberText(const Value& share, const char* field) {
  auto it = share.FindMember(field);
  if (it == share.MemberEnd()) return std::optional<std::string>();
  if (!it->value.IsNumber()) return InvalidArgument(std::string(field) + " is not a number");
  return std::optional<std::string>(kube::ToJson(it->value));
}

// Member `field` read by `parse`, or `fallback` when absent.
template <typename Parse>
Result<int64_t> Member(const Value& share, const char* field, int64_t fallback, Parse parse) {
  VT_ASSIGN_OR_RETURN(std::optional<std::string> text, NumberText(share, field));
  if (!text) return fallback;
  return parse(*text, field);
}

}  // namespace

Result<sched::QueueSpec> CoreQueueFromHost(const Value& queue) {
  sched::QueueSpec q;
  q.name = std::string(kube::Name(queue));
  auto fail = [&](const Status& s) { return s.WithContext("queue " + q.name); };
  q.parent = std::string(kube::GetString(queue, {"spec", "parentQueue"}));
  q.priority = static_cast<int32_t>(kube::GetInt(queue, {"spec", "priority"}, 100));
  q.creation_time = ParseTimestamp(kube::GetString(queue, {"metadata", "creationTimestamp"}));
  // Without a spec for a resource, KAI's defaults: no quota, no limit, weight 1.
  for (sched::Resource resource : sched::kAllResources) {
    sched::QueueResource& r = q.resources[resource];
    r = {0, sched::kUnlimited, 1000};
    const std::string name(sched::ResourceName(resource));
    const Value* share = Find(queue, {"spec", "resources", name});
    if (share == nullptr) continue;
    auto amount = [resource](std::string_view text, std::string_view field) {
      return sched::ParseQueueAmount(text, resource, field);
    };
    Result<int64_t> quota = Member(*share, "quota", 0, amount);
    Result<int64_t> limit = Member(*share, "limit", sched::kUnlimited, amount);
    Result<int64_t> weight = Member(*share, "overQuotaWeight", 1000, sched::ParseQueueWeight);
    for (const Result<int64_t>* v : {&quota, &limit, &weight})
      if (!v->ok()) return fail(v->status().WithContext("spec.resources." + name));
    r = {*quota, *limit, *weight};
  }
  for (auto [field, dest] : {std::pair{"preemptMinRuntime", &q.preempt_min_runtime_s},
                             {"reclaimMinRuntime", &q.reclaim_min_runtime_s}}) {
    std::string_view text = kube::GetString(queue, {"spec", field});
    if (text.empty()) continue;
    Result<int64_t> s = sched::ParseMinRuntimeSeconds(text);
    if (!s.ok()) return fail(s.status().WithContext(std::string("spec.") + field));
    *dest = *s;
  }
  return q;
}

}  // namespace vtenant::scheduler
