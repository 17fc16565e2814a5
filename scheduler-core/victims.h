// Evicting running jobs to make room for a pending one: shared by reclaim
// and preempt, which differ only in who may be a victim.
#pragma once

#include <functional>
#include <vector>

#include "scheduler-core/session.h"

namespace vtenant::sched {

// Running jobs (groups with pods that ran before this cycle and still hold
// resources) that may be evicted at all: preemptible and past `min_runtime`
// of their queue (-1: never).
std::vector<GroupId> RunningPreemptibleJobs(const Session& session,
                                            const std::vector<int64_t>& min_runtime_s);

// Evicts `ranked` victims (most preferred first), each only if
// `still_eligible` says so at that moment, until `job` can be allocated.
// Victims are taken node by node (nodes that would free the most GPU first,
// within a node in rank order), since victims scattered over the cluster
// free no single node. Then keeps only the victims on
// the nodes the job landed on, so nobody is evicted for nothing. On success
// the evictions and the job's placements stay in the statement; otherwise
// everything is rolled back.
bool EvictUntilJobFits(Session& session, GroupId job, const std::vector<GroupId>& ranked,
                       EvictionCause cause, const std::function<bool(GroupId)>& still_eligible);

// The resources the job's gang minimum needs (estimated), or its first
// pending pod's when the gang is already satisfied.
ResourceVector GangNeed(const Session& session, GroupId job);

}  // namespace vtenant::sched
