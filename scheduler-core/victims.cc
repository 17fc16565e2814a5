#include "scheduler-core/victims.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "scheduler-core/job_allocation.h"

namespace vtenant::sched {
namespace {

void EvictGroup(Session& session, GroupId victim, EvictionCause cause, GroupId job) {
  for (PodId p : session.snapshot.groups[victim].pods)
    if (session.state.IsPlaced(p)) session.statement.Evict(p, cause, job);
}

std::vector<NodeId> NodesOf(const Session& session, GroupId g) {
  std::vector<NodeId> nodes;
  for (PodId p : session.snapshot.groups[g].pods)
    if (session.state.IsPlaced(p)) nodes.push_back(session.state.AllocationOf(p).node);
  return nodes;
}

}  // namespace

std::vector<GroupId> RunningPreemptibleJobs(const Session& session,
                                            const std::vector<int64_t>& min_runtime_s) {
  const Snapshot& s = session.snapshot;
  std::vector<GroupId> jobs;
  for (GroupId g = 0; g < s.groups.size(); ++g) {
    const PodGroup& group = s.groups[g];
    if (!group.preemptible) continue;
    bool running = false;
    int64_t latest_start = 0;
    for (PodId p : group.pods) {
      if (s.pods[p].phase != PodPhase::kRunning || !session.state.IsPlaced(p)) continue;
      running = true;
      latest_start = std::max(latest_start, s.pods[p].start_time);
    }
    if (!running) continue;
    int64_t min_runtime = min_runtime_s[group.queue];
    if (min_runtime < 0 || s.now - latest_start < min_runtime) continue;
    jobs.push_back(g);
  }
  return jobs;
}

ResourceVector GangNeed(const Session& session, GroupId job) {
  std::vector<PodId> pods = PendingPodsInOrder(session, job);
  ResourceVector need;
  int32_t shortfall = std::min<int32_t>(GangShortfall(session, job), pods.size());
  for (int32_t i = 0; i < shortfall; ++i) need += session.estimated[pods[i]];
  if (shortfall == 0 && !pods.empty()) need = session.estimated[pods[0]];
  return need;
}

std::vector<GroupId> ClusterByNode(const Session& session, const std::vector<GroupId>& candidates) {
  const Snapshot& s = session.snapshot;
  // Per node: GPU it would have free if every candidate on it left, and the
  // rank of its most preferred victim.
  std::map<NodeId, std::pair<Milli, size_t>> nodes;
  for (size_t rank = 0; rank < candidates.size(); ++rank) {
    for (PodId p : s.groups[candidates[rank]].pods) {
      if (!session.state.IsPlaced(p)) continue;
      const Allocation& a = session.state.AllocationOf(p);
      auto [it, fresh] = nodes.try_emplace(a.node, session.state.Free(a.node).gpu, rank);
      it->second.first += session.state.Usage(p, a)[kGpu];
    }
  }
  std::vector<std::tuple<Milli, size_t, NodeId>> order;
  for (const auto& [node, v] : nodes) order.emplace_back(-v.first, v.second, node);
  std::sort(order.begin(), order.end());
  std::vector<GroupId> out;
  std::vector<uint8_t> taken(candidates.size(), 0);
  for (const auto& [_, first_rank, node] : order) {
    for (size_t rank = first_rank; rank < candidates.size(); ++rank) {
      if (taken[rank]) continue;
      for (PodId p : s.groups[candidates[rank]].pods) {
        if (session.state.IsPlaced(p) && session.state.AllocationOf(p).node == node) {
          taken[rank] = 1;
          out.push_back(candidates[rank]);
          break;
        }
      }
    }
  }
  return out;
}

bool EvictUntilJobFits(Session& session, GroupId job, const std::vector<GroupId>& ranked,
                       EvictionCause cause, const std::function<bool(GroupId)>& still_eligible) {
  // Victims scattered over many nodes free no node; take them node by node,
  // the nodes that would free the most first, each in the caller's order.
  const std::vector<GroupId> candidates = ClusterByNode(session, ranked);
  Statement& st = session.statement;
  const Statement::Checkpoint mark = st.Mark();
  // Speculative attempts overwrite the outcome; a failure keeps the original.
  const JobOutcome before = session.outcome[job];
  std::vector<std::pair<GroupId, std::vector<NodeId>>> evicted;
  bool fits = false;
  for (GroupId victim : candidates) {
    if (!still_eligible(victim)) continue;
    evicted.emplace_back(victim, NodesOf(session, victim));
    EvictGroup(session, victim, cause, job);
    if (AllocateJob(session, job, Attempt::kSpeculative)) {
      fits = true;
      break;
    }
  }
  if (!fits) {
    st.Rollback(mark);
    session.outcome[job] = before;
    return false;
  }
  // Keep only the victims that shared a node with the job's new pods.
  std::vector<NodeId> job_nodes;
  for (PodId p : session.snapshot.groups[job].pods)
    if (session.snapshot.pods[p].phase == PodPhase::kPending && session.state.IsPlaced(p))
      job_nodes.push_back(session.state.AllocationOf(p).node);
  std::vector<GroupId> needed;
  for (const auto& [victim, nodes] : evicted) {
    bool shares = std::any_of(nodes.begin(), nodes.end(), [&](NodeId n) {
      return std::find(job_nodes.begin(), job_nodes.end(), n) != job_nodes.end();
    });
    if (shares) needed.push_back(victim);
  }
  if (needed.size() == evicted.size()) return true;
  st.Rollback(mark);
  for (GroupId victim : needed) EvictGroup(session, victim, cause, job);
  if (AllocateJob(session, job, Attempt::kSpeculative)) return true;
  // The smaller set placed the job differently and not at all; take the
  // set that worked.
  st.Rollback(mark);
  for (const auto& [victim, nodes] : evicted) EvictGroup(session, victim, cause, job);
  if (AllocateJob(session, job, Attempt::kSpeculative)) return true;
  st.Rollback(mark);
  session.outcome[job] = before;
  return false;
}

}  // namespace vtenant::sched
