// Knobs of a scheduling cycle.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"
#include "scheduler-core/order_rules.h"

namespace vtenant::sched {

class WorkloadModel;

// How a pod picks among the nodes and devices it fits.
enum class PlacementPolicy : uint8_t {
  // Fill the node with the least free GPU that fits. A GPU-sharing pod goes
  // first to a started device its portion complements (like sizes that fill
  // it exactly, tightest first), then to an empty device of the fullest
  // node, and only then beside sizes that would strand a remainder: keeps
  // whole nodes free and shared devices full.
  kBinpack,
  // The node with the most free GPU, and on it the emptiest device.
  kSpread,
  // The node left with the least free GPU and CPU (normalised), first device
  // that fits. A classic baseline, kept for fragmentation comparisons.
  kBestFit,
  // Any node and device that fits, chosen by a seeded generator. Baseline.
  kRandomFit,
  // Fragmentation gradient descent (Weng et al., ATC'23), refined: the node
  // and device where the expected fragmentation of the node, measured
  // against the shapes the cluster has seen (Options::workload), grows
  // least; ties to the fuller node. See fgd_rule.h.
  kFgd,
};

// "binpack", "spread", "best-fit", "random-fit" or "fgd": the names the
// programs' --policy flags take.
std::string_view PolicyName(PlacementPolicy policy);
// The policy PolicyName calls `name`; InvalidArgument listing the names
// otherwise.
Result<PlacementPolicy> ParsePolicy(std::string_view name);

struct Options {
  PlacementPolicy policy = PlacementPolicy::kBinpack;
  // Actions, in the order they run. KAI turns consolidation off under spread
  // (moving pods together defeats spreading); so do we.
  bool consolidate = true;
  bool reclaim = true;
  bool preempt = true;
  bool evict_stale_gangs = true;
  // A gang running below minMember this long is evicted so its GPUs stop
  // idling (KAI's default is 60 s).
  int64_t stale_gang_grace_s = 60;
  // Nodes a consolidation may try for one pending job: bounds the work.
  int consolidation_max_nodes = 16;
  // Every consolidation move restarts a running pod, so a pending job is
  // consolidated only when a few moves make it fit: at most this many pods
  // moved for one job (the plan with the fewest moves wins), and at most
  // consolidation_max_moves_per_cycle over all jobs of a cycle. Unbounded,
  // the `busy` replay moved 20,631 pods in a simulated day; 8 and 64 move
  // 9,507 and also evict fewer jobs (6,611 instead of 7,957), the only bound
  // measured that lowers both (bench/history/bench_scheduler.md). Tighter
  // bounds move fewer pods but leave more jobs to reclaim, which evicts
  // whole jobs instead, and a running job killed outright costs its owner
  // more than a pod restarted elsewhere. 0 turns consolidation off.
  int consolidation_max_moves_per_job = 8;
  int consolidation_max_moves_per_cycle = 64;
  // Domains one topology placement may try for one job
  // (topology_placement.h). A tree of thousands of constrained sub-groups
  // over thousands of domains, which any team may write, would otherwise
  // hold every cycle; past this the job waits as if no further domain had
  // room. Jobs as KAI's groupers make them try a few dozen.
  int topology_max_domain_tries = 4096;
  uint64_t seed = 1;  // random-fit only
  // Queue order, job order and victim order; unset ones follow KAI.
  Rules rules;
  // Fair share exactly as KAI divides it, quirks included (fair_share.h);
  // off: priority stays strict and no share exceeds what a queue asks.
  bool fair_share_kai_exact = false;
  // KAI's kValue, in thousandths: how strongly the queues' historical usage
  // (Queue::usage_ppm) moves their over-quota shares (fair_share.h). KAI's
  // default is 1; it matters only where queues carry usage.
  int64_t usage_k_milli = 1000;
  // fgd: the pod shapes seen so far, kept by the caller across cycles.
  // Null: the shapes of the snapshot's pods, running and pending.
  std::shared_ptr<const WorkloadModel> workload;
  // fgd: node states scored per pod, the tightest with room first (plus the
  // one with the most room). 16 keeps fgd's full cycle within 2x binpack's
  // on 1,000 nodes with 20k pending; 64 scores every state on openb and
  // strands 4 GPUs fewer there (bench/history/openb.md).
  int fgd_max_candidates = 16;
  // Fill Decisions::groups (what each job holds and asks for): a walk over
  // every pod, which only callers that report per job need.
  bool report_groups = false;
};

}  // namespace vtenant::sched
