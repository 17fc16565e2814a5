// UsageHistory: what each queue held over a past window, for KAI's
// time-based fairshare (fair_share.h). KAI reads it from Prometheus: the
// sum over the window of each queue's allocated resources (sampled every
// minute, optionally decayed by a half-life), over the same sum of the
// cluster's capacity. Here the scheduler keeps those sums itself, from
// what each cycle allocated, in buckets of a fixed length, so no
// Prometheus is needed. Save and Restore carry it across a restart or a
// change of leader (usage_store.h keeps it in a ConfigMap); the time no
// scheduler ran is not counted.
//
//   UsageHistory history({.window_s = 7 * 24 * 3600});
//   history.Record(now, allocated_by_queue, capacity);  // after each cycle
//   view.SetQueueUsage(history.Usage(now));             // before the next
//
// Not thread-safe: the scheduling cycle alone uses it.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/cron_schedule.h"
#include "base/status.h"
#include "scheduler-core/resources.h"

namespace vtenant::scheduler {

class UsageHistory {
 public:
  struct Params {
    int64_t window_s = 7 * 24 * 3600;  // KAI's windowSize, sliding (1w)
    // How finely the window is kept: a recorded interval counts in the
    // bucket it ends in, and the window moves, and usage ages, a bucket at
    // a time (at most window_s).
    int64_t resolution_s = 600;
    // KAI's halfLifePeriod: usage this long ago counts half; 0: no decay.
    int64_t half_life_s = 0;
    // KAI's tumbling window (tumblingWindowStartTime), in seconds: the
    // window starts afresh at this time and every window_s after it, so
    // usage counts from the latest such start (to the resolution); none
    // before it. Unset: a sliding window, the last window_s.
    std::optional<int64_t> tumbling_start;
    // KAI's cron window (cronString): usage counts from the latest time
    // the schedule names (to the resolution), and window_s and
    // tumbling_start are not read.
    std::optional<CronSchedule> cron;
  };
  explicit UsageHistory(Params params);

  // Records that from the previous Record until `now` (seconds; the first
  // call only starts the clock) each queue in `allocated` (by name,
  // parents with their subtree's total) held that, and the cluster had
  // `capacity`. A `now` not after the previous one records nothing.
  void Record(int64_t now, const std::map<std::string, sched::ResourceVector>& allocated,
              const sched::ResourceVector& capacity);

  // Each queue's usage at `now`, per resource, in parts per million of the
  // capacity over the window: the decayed sum of what it held over the
  // decayed sum of the capacity. Queues with no usage left in the window
  // are not listed.
  std::map<std::string, sched::ResourceVector> Usage(int64_t now) const;

  // The history as a JSON document Restore reads, of at most `max_bytes`
  // where it can be: neighbouring buckets are merged, halving their number,
  // until it fits (their usage ages from the older one's start).
  std::string Save(size_t max_bytes) const;

  // Replaces the history with one Save wrote; the next Record only starts
  // the clock again. InvalidArgument, the history unchanged, when `json` is
  // not such a document.
  Status Restore(std::string_view json);

 private:
  // Resource-seconds, kept as doubles: memory bytes over a week overflow
  // an int64_t.
  using Amounts = std::array<double, sched::kNumResources>;
  struct Bucket {
    int64_t start = 0;          // seconds, a multiple of resolution_s
    std::vector<Amounts> held;  // by queue index
    Amounts capacity{};
  };
  // The earliest bucket start that counts at `now`: the window's start. A
  // cron window's walks the calendar, so each caller works it out once.
  int64_t WindowStart(int64_t now) const;
  // The bucket of `time`, made when missing; drops those that start before
  // `window_start` (WindowStart(time)).
  Bucket& BucketAt(int64_t time, int64_t window_start);
  size_t QueueIndex(const std::string& queue);

  const Params params_;
  int64_t last_ = -1;           // the previous Record's time; -1: none yet
  std::deque<Bucket> buckets_;  // oldest first
  std::map<std::string, size_t> queue_index_;
};

}  // namespace vtenant::scheduler
