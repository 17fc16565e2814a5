// One scheduling cycle: snapshot in, decisions out.
//
//   Decisions d = RunCycle(snapshot, options);
//
// Runs allocate, consolidate, reclaim, preempt and stale-gang eviction in
// that order (reclaim and preempt only where Options::reclaim and
// Options::preempt allow them) and reports what changed: pods to bind (node, devices, portion),
// pods to evict and why, pods to move, a reason for every pod left pending,
// and every queue's fair share, allocation and request. The same snapshot
// and options always give the same decisions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler-core/model.h"
#include "scheduler-core/options.h"
#include "scheduler-core/statement.h"

namespace vtenant::sched {

struct Bind {
  PodId pod;
  Allocation allocation;
};

struct Eviction {
  PodId pod;
  EvictionCause cause;
  GroupId for_job;  // the job it made room for; kNone for stale gangs
  // Where its message sits in Decisions::eviction_text: read it with
  // Decisions::MessageOf.
  size_t message_begin;
  uint32_t message_size;
};

// Consolidation: the pod is evicted from `from` and its replacement goes to
// `to` (a running pod cannot be re-bound in place).
struct Move {
  PodId pod;
  Allocation from;
  Allocation to;
};

// Which of Decisions::reasons a pending pod waits for. A busy cycle leaves
// tens of thousands of pods pending for about a thousand distinct reasons, so
// each text is kept once and the pods refer to it.
enum class ReasonId : uint32_t {};

struct Pending {
  PodId pod;
  ReasonId reason;  // read the text with Decisions::ReasonOf
};

// What kind of obstacle a pending reason names, for programs that report it
// in a fixed vocabulary as well as in words (KAI's PodGroup
// schedulingConditions[].reasons).
enum class PendingKind : uint8_t {
  kPlacement,                // the pods do not fit: nodes, gang, topology, ...
  kOverLimit,                // the job would take a queue over its limit
  kNonPreemptibleOverQuota,  // a non-preemptible job would take a queue over its quota
};

struct QueueReport {
  QueueId queue;
  ResourceVector fair_share;
  ResourceVector allocated;  // after this cycle's decisions
  ResourceVector allocated_non_preemptible;
  ResourceVector requested;  // placed plus pending
};

// What one job holds and asks for, as its queue's QueueReport counts it.
struct GroupReport {
  ResourceVector allocated;  // its pods placed, after this cycle's decisions
  ResourceVector requested;  // placed plus pending
};

struct Decisions {
  std::vector<Bind> binds;
  std::vector<Eviction> evictions;
  std::vector<Move> moves;
  std::vector<Pending> pending;
  std::vector<std::string> reasons;       // each distinct pending reason once, by ReasonId
  std::vector<PendingKind> reason_kinds;  // the kind of each, by ReasonId
  std::vector<QueueReport> queues;
  ResourceVector capacity;          // what fair shares divided (ClusterState::Capacity)
  std::vector<GroupReport> groups;  // by GroupId; empty unless Options::report_groups
  // Every eviction's message, one after another. A busy cycle evicts tens of
  // thousands of pods, each for its own job (so the texts differ); one
  // buffer spares a string allocation per eviction, here and where the
  // decisions are dropped.
  std::string eviction_text;

  // Why `p` is pending ("0/4 nodes fit: ...").
  const std::string& ReasonOf(const Pending& p) const {
    return reasons[static_cast<uint32_t>(p.reason)];
  }
  PendingKind KindOf(const Pending& p) const {
    return reason_kinds[static_cast<uint32_t>(p.reason)];
  }
  // Why `e` evicts its pod ("reclaimed for job ... of queue ...: ...").
  std::string_view MessageOf(const Eviction& e) const {
    return std::string_view(eviction_text).substr(e.message_begin, e.message_size);
  }
};

// `snapshot` must be Finalized and pass Validate (SnapshotBuilder::Build
// gives such snapshots; a Universe::Working one is Finalized, and its
// caller validates it); it is only read.
Decisions RunCycle(const Snapshot& snapshot, const Options& options = {});

// How long one action of a cycle took ("allocate", "consolidate", "reclaim",
// "preempt", "stale_gang"), in the order they ran. Reclaim and preempt are
// not listed when Options::reclaim or Options::preempt turns them off;
// consolidate and stale_gang always are (turned off, they return at once).
struct ActionTime {
  const char* action;
  double seconds;
};

// RunCycle that also appends each action's wall time to `times` (when not
// null). Same decisions as RunCycle.
Decisions RunCycle(const Snapshot& snapshot, const Options& options,
                   std::vector<ActionTime>* times);

// Device indices (within the node) of an allocation, ascending: what
// NVIDIA_VISIBLE_DEVICES is built from.
std::vector<int> DeviceIndices(const Allocation& allocation);

}  // namespace vtenant::sched
