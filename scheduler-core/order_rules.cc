#include "scheduler-core/order_rules.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>

#include "scheduler-core/radix_sort.h"
#include "scheduler-core/session.h"

namespace vtenant::sched {
namespace {

// The values of KaiQueueOrder's chain for queue q serving `job`, packed
// into one rank in the chain's order, each with the side that goes first
// the smaller: not above the fair share (KAI counts a queue above only when
// it is above in every resource it holds or is entitled to;
// `any_resource`: in any), within the quota with the job, higher priority,
// no resource the fair share gives none of, then the smaller dominant
// share, allocated with the job over max(quota, fair share). One pass over
// the resources works all of them out. `released` (victims the queue would
// give up) counts in the dominant share only, as in KAI's victim order.
CoarseRank KaiRank(const Session& s, QueueId q, const ResourceVector& job,
                   const ResourceVector& released, bool any_resource) {
  const ResourceVector& alloc = s.state.QueueAllocated(q);
  const ResourceVector& fair = s.fair_share[q];
  const Queue& queue = s.snapshot.queues[q];
  bool any_used = false, any_over = false, all_over = true;
  bool within_quota = true, uses_unshared = false;
  double dominant = 0;  // never NaN (its divisors are positive), never -0
  // A fixed count, unrolled, without early exits: every resource is read
  // anyway, and the flags combine without branches.
#pragma GCC unroll 4
  for (int r = 0; r < kNumResources; ++r) {
    const int64_t held = alloc.v[r];
    const int64_t share = fair.v[r];
    const int64_t used = held + job.v[r];
    const int64_t quota = queue.resources[r].quota;  // -1 (unlimited): above any amount
    // Resources the queue neither holds nor is entitled to say nothing
    // about its fair share.
    const bool counts = (held | share) != 0;
    const bool over = held > share;
    any_used |= counts;
    any_over |= counts & over;
    all_over &= !counts | over;
    within_quota &= (quota == kUnlimited) | (used <= quota);
    uses_unshared |= (share == 0) & (used > 0);
    // Quota -1 deserves what it requests: its fair share is the yardstick.
    const int64_t base = std::max(quota == kUnlimited ? 0 : quota, share);
    const int64_t kept = used - released.v[r];
    if (base > 0)
      dominant = std::max(dominant, double(std::max<int64_t>(kept, 0)) / double(base));
    else if (kept > 0)
      dominant = std::numeric_limits<double>::infinity();
  }
  const bool above = any_resource ? any_over : any_used && all_over;
  // Priority: the highest (INT32_MAX) as 0, the lowest as 2^32 - 1.
  const uint64_t below_top = static_cast<uint64_t>(int64_t{INT32_MAX} - queue.priority);
  CoarseRank rank;
  rank.high = uint64_t{above} << 34 | uint64_t{!within_quota} << 33 | below_top << 1 |
              uint64_t{uses_unshared};
  // Non-negative doubles (+inf included) order as their bits do.
  rank.low = std::bit_cast<uint64_t>(dominant);
  return rank;
}

// a's fair share is at most b's everywhere and below it somewhere.
bool SmallerShare(const ResourceVector& a, const ResourceVector& b) {
  bool less = false;
  for (Resource r : kAllResources) {
    if (a[r] > b[r]) return false;
    less = less || a[r] < b[r];
  }
  return less;
}

// What KaiQueueOrder's chain reads of one queue past the coarse rank: the
// queue's own facts, fixed for the cycle.
struct KaiTieKey {
  const ResourceVector* fair_share;  // the session's
  int64_t creation_time;
  const std::string* name;
  QueueId queue;
};

}  // namespace

QueueKey KaiQueueOrder::KeyOf(const Session& s, QueueId q, const ResourceVector& job) const {
  QueueKey key;
  const Queue& queue = s.snapshot.queues[q];
  key.coarse = KaiRank(s, q, job, ResourceVector{}, any_resource_);
  key.As<KaiTieKey>() = {&s.fair_share[q], queue.creation_time, &queue.name, q};
  return key;
}

QueueKey KaiQueueOrder::VictimKeyOf(const Session& s, QueueId q,
                                    const ResourceVector& released) const {
  QueueKey key;
  const Queue& queue = s.snapshot.queues[q];
  key.coarse = KaiRank(s, q, ResourceVector{}, released, any_resource_);
  key.As<KaiTieKey>() = {&s.fair_share[q], queue.creation_time, &queue.name, q};
  return key;
}

bool KaiQueueOrder::KeyBefore(const QueueKey& key_a, const QueueKey& key_b) const {
  if (key_a.coarse != key_b.coarse) return key_a.coarse < key_b.coarse;
  const KaiTieKey& a = key_a.As<KaiTieKey>();
  const KaiTieKey& b = key_b.As<KaiTieKey>();
  if (SmallerShare(*a.fair_share, *b.fair_share)) return true;
  if (SmallerShare(*b.fair_share, *a.fair_share)) return false;
  if (a.creation_time != b.creation_time) return a.creation_time < b.creation_time;
  if (*a.name != *b.name) return *a.name < *b.name;
  return a.queue < b.queue;
}

void JobRank::Sort(const Snapshot& s, std::vector<GroupId>* jobs) const {
  std::sort(jobs->begin(), jobs->end(), [&](GroupId a, GroupId b) { return Before(s, a, b); });
}

void VictimOrder::SortJobs(const Session& s, std::vector<GroupId>* jobs) const {
  std::sort(jobs->begin(), jobs->end(), [&](GroupId a, GroupId b) { return JobFirst(s, a, b); });
}

namespace {

// PriorityThenAgeJobRank's order by comparisons, on keys copied out once.
void SortByComparison(const Snapshot& s, std::vector<GroupId>* jobs) {
  struct Key {
    int32_t priority;
    int64_t creation_time;
    const std::string* name;
    GroupId group;
  };
  std::vector<Key> keys;
  keys.reserve(jobs->size());
  for (GroupId g : *jobs)
    keys.push_back({s.groups[g].priority, s.groups[g].creation_time, &s.groups[g].name, g});
  // Exactly Before's comparisons, on the copies.
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    if (a.creation_time != b.creation_time) return a.creation_time < b.creation_time;
    if (*a.name != *b.name) return *a.name < *b.name;
    return a.group < b.group;
  });
  for (size_t i = 0; i < keys.size(); ++i) (*jobs)[i] = keys[i].group;
}

}  // namespace

void PriorityThenAgeJobRank::Sort(const Snapshot& s, std::vector<GroupId>* jobs) const {
  if (jobs->size() < 2) return;
  int32_t high = s.groups[jobs->front()].priority, low = high;
  int64_t oldest = s.groups[jobs->front()].creation_time, newest = oldest;
  for (GroupId g : *jobs) {
    high = std::max(high, s.groups[g].priority);
    low = std::min(low, s.groups[g].priority);
    oldest = std::min(oldest, s.groups[g].creation_time);
    newest = std::max(newest, s.groups[g].creation_time);
  }
  // Higher priority, then older, as one integer: the priority below the
  // highest in the upper bits, the age after the oldest in the lower ones.
  const int age_bits =
      std::bit_width(static_cast<uint64_t>(newest) - static_cast<uint64_t>(oldest));
  const int priority_bits = std::bit_width(static_cast<uint64_t>(int64_t{high} - low));
  if (age_bits + priority_bits > 64) return SortByComparison(s, jobs);
  std::vector<KeyedId> keys;
  keys.reserve(jobs->size());
  for (GroupId g : *jobs) {
    const uint64_t below = static_cast<uint64_t>(int64_t{high} - s.groups[g].priority);
    const uint64_t age =
        static_cast<uint64_t>(s.groups[g].creation_time) - static_cast<uint64_t>(oldest);
    keys.push_back({(age_bits == 64 ? 0 : below << age_bits) | age, g});
  }
  std::vector<KeyedId> scratch;
  RadixSortByKey(keys, age_bits + priority_bits, &scratch);
  // Equal priority and age: the smaller name, then the lower id.
  for (size_t i = 0, j = 0; i < keys.size(); i = j) {
    while (j < keys.size() && keys[j].key == keys[i].key) ++j;
    if (j - i < 2) continue;
    std::sort(keys.begin() + i, keys.begin() + j, [&](const KeyedId& a, const KeyedId& b) {
      const std::string& na = s.groups[a.id].name;
      const std::string& nb = s.groups[b.id].name;
      return na != nb ? na < nb : a.id < b.id;
    });
  }
  for (size_t i = 0; i < keys.size(); ++i) (*jobs)[i] = keys[i].id;
}

bool PriorityThenAgeJobRank::Before(const Snapshot& s, GroupId a, GroupId b) const {
  const PodGroup& ga = s.groups[a];
  const PodGroup& gb = s.groups[b];
  if (ga.priority != gb.priority) return ga.priority > gb.priority;
  if (ga.creation_time != gb.creation_time) return ga.creation_time < gb.creation_time;
  if (ga.name != gb.name) return ga.name < gb.name;
  return a < b;
}

std::pair<QueueId, QueueId> SiblingsBelowCommonAncestor(const Snapshot& s, QueueId a, QueueId b) {
  auto depth = [&](QueueId q) {
    int d = 0;
    for (; s.queues[q].parent != kNone; q = s.queues[q].parent) ++d;
    return d;
  };
  int da = depth(a), db = depth(b);
  while (da > db) a = s.queues[a].parent, --da;
  while (db > da) b = s.queues[b].parent, --db;
  while (s.queues[a].parent != s.queues[b].parent) a = s.queues[a].parent, b = s.queues[b].parent;
  return {a, b};
}

bool ReverseAllocationVictimOrder::QueueFirst(const Session& s, QueueId a, QueueId b) const {
  if (a == b) return false;
  auto [sa, sb] = SiblingsBelowCommonAncestor(s.snapshot, a, b);
  const ResourceVector none;
  // The queue allocation would serve last gives up its jobs first.
  if (sa != sb) {
    if (s.rules.queue_order->Before(s, sb, none, sa, none)) return true;
    if (s.rules.queue_order->Before(s, sa, none, sb, none)) return false;
  }
  return a < b;
}

bool ReverseAllocationVictimOrder::JobFirst(const Session& s, GroupId a, GroupId b) const {
  const PodGroup& ga = s.snapshot.groups[a];
  const PodGroup& gb = s.snapshot.groups[b];
  if (ga.priority != gb.priority) return ga.priority < gb.priority;
  if (ga.creation_time != gb.creation_time) return ga.creation_time > gb.creation_time;
  if (s.group_start[a] != s.group_start[b]) return s.group_start[a] > s.group_start[b];
  return a > b;
}

void ReverseAllocationVictimOrder::SortJobs(const Session& s, std::vector<GroupId>* jobs) const {
  struct Key {
    int32_t priority;
    int64_t creation_time;
    int64_t start;
    GroupId group;
  };
  std::vector<Key> keys;
  keys.reserve(jobs->size());
  for (GroupId g : *jobs)
    keys.push_back(
        {s.snapshot.groups[g].priority, s.snapshot.groups[g].creation_time, s.group_start[g], g});
  // Exactly JobFirst's comparisons, on the copies.
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    if (a.priority != b.priority) return a.priority < b.priority;
    if (a.creation_time != b.creation_time) return a.creation_time > b.creation_time;
    if (a.start != b.start) return a.start > b.start;
    return a.group > b.group;
  });
  for (size_t i = 0; i < keys.size(); ++i) (*jobs)[i] = keys[i].group;
}

namespace {

// VictimOrder::Merge's default: the lists one after the other.
class ConcatenatedVictims : public VictimMerger {
 public:
  explicit ConcatenatedVictims(std::span<const std::span<const GroupId>> lists) : lists_(lists) {}
  bool Next(std::vector<GroupId>* out) override {
    while (list_ < lists_.size() && at_ == lists_[list_].size()) ++list_, at_ = 0;
    if (list_ == lists_.size()) return false;
    out->push_back(lists_[list_][at_++]);
    return true;
  }

 private:
  std::span<const std::span<const GroupId>> lists_;
  size_t list_ = 0, at_ = 0;
};

}  // namespace

std::unique_ptr<VictimMerger> VictimOrder::Merge(
    const Session& s, std::span<const QueueId> queues,
    std::span<const std::span<const GroupId>> lists) const {
  return std::make_unique<ConcatenatedVictims>(lists);
}

namespace {

// What job g holds now: its placed pods' allocations.
ResourceVector HeldBy(const Session& s, GroupId g) {
  ResourceVector held;
  for (PodId p : s.snapshot.groups[g].pods)
    if (s.state.IsPlaced(p)) held += s.state.Usage(p, s.state.AllocationOf(p));
  return held;
}

// ReverseAllocationVictimOrder::Merge's walk: the victims' queues and their
// ancestors as a tree, each queue with what was taken below it so far.
// Taking a victim changes the keys of its queue and its ancestors only, so
// each pick recomputes a few keys and compares the siblings on its path.
class VictimMerge : public VictimMerger {
 public:
  VictimMerge(const Session& s, std::span<const QueueId> queues,
              std::span<const std::span<const GroupId>> lists)
      : s_(s), order_(*s.rules.queue_order), lists_(lists) {
    std::vector<int> node_of(s.snapshot.queues.size(), -1);
    auto add = [&](QueueId q, size_t first) {
      node_of[q] = static_cast<int>(nodes_.size());
      nodes_.push_back({.queue = q, .first = first});
      return node_of[q];
    };
    for (size_t i = 0; i < queues.size(); ++i) {
      int child = add(queues[i], i);
      nodes_[child].list = static_cast<int>(i);
      // Up to the first ancestor met before (linked already) or a root.
      for (QueueId p = s.snapshot.queues[queues[i]].parent; p != kNone;
           p = s.snapshot.queues[p].parent) {
        const bool met = node_of[p] >= 0;
        const int parent = met ? node_of[p] : add(p, i);
        nodes_[child].parent = parent;
        nodes_[parent].children.push_back(child);
        if (met) break;
        child = parent;
      }
      for (int a = node_of[queues[i]]; a >= 0; a = nodes_[a].parent)
        nodes_[a].left += lists[i].size();
    }
    for (int n = 0; n < static_cast<int>(nodes_.size()); ++n)
      if (nodes_[n].parent < 0) roots_.push_back(n);
    for (Node& node : nodes_)
      if (node.list >= 0 && !lists_[node.list].empty())
        node.next = HeldBy(s_, lists_[node.list][0]);
  }

  bool Next(std::vector<GroupId>* out) override {
    int n = Pick(roots_);
    if (n < 0) return false;
    while (nodes_[n].list < 0) n = Pick(nodes_[n].children);
    Node& leaf = nodes_[n];
    out->push_back(lists_[leaf.list][leaf.cursor++]);
    const ResourceVector taken = leaf.next;
    leaf.next = leaf.cursor < lists_[leaf.list].size() ? HeldBy(s_, lists_[leaf.list][leaf.cursor])
                                                       : ResourceVector{};
    for (int a = n; a >= 0; a = nodes_[a].parent) {
      nodes_[a].taken += taken;
      --nodes_[a].left;
      nodes_[a].fresh = false;
    }
    return true;
  }

 private:
  struct Node {
    QueueId queue;
    size_t first;  // the smallest index into `queues` below it: the tie-break
    int parent = -1;
    std::vector<int> children;
    int list = -1;  // a leaf's index into `lists`
    size_t cursor = 0;
    size_t left = 0;       // victims not yet taken below it
    ResourceVector taken;  // victims taken below it
    ResourceVector next;   // a leaf's next victim
    bool fresh = false;    // key is up to date
    QueueKey key;
  };

  // The child of `siblings` the victim order takes from first (-1: none
  // has victims left).
  int Pick(const std::vector<int>& siblings) {
    int best = -1;
    for (int c : siblings) {
      if (nodes_[c].left == 0) continue;
      if (best < 0 || GivesFirst(c, best)) best = c;
    }
    return best;
  }

  bool GivesFirst(int a, int b) {
    const QueueKey& ka = KeyOf(a);
    const QueueKey& kb = KeyOf(b);
    if (order_.KeyBefore(kb, ka)) return true;
    if (order_.KeyBefore(ka, kb)) return false;
    return nodes_[a].first < nodes_[b].first;
  }

  const QueueKey& KeyOf(int n) {
    if (!nodes_[n].fresh) {
      int leaf = n;
      while (nodes_[leaf].list < 0) leaf = Pick(nodes_[leaf].children);
      nodes_[n].key = order_.VictimKeyOf(s_, nodes_[n].queue, nodes_[n].taken + nodes_[leaf].next);
      nodes_[n].fresh = true;
    }
    return nodes_[n].key;
  }

  const Session& s_;
  const QueueOrder& order_;
  std::span<const std::span<const GroupId>> lists_;
  std::vector<Node> nodes_;
  std::vector<int> roots_;
};

}  // namespace

std::unique_ptr<VictimMerger> ReverseAllocationVictimOrder::Merge(
    const Session& s, std::span<const QueueId> queues,
    std::span<const std::span<const GroupId>> lists) const {
  if (queues.size() < 2) return VictimOrder::Merge(s, queues, lists);
  return std::make_unique<VictimMerge>(s, queues, lists);
}

Rules WithDefaults(Rules rules) {
  if (!rules.queue_order) rules.queue_order = std::make_shared<KaiQueueOrder>();
  if (!rules.job_rank) rules.job_rank = std::make_shared<PriorityThenAgeJobRank>();
  if (!rules.victim_order) rules.victim_order = std::make_shared<ReverseAllocationVictimOrder>();
  return rules;
}

}  // namespace vtenant::sched
