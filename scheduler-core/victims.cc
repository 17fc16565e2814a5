#include "scheduler-core/victims.h"

#include <algorithm>
#include <map>
#include <span>
#include <tuple>
#include <unordered_map>

#include "scheduler-core/job_allocation.h"
#include "scheduler-core/victim_ranks.h"

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

VictimPool::VictimPool(const Session& session, const VictimRanks& ranks,
                       const std::vector<int64_t>& min_runtime_s)
    : by_queue_(session.snapshot.queues.size()),
      alive_in_queue_(session.snapshot.queues.size(), 0),
      alive_(session.snapshot.groups.size(), 0),
      gpu_(std::make_unique_for_overwrite<Milli[]>(session.snapshot.groups.size())),
      info_(std::make_unique_for_overwrite<Info[]>(session.snapshot.groups.size())),
      rank_(std::make_unique_for_overwrite<uint32_t[]>(session.snapshot.groups.size())),
      least_gpu_(session.snapshot.queues.size(), INT64_MAX),
      had_jobs_(session.snapshot.queues.size(), 0),
      changed_(session.snapshot.queues.size()),
      within_min_runtime_(session.snapshot.queues.size(), 0),
      non_preemptible_(session.snapshot.queues.size(), 0) {
  const Snapshot& s = session.snapshot;
  // Groups whose pods were all pending in the snapshot run nothing, so
  // only ranks.Running() can hold victims. Their facts are the ranks' own,
  // but for the groups the statement placed or evicted pods of since the
  // ranks were worked out (ascending, like Running()).
  std::vector<GroupId> touched;
  const auto& journal = session.statement.journal();
  for (size_t i = ranks.Mark(); i < journal.size(); ++i)
    touched.push_back(s.pods[journal[i].pod].group);
  std::sort(touched.begin(), touched.end());
  auto next_touched = touched.begin();
  const std::vector<GroupId>& running = ranks.Running();
  for (size_t i = 0; i < running.size(); ++i) {
    const GroupId g = running[i];
    while (next_touched != touched.end() && *next_touched < g) ++next_touched;
    const VictimRanks::Facts f = next_touched != touched.end() && *next_touched == g
                                     ? RunningFactsOf(session, g)
                                     : ranks.RunningFacts()[i];
    if (!f.running) continue;
    if (!f.preemptible) {
      ++non_preemptible_[f.queue];
      continue;
    }
    int64_t min_runtime = min_runtime_s[f.queue];
    if (min_runtime < 0 || s.now - f.latest_start < min_runtime) {
      ++within_min_runtime_[f.queue];
      continue;
    }
    info_[g] = {f.placed_gpu, f.only_node, f.queue, f.priority};
    gpu_[g] = f.running_gpu;
    alive_[g] = 1;
    least_gpu_[f.queue] = std::min(least_gpu_[f.queue], f.placed_gpu);
    if (!had_jobs_[f.queue]) ++queues_with_jobs_;
    had_jobs_[f.queue] = 1;
    ++alive_in_queue_[f.queue];
  }
  // Within a queue the order never changes during a cycle: the pool's jobs
  // in the ranks' order are those jobs sorted.
  for (QueueId q = 0; q < s.queues.size(); ++q) {
    std::vector<GroupId>& jobs = by_queue_[q];
    jobs.reserve(alive_in_queue_[q]);
    for (GroupId g : ranks.InQueue(q))
      if (alive_[g]) {
        rank_[g] = static_cast<uint32_t>(jobs.size());
        jobs.push_back(g);
      }
  }
}

void VictimPool::Refresh(const Session& session, GroupId g) {
  // Nobody reads these facts of a job that is not in the pool, and a job
  // never joins it: most refreshed jobs were only pending.
  if (!alive_[g]) return;
  const Snapshot& s = session.snapshot;
  Milli gpu = 0;
  NodeId node = kNone;
  bool split = false;
  for (PodId p : s.groups[g].pods) {
    if (!session.state.IsPlaced(p)) continue;
    const Allocation& a = session.state.AllocationOf(p);
    gpu += session.state.Usage(p, a)[kGpu];
    if (node == kNone) node = a.node;
    split = split || a.node != node;
  }
  info_[g].placed_gpu = gpu;
  info_[g].only_node = split ? kNone : node;
  changed_[info_[g].queue].push_back(g);
}

Milli VictimPool::MostFreeWithout(const Session& session, std::span<const GroupId> candidates) {
  const Snapshot& s = session.snapshot;
  if (node_sum_.empty()) node_sum_.resize(s.nodes.size());
  if (++most_free_calls_ == 0) {  // numbers wrapped: no entry may look current
    std::fill(node_sum_.begin(), node_sum_.end(), NodeSum{});
    most_free_calls_ = 1;
  }
  const uint32_t call = most_free_calls_;
  Milli most = 0;
  auto add = [&](NodeId n, Milli gpu) {
    NodeSum& sum = node_sum_[n];
    if (sum.call != call) sum = {session.state.Free(n).gpu, call};
    sum.gpu += gpu;
    most = std::max(most, sum.gpu);
  };
  for (GroupId v : candidates) {
    if (info_[v].only_node != kNone) {
      add(info_[v].only_node, info_[v].placed_gpu);
      continue;
    }
    for (PodId p : s.groups[v].pods)
      if (session.state.IsPlaced(p)) {
        const Allocation& a = session.state.AllocationOf(p);
        add(a.node, session.state.Usage(p, a)[kGpu]);
      }
  }
  return most;
}

void VictimPool::DropEvictedSince(const Statement& statement, Statement::Checkpoint mark) {
  const auto& journal = statement.journal();
  const Snapshot& s = statement.state().snapshot();
  std::vector<QueueId> touched;
  for (size_t i = mark; i < journal.size(); ++i) {
    if (journal[i].place) continue;
    // Whole jobs are evicted, so one pod gone means the job is gone.
    GroupId g = s.pods[journal[i].pod].group;
    if (!alive_[g]) continue;
    alive_[g] = 0;
    const QueueId q = info_[g].queue;
    --alive_in_queue_[q];
    changed_[q].push_back(g);
    if (by_queue_[q].size() > 2 * static_cast<size_t>(alive_in_queue_[q]))
      std::erase_if(by_queue_[q], [&](GroupId v) { return !alive_[v]; });
  }
}

ResourceVector GangNeed(const Session& session, GroupId job) {
  // Creation order without building the list (asked of every unsatisfied
  // job by reclaim and consolidate): JobNeedOf's walk.
  if (!session.has_subgroups[job]) return JobNeedOf(session, job).need;
  ResourceVector need;
  std::vector<PodId> pods = PendingPodsInOrder(session, job);
  int32_t shortfall = std::min<int32_t>(GangShortfall(session, job), pods.size());
  for (int32_t i = 0; i < shortfall; ++i) need += session.estimated[pods[i]];
  if (shortfall == 0 && !pods.empty()) need = session.estimated[pods[0]];
  return need;
}

JobNeed JobNeedOf(const Session& session, GroupId job) {
  JobNeed out;
  out.shortfall = GangShortfall(session, job);
  if (session.has_subgroups[job]) {
    out.need = GangNeed(session, job);
    const PodId first = FirstPendingPod(session, job);
    out.first_shape = first == kNone ? kNone : session.pod_shape[first];
    return out;
  }
  // GangNeed's walk, noting the first pod still pending on the way.
  int32_t taken = 0;
  uint32_t first = UINT32_MAX;
  for (uint32_t i = session.pending_begin[job]; i < session.pending_begin[job + 1]; ++i) {
    const PodId p = session.pending[i].pod;
    if (session.state.IsPlaced(p)) continue;
    if (first == UINT32_MAX) first = i;
    if (taken == out.shortfall) break;
    out.need += session.pending[i].estimated;
    ++taken;
  }
  if (first != UINT32_MAX) {
    out.first_shape = session.pending[first].shape;
    if (out.shortfall == 0) out.need = session.pending[first].estimated;
  }
  return out;
}

namespace {

// Candidates grouped by node (nodes that would free the most GPU first,
// within a node in the callers' order).
std::vector<GroupId> ClusterByNode(const Session& session, std::span<const GroupId> candidates) {
  const Snapshot& s = session.snapshot;
  // (node, rank, GPU) of every candidate pod, grouped by node by sorting:
  // proportional to the candidates, not to the cluster.
  std::vector<std::tuple<NodeId, uint32_t, Milli>> pods;
  for (uint32_t rank = 0; rank < candidates.size(); ++rank) {
    for (PodId p : s.groups[candidates[rank]].pods) {
      if (!session.state.IsPlaced(p)) continue;
      const Allocation& a = session.state.AllocationOf(p);
      pods.emplace_back(a.node, rank, session.state.Usage(p, a)[kGpu]);
    }
  }
  std::sort(pods.begin(), pods.end());
  // Per node: GPU free if every candidate on it left, its best rank, and
  // where its pods start in `pods`.
  std::vector<std::tuple<Milli, uint32_t, NodeId, size_t>> order;
  for (size_t i = 0; i < pods.size();) {
    const NodeId node = std::get<0>(pods[i]);
    Milli freed = session.state.Free(node).gpu;
    size_t j = i;
    for (; j < pods.size() && std::get<0>(pods[j]) == node; ++j) freed += std::get<2>(pods[j]);
    order.emplace_back(-freed, std::get<1>(pods[i]), node, i);
    i = j;
  }
  std::sort(order.begin(), order.end());
  std::vector<GroupId> out;
  out.reserve(candidates.size());
  std::vector<uint8_t> taken(candidates.size(), 0);
  for (const auto& [_, first_rank, node, begin] : order) {
    for (size_t i = begin; i < pods.size() && std::get<0>(pods[i]) == node; ++i) {
      const uint32_t rank = std::get<1>(pods[i]);
      if (taken[rank]) continue;
      taken[rank] = 1;
      out.push_back(candidates[rank]);
    }
  }
  return out;
}

// Whether a victim may still be taken: in the pool, and of a leaf queue the
// caller's `may_take_from` allows as things stand. The answer per queue is
// kept until the cluster changes (Changed): an attempt asks it of hundreds
// of victims of a handful of queues between two evictions.
class Eligibility {
 public:
  Eligibility(const Session& session, const VictimPool& pool,
              const std::function<bool(QueueId)>& may_take_from)
      : pool_(pool), may_take_from_(may_take_from) {
    if (may_take_from_) answer_.resize(session.snapshot.queues.size());
  }

  bool operator()(GroupId v) {
    if (!pool_.Alive(v)) return false;
    if (!may_take_from_) return true;
    Answer& a = answer_[pool_.Queue(v)];
    if (a.at != changes_) a = {changes_, may_take_from_(pool_.Queue(v))};
    return a.yes;
  }
  void Changed() { ++changes_; }

 private:
  struct Answer {
    uint64_t at = 0;  // changes_ when `yes` was asked; 0: never
    bool yes = false;
  };
  const VictimPool& pool_;
  const std::function<bool(QueueId)>& may_take_from_;
  std::vector<Answer> answer_;
  uint64_t changes_ = 1;
};

// The GPU free some node must reach after an eviction before placing the
// job is tried: its first pod's minimum. 0 (always try) when that is 0 or
// the job waits on a queue limit (room elsewhere, budget freed here).
Milli RoomToTry(const Session& session, GroupId job) {
  const PodId first = FirstPendingPod(session, job);
  const Milli threshold = first == kNone ? 0 : session.placer.MinimumGpuOnNode(first);
  return session.outcome[job].block == JobBlock::kQueueLimit ? 0 : threshold;
}

// After `job` fit with `evicted` (victim, its nodes) gone since `mark`:
// keeps only the victims that shared a node with the job's new pods, so
// nobody is evicted for nothing. Returns whether the job stays placed (on
// failure everything since `mark` is rolled back and the outcome restored
// to `before`).
bool KeepOnlyNeeded(Session& session, GroupId job,
                    const std::vector<std::pair<GroupId, std::vector<NodeId>>>& evicted,
                    EvictionCause cause, Statement::Checkpoint mark, const JobOutcome& before) {
  Statement& st = session.statement;
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

// `threshold` is RoomToTry(session, job); `room_known`: the caller found
// that all of `ranked` leaving would free that much on some node.
bool EvictFromCandidates(Session& session, VictimPool& pool, GroupId job,
                         std::span<const GroupId> ranked, EvictionCause cause,
                         Eligibility& still_eligible, Milli threshold, bool room_known) {
  // Speculative attempts overwrite the outcome; a failure keeps the original.
  const JobOutcome before = session.outcome[job];
  const bool always_try = threshold == 0;
  // Then placement would never be tried below: evicting and rolling back
  // every candidate would end where we are, so do not.
  if (!always_try && !room_known && pool.MostFreeWithout(session, ranked) < threshold) return false;
  // Victims scattered over many nodes free no node; take them node by node,
  // the nodes that would free the most first, each in the caller's order.
  const std::vector<GroupId> candidates = ClusterByNode(session, ranked);
  still_eligible.Changed();  // the caller's attempts may have left other answers
  Statement& st = session.statement;
  const Statement::Checkpoint mark = st.Mark();
  std::vector<std::pair<GroupId, std::vector<NodeId>>> evicted;
  bool fits = false;
  for (GroupId victim : candidates) {
    if (!still_eligible(victim)) continue;
    evicted.emplace_back(victim, NodesOf(session, victim));
    EvictGroup(session, victim, cause, job);
    still_eligible.Changed();
    bool worth = always_try;
    for (NodeId n : evicted.back().second) worth = worth || session.state.Free(n).gpu >= threshold;
    if (worth && AllocateJob(session, job, Attempt::kSpeculative)) {
      fits = true;
      break;
    }
  }
  if (!fits) {
    st.Rollback(mark);
    session.outcome[job] = before;
    return false;
  }
  return KeepOnlyNeeded(session, job, evicted, cause, mark, before);
}

// For a job one GPU-sharing pod short: the single victim whose eviction
// alone lets that pod fit on the victim's node, so the pod takes the room
// of one fraction on a device where it then fits rather than a whole-GPU
// job. Among such victims, those of the first victim queue in rank order
// that has one, the one holding the least GPU (then rank). Looks at the
// first kMaxSingleVictims candidates only. A whole-GPU pod takes its
// victims in rank order (EvictByScenario), as KAI does.

bool EvictOneVictim(Session& session, const VictimPool& pool, GroupId job,
                    std::span<const GroupId> ranked, EvictionCause cause,
                    Eligibility& still_eligible, const RankedFacts* facts) {
  const Snapshot& s = session.snapshot;
  if (GangShortfall(session, job) > 1) return false;
  const PodId pod = FirstPendingPod(session, job);
  if (pod == kNone || !s.pods[pod].request.IsShared()) return false;
  const Milli need_on_node = session.placer.MinimumGpuOnNode(pod);
  Statement& st = session.statement;
  GroupId best = kNone;
  Milli best_gpu = 0;
  std::vector<NodeId> nodes;
  const size_t end = std::min(ranked.size(), kMaxSingleVictims);
  // Cheapest tests first (all of them without side effects): only an
  // eligible victim holding less than the best so far, on a node it would
  // leave with room enough, is tried. The room test for a victim on one
  // node comes before the eligibility call: most victims of a busy cluster
  // fail it.
  auto lacks_room = [&](NodeId only, Milli victim_gpu) {
    return only != kNone && session.state.Free(only).gpu + victim_gpu < need_on_node;
  };
  // With facts: the next index from i worth a trial, or `end`. Every victim
  // is of one queue, and nobody past an index whose least_gpu_from is at
  // least the best holds less. Suffix minimums never decrease along the
  // list, so that index is found once per new best, by binary search,
  // rather than tested at every step.
  size_t nobody_less_from = end;
  auto next_with_facts = [&](size_t i) {
    const std::span<const Milli> gpu = facts->placed_gpu;
    const std::span<const NodeId> only = facts->only_node;
    if (best == kNone) {
      while (i < end && lacks_room(only[i], gpu[i])) ++i;
      return i;
    }
    const Milli* g = gpu.data();
    while (i < nobody_less_from) {
      // Most entries hold no less than the best: pass them four at a time,
      // with one branch for the four.
      while (i + 4 <= nobody_less_from && ((g[i] < best_gpu) | (g[i + 1] < best_gpu) |
                                           (g[i + 2] < best_gpu) | (g[i + 3] < best_gpu)) == 0)
        i += 4;
      const size_t stop = std::min(i + 4, nobody_less_from);
      for (; i < stop; ++i)
        if (g[i] < best_gpu && !lacks_room(only[i], g[i])) return i;
    }
    return end;
  };
  for (size_t i = 0; i < end; ++i) {
    if (facts != nullptr) {
      i = next_with_facts(i);
      if (i == end) break;
    }
    const GroupId v = ranked[i];
    if (facts == nullptr && best != kNone && pool.Queue(v) != pool.Queue(best)) break;
    const Milli victim_gpu = facts ? facts->placed_gpu[i] : pool.PlacedGpu(v);
    if (best != kNone && victim_gpu >= best_gpu) continue;
    const NodeId only = facts ? facts->only_node[i] : pool.OnlyNode(v);
    if (lacks_room(only, victim_gpu)) continue;
    if (!still_eligible(v)) continue;
    nodes.clear();
    if (only != kNone) {
      nodes.push_back(only);
    } else {
      nodes = NodesOf(session, v);
    }
    bool may_fit = false;
    for (NodeId n : nodes)
      may_fit = may_fit || session.state.Free(n).gpu + victim_gpu >= need_on_node;
    if (!may_fit) continue;
    // Check reads only what the node holds: lift the victim's pods off
    // their nodes for the test instead of evicting and rolling back.
    for (PodId p : s.groups[v].pods)
      if (session.state.IsPlaced(p)) session.state.LiftForTrial(p);
    bool fits = false;
    for (NodeId n : nodes)
      fits = fits || session.placer.Check(pod, n, nullptr) == FitFailure::kFits;
    for (PodId p : s.groups[v].pods)
      if (session.state.IsPlaced(p)) session.state.PutBackAfterTrial(p);
    if (fits) {
      best = v;
      best_gpu = victim_gpu;
      if (facts != nullptr && !facts->least_gpu_from.empty()) {
        const std::span<const Milli> least = facts->least_gpu_from;
        nobody_less_from = std::min<size_t>(
            end, std::lower_bound(least.begin(), least.end(), best_gpu) - least.begin());
      }
      // Nobody later in this queue holds less; other queues come after.
      if (best_gpu <= pool.LeastGpuInQueue(pool.Queue(best))) break;
    }
  }
  if (best == kNone) return false;
  const JobOutcome before = session.outcome[job];
  const Statement::Checkpoint mark = st.Mark();
  EvictGroup(session, best, cause, job);
  if (AllocateJob(session, job, Attempt::kSpeculative)) return true;
  st.Rollback(mark);
  session.outcome[job] = before;
  return false;
}

// For a job at most one pod short, KAI's by-node scenarios: victims are
// added in rank order, and each one added has its nodes tried in turn,
// each with every victim added so far that is on that node evicted (whole
// jobs, wherever else their pods are), until a try lets the job fit. So
// the victims are the first in rank order that make room on one node: the
// lowest priority first and, of one priority, the newest, whatever they
// hold, and never one further down the order that would have made room
// alone. A node is tried only once the victims added on it would leave
// `threshold` free there (always when it is 0).
bool EvictByScenario(Session& session, const VictimPool& pool, GroupId job,
                     std::span<const GroupId> ranked, EvictionCause cause,
                     Eligibility& still_eligible, Milli threshold) {
  const Snapshot& s = session.snapshot;
  Statement& st = session.statement;
  const JobOutcome before = session.outcome[job];
  struct OnNode {
    std::vector<GroupId> victims;  // added so far, in rank order
    Milli freed = 0;               // the GPU their pods hold on the node
  };
  std::unordered_map<NodeId, OnNode> on_node;
  std::vector<NodeId> nodes;
  for (GroupId v : ranked) {
    if (!pool.Alive(v)) continue;
    nodes.clear();
    if (pool.OnlyNode(v) != kNone) {
      nodes.push_back(pool.OnlyNode(v));
      OnNode& entry = on_node[nodes.back()];
      entry.victims.push_back(v);
      entry.freed += pool.PlacedGpu(v);
    } else {
      for (PodId p : s.groups[v].pods) {
        if (!session.state.IsPlaced(p)) continue;
        const Allocation& a = session.state.AllocationOf(p);
        OnNode& entry = on_node[a.node];
        if (entry.victims.empty() || entry.victims.back() != v) {
          entry.victims.push_back(v);
          nodes.push_back(a.node);
        }
        entry.freed += session.state.Usage(p, a)[kGpu];
      }
    }
    for (NodeId n : nodes) {
      const OnNode& entry = on_node[n];
      if (threshold > 0 && session.state.Free(n).gpu + entry.freed < threshold) continue;
      const Statement::Checkpoint mark = st.Mark();
      std::vector<std::pair<GroupId, std::vector<NodeId>>> evicted;
      for (GroupId w : entry.victims) {
        if (!still_eligible(w)) continue;
        evicted.emplace_back(w, NodesOf(session, w));
        EvictGroup(session, w, cause, job);
        still_eligible.Changed();
      }
      if (!evicted.empty() && AllocateJob(session, job, Attempt::kSpeculative))
        return KeepOnlyNeeded(session, job, evicted, cause, mark, before);
      st.Rollback(mark);
      session.outcome[job] = before;
      still_eligible.Changed();
    }
  }
  return false;
}

bool EvictUntilJobFits(Session& session, VictimPool& pool, GroupId job,
                       std::span<const GroupId> ranked, EvictionCause cause,
                       Eligibility& still_eligible) {
  // The best-ranked victims usually suffice; looking at all of them for
  // every job would make a busy cycle quadratic. Widen only on failure.
  const std::span<const GroupId> all(ranked);
  // No prefix frees more on any node than all of them do: when all of them
  // leave too little, every attempt below would stop at that same test.
  // Asked once here instead of once per prefix (nothing changes between),
  // and not again by EvictFromCandidates for all of them.
  const Milli threshold = RoomToTry(session, job);
  if (threshold > 0 && pool.MostFreeWithout(session, all) < threshold) return false;
  if (GangShortfall(session, job) <= 1)
    return EvictByScenario(session, pool, job, all, cause, still_eligible, threshold);
  for (size_t k = 256;; k *= 4) {
    if (k >= ranked.size())
      return EvictFromCandidates(session, pool, job, all, cause, still_eligible, threshold,
                                 /*room_known=*/true);
    if (EvictFromCandidates(session, pool, job, all.first(k), cause, still_eligible, threshold,
                            /*room_known=*/false))
      return true;
  }
}

}  // namespace

bool VictimsMayMakeRoom(Session& session, VictimPool& pool, GroupId job,
                        std::span<const GroupId> victims) {
  const Milli threshold = RoomToTry(session, job);
  return threshold == 0 || pool.MostFreeWithout(session, victims) >= threshold;
}

bool EvictForJob(Session& session, VictimPool& pool, GroupId job, std::span<const GroupId> ranked,
                 EvictionCause cause, const std::function<bool(QueueId)>& may_take_from,
                 const RankedFacts* facts) {
  const Statement::Checkpoint mark = session.statement.Mark();
  Eligibility still_eligible(session, pool, may_take_from);
  if (!EvictOneVictim(session, pool, job, ranked, cause, still_eligible, facts) &&
      !EvictUntilJobFits(session, pool, job, ranked, cause, still_eligible))
    return false;
  pool.DropEvictedSince(session.statement, mark);
  pool.Refresh(session, job);  // the job itself may be a victim later
  session.ForgetFailures();
  return true;
}

}  // namespace vtenant::sched
