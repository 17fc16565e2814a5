#include "scheduler-core/fair_share.h"

#include <algorithm>
#include <map>

namespace vtenant::sched {
namespace {

struct Division {
  const std::vector<Queue>& queues;
  const std::vector<ResourceVector>& requested;
  std::vector<ResourceVector>& fair;
  Resource r;
  bool kai_exact = false;
  int64_t usage_k_milli = 0;

  int64_t Requestable(QueueId q) const {
    int64_t want = requested[q][r];
    int64_t limit = queues[q].resources[r].limit;
    return limit == kUnlimited ? want : std::min(want, limit);
  }
  int64_t Weight(QueueId q) const { return queues[q].resources[r].over_quota_weight_milli; }
  int64_t Need(QueueId q) const { return std::max<int64_t>(0, Requestable(q) - fair[q][r]); }

  // The weights `unsatisfied` share a round by. Without usage, their
  // overQuotaWeights. With it, KAI's time-based fairshare
  // (calcShareWeights): each weight normalized to their total, raised by k
  // times how far the queue's usage lies below that, or lowered by how far
  // above, floored at 0. Kept integral: scaled by the total weight, 1000
  // (k is in thousandths) and a million (usage is in parts per million).
  std::vector<__int128> ShareWeights(const std::vector<QueueId>& unsatisfied) const {
    std::vector<__int128> weights;
    bool any_usage = false;
    __int128 total = 0;
    for (QueueId q : unsatisfied) {
      weights.push_back(Weight(q));
      total += Weight(q);
      any_usage = any_usage || queues[q].usage_ppm[r] > 0;
    }
    if (usage_k_milli == 0 || !any_usage) return weights;
    for (size_t i = 0; i < unsatisfied.size(); ++i) {
      const __int128 raised = weights[i] * (1000 + usage_k_milli) * 1'000'000;
      const __int128 lowered =
          static_cast<__int128>(usage_k_milli) * queues[unsatisfied[i]].usage_ppm[r] * total;
      weights[i] = std::max<__int128>(0, raised - lowered);
    }
    return weights;
  }

  // KAI hands over-quota GPU out in whole devices ("for better usability"),
  // so a queue's share above its quota is a whole number of GPUs; CPU and
  // memory are divided to the unit.
  int64_t Unit() const { return r == kGpu ? kMilliPerGpu : 1; }

  // Rounds by weight among the queues of one priority; returns what is left.
  // Each round offers every unsatisfied queue pool * weight / total weight,
  // floored to the unit; a queue that needs less takes what it needs and
  // the round is repeated with what it left. When nobody was satisfied, the
  // floors' leftovers go one unit each to the largest remainders (ties: the
  // older queue, then the smaller name), as KAI's divideRemainingResource.
  int64_t OverQuota(const std::vector<QueueId>& bucket, int64_t remaining) {
    const int64_t unit = Unit();
    std::vector<QueueId> unsatisfied;
    std::vector<__int128> remainder;
    while (remaining > 0) {
      unsatisfied.clear();
      for (QueueId q : bucket)
        if (Weight(q) > 0 && Need(q) > 0) unsatisfied.push_back(q);
      const std::vector<__int128> weight = ShareWeights(unsatisfied);
      __int128 total_weight = 0;
      for (__int128 w : weight) total_weight += w;
      if (total_weight == 0) break;
      const int64_t pool = remaining;
      bool someone_satisfied = false;
      remainder.assign(unsatisfied.size(), 0);
      for (size_t i = 0; i < unsatisfied.size(); ++i) {
        QueueId q = unsatisfied[i];
        // exact / total_weight is the queue's exact share of the pool.
        const __int128 exact = static_cast<__int128>(pool) * weight[i];
        if (static_cast<__int128>(Need(q)) * total_weight <= exact) {
          const int64_t give = Need(q);
          fair[q][r] += give;
          remaining -= give;
          someone_satisfied = true;
          continue;
        }
        const __int128 unit_weight = static_cast<__int128>(unit) * total_weight;
        const int64_t give = static_cast<int64_t>(exact / unit_weight) * unit;
        remainder[i] = exact - static_cast<__int128>(give) * total_weight;
        fair[q][r] += give;
        remaining -= give;
      }
      if (someone_satisfied) continue;  // what they left over goes round again
      std::vector<size_t> order(unsatisfied.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (remainder[a] != remainder[b]) return remainder[a] > remainder[b];
        const Queue& qa = queues[unsatisfied[a]];
        const Queue& qb = queues[unsatisfied[b]];
        if (qa.creation_time != qb.creation_time) return qa.creation_time < qb.creation_time;
        return qa.name < qb.name;
      });
      bool leftover_satisfied = false;
      for (size_t i : order) {
        if (remaining == 0) break;
        QueueId q = unsatisfied[i];
        // KAI gives a whole unit even past the request; we stop at the
        // request so a share never exceeds what the queue can use.
        const int64_t give = std::min({unit, remaining, Need(q)});
        fair[q][r] += give;
        remaining -= give;
        leftover_satisfied = leftover_satisfied || Need(q) == 0;
      }
      if (!leftover_satisfied) break;
    }
    return remaining;
  }

  // KAI's divideOverQuotaResource as it is: every priority's rounds first,
  // a priority with a single queue giving it everything left (asked for or
  // not), then the rounds' leftovers, priority by priority, one whole unit
  // to each queue by largest remainder, past its request if need be.
  int64_t OverQuotaKaiExact(const std::vector<std::vector<QueueId>>& buckets, int64_t remaining) {
    const int64_t unit = Unit();
    // Per bucket: queues with a remainder from the last round they were in.
    std::vector<std::map<QueueId, long double>> leftovers(buckets.size());
    for (size_t b = 0; b < buckets.size(); ++b) {
      const std::vector<QueueId>& bucket = buckets[b];
      if (bucket.size() == 1) {
        fair[bucket[0]][r] += remaining;
        remaining = 0;
        continue;
      }
      while (remaining > 0) {
        std::vector<QueueId> unsatisfied;
        for (QueueId q : bucket)
          if (Need(q) > 0) unsatisfied.push_back(q);
        const std::vector<__int128> weight = ShareWeights(unsatisfied);
        __int128 total_weight = 0;
        for (__int128 w : weight) total_weight += w;
        if (total_weight == 0) break;
        const int64_t pool = remaining;
        bool another_round = false;
        for (size_t i = 0; i < unsatisfied.size(); ++i) {
          const QueueId q = unsatisfied[i];
          if (remaining == 0) break;
          if (Need(q) == 0 || weight[i] == 0) continue;
          const __int128 exact = static_cast<__int128>(pool) * weight[i];
          if (static_cast<__int128>(Need(q)) * total_weight <= exact) {
            another_round = another_round || static_cast<__int128>(Need(q)) * total_weight < exact;
            remaining -= Need(q);
            fair[q][r] += Need(q);
            leftovers[b].erase(q);
            continue;
          }
          const int64_t give =
              static_cast<int64_t>(exact / (static_cast<__int128>(unit) * total_weight)) * unit;
          const __int128 rest = exact - static_cast<__int128>(give) * total_weight;
          if (rest > 0)
            leftovers[b][q] =
                static_cast<long double>(rest) / static_cast<long double>(total_weight);
          fair[q][r] += give;
          remaining -= give;
        }
        if (!another_round) break;
      }
    }
    for (size_t b = 0; b < buckets.size() && remaining > 0; ++b) {
      std::vector<std::pair<long double, QueueId>> order;
      for (const auto& [q, rest] : leftovers[b]) order.emplace_back(rest, q);
      std::stable_sort(order.begin(), order.end(), [&](const auto& x, const auto& y) {
        if (x.first != y.first) return x.first > y.first;
        const Queue& qa = queues[x.second];
        const Queue& qb = queues[y.second];
        if (qa.creation_time != qb.creation_time) return qa.creation_time < qb.creation_time;
        return qa.name < qb.name;
      });
      for (const auto& [_, q] : order) {
        if (remaining == 0) break;
        const int64_t give = std::min(unit, remaining);
        fair[q][r] += give;
        remaining -= give;
      }
    }
    return remaining;
  }

  void DivideAmongSiblings(std::vector<QueueId> siblings, int64_t amount) {
    int64_t remaining = amount;
    for (QueueId q : siblings) {
      int64_t quota = queues[q].resources[r].quota;
      int64_t deserved = quota == kUnlimited ? amount : quota;
      int64_t give = std::max<int64_t>(0, std::min(deserved, Requestable(q)));
      fair[q][r] = give;
      remaining -= give;
    }
    std::stable_sort(siblings.begin(), siblings.end(),
                     [&](QueueId a, QueueId b) { return queues[a].priority > queues[b].priority; });
    std::vector<std::vector<QueueId>> buckets;
    for (size_t begin = 0; begin < siblings.size();) {
      size_t end = begin;
      while (end < siblings.size() &&
             queues[siblings[end]].priority == queues[siblings[begin]].priority)
        ++end;
      buckets.emplace_back(siblings.begin() + begin, siblings.begin() + end);
      begin = end;
    }
    if (kai_exact && remaining > 0) {
      OverQuotaKaiExact(buckets, remaining);
    } else {
      for (const std::vector<QueueId>& bucket : buckets)
        if (remaining > 0) remaining = OverQuota(bucket, remaining);
    }
    for (QueueId q : siblings)
      if (!queues[q].children.empty()) DivideAmongSiblings(queues[q].children, fair[q][r]);
  }
};

}  // namespace

std::vector<ResourceVector> RollUp(const std::vector<Queue>& queues,
                                   const std::vector<ResourceVector>& per_queue) {
  std::vector<ResourceVector> total = per_queue;
  for (QueueId q = 0; q < queues.size(); ++q) {
    for (QueueId a = queues[q].parent; a != kNone; a = queues[a].parent) total[a] += per_queue[q];
  }
  return total;
}

std::vector<ResourceVector> ComputeFairShare(const std::vector<Queue>& queues,
                                             const std::vector<ResourceVector>& requested,
                                             const ResourceVector& capacity, bool kai_exact,
                                             int64_t usage_k_milli) {
  std::vector<ResourceVector> fair(queues.size());
  std::vector<QueueId> top;
  for (QueueId q = 0; q < queues.size(); ++q)
    if (queues[q].parent == kNone) top.push_back(q);
  for (Resource r : kAllResources) {
    Division division{queues, requested, fair, r, kai_exact, usage_k_milli};
    division.DivideAmongSiblings(top, capacity[r]);
  }
  return fair;
}

}  // namespace vtenant::sched
