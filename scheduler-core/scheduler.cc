#include "scheduler-core/scheduler.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include "scheduler-core/actions.h"
#include "scheduler-core/pending_reasons.h"
#include "scheduler-core/session.h"

namespace vtenant::sched {
namespace {

// Writes one message at the end of `out`: a busy cycle writes tens of
// thousands of eviction messages into one buffer. The buffer grows once per
// message, by a bound given up front, and is cut to what was written when
// the writer goes; string literals are copied with their size known at
// compile time (the copy is inlined), numbers are written in place.
class MessageWriter {
 public:
  // More than the literal text of any message below, plus two numbers.
  static constexpr size_t kFixedBound = 128 + 2 * 20;

  MessageWriter(std::string* out, size_t names_size) : out_(out) {
    const size_t at = out->size();
    out->resize(at + kFixedBound + names_size);
    to_ = out->data() + at;
  }
  ~MessageWriter() { out_->resize(static_cast<size_t>(to_ - out_->data())); }

  template <size_t N>
  MessageWriter& operator<<(const char (&literal)[N]) {
    std::memcpy(to_, literal, N - 1);
    to_ += N - 1;
    return *this;
  }
  MessageWriter& operator<<(const std::string& name) {
    std::memcpy(to_, name.data(), name.size());
    to_ += name.size();
    return *this;
  }
  MessageWriter& operator<<(int64_t v) {
    to_ = std::to_chars(to_, to_ + 20, v).ptr;
    return *this;
  }

 private:
  std::string* out_;
  char* to_;
};

// Appends why `pod` was evicted (for job `by`) to `out`.
void AppendEvictionMessage(const Session& session, PodId pod, EvictionCause cause, GroupId by,
                           std::string* out) {
  const Snapshot& s = session.snapshot;
  const PodGroup& victim = s.groups[session.pod_group[pod]];
  const std::string& victim_queue = s.queues[victim.queue].name;
  switch (cause) {
    case EvictionCause::kReclaim: {
      const PodGroup& job = s.groups[by];
      const std::string& job_queue = s.queues[job.queue].name;
      MessageWriter(out, job.name.size() + job_queue.size() + victim_queue.size())
          << "reclaimed for job " << job.name << " of queue " << job_queue << ": queue "
          << victim_queue << " was above its fair share";
      return;
    }
    case EvictionCause::kPreempt: {
      const PodGroup& job = s.groups[by];
      MessageWriter(out, victim_queue.size() + job.name.size())
          << "preempted in queue " << victim_queue << " by job " << job.name
          << " of higher priority (" << int64_t{job.priority} << " > " << int64_t{victim.priority}
          << ")";
      return;
    }
    case EvictionCause::kConsolidate:
      MessageWriter(out, s.groups[by].name.size())
          << "moved to make room for job " << s.groups[by].name;
      return;
    case EvictionCause::kStaleGang:
      MessageWriter(out, victim.name.size())
          << "gang " << victim.name << " ran below minMember " << int64_t{victim.min_member}
          << " for " << int64_t{s.now - victim.stale_since} << "s";
      return;
    case EvictionCause::kNone:
      break;
  }
  MessageWriter(out, 0) << "evicted";
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
  HoldBackWithinPreemptionDelay(session, unsatisfied);
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
  // Only the journal changes where a pod sits, and a rollback restores it
  // exactly: so a pod that ran before the cycle can only have moved if the
  // journal places it again (consolidation). Those few are compared with
  // their Pod records, instead of every running pod's (large, scattered)
  // record.
  std::vector<PodId> placed_again;
  for (const Statement::Entry& e : session.statement.journal()) {
    if (!e.place) {
      last_eviction[e.pod] = {e.cause, e.by};
      ++evictions;
    } else if (!session.pod_pending[e.pod]) {
      placed_again.push_back(e.pod);
    }
  }
  std::sort(placed_again.begin(), placed_again.end());
  placed_again.erase(std::unique(placed_again.begin(), placed_again.end()), placed_again.end());

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
    // The session's packed arrays only: no Pod record is read here.
    if (session.pod_pending[p]) {
      if (state.IsPlaced(p)) {
        d.binds.push_back({p, state.AllocationOf(p)});
      } else {
        d.pending.push_back({p, reasons.For(session.pod_group[p], p)});
      }
      continue;
    }
    if (!state.IsPlaced(p)) {
      const auto [cause, by] = last_eviction[p];
      const size_t begin = d.eviction_text.size();
      AppendEvictionMessage(session, p, cause, by, &d.eviction_text);
      d.evictions.push_back(
          {p, cause, by, begin, static_cast<uint32_t>(d.eviction_text.size() - begin)});
    }
  }
  for (PodId p : placed_again) {
    const Pod& pod = snapshot.pods[p];
    if (state.IsPlaced(p) && !(state.AllocationOf(p) == pod.allocation))
      d.moves.push_back({p, pod.allocation, state.AllocationOf(p)});
  }
  d.reasons = reasons.TakeTexts();
  d.reason_kinds = reasons.TakeKinds();
  d.capacity = state.Capacity();
  for (QueueId q = 0; q < snapshot.queues.size(); ++q)
    d.queues.push_back({q, session.fair_share[q], state.QueueAllocated(q),
                        state.QueueAllocatedNonPreemptible(q), session.requested[q]});
  if (options.report_groups) {
    d.groups.resize(snapshot.groups.size());
    for (GroupId g = 0; g < snapshot.groups.size(); ++g) {
      GroupReport& report = d.groups[g];
      for (PodId p : snapshot.groups[g].pods) {
        if (state.IsPlaced(p)) {
          const ResourceVector usage = state.Usage(p, state.AllocationOf(p));
          report.allocated += usage;
          report.requested += usage;
        } else {
          report.requested += session.estimated[p];
        }
      }
    }
  }
  return d;
}

}  // namespace vtenant::sched
