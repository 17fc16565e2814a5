#include "scheduler-core/sim/in_order.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <chrono>
#include <numeric>

#include "scheduler-core/cluster_state.h"
#include "scheduler-core/placement.h"
#include "scheduler-core/sim/json_fields.h"
#include "scheduler-core/workload_model.h"

namespace vtenant::sched::sim {

Result<InOrderSummary> PlaceInOrder(const Trace& trace, const InOrderOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  VT_ASSIGN_OR_RETURN(Snapshot universe, BuildUniverse(trace));
  for (const PodRecord& r : trace.pods)
    if (!r.gang.empty())
      return InvalidArgument("pod " + r.spec.name +
                             ": gangs are not placed one pod at a time; replay without "
                             "--each-pod-once");
  Options scheduler = options.scheduler;
  std::shared_ptr<WorkloadModel> model;
  if (scheduler.policy == PlacementPolicy::kFgd && !scheduler.workload) {
    model = std::make_shared<WorkloadModel>();
    scheduler.workload = model;
  }
  ClusterState state(universe);
  Placer placer(state, scheduler);

  std::vector<PodId> order(universe.pods.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](PodId a, PodId b) {
    return universe.pods[a].creation_time < universe.pods[b].creation_time;
  });
  const int32_t largest_mib = LargestDeviceMib(universe.devices);

  InOrderSummary sum;
  sum.policy = std::string(PolicyName(scheduler.policy));
  sum.pods = static_cast<int64_t>(order.size());
  sum.gpu_milli_capacity = state.Capacity()[kGpu];
  const double checkpoint = options.checkpoint_arrival * double(sum.gpu_milli_capacity);
  bool checkpoint_taken = false;
  for (PodId p : order) {
    if (model) model->Observe(universe, p);
    sum.gpu_milli_arrived += EstimatedGpuMilli(universe.pods[p].request, largest_mib);
    Allocation where;
    if (placer.Find(p, NodeFilter{}, &where)) {
      state.Place(p, where);
      ++sum.placed;
    }
    if (!checkpoint_taken && double(sum.gpu_milli_arrived) >= checkpoint) {
      checkpoint_taken = true;
      sum.checkpoint_gpu_milli_arrived = sum.gpu_milli_arrived;
      sum.checkpoint_gpu_milli_allocated = state.QueueAllocatedTotal()[kGpu];
    }
  }
  sum.gpu_milli_allocated = state.QueueAllocatedTotal()[kGpu];
  sum.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return sum;
}

// Field by field, as SummaryJson (replay.cc) writes its own summary: a
// parallel on purpose, the two share their form, not their fields.
std::string InOrderJson(const InOrderSummary& s) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("policy");
  w.String(s.policy.c_str());
  IntField(w, "pods", s.pods);
  IntField(w, "pods_placed", s.placed);
  IntField(w, "gpu_milli_capacity", s.gpu_milli_capacity);
  IntField(w, "gpu_milli_arrived", s.gpu_milli_arrived);
  IntField(w, "gpu_milli_allocated", s.gpu_milli_allocated);
  IntField(w, "checkpoint_gpu_milli_arrived", s.checkpoint_gpu_milli_arrived);
  IntField(w, "checkpoint_gpu_milli_allocated", s.checkpoint_gpu_milli_allocated);
  RealField(w, "wall_seconds", s.wall_seconds);
  w.EndObject();
  return buffer.GetString();
}

}  // namespace vtenant::sched::sim
