#include "scheduler-core/session.h"

#include <limits>

#include "scheduler-core/fair_share.h"

namespace vtenant::sched {
namespace {

int64_t ResolveRuntime(const Snapshot& s, QueueId q, bool reclaim) {
  for (QueueId a = q; a != kNone; a = s.queues[a].parent) {
    const auto& value =
        reclaim ? s.queues[a].reclaim_min_runtime_s : s.queues[a].preempt_min_runtime_s;
    if (value) return *value;
  }
  return 0;  // KAI's default: no minimum
}

}  // namespace

Session::Session(const Snapshot& s, const Options& opts)
    : snapshot(s),
      options(opts),
      rules(WithDefaults(opts.rules)),
      state(s),
      statement(state),
      placer(state, opts),
      reclaim_min_runtime_s(s.queues.size()),
      preempt_min_runtime_s(s.queues.size()),
      outcome(s.groups.size()),
      group_start(s.groups.size(), 0),
      notes(s.groups.size()),
      shape_failed(s.num_shapes, 0),
      gang_failed_at(s.num_shapes, std::numeric_limits<int32_t>::max()) {
  const int32_t largest_mib = LargestDeviceMib(s.devices);
  // One pass over the (large) Pod records, then one over the PodGroup
  // records: everything later reads the packed arrays instead. Each array
  // is written front to back once (reserved, then appended to), never
  // zeroed first.
  pod_shape.reserve(s.pods.size());
  pod_group.reserve(s.pods.size());
  pod_pending.reserve(s.pods.size());
  // The estimate of a shape is worked out from its first pod; the requests
  // of the others are not read (pods of one shape have equal requests).
  std::vector<ResourceVector> shape_estimate(s.num_shapes);
  std::vector<uint8_t> shape_seen(s.num_shapes, 0);
  size_t num_pending = 0;
  for (const Pod& pod : s.pods) {
    const bool pending_pod = pod.phase == PodPhase::kPending;
    pod_shape.push_back(pod.shape);
    pod_group.push_back(pod.group);
    pod_pending.push_back(pending_pod);
    num_pending += pending_pod;
    if (!shape_seen[pod.shape]) {
      shape_seen[pod.shape] = 1;
      shape_estimate[pod.shape] = MakeResources(EstimatedGpuMilli(pod.request, largest_mib),
                                                pod.request.cpu_milli, pod.request.memory_bytes);
    }
    if (pod.phase == PodPhase::kRunning)
      group_start[pod.group] =
          std::max({group_start[pod.group], pod.start_time, s.groups[pod.group].last_start_time});
  }
  estimated = PodEstimates(pod_shape, std::move(shape_estimate));
  has_subgroups.reserve(s.groups.size());
  job_facts.reserve(s.groups.size());
  pending_begin.reserve(s.groups.size() + 1);
  pending.reserve(num_pending);
  std::vector<ResourceVector> leaf(s.queues.size());
  for (GroupId g = 0; g < s.groups.size(); ++g) {
    const PodGroup& group = s.groups[g];
    has_subgroups.push_back(!group.subgroups.empty());
    job_facts.push_back({group.queue, group.min_member, group.preemptible, group.HasTopology()});
    const int64_t stale_grace = group.stale_grace_s.value_or(opts.stale_gang_grace_s);
    if (group.stale_since >= 0 && stale_grace >= 0 && s.now - group.stale_since >= stale_grace)
      stale_gangs.push_back(g);
    ResourceVector& held = leaf[group.queue];
    pending_begin.push_back(static_cast<uint32_t>(pending.size()));
    for (PodId p : group.pods) {
      held += state.IsPlaced(p) ? state.Usage(p, state.AllocationOf(p)) : estimated[p];
      if (!pod_pending[p]) continue;
      pending.push_back({p, pod_shape[p], estimated[p]});
    }
  }
  pending_begin.push_back(static_cast<uint32_t>(pending.size()));
  requested = RollUp(s.queues, leaf);
  fair_share = ComputeFairShare(s.queues, requested, state.Capacity(), opts.fair_share_kai_exact,
                                opts.usage_k_milli);
  for (QueueId q = 0; q < s.queues.size(); ++q) {
    reclaim_min_runtime_s[q] = ResolveRuntime(s, q, true);
    preempt_min_runtime_s[q] = ResolveRuntime(s, q, false);
  }
}

void Session::ForgetFailures() {
  std::fill(shape_failed.begin(), shape_failed.end(), 0);
  std::fill(gang_failed_at.begin(), gang_failed_at.end(), std::numeric_limits<int32_t>::max());
}

const std::vector<uint32_t>& Session::DomainsOf(StringId level) {
  auto it = domains_.find(level);
  if (it != domains_.end()) return it->second;
  // kNone for a node without the label: LabelValue's kNoString is the same.
  static_assert(kNone == kNoString);
  std::vector<uint32_t> domain(snapshot.nodes.size());
  for (NodeId n = 0; n < snapshot.nodes.size(); ++n)
    domain[n] = LabelValue(snapshot.nodes[n], level);
  return domains_.emplace(level, std::move(domain)).first->second;
}

}  // namespace vtenant::sched
