#include "scheduler-core/job_allocation.h"

#include <algorithm>

#include "scheduler-core/subgroup_tree.h"
#include "scheduler-core/topology_placement.h"

namespace vtenant::sched {
namespace {

// Places the first `shortfall` of `pods` (the gang) or none of them, then
// each other pod that fits. Returns true when the gang was placed.
bool PlaceGangThenExtras(Session& session, GroupId group, const std::vector<PodId>& pods,
                         int32_t shortfall, bool use_cache, JobOutcome* why) {
  Statement& st = session.statement;
  const Statement::Checkpoint mark = st.Mark();
  int32_t placed = 0;
  // Extra pods past the gang that found no node, by shape: their twins are
  // not tried again within this attempt.
  std::vector<ShapeId> failed_here;
  for (PodId pod : pods) {
    const ShapeId shape = session.pod_shape[pod];
    const bool in_gang = placed < shortfall;
    if (!in_gang && !FitsQueueBudget(session, group, session.estimated[pod], nullptr)) continue;
    if (std::find(failed_here.begin(), failed_here.end(), shape) != failed_here.end()) continue;
    Allocation where;
    bool known_to_fail = use_cache && session.shape_failed[shape];
    if (!known_to_fail && session.placer.Find(pod, NodeFilter{}, &where)) {
      st.Place(pod, where);
      ++placed;
      continue;
    }
    // A failure with nothing of this attempt placed yet is a fact about the
    // committed state; remember it for the rest of the action.
    if (use_cache && st.Mark() == mark) session.shape_failed[shape] = 1;
    if (in_gang) {
      why->block = placed == 0 ? JobBlock::kNoNode : JobBlock::kGangPartial;
      why->failing_pod = pod;
      why->placed_before_failure = placed;
      why->needed = shortfall;
      st.Rollback(mark);
      return false;
    }
    failed_here.push_back(shape);
  }
  return placed >= shortfall;
}

// PendingPodsInOrder(session, g, pods) and, from the same walk, what the
// first `count` of them ask for together, what the first asks for, and the
// shape all of them share (kNone when they differ). Allocate asks this of
// every pending job; without subgroups it reads only the packed list.
void PendingPodsAndNeeds(const Session& session, GroupId g, int32_t count, std::vector<PodId>* pods,
                         ResourceVector* need, ResourceVector* first_need, ShapeId* uniform) {
  pods->clear();
  if (session.has_subgroups[g]) {
    PendingPodsInOrder(session, g, pods);
    for (size_t i = 0; i < pods->size(); ++i) {
      const PodId p = (*pods)[i];
      if (i < static_cast<size_t>(count)) *need += session.estimated[p];
      if (i == 0) *first_need = session.estimated[p], *uniform = session.pod_shape[p];
      if (session.pod_shape[p] != *uniform) *uniform = kNone;
    }
    return;
  }
  for (uint32_t i = session.pending_begin[g]; i < session.pending_begin[g + 1]; ++i) {
    const Session::PendingPod& e = session.pending[i];
    if (session.state.IsPlaced(e.pod)) continue;
    if (pods->empty()) *first_need = e.estimated, *uniform = e.shape;
    if (e.shape != *uniform) *uniform = kNone;
    if (pods->size() < static_cast<size_t>(count)) *need += e.estimated;
    pods->push_back(e.pod);
  }
}

// PlaceGangThenExtras for a job with topology constraints: the gang's pods
// within them together, then each other pod that fits its queue and a
// domain. The failure caches are not asked: they know nothing of domains.
bool PlaceWithinTopologyThenExtras(Session& session, GroupId group, const std::vector<PodId>& pods,
                                   int32_t shortfall, JobOutcome* why) {
  const std::span<const PodId> all(pods);
  if (!PlaceWithinTopology(session, group, all.first(shortfall), why)) return false;
  for (size_t i = shortfall; i < pods.size(); ++i) {
    if (!FitsQueueBudget(session, group, session.estimated[pods[i]], nullptr)) continue;
    JobOutcome extra_why;
    PlaceWithinTopology(session, group, all.subspan(i, 1), &extra_why);
  }
  *why = {};
  return true;
}

}  // namespace

int32_t GangShortfall(const Session& session, GroupId g) {
  const int32_t short_total =
      std::max(0, session.job_facts[g].min_member - session.state.GroupPlaced(g));
  if (!session.has_subgroups[g]) return short_total;
  std::vector<int32_t> deficit;
  SubGroupTree::Of(session.snapshot.groups[g]).Deficits(session.state.SubGroupsPlaced(g), &deficit);
  int32_t short_subgroups = 0;
  for (int32_t d : deficit) short_subgroups += d;
  return std::max(short_total, short_subgroups);
}

std::vector<PodId> PendingPodsInOrder(const Session& session, GroupId g) {
  std::vector<PodId> pods;
  PendingPodsInOrder(session, g, &pods);
  return pods;
}

void PendingPodsInOrder(const Session& session, GroupId g, std::vector<PodId>* out) {
  out->clear();
  if (!session.has_subgroups[g]) {
    // No subgroup minimums: creation order is the order (the common case,
    // asked for every job by every action).
    for (uint32_t i = session.pending_begin[g]; i < session.pending_begin[g + 1]; ++i)
      if (!session.state.IsPlaced(session.pending[i].pod)) out->push_back(session.pending[i].pod);
    return;
  }
  const PodGroup& group = session.snapshot.groups[g];
  std::vector<int32_t> deficit;
  SubGroupTree::Of(group).Deficits(session.state.SubGroupsPlaced(g), &deficit);
  std::vector<PodId> first, rest;
  for (PodId p : group.pods) {
    const Pod& pod = session.snapshot.pods[p];
    if (pod.phase != PodPhase::kPending || session.state.IsPlaced(p)) continue;
    if (pod.subgroup >= 0 && deficit[pod.subgroup] > 0) {
      --deficit[pod.subgroup];
      first.push_back(p);
    } else {
      rest.push_back(p);
    }
  }
  out->insert(out->end(), first.begin(), first.end());
  out->insert(out->end(), rest.begin(), rest.end());
}

PodId FirstPendingPod(const Session& session, GroupId g) {
  if (session.has_subgroups[g]) {
    const std::vector<PodId> pods = PendingPodsInOrder(session, g);
    return pods.empty() ? kNone : pods.front();
  }
  for (uint32_t i = session.pending_begin[g]; i < session.pending_begin[g + 1]; ++i)
    if (!session.state.IsPlaced(session.pending[i].pod)) return session.pending[i].pod;
  return kNone;
}

std::vector<uint8_t> QueuePathBudgets(const Snapshot& s) {
  std::vector<uint8_t> budgets(s.queues.size(), 0);
  for (QueueId q = 0; q < s.queues.size(); ++q) {
    for (QueueId a = q; a != kNone; a = s.queues[a].parent) {
      for (const QueueResource& spec : s.queues[a].resources) {
        if (spec.limit != kUnlimited) budgets[q] |= kPathHasLimit;
        if (spec.quota != kUnlimited) budgets[q] |= kPathHasQuota;
      }
    }
  }
  return budgets;
}

bool FitsQueueBudget(const Session& session, GroupId g, const ResourceVector& extra,
                     JobOutcome* why) {
  const Snapshot& s = session.snapshot;
  const bool preemptible = session.job_facts[g].preemptible;
  // Nothing on the path that could refuse: no limit, and no quota that
  // binds this job (only non-preemptible jobs are held to quota).
  const uint8_t budgets = session.path_budgets[session.job_facts[g].queue];
  if (!(budgets & kPathHasLimit) && (preemptible || !(budgets & kPathHasQuota))) return true;
  for (QueueId q = session.job_facts[g].queue; q != kNone; q = s.queues[q].parent) {
    for (Resource r : kAllResources) {
      if (extra[r] <= 0) continue;
      const QueueResource& spec = s.queues[q].resources[r];
      int64_t held = session.state.QueueAllocated(q)[r];
      if (spec.limit != kUnlimited && held + extra[r] > spec.limit) {
        if (why) *why = {JobBlock::kQueueLimit, q, r, held, extra[r], spec.limit};
        return false;
      }
      int64_t held_np = session.state.QueueAllocatedNonPreemptible(q)[r];
      if (!preemptible && spec.quota != kUnlimited && held_np + extra[r] > spec.quota) {
        if (why) *why = {JobBlock::kNonPreemptibleQuota, q, r, held_np, extra[r], spec.quota};
        return false;
      }
    }
  }
  return true;
}

bool AllocateJob(Session& session, GroupId g, Attempt attempt) {
  JobOutcome& why = session.outcome[g];
  // The session's buffer: allocate asks this of every pending job, and
  // AllocateJob never runs inside itself.
  std::vector<PodId>& pods = session.allocate_pods;
  const int32_t gang_shortfall = GangShortfall(session, g);
  ResourceVector gang_need;  // of the first min(gang_shortfall, pods) pods
  ResourceVector first_need;
  ShapeId uniform = kNone;
  PendingPodsAndNeeds(session, g, gang_shortfall, &pods, &gang_need, &first_need, &uniform);
  if (pods.empty()) return session.state.GangSatisfied(g);
  const int32_t shortfall = std::min<int32_t>(gang_shortfall, pods.size());
  if (gang_shortfall > static_cast<int32_t>(pods.size())) {
    // Fewer pods exist than minMember asks for: nothing to do until they do.
    why = {};
    why.block = JobBlock::kGangPartial;
    why.needed = gang_shortfall;
    why.placed_before_failure = 0;
    why.failing_pod = pods.front();
    return false;
  }
  // On a refusal FitsQueueBudget fills all of `why`; otherwise it is left
  // alone and set below.
  if (!FitsQueueBudget(session, g, gang_need.IsZero() ? first_need : gang_need, &why)) return false;

  const bool use_cache = attempt == Attempt::kCommitted;
  // A gang whose pods all look alike fails for every size at least as large
  // as one that already failed (`uniform`).
  const bool constrained = session.job_facts[g].constrained;
  if (use_cache && uniform != kNone && !constrained && shortfall > 1 &&
      session.gang_failed_at[uniform] <= shortfall) {
    why = {};
    why.block = JobBlock::kGangPartial;
    why.failing_pod = pods[0];
    why.needed = shortfall;
    return false;
  }

  why = {};
  if (constrained) return PlaceWithinTopologyThenExtras(session, g, pods, shortfall, &why);
  if (PlaceGangThenExtras(session, g, pods, shortfall, use_cache, &why)) {
    why = {};
    return true;
  }
  if (use_cache && uniform != kNone && why.block == JobBlock::kGangPartial)
    session.gang_failed_at[uniform] = std::min(session.gang_failed_at[uniform], shortfall);
  return false;
}

}  // namespace vtenant::sched
