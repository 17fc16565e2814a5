// The order in which allocate considers jobs.
//
// At every level of the queue tree the next job comes from the sibling the
// session's QueueOrder puts first, each sibling judged with the job it would
// hand out next (a parent queue: its best child's); inside a leaf queue jobs
// go in JobRank order. Queues are compared afresh for every job, so a queue
// that just got resources yields to the others; only the chosen job's path
// changes between two jobs, so only that path's candidates and queue keys
// are worked out again, and a key is kept (or taken from the queue's last
// few) while the queue's allocation and its job's need are the same as
// when it was worked out. Where the QueueOrder has a coarse order
// (QueueOrder::HasCoarseOrder: a rank in each key), each level keeps its
// coarse minimum in a Tournament, so a pick compares one sibling per tree
// level instead of every sibling; only when the minimum holds several
// siblings does the pick scan them.
#pragma once

#include <array>
#include <vector>

#include "scheduler-core/session.h"
#include "scheduler-core/tournament.h"

namespace vtenant::sched {

class JobOrder {
 public:
  // `jobs`: the groups to hand out, each exactly once.
  JobOrder(const Session& session, const std::vector<GroupId>& jobs);
  // Its levels point into itself.
  JobOrder(const JobOrder&) = delete;
  JobOrder& operator=(const JobOrder&) = delete;

  // The next job, or kNone when all have been handed out.
  GroupId Next();

 private:
  // Siblings compared with each other: the roots, or one parent's children.
  struct Level {
    const std::vector<QueueId>* queues;
    Tournament coarse;  // entries: indices into *queues; kept when coarse_
    // Per entry, its queue's coarse rank, side by side for the tournament.
    std::vector<CoarseRank> ranks;
  };

  // Works out queue q's candidate and key again (its children's are
  // current; `children_changed`: some child's standing changed since q's
  // last refresh) and tells q's level. Returns whether q's standing (its
  // key, or whether it has a candidate) changed.
  bool Refresh(QueueId q, bool children_changed);
  // Refresh for q's subtree, children first.
  void RefreshSubtree(QueueId q);
  // The queue of `level` the queue order puts first among those with jobs,
  // kNone when none has any.
  QueueId Best(const Level& level) const;
  bool KeyBefore(QueueId a, QueueId b) const;
  bool CoarseBefore(QueueId a, QueueId b) const;

  // A job waiting in a leaf queue, with what its gang asks for beside it so
  // that handing it out reads the queue's list in order.
  struct Waiting {
    GroupId job;
    ResourceVector need;
  };
  // A key the queue had for one need at the allocation `Standing::seen`.
  struct Remembered {
    ResourceVector need;
    QueueKey key;
  };
  static constexpr size_t kRemembered = 8;
  // Per queue, what Refresh worked out.
  struct Standing {
    GroupId candidate = kNone;
    ResourceVector need;         // the candidate's
    QueueId best_child = kNone;  // parent queues
    ResourceVector allocated;    // the queue's, when the key was worked out
    QueueKey key;                // with the candidate's need
    // Keys for the last needs seen while the queue's allocation stayed
    // `seen`: jobs that place nothing leave it, and a leaf queue's jobs ask
    // for few different needs.
    ResourceVector seen;
    uint32_t remembered = 0;  // how many of `keys` are filled
    uint32_t next = 0;        // the one to overwrite next when all are
    std::array<Remembered, kRemembered> keys;
  };
  // The key of queue q for `need` at its allocation `allocated`, from
  // st.keys when there, else from the QueueOrder (and then remembered).
  const QueueKey& KeyFor(QueueId q, Standing& st, const ResourceVector& need,
                         const ResourceVector& allocated);

  const Session* session_;
  const QueueOrder* queue_order_;           // the session's
  bool coarse_;                             // the queue order has a coarse order
  std::vector<std::vector<Waiting>> jobs_;  // per leaf queue, best first
  std::vector<size_t> cursor_;              // per leaf queue
  std::vector<Standing> standing_;          // per queue
  std::vector<QueueId> parent_;             // per queue, from the snapshot, packed
  std::vector<uint8_t> is_leaf_;            // per queue: has no children
  std::vector<QueueId> roots_;
  std::vector<Level> levels_;          // [0]: the roots
  std::vector<uint32_t> level_of_;     // per queue: the level it is in
  std::vector<uint32_t> children_of_;  // per parent queue: its children's level
  std::vector<uint32_t> index_of_;     // per queue: its place in its level
  QueueId served_ = kNone;             // the leaf last handed out from
  QueueId root_best_ = kNone;          // Best(levels_[0]) after the last refresh
};

}  // namespace vtenant::sched
