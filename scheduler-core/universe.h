// Universe: every object a run knows about, and the working snapshot of the
// ones present now.
//
// A replay (or a long-running scheduler) sees the same nodes, queues, groups
// and pods over many cycles. Each object is made once, when it is added or
// changes: its names interned, its shape found. Each cycle then copies the
// pods present now, with their running state, into a working snapshot whose
// vectors are reused from the cycle before. Working ids are dense and differ
// from universe ids; UniversePod() maps pods back.
//
// A simulator builds the universe once from a SnapshotBuilder; a scheduler
// fed by informer events starts empty (or from a builder) and sets and
// removes objects by name as events arrive. A removed object leaves a
// tombstone (its slot in universe() has an empty name) that a later Set of
// the same kind reuses, lowest id first. Objects refer to each other by
// name when set (a pod to its group, a group to its queue, a queue to its
// parent), and an object others still refer to cannot be removed, so the
// universe never holds a dangling reference.
//
//   VT_ASSIGN_OR_RETURN(Universe u, Universe::Create(builder));
//   const Snapshot& s = u.Working(now, present);
//   Decisions d = RunCycle(s, options);
//   PodId p = u.UniversePod(d.binds[0].pod);
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "scheduler-core/model.h"
#include "scheduler-core/snapshot_builder.h"

namespace vtenant::sched {

// A pod of the universe that is present in a cycle, and whether it runs.
struct PresentPod {
  PodId pod = kNone;  // universe id
  bool running = false;
  Allocation allocation;  // where it runs, when running (node: a universe id)
  int64_t start_time = 0;
};

class Universe {
 public:
  // An empty universe, filled with the Set calls below.
  Universe();

  // Builds and validates the universe from `builder`'s objects; the first
  // problem is returned as Build() reports it. Pods the builder was told run
  // somewhere are taken as pending here: Working() says who runs.
  static Result<Universe> Create(const SnapshotBuilder& builder);

  // Every object, by universe id, tombstones included. The fields Finalize
  // derives (queue children, group pod lists) are those of Create().
  const Snapshot& universe() const { return universe_; }

  // Adds the object named in `spec`, or replaces the one of that name
  // keeping its id, and returns the id. The spec is checked as Build()
  // checks one object, and the names it refers to must be in the universe
  // (a pod's group, or for a pod without one its queue; a group's queue; a
  // queue's parent, without forming a cycle). On error nothing changes.
  // A pod is taken as pending (Working() says who runs); a pod without a
  // group is a group of its own, made and removed with it. A group whose
  // subgroups change leaves its pods' subgroup indices as they were: set
  // those pods again. Rules that span objects (only leaf queues hold jobs,
  // a running pod's devices exist) are Validate()'s, on the working
  // snapshot.
  Result<NodeId> SetNode(const NodeSpec& spec);
  Result<QueueId> SetQueue(const QueueSpec& spec);
  Result<GroupId> SetGroup(const GroupSpec& spec);
  Result<PodId> SetPod(const PodSpec& spec);

  // Removes the object named `name`: NotFound when there is none,
  // FailedPrecondition while others refer to it (a queue's child queues or
  // groups, a group's pods). A node may be removed under running pods: the
  // caller stops listing them as running on it.
  Status RemoveNode(std::string_view name);
  Status RemoveQueue(std::string_view name);
  Status RemoveGroup(std::string_view name);
  Status RemovePod(std::string_view name);

  // The universe id of the object named `name`, kNone when there is none.
  NodeId FindNode(std::string_view name) const;
  PodId FindPod(std::string_view name) const;

  // The working snapshot at `now` holding exactly `present` (universe ids
  // of pods in the universe, each at most once, in any order; they keep
  // universe order in the snapshot), every node and queue, and the groups
  // of the present pods. The reference stays valid until the next call.
  const Snapshot& Working(int64_t now, const std::vector<PresentPod>& present);

  // The universe id of working pod `p` of the last Working() snapshot.
  PodId UniversePod(PodId p) const { return universe_pod_[p]; }

 private:
  using NameIndex = std::map<std::string, uint32_t, std::less<>>;
  struct Shape {
    ShapeId id = kNone;
    uint32_t pods = 0;
  };

  explicit Universe(Snapshot universe);

  // The lowest free id of a kind, or the next new one.
  static uint32_t NextId(std::set<uint32_t>& free, size_t size);
  // The shape of `pod` (its labels sorted), counted once more.
  ShapeId AcquireShape(const Pod& pod);
  void ReleaseShape(const Pod& pod);
  // Tombstones group `g`, which no pod is in, and uncounts its queue.
  void DropGroup(GroupId g);
  // Copies the live nodes, their devices and the live queues into the
  // working snapshot, densely, after a node or queue changed.
  void LayOut();

  Snapshot universe_;
  NameIndex node_index_, queue_index_, group_index_, pod_index_;
  std::set<uint32_t> free_nodes_, free_queues_, free_groups_, free_pods_, free_shapes_;
  std::vector<uint32_t> queue_refs_;               // by queue: live child queues and groups in it
  std::vector<uint32_t> group_refs_;               // by group: live pods in it
  std::vector<GroupId> own_group_;                 // by pod: the group made for it, or kNone
  std::unordered_map<std::string, Shape> shapes_;  // ShapeKey -> shape
  bool laid_out_ = false;

  Snapshot work_;
  std::vector<NodeId> working_node_;     // universe node -> working node
  std::vector<QueueId> working_queue_;   // universe queue -> working queue
  std::vector<PodId> universe_pod_;      // working pod -> universe pod
  std::vector<GroupId> working_group_;   // universe group -> working group, per call
  std::vector<const PresentPod*> slot_;  // universe pod -> its entry in `present`
};

}  // namespace vtenant::sched
