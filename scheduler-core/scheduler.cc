#include "scheduler-core/scheduler.h"

#include <bit>
#include <charconv>
#include <chrono>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string_view>

#include "scheduler-core/actions.h"
#include "scheduler-core/pending_reasons.h"
#include "scheduler-core/session.h"

namespace vtenant::sched {
namespace {

// Appends the parts to `out`: a busy cycle writes tens of thousands of
// eviction messages into one buffer, so it grows once per message and the
// parts are copied in without a bounds check each.
void Append(std::string* out, std::initializer_list<std::string_view> parts) {
  size_t size = 0;
  for (std::string_view p : parts) size += p.size();
  const size_t at = out->size();
  out->resize(at + size);
  char* to = out->data() + at;
  for (std::string_view p : parts) {
    std::memcpy(to, p.data(), p.size());
    to += p.size();
  }
}

// The decimal text of a number, for Append.
class Dec {
 public:
  explicit Dec(int64_t v) : end_(std::to_chars(buf_, buf_ + sizeof buf_, v).ptr) {}
  operator std::string_view() const { return {buf_, static_cast<size_t>(end_ - buf_)}; }

 private:
  char buf_[24];
  char* end_;
};

// Appends why `pod` was evicted (for job `by`) to `out`.
void AppendEvictionMessage(const Session& session, PodId pod, EvictionCause cause, GroupId by,
                           std::string* out) {
  const Snapshot& s = session.snapshot;
  const PodGroup& victim = s.groups[session.pod_group[pod]];
  const std::string& victim_queue = s.queues[victim.queue].name;
  switch (cause) {
    case EvictionCause::kReclaim:
      return Append(out, {"reclaimed for job ", s.groups[by].name, " of queue ",
                          s.queues[s.groups[by].queue].name, ": queue ", victim_queue,
                          " was above its fair share"});
    case EvictionCause::kPreempt:
      return Append(out, {"preempted in queue ", victim_queue, " by job ", s.groups[by].name,
                          " of higher priority (", Dec(s.groups[by].priority), " > ",
                          Dec(victim.priority), ")"});
    case EvictionCause::kConsolidate:
      return Append(out, {"moved to make room for job ", s.groups[by].name});
    case EvictionCause::kStaleGang:
      return Append(out, {"gang ", victim.name, " ran below minMember ", Dec(victim.min_member),
                          " for ", Dec(s.now - victim.stale_since), "s"});
    case EvictionCause::kNone:
      break;
  }
  out->append("evicted");
}

}  // namespace

std::vector<int> DeviceIndices(const Allocation& allocation) {
  std::vector<int> out;
  for (uint64_t m = allocation.device_mask; m != 0; m &= m - 1) out.push_back(std::countr_zero(m));
  return out;
}

Decisions RunCycle(const Snapshot& snapshot, const Options& options) {
  return RunCycle(snapshot, options, nullptr);
}

Decisions RunCycle(const Snapshot& snapshot, const Options& options,
                   std::vector<ActionTime>* times) {
  auto timed = [times](const char* action, auto&& run) {
    const auto start = std::chrono::steady_clock::now();
    run();
    if (times != nullptr)
      times->push_back(
          {action,
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()});
  };
  Session session(snapshot, options);
  std::vector<GroupId> unsatisfied;
  timed("allocate", [&] { unsatisfied = Allocate(session); });
  timed("consolidate", [&] { Consolidate(session, unsatisfied); });
  if (options.reclaim) timed("reclaim", [&] { Reclaim(session, unsatisfied); });
  if (options.preempt) timed("preempt", [&] { Preempt(session, unsatisfied); });
  timed("stale_gang", [&] { EvictStaleGangs(session); });

  // The last eviction of each pod says why it left; copied out of the
  // journal, so that the walk below reads it in pod order. Only the entries
  // of evicted pods are ever read (every pod that ran and is no longer
  // placed has one), so the array is left uninitialised: no pass over it,
  // and only the pages of evicted pods are touched.
  struct Why {
    EvictionCause cause;
    GroupId by;
  };
  const std::unique_ptr<Why[]> last_eviction(new Why[snapshot.pods.size()]);
  size_t evictions = 0;
  for (const Statement::Entry& e : session.statement.journal())
    if (!e.place) last_eviction[e.pod] = {e.cause, e.by}, ++evictions;

  Decisions d;
  PendingReasons reasons(session);
  const ClusterState& state = session.state;
  size_t placed = 0;
  for (const Session::PendingPod& p : session.pending) placed += state.IsPlaced(p.pod);
  d.binds.reserve(placed);
  d.pending.reserve(session.pending.size() - placed);
  d.evictions.reserve(evictions);           // at most: a pod may be evicted more than once
  d.eviction_text.reserve(evictions * 80);  // a typical message's length; it grows past as needed
  for (PodId p = 0; p < snapshot.pods.size(); ++p) {
    // The session's packed phase first: a bound pod never needs its (large)
    // Pod record here.
    if (session.pod_pending[p]) {
      if (state.IsPlaced(p)) {
        d.binds.push_back({p, state.AllocationOf(p)});
      } else {
        d.pending.push_back({p, reasons.For(session.pod_group[p], p)});
      }
      continue;
    }
    const Pod& pod = snapshot.pods[p];
    if (!state.IsPlaced(p)) {
      const auto [cause, by] = last_eviction[p];
      const size_t begin = d.eviction_text.size();
      AppendEvictionMessage(session, p, cause, by, &d.eviction_text);
      d.evictions.push_back(
          {p, cause, by, begin, static_cast<uint32_t>(d.eviction_text.size() - begin)});
    } else if (!(state.AllocationOf(p) == pod.allocation)) {
      d.moves.push_back({p, pod.allocation, state.AllocationOf(p)});
    }
  }
  d.reasons = reasons.TakeTexts();
  for (QueueId q = 0; q < snapshot.queues.size(); ++q)
    d.queues.push_back({q, session.fair_share[q], state.QueueAllocated(q),
                        state.QueueAllocatedNonPreemptible(q), session.requested[q]});
  return d;
}

}  // namespace vtenant::sched
