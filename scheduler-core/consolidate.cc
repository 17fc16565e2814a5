#include <algorithm>
#include <span>
#include <utility>
#include <vector>

#include "scheduler-core/actions.h"
#include "scheduler-core/job_allocation.h"
#include "scheduler-core/victims.h"

namespace vtenant::sched {
namespace {

// At most this many pending jobs get a consolidation attempt per cycle: each
// attempt re-places pods, and a full cluster would otherwise make every
// pending job try.
constexpr int kMaxJobsPerCycle = 64;

bool Movable(const Session& session, PodId p, GroupId for_job) {
  const Snapshot& s = session.snapshot;
  const Pod& pod = s.pods[p];
  const PodGroup& group = s.groups[pod.group];
  // Only pods that were running before the cycle, of preemptible jobs
  // without topology constraints (a move must not break one).
  return pod.phase == PodPhase::kRunning && session.state.IsPlaced(p) && group.preemptible &&
         pod.group != for_job && !session.job_facts[pod.group].constrained;
}

// A running pod that Movable accepts for any job but its own, with the GPU
// it holds where it runs.
struct MovablePod {
  PodId pod;
  GroupId group;
  Milli gpu;
};

// The movable pods of every node, in pod order, packed: node n's are
// pods[begin[n] .. begin[n + 1]). Consolidation only changes the state
// through plans it keeps; the ones it measures roll back. So a list built
// after the last kept plan stays true, and the search for candidate nodes
// reads it instead of every pod's Pod and PodGroup records.
struct MovableByNode {
  std::vector<uint32_t> begin;
  std::vector<MovablePod> pods;
  std::vector<Milli> gpu;  // per node: the GPU its movable pods hold

  void Build(const Session& session) {
    const ClusterState& state = session.state;
    std::vector<std::pair<NodeId, MovablePod>> found;
    for (PodId p = 0; p < session.pod_pending.size(); ++p) {
      if (session.pod_pending[p] || !state.IsPlaced(p)) continue;
      const GroupId g = session.pod_group[p];
      const Session::JobFacts& job = session.job_facts[g];
      if (!job.preemptible || job.constrained) continue;
      const Allocation& where = state.AllocationOf(p);
      found.push_back({where.node, {p, g, state.Usage(p, where)[kGpu]}});
    }
    begin.assign(session.snapshot.nodes.size() + 1, 0);
    for (const auto& [n, _] : found) ++begin[n + 1];
    for (size_t n = 1; n < begin.size(); ++n) begin[n] += begin[n - 1];
    pods.resize(found.size());
    std::vector<uint32_t> next(begin.begin(), begin.end() - 1);
    for (const auto& [n, m] : found) pods[next[n]++] = m;
    gpu.assign(session.snapshot.nodes.size(), 0);
    for (const auto& [n, m] : found) gpu[n] += m.gpu;
  }
  Milli GpuOn(NodeId n) const { return gpu[n]; }
  std::span<const MovablePod> On(NodeId n) const {
    return {pods.data() + begin[n], pods.data() + begin[n + 1]};
  }
};

// Tries to make room for `job` on `node` by moving at most `max_moves` pods
// off it. Returns the number of pods moved, 0 if no plan within the cap
// works. With `keep` false the plan is only measured and rolled back, so the
// caller can compare nodes and keep the one with the fewest moves. Sets
// `*capped` when the cap, not a lack of movable pods, ended the search.
int ConsolidateOnto(Session& session, GroupId job, NodeId node,
                    std::span<const MovablePod> pods_on_node, int max_moves, bool keep,
                    bool* capped) {
  Statement& st = session.statement;
  const Statement::Checkpoint mark = st.Mark();
  const JobOutcome before = session.outcome[job];
  std::vector<MovablePod> movable;
  for (const MovablePod& m : pods_on_node)
    if (Movable(session, m.pod, job) && session.state.AllocationOf(m.pod).node == node)
      movable.push_back(m);
  // Smallest first: move as little as possible.
  std::sort(movable.begin(), movable.end(), [](const MovablePod& a, const MovablePod& b) {
    return a.gpu != b.gpu ? a.gpu < b.gpu : a.pod < b.pod;
  });
  std::vector<PodId> moved;
  int result = 0;
  for (const MovablePod& candidate : movable) {
    const PodId p = candidate.pod;
    if (static_cast<int>(moved.size()) >= max_moves) {
      *capped = true;
      break;
    }
    st.Evict(p, EvictionCause::kConsolidate, job);
    moved.push_back(p);
    if (!AllocateJob(session, job, Attempt::kSpeculative)) continue;
    bool all_placed = true;
    for (PodId m : moved) {
      Allocation where;
      if (!session.placer.Find(m, NodeFilter{}, &where)) {
        all_placed = false;
        break;
      }
      st.Place(m, where);
    }
    if (all_placed) result = static_cast<int>(moved.size());
    break;  // the job fits only if someone stays homeless: not a consolidation
  }
  if (result > 0 && keep) return result;
  st.Rollback(mark);
  session.outcome[job] = before;
  return result;
}

}  // namespace

void Consolidate(Session& session, std::vector<GroupId>& unsatisfied) {
  if (!session.options.consolidate || session.options.policy == PlacementPolicy::kSpread ||
      session.options.consolidation_max_moves_per_job <= 0 ||
      session.options.consolidation_max_moves_per_cycle <= 0 || unsatisfied.empty())
    return;
  const Snapshot& s = session.snapshot;
  MovableByNode pods_on;  // built for the first job that gets an attempt
  bool pods_on_built = false;
  std::vector<uint8_t> shape_tried(s.num_shapes, 0);
  std::vector<GroupId> still;
  int attempts = 0;
  int moves_made = 0;
  for (GroupId job : unsatisfied) {
    if (moves_made >= session.options.consolidation_max_moves_per_cycle) {
      // The budget is spent: say so for the jobs consolidation could have
      // helped, and leave them to reclaim and the next cycle.
      const JobBlock block = session.outcome[job].block;
      if (block == JobBlock::kNoNode || block == JobBlock::kGangPartial)
        session.notes.Set(job, {NoteAction::kConsolidate, NoteKind::kCycleBudget});
      still.push_back(job);
      continue;
    }
    const JobBlock block = session.outcome[job].block;
    // The cheap tests first: most of a busy cycle's jobs fail one of them,
    // and the job's gang need is only worked out for the others.
    const PodId first = attempts < kMaxJobsPerCycle &&
                                (block == JobBlock::kNoNode || block == JobBlock::kGangPartial)
                            ? FirstPendingPod(session, job)
                            : kNone;
    const bool untried = first != kNone && !shape_tried[session.pod_shape[first]];
    const ResourceVector need = untried ? GangNeed(session, job) : ResourceVector{};
    if (untried && need[kGpu] > 0) {
      if (session.state.FreeGpuTotal() >= need[kGpu]) {
        ++attempts;
        if (!pods_on_built) pods_on.Build(session), pods_on_built = true;
        // Nodes where moving pods away could make room for the first pod,
        // closest to fitting first.
        const Milli first_gpu = session.placer.MinimumGpuOnNode(first);
        std::vector<std::pair<Milli, NodeId>> candidates;
        for (NodeId n = 0; n < s.nodes.size(); ++n) {
          // What all its movable pods hold bounds what moving could free
          // for this job: a node short even with all of it is no
          // candidate, whatever Check says (and Check is the dear test).
          if (session.state.Free(n).gpu + pods_on.GpuOn(n) < first_gpu) continue;
          FitFailure f = session.placer.Check(first, n, nullptr);
          if (f != FitFailure::kWholeGpus && f != FitFailure::kSharedGpu) continue;
          Milli movable_gpu = 0;
          for (const MovablePod& m : pods_on.On(n))
            if (m.group != job) movable_gpu += m.gpu;
          if (session.state.Free(n).gpu + movable_gpu >= first_gpu)
            candidates.emplace_back(-session.state.Free(n).gpu, n);
        }
        // Only the first consolidation_max_nodes are tried; the pairs are
        // distinct (one per node), so sorting just those gives the same list.
        const size_t keep = std::min(candidates.size(),
                                     static_cast<size_t>(session.options.consolidation_max_nodes));
        std::partial_sort(candidates.begin(), candidates.begin() + keep, candidates.end());
        candidates.resize(keep);
        // Measure every candidate within the caps and keep the plan with
        // the fewest moves (ties: the node closest to fitting), so a job
        // that two moves would place never costs five restarts.
        const int cap = std::min(session.options.consolidation_max_moves_per_job,
                                 session.options.consolidation_max_moves_per_cycle - moves_made);
        int best = cap + 1;
        NodeId best_node = kNone;
        bool capped = false;
        for (const auto& [_, n] : candidates) {
          const int m = ConsolidateOnto(session, job, n, pods_on.On(n), best - 1, false, &capped);
          if (m > 0 && m < best) {
            best = m;
            best_node = n;
            if (best == 1) break;
          }
        }
        bool done = false;
        if (best_node != kNone) {
          bool unused = false;
          const int m =
              ConsolidateOnto(session, job, best_node, pods_on.On(best_node), best, true, &unused);
          done = m > 0;
          moves_made += m;
        } else if (capped) {
          session.notes.Set(
              job, {NoteAction::kConsolidate, cap < session.options.consolidation_max_moves_per_job
                                                  ? NoteKind::kCycleBudget
                                                  : NoteKind::kTooManyMoves});
        }
        if (done) {
          session.ForgetFailures();
          // Moved pods now sit elsewhere: rebuild who is where.
          pods_on.Build(session);
          continue;
        }
        shape_tried[session.pod_shape[first]] = 1;
      }
    }
    still.push_back(job);
  }
  unsatisfied.swap(still);
}

}  // namespace vtenant::sched
