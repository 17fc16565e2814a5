#include "scheduler/usage_history.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "kube/json_builder.h"
#include "scheduler-core/model.h"

namespace vtenant::scheduler {

UsageHistory::UsageHistory(Params params) : params_(params) {}

size_t UsageHistory::QueueIndex(const std::string& queue) {
  return queue_index_.try_emplace(queue, queue_index_.size()).first->second;
}

int64_t UsageHistory::WindowStart(int64_t now) const {
  if (params_.cron) {
    // A schedule that named no time within its look-back counts that long.
    return params_.cron->LatestAtOrBefore(now).value_or(now -
                                                        CronSchedule::kLookBackDays * 24 * 3600);
  }
  if (!params_.tumbling_start) return now - params_.window_s + 1;
  const int64_t start = *params_.tumbling_start;
  if (now < start) return now + 1;  // no window yet: nothing counts
  return start + (now - start) / params_.window_s * params_.window_s;
}

UsageHistory::Bucket& UsageHistory::BucketAt(int64_t time, int64_t window_start) {
  const int64_t start = time - time % params_.resolution_s;
  if (buckets_.empty() || buckets_.back().start < start) buckets_.push_back({.start = start});
  while (buckets_.size() > 1 && buckets_.front().start < window_start) buckets_.pop_front();
  return buckets_.back();
}

void UsageHistory::Record(int64_t now,
                          const std::map<std::string, sched::ResourceVector>& allocated,
                          const sched::ResourceVector& capacity) {
  if (last_ >= 0 && now <= last_) return;
  const int64_t since = std::exchange(last_, now);
  if (since < 0) return;
  // Only what lies within the window counts (a long pause between cycles).
  const int64_t window_start = WindowStart(now);
  const double seconds = static_cast<double>(std::min(now - since, now - window_start + 1));
  Bucket& bucket = BucketAt(now, window_start);
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
  const int64_t window_start = WindowStart(now);
  for (const Bucket& b : buckets_) {
    if (b.start < window_start) continue;  // out of the window
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

namespace {

constexpr int64_t kSaveVersion = 1;

kube::JsonArray AmountsJson(const std::array<double, sched::kNumResources>& amounts) {
  kube::JsonArray out;
  for (double a : amounts) out.Add(a);
  return out;
}

// `value` as amounts, one a resource; false when it is not such an array.
bool ReadAmounts(const rapidjson::Value& value, std::array<double, sched::kNumResources>* out) {
  if (!value.IsArray() || value.Size() != sched::kNumResources) return false;
  for (rapidjson::SizeType r = 0; r < value.Size(); ++r) {
    if (!value[r].IsNumber() || !std::isfinite(value[r].GetDouble()) || value[r].GetDouble() < 0)
      return false;
    (*out)[r] = value[r].GetDouble();
  }
  return true;
}

}  // namespace

std::string UsageHistory::Save(size_t max_bytes) const {
  std::vector<std::string> names(queue_index_.size());
  for (const auto& [queue, i] : queue_index_) names[i] = queue;
  std::vector<Bucket> buckets(buckets_.begin(), buckets_.end());
  for (;;) {
    kube::JsonArray saved;
    for (const Bucket& b : buckets) {
      kube::JsonObject held;
      for (size_t i = 0; i < b.held.size(); ++i)
        if (b.held[i] != Amounts{}) held.Set(names[i], AmountsJson(b.held[i]));
      saved.Add(kube::JsonObject{
          {"start", b.start}, {"capacity", AmountsJson(b.capacity)}, {"held", std::move(held)}});
    }
    std::string json = kube::ToJson(kube::BuildJson(
        kube::JsonObject{{"version", kSaveVersion}, {"buckets", std::move(saved)}}));
    if (json.size() <= max_bytes || buckets.size() <= 1) return json;
    // Too large: each pair of neighbours becomes one.
    std::vector<Bucket> merged;
    for (size_t b = 0; b < buckets.size(); b += 2) {
      Bucket m = buckets[b];
      if (b + 1 < buckets.size()) {
        const Bucket& next = buckets[b + 1];
        m.held.resize(std::max(m.held.size(), next.held.size()), Amounts{});
        for (size_t i = 0; i < next.held.size(); ++i)
          for (sched::Resource r : sched::kAllResources) m.held[i][r] += next.held[i][r];
        for (sched::Resource r : sched::kAllResources) m.capacity[r] += next.capacity[r];
      }
      merged.push_back(std::move(m));
    }
    buckets = std::move(merged);
  }
}

Status UsageHistory::Restore(std::string_view json) {
  Result<kube::Object> doc = kube::ParseJson(json);
  if (!doc.ok()) return doc.status().WithContext("usage history");
  auto bad = [](std::string what) { return InvalidArgument("usage history: " + what); };
  const rapidjson::Value* version = kube::Find(*doc, {"version"});
  if (version == nullptr || !version->IsInt64() || version->GetInt64() != kSaveVersion)
    return bad("not of version " + std::to_string(kSaveVersion));
  const rapidjson::Value* saved = kube::Find(*doc, {"buckets"});
  if (saved == nullptr || !saved->IsArray()) return bad("no buckets");
  std::deque<Bucket> buckets;
  std::map<std::string, size_t> index;
  for (const rapidjson::Value& b : saved->GetArray()) {
    const rapidjson::Value* start = kube::Find(b, {"start"});
    const rapidjson::Value* capacity = kube::Find(b, {"capacity"});
    const rapidjson::Value* held = kube::Find(b, {"held"});
    Bucket bucket;
    if (start == nullptr || !start->IsInt64() || capacity == nullptr ||
        !ReadAmounts(*capacity, &bucket.capacity) || held == nullptr || !held->IsObject())
      return bad("a bucket without start, capacity and held");
    bucket.start = start->GetInt64();
    if (!buckets.empty() && buckets.back().start >= bucket.start)
      return bad("buckets out of order");
    for (const auto& member : held->GetObject()) {
      const size_t i = index.try_emplace(member.name.GetString(), index.size()).first->second;
      if (bucket.held.size() <= i) bucket.held.resize(i + 1, Amounts{});
      if (!ReadAmounts(member.value, &bucket.held[i]))
        return bad("queue " + std::string(member.name.GetString()) + "'s amounts");
    }
    buckets.push_back(std::move(bucket));
  }
  buckets_ = std::move(buckets);
  queue_index_ = std::move(index);
  last_ = -1;
  return Status::Ok();
}

}  // namespace vtenant::scheduler
