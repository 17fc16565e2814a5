// Hierarchical fair share, per resource and per level of the queue tree, the
// way KAI's proportion plugin divides a cluster:
//
//  1. Each sibling gets its quota, capped by its limit and by what its
//     subtree requests (quota -1 means "everything the parent has").
//  2. What is left goes to siblings that still want more, strictly by queue
//     priority (a lower priority sees nothing until every higher-priority
//     sibling is satisfied), and within one priority in rounds by
//     overQuotaWeight, each round capped by limit and request. A weight of 0
//     gets nothing over quota.
//  3. Each queue's share is then divided among its children the same way.
//
// What is over quota is handed out in whole GPUs, as KAI does: each round's
// share is floored to whole devices and the leftover goes one GPU at a time
// to the queues with the largest remainders (ties to the older queue, then
// the smaller name), never past what a queue requests. Quotas themselves
// stay exact (0.33 stays 330m). CPU and memory divide to the millicore and
// the byte. Unlike KAI, the leftover of one priority is handed out before a
// lower priority sees anything, so priority stays strict.
// Like KAI, quotas are granted even when they add up to more than the
// parent has; the admin's guarantee wins over arithmetic.
//
// With KAI's time-based fairshare (a usage_k above 0, and queues'
// Queue::usage_ppm), a queue's weight in each over-quota round is
// max(0, w + k * (w - u)): w its weight normalized to the round's total,
// u its usage, the share of the cluster it held over the usage window. A
// queue that used more than its weight's share gets less of what is over
// quota, one that used less gets more, until the shares even out over
// time. Quotas are untouched.
#pragma once

#include <vector>

#include "scheduler-core/model.h"
#include "scheduler-core/resources.h"

namespace vtenant::sched {

// Sums per-leaf values into every ancestor: result[q] = the subtree total.
std::vector<ResourceVector> RollUp(const std::vector<Queue>& queues,
                                   const std::vector<ResourceVector>& per_queue);

// Fair share of every queue, given `capacity` (the cluster total) and what
// each queue's subtree requests (allocated plus pending, after RollUp).
// `kai_exact` reproduces KAI's division where it differs from ours: a
// priority with a single queue gives it everything left, asked for or not;
// the rounding leftovers wait until every priority had its rounds; a
// leftover unit may go past a queue's request (Options::fair_share_kai_exact).
// `usage_k_milli` is KAI's kValue in thousandths (Options::usage_k_milli).
std::vector<ResourceVector> ComputeFairShare(const std::vector<Queue>& queues,
                                             const std::vector<ResourceVector>& requested,
                                             const ResourceVector& capacity, bool kai_exact = false,
                                             int64_t usage_k_milli = 0);

}  // namespace vtenant::sched
