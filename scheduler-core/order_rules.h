// The orders a cycle follows, each behind one small interface so a new rule
// is one new class: which sibling queue is served first (QueueOrder), which
// job of a leaf queue (JobRank), and which running job is evicted first
// (VictimOrder). Defaults follow KAI Scheduler; Options::rules replaces any
// of them. Node scoring is the fourth extension point: PlacementRule in
// placement_rule.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <vector>

#include "scheduler-core/model.h"
#include "scheduler-core/resources.h"

namespace vtenant::sched {

struct Session;

// A queue order's coarse order (QueueOrder::HasCoarseOrder) as one
// 128-bit number, the smaller first: comparing two is two integer
// comparisons, where a busy cycle makes millions of them.
struct CoarseRank {
  uint64_t high = 0;
  uint64_t low = 0;
  friend bool operator<(const CoarseRank& a, const CoarseRank& b) {
    return a.high != b.high ? a.high < b.high : a.low < b.low;
  }
  bool operator==(const CoarseRank&) const = default;
};

// What a QueueOrder compares of one queue serving one job, worked out once:
// a busy cycle compares sibling queues over a million times, while a
// queue's standing changes only when it is served. `coarse` is the coarse
// rank where the rule has one; the bytes belong to the rule that filled
// them (KeyOf writes its own struct, KeyBefore reads it).
class QueueKey {
 public:
  CoarseRank coarse;

  // The rule's own view of the bytes. T must be trivially copyable and fit.
  template <typename T>
  T& As() {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= kBytes &&
                  alignof(T) <= alignof(std::max_align_t));
    return *std::launder(reinterpret_cast<T*>(bytes_));
  }
  template <typename T>
  const T& As() const {
    return const_cast<QueueKey*>(this)->As<T>();
  }

 private:
  static constexpr size_t kBytes = 48;
  alignas(std::max_align_t) std::byte bytes_[kBytes] = {};
};

// Orders sibling queues (children of one parent, or two roots) for
// allocation, each judged with what its next job asks for (zero when there
// is none, as for a victim's queue).
class QueueOrder {
 public:
  virtual ~QueueOrder() = default;
  // The key of queue `q` serving a job that asks for `job`, at the session's
  // current state. It may depend on the session's fixed facts, q's
  // allocation and `job` only: allocation keeps a key while q's allocation
  // and its next job's need stay the same.
  virtual QueueKey KeyOf(const Session& session, QueueId q, const ResourceVector& job) const = 0;
  // True when the queue keyed `a` should be served before the one keyed
  // `b`. Asymmetric on keys of sibling queues, not necessarily transitive
  // (KAI's chain is not): allocation serves the first sibling, in order,
  // that a scan keeping its first best ends on.
  virtual bool KeyBefore(const QueueKey& a, const QueueKey& b) const = 0;

  // The key of queue `q` as the queue victims are taken from, with
  // `released` the victims already taken from it (or below it) and the next
  // one: KAI orders victims' queues as it orders queues for allocation with
  // no job, but judges each one's share without those victims, so that
  // victims come from the queue that would still hold the most after giving
  // them up. The default ignores `released`.
  virtual QueueKey VictimKeyOf(const Session& session, QueueId q,
                               const ResourceVector& released) const {
    return KeyOf(session, q, ResourceVector{});
  }

  // Optional, to pick among many siblings with fewer comparisons: when
  // HasCoarseOrder is true (the default is false), KeyOf fills key.coarse
  // so that KeyBefore(a, b) whenever a.coarse < b.coarse. The scan above
  // then ends inside the coarse minimum, on what the same scan of the
  // minimum alone ends on, so a Tournament on the ranks narrows the pick
  // down (tournament.h).
  virtual bool HasCoarseOrder() const { return false; }
  static bool CoarseBefore(const QueueKey& a, const QueueKey& b) { return a.coarse < b.coarse; }

  // KeyBefore on both queues' keys worked out now.
  bool Before(const Session& session, QueueId a, const ResourceVector& a_job, QueueId b,
              const ResourceVector& b_job) const {
    return KeyBefore(KeyOf(session, a, a_job), KeyOf(session, b, b_job));
  }
};

// Orders the jobs of one leaf queue for allocation.
class JobRank {
 public:
  virtual ~JobRank() = default;
  virtual bool Before(const Snapshot& snapshot, GroupId a, GroupId b) const = 0;
  // Sorts `jobs` (of one leaf queue) by Before. A rule may override it with
  // a faster sort giving the same order.
  virtual void Sort(const Snapshot& snapshot, std::vector<GroupId>* jobs) const;
};

// Several victim queues' lists as one rank, produced a victim at a time, so
// a caller pays only for the part it reads (VictimOrder::Merge).
class VictimMerger {
 public:
  virtual ~VictimMerger() = default;
  // Appends the next victim to *out; false when none is left.
  virtual bool Next(std::vector<GroupId>* out) = 0;
};

// Orders running jobs as victims: who is evicted first.
class VictimOrder {
 public:
  virtual ~VictimOrder() = default;
  // Victims of leaf queue `a` go before those of leaf queue `b`.
  virtual bool QueueFirst(const Session& session, QueueId a, QueueId b) const = 0;
  // Within one leaf queue, `a` goes before `b`.
  virtual bool JobFirst(const Session& session, GroupId a, GroupId b) const = 0;
  // Sorts `jobs` (of one leaf queue) by JobFirst. A rule may override it
  // with a faster sort giving the same order.
  virtual void SortJobs(const Session& session, std::vector<GroupId>* jobs) const;
  // The victims of several leaf queues as one rank, the first to go first:
  // `queues` sorted by QueueFirst, lists[i] the jobs of queues[i] in
  // JobFirst order, both outliving the merger, which reads the session as
  // it stands at each Next. The default concatenates the lists in order.
  virtual std::unique_ptr<VictimMerger> Merge(
      const Session& session, std::span<const QueueId> queues,
      std::span<const std::span<const GroupId>> lists) const;
};

// KAI's queue order (proportion plugin), in this order: a queue not above
// its fair share before one above; a queue that stays within its quota with
// the job before one that does not; higher queue priority; a queue that
// would use a resource it has no share of after one that would not; the
// smaller dominant
// share, allocated with the job over max(quota, fair share); the smaller
// fair share; the queue created first; then the smaller name.
class KaiQueueOrder : public QueueOrder {
 public:
  // KAI counts a queue as above its fair share only when it is above in
  // every resource (ResourceQuantities.Less), so a queue over its GPU share
  // but not its CPU share is "below". `any_resource` counts it as above
  // when any resource it holds is over: the better rule, off by default.
  explicit KaiQueueOrder(bool any_resource = false) : any_resource_(any_resource) {}
  QueueKey KeyOf(const Session& session, QueueId q, const ResourceVector& job) const override;
  // The dominant share is the queue's allocation less `released`; the rest
  // of the chain is as KeyOf with no job (KAI's order with victims).
  QueueKey VictimKeyOf(const Session& session, QueueId q,
                       const ResourceVector& released) const override;
  bool KeyBefore(const QueueKey& a, const QueueKey& b) const override;
  // The coarse rank is the chain up to the dominant share: values, packed
  // in the chain's order, so a strict weak order. The rest (fair shares,
  // which compare only partially, creation, name) may not be transitive,
  // and decides only ties of this part.
  bool HasCoarseOrder() const override { return true; }

 private:
  bool any_resource_;
};

// Higher priority, then older, then the smaller name.
class PriorityThenAgeJobRank : public JobRank {
 public:
  bool Before(const Snapshot& snapshot, GroupId a, GroupId b) const override;
  // Sorts on priority and age packed into one integer (radix_sort.h), ties
  // by name and id: a busy cycle sorts 100k jobs. Falls back to comparing
  // copied keys when priority and age span more than 64 bits together.
  void Sort(const Snapshot& snapshot, std::vector<GroupId>* jobs) const override;
};

// The reverse of allocation's orders, as KAI ranks victims: queues compared
// where fairness between them is decided (the children of their common
// ancestor), the one the queue order would serve last first; within a queue
// the lowest priority first, then the newest (creation, then start time).
class ReverseAllocationVictimOrder : public VictimOrder {
 public:
  bool QueueFirst(const Session& session, QueueId a, QueueId b) const override;
  bool JobFirst(const Session& session, GroupId a, GroupId b) const override;
  // Sorts on the keys copied out once (see PriorityThenAgeJobRank::Sort).
  void SortJobs(const Session& session, std::vector<GroupId>* jobs) const override;
  // KAI's interleaving: each next victim comes from the queue the queue
  // order would serve last, level by level down the tree, each queue judged
  // by VictimKeyOf without the victims already taken from it and its next
  // one. Two queues above their fair share so give up their victims in
  // turn, each down towards its share, instead of the first giving up all
  // it may before the second gives any (ties: QueueFirst's order).
  std::unique_ptr<VictimMerger> Merge(
      const Session& session, std::span<const QueueId> queues,
      std::span<const std::span<const GroupId>> lists) const override;
};

// The rules one cycle uses; unset ones take the defaults above.
struct Rules {
  std::shared_ptr<const QueueOrder> queue_order;
  std::shared_ptr<const JobRank> job_rank;
  std::shared_ptr<const VictimOrder> victim_order;
};

// `rules` with every unset rule filled with its default.
Rules WithDefaults(Rules rules);

// The two children of the lowest common ancestor of `a` and `b` on their
// paths (or the two roots when they share none): where fairness between
// them is decided.
std::pair<QueueId, QueueId> SiblingsBelowCommonAncestor(const Snapshot& s, QueueId a, QueueId b);

}  // namespace vtenant::sched
