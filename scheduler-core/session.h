// Everything one scheduling cycle works with: the snapshot, the mutable
// state and its statement, fair shares, and what each job ran into.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "scheduler-core/cluster_state.h"
#include "scheduler-core/model.h"
#include "scheduler-core/options.h"
#include "scheduler-core/order_rules.h"
#include "scheduler-core/pending_notes.h"
#include "scheduler-core/placement.h"
#include "scheduler-core/statement.h"

namespace vtenant::sched {

class VictimRanks;  // victim_ranks.h

struct ReclaimLeft;  // reclaim_left.h

// What stopped a job, kept as data; pending_reasons turns it into text.
enum class JobBlock : uint8_t {
  kNone,
  kQueueLimit,           // a queue on its path would exceed spec.resources.<r>.limit
  kNonPreemptibleQuota,  // non-preemptible jobs may only use quota
  kNoNode,               // a pod of the job fits no node
  kGangPartial,          // some pods fit, not minMember of them together
  kTopology,             // no domain of the required topology level holds the gang
};

struct JobOutcome {
  JobBlock block = JobBlock::kNone;
  // kQueueLimit / kNonPreemptibleQuota: which queue and resource, and the numbers.
  QueueId queue = kNone;
  Resource resource = kGpu;
  int64_t held = 0;
  int64_t asked = 0;
  int64_t cap = 0;
  // kNoNode / kGangPartial: the pod that found no node and how many fit first.
  PodId failing_pod = kNone;
  int32_t placed_before_failure = 0;
  int32_t needed = 0;
};

// What FitsQueueBudget checks on each queue's path, fixed for the cycle.
enum PathBudget : uint8_t {
  kPathHasLimit = 1,  // some queue on the path limits some resource
  kPathHasQuota = 2,  // some queue on the path has a quota other than -1
};
// Per queue of `snapshot`, its PathBudget bits (job_allocation.cc).
std::vector<uint8_t> QueuePathBudgets(const Snapshot& snapshot);

struct Session {
  Session(const Snapshot& snapshot, const Options& options);

  const Snapshot& snapshot;
  Options options;
  Rules rules;  // options.rules with the defaults filled in
  ClusterState state;
  Statement statement;
  Placer placer;

  std::vector<ResourceVector> requested;       // subtree: placed plus pending
  std::vector<ResourceVector> fair_share;      // per queue
  std::vector<int64_t> reclaim_min_runtime_s;  // resolved through parents
  std::vector<int64_t> preempt_min_runtime_s;
  std::vector<ResourceVector> estimated;  // per pod, before placement
  std::vector<JobOutcome> outcome;        // per group
  std::vector<int64_t> group_start;       // per group: latest start of a running pod
  PendingNotes notes;                     // what later actions made of a job

  // Each group's pods pending in the snapshot, in creation order, packed:
  // pending_pods[pending_begin[g] .. pending_begin[g + 1]). Every action asks
  // every unsatisfied job for its pending pods; this answers without
  // touching the (large) Pod records. Subgroup minimums are not applied.
  std::vector<uint32_t> pending_begin;
  std::vector<PodId> pending_pods;
  // The same pods with what the walks read of each beside it, so that a
  // job's pods and needs are one read, not one per pod into the per-pod
  // arrays: pending[i].pod is pending_pods[i].
  struct PendingPod {
    PodId pod;
    ShapeId shape;
    ResourceVector estimated;
  };
  std::vector<PendingPod> pending;
  std::vector<uint8_t> has_subgroups;  // per group
  // What the walks over unsatisfied jobs read of every group, packed: each
  // action asks it of tens of thousands of jobs, and the PodGroup records
  // are large and scattered (a cache miss each).
  struct JobFacts {
    QueueId queue;
    int32_t min_member;
    bool preemptible;
    bool constrained;  // has a required or preferred topology level
  };
  std::vector<JobFacts> job_facts;   // per group
  std::vector<ShapeId> pod_shape;    // per pod: snapshot.pods[p].shape, packed likewise
  std::vector<GroupId> pod_group;    // per pod: snapshot.pods[p].group, packed likewise
  std::vector<uint8_t> pod_pending;  // per pod: pending in the snapshot (else running)
  // AllocateJob's list of the job's pending pods, kept to reuse its memory.
  std::vector<PodId> allocate_pods;
  // Per queue: the budgets on its path to the root (QueuePathBudgets), so
  // that FitsQueueBudget walks only paths that have any.
  std::vector<uint8_t> path_budgets = QueuePathBudgets(snapshot);
  // The running jobs in the victim order, shared by reclaim and preempt
  // (VictimRanksOf, victim_ranks.h); empty until the first asks.
  std::shared_ptr<const VictimRanks> victim_ranks;
  // What reclaim read of the jobs it left unsatisfied, for preempt's walk
  // over them (reclaim_left.h); empty otherwise.
  std::shared_ptr<const ReclaimLeft> reclaim_left;

  // Placement failures seen at a committed state. In allocate, consumption
  // only grows, so a shape that found no node will not find one later in the
  // action; evictions end that (ForgetFailures).
  std::vector<uint8_t> shape_failed;
  std::vector<int32_t> gang_failed_at;  // per shape: smallest uniform gang size that failed
  void ForgetFailures();

  // Topology domain of every node for a level (label key): the label's
  // value id, kNone for nodes without the label.
  const std::vector<uint32_t>& DomainsOf(StringId level);

 private:
  std::map<StringId, std::vector<uint32_t>> domains_;
};

}  // namespace vtenant::sched
