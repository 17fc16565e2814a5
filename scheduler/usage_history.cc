#include "scheduler/usage_history.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "scheduler-core/model.h"

namespace vtenant::scheduler {

UsageHistory::UsageHistory(Params params) : params_(params) {}

size_t UsageHistory::QueueIndex(const std::string& queue) {
  return queue_index_.try_emplace(queue, queue_index_.size()).first->second;
}

UsageHistory::Bucket& UsageHistory::BucketAt(int64_t time) {
  const int64_t start = time - time % params_.resolution_s;
  if (buckets_.empty() || buckets_.back().start < start) buckets_.push_back({.start = start});
  while (buckets_.front().start <= time - params_.window_s) buckets_.pop_front();
  return buckets_.back();
}

void UsageHistory::Record(int64_t now,
                          const std::map<std::string, sched::ResourceVector>& allocated,
                          const sched::ResourceVector& capacity) {
  if (last_ >= 0 && now <= last_) return;
  const int64_t since = std::exchange(last_, now);
  if (since < 0) return;
  // Only what lies within the window counts (a long pause between cycles).
  const double seconds = static_cast<double>(std::min(now - since, params_.window_s));
  Bucket& bucket = BucketAt(now);
  for (const auto& [queue, held] : allocated) {
    const size_t i = QueueIndex(queue);
    if (bucket.held.size() <= i) bucket.held.resize(queue_index_.size(), Amounts{});
    for (sched::Resource r : sched::kAllResources)
      bucket.held[i][r] += static_cast<double>(held[r]) * seconds;
  }
  for (sched::Resource r : sched::kAllResources)
    bucket.capacity[r] += static_cast<double>(capacity[r]) * seconds;
}

std::map<std::string, sched::ResourceVector> UsageHistory::Usage(int64_t now) const {
  std::vector<Amounts> held(queue_index_.size(), Amounts{});
  Amounts capacity{};
  for (const Bucket& b : buckets_) {
    if (b.start <= now - params_.window_s) continue;  // out of the window
    // KAI decays each sample by its age; a bucket's samples by the age of
    // its start, to the resolution.
    const double age = static_cast<double>(std::max<int64_t>(0, now - b.start));
    const double weight =
        params_.half_life_s > 0 ? std::exp2(-age / static_cast<double>(params_.half_life_s)) : 1;
    for (size_t i = 0; i < b.held.size(); ++i)
      for (sched::Resource r : sched::kAllResources) held[i][r] += weight * b.held[i][r];
    for (sched::Resource r : sched::kAllResources) capacity[r] += weight * b.capacity[r];
  }
  std::map<std::string, sched::ResourceVector> usage;
  for (const auto& [queue, i] : queue_index_) {
    sched::ResourceVector ppm;
    for (sched::Resource r : sched::kAllResources) {
      if (capacity[r] <= 0 || held[i][r] <= 0) continue;
      const double share = std::round(held[i][r] / capacity[r] * 1e6);
      ppm[r] = static_cast<int64_t>(std::min(share, static_cast<double>(sched::kMaxUsagePpm)));
    }
    if (!ppm.IsZero()) usage.emplace(queue, ppm);
  }
  return usage;
}

}  // namespace vtenant::scheduler
