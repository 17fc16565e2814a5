#include "scheduler/core_queue.h"

#include <cmath>
#include <string>

#include "scheduler-core/annotations.h"
#include "scheduler/core_pod.h"

namespace vtenant::scheduler {
namespace {

using kube::Find;
using rapidjson::Value;

// A number of the spec (KAI writes plain JSON numbers), scaled; -1 stays -1.
Result<int64_t> Scaled(const Value& share, const char* field, double scale, int64_t fallback) {
  auto it = share.FindMember(field);
  if (it == share.MemberEnd()) return fallback;
  if (!it->value.IsNumber()) return InvalidArgument(std::string(field) + " is not a number");
  double v = it->value.GetDouble();
  if (v == -1) return int64_t{sched::kUnlimited};
  if (v < 0) return InvalidArgument(std::string(field) + " is negative (only -1, unlimited, is)");
  return static_cast<int64_t>(std::llround(v * scale));
}

}  // namespace

Result<sched::QueueSpec> CoreQueueFromHost(const Value& queue) {
  sched::QueueSpec q;
  q.name = std::string(kube::Name(queue));
  auto fail = [&](const Status& s) { return s.WithContext("queue " + q.name); };
  q.parent = std::string(kube::GetString(queue, {"spec", "parentQueue"}));
  q.priority = static_cast<int32_t>(kube::GetInt(queue, {"spec", "priority"}, 100));
  q.creation_time = ParseTimestamp(kube::GetString(queue, {"metadata", "creationTimestamp"}));
  struct Unit {
    sched::Resource resource;
    const char* name;
    double scale;
  };
  // Without a spec for a resource, KAI's defaults: no quota, no limit, weight 1.
  for (Unit u : {Unit{sched::kGpu, "gpu", 1000}, Unit{sched::kCpu, "cpu", 1},
                 Unit{sched::kMemory, "memory", 1e6}}) {
    sched::QueueResource& r = q.resources[u.resource];
    r = {0, sched::kUnlimited, 1000};
    const Value* share = Find(queue, {"spec", "resources", u.name});
    if (share == nullptr) continue;
    Result<int64_t> quota = Scaled(*share, "quota", u.scale, 0);
    Result<int64_t> limit = Scaled(*share, "limit", u.scale, sched::kUnlimited);
    Result<int64_t> weight = Scaled(*share, "overQuotaWeight", 1000, 1000);
    for (const Result<int64_t>* v : {&quota, &limit, &weight})
      if (!v->ok()) return fail(v->status().WithContext(std::string("spec.resources.") + u.name));
    r = {*quota, *limit, *weight == sched::kUnlimited ? 1000 : *weight};
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
