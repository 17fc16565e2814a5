#include "scheduler-core/pending_reasons.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iterator>
#include <vector>

#include "base/rfc3339.h"

namespace vtenant::sched {
namespace {

// `seconds` since the epoch as metav1.Time writes it ("2026-12-05T22:30:00Z"),
// so that a note says when, in the words the rest of a PodGroup's status uses.
std::string UtcTimeText(int64_t seconds) {
  return FormatRfc3339(std::chrono::system_clock::from_time_t(static_cast<std::time_t>(seconds)));
}

std::string WhatItNeeds(const PodRequest& r, FitFailure f) {
  switch (f) {
    case FitFailure::kSharedGpu:
      if (r.gpu_fraction > 0)
        return " (needs " + std::to_string(r.gpu_fraction) + "m of " +
               (r.num_devices > 1 ? std::to_string(r.num_devices) + " devices each"
                                  : "one device") +
               ")";
      return " (needs " + std::to_string(r.gpu_memory_mib) + " MiB of " +
             (r.num_devices > 1 ? std::to_string(r.num_devices) + " devices each" : "one device") +
             ")";
    case FitFailure::kWholeGpus:
      return " (needs " + std::to_string(r.whole_gpus) + " on one node)";
    case FitFailure::kCpu:
      return " (needs " + FormatAmount(kCpu, r.cpu_milli) + ")";
    case FitFailure::kMemory:
      return " (needs " + FormatAmount(kMemory, r.memory_bytes) + ")";
    default:
      return "";
  }
}

struct NoteListHash {
  size_t operator()(const NoteList& list) const {
    uint64_t h = static_cast<uint64_t>(list.size);
    for (const PendingNote& n : list) {
      h = (h ^ (uint64_t(n.action) << 40 | uint64_t(n.kind) << 32 | n.queue)) *
          0x9e3779b97f4a7c15ull;
      h = (h ^ static_cast<uint64_t>(n.seconds)) * 0x9e3779b97f4a7c15ull;
    }
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

// a + b in one allocation.
std::string Joined(const std::string& a, const std::string& b) {
  std::string out;
  out.reserve(a.size() + b.size());
  out += a;
  out += b;
  return out;
}

}  // namespace

PendingReasons::PendingReasons(Session& session)
    : session_(&session),
      node_fit_(session.snapshot.num_shapes),
      notes_id_(session.snapshot.groups.size(), 0) {
  std::unordered_map<NoteList, uint32_t, NoteListHash> ids;
  ids.emplace(NoteList{}, 0);
  // Groups noted one after another mostly hold the same notes.
  NoteList last;
  uint32_t last_id = 0;
  session.notes.ForEachNoted([&](GroupId group, const NoteList* notes) {
    if (notes != nullptr && !(*notes == last)) {
      last = *notes;
      last_id = ids.try_emplace(*notes, static_cast<uint32_t>(ids.size())).first->second;
    }
    notes_id_[group] = last_id;
  });
}

const std::string& PendingReasons::NodeFit(PodId pod) {
  const Snapshot& s = session_->snapshot;
  const ShapeId shape = session_->pod_shape[pod];
  if (node_fit_[shape]) return *node_fit_[shape];
  std::array<int32_t, kNumFitFailures> counts = session_->placer.Diagnose(pod);
  std::vector<std::pair<int32_t, int>> failures;
  for (int f = 1; f < kNumFitFailures; ++f)
    if (counts[f] > 0) failures.emplace_back(-counts[f], f);
  std::sort(failures.begin(), failures.end());
  std::string text =
      std::to_string(counts[0]) + "/" + std::to_string(s.nodes.size()) + " nodes fit";
  if (s.nodes.empty()) text += ": the cluster has no nodes";
  for (size_t i = 0; i < failures.size(); ++i) {
    FitFailure f = static_cast<FitFailure>(failures[i].second);
    text += i == 0 ? ": " : ", ";
    text += std::to_string(-failures[i].first) + " " + std::string(FitFailureText(f)) +
            WhatItNeeds(s.pods[pod].request, f);
  }
  if (counts[0] == 0) text += TooLarge(s.pods[pod].request);
  node_fit_[shape] = std::move(text);
  return *node_fit_[shape];
}

std::string PendingReasons::TooLarge(const PodRequest& r) {
  if (!largest_) {
    largest_.emplace();
    for (const Node& n : session_->snapshot.nodes) {
      largest_->cpu_milli = std::max(largest_->cpu_milli, n.cpu_milli);
      largest_->memory_bytes = std::max(largest_->memory_bytes, n.memory_bytes);
      largest_->gpus = std::max(largest_->gpus, n.num_devices);
    }
  }
  const Largest& most = *largest_;
  const int32_t devices = r.whole_gpus > 0 ? r.whole_gpus : r.IsShared() ? r.num_devices : 0;
  std::string what;
  if (devices > most.gpus)
    what = most.gpus == 0 ? "no node has GPUs"
                          : "the most GPUs on one node is " + std::to_string(most.gpus);
  else if (r.cpu_milli > most.cpu_milli)
    what = "the most cpu on one node is " + FormatAmount(kCpu, most.cpu_milli);
  else if (r.memory_bytes > most.memory_bytes)
    what = "the most memory on one node is " + FormatAmount(kMemory, most.memory_bytes);
  return what.empty() ? "" : "; no node is that large: " + what;
}

std::string PendingReasons::Budget(const JobOutcome& why, bool non_preemptible) const {
  const std::string queue = session_->snapshot.queues[why.queue].name;
  const std::string r(ResourceName(why.resource));
  if (non_preemptible)
    return "non-preemptible job would exceed queue " + queue + "'s " + r +
           " quota: " + FormatAmount(why.resource, why.held) + " held by non-preemptible jobs + " +
           FormatAmount(why.resource, why.asked) + " requested > " +
           FormatAmount(why.resource, why.cap) +
           " quota; make the job preemptible or raise the quota";
  return "queue " + queue + " would exceed its " + r +
         " limit: " + FormatAmount(why.resource, why.held) + " allocated + " +
         FormatAmount(why.resource, why.asked) + " requested > " +
         FormatAmount(why.resource, why.cap) + " limit";
}

std::string PendingReasons::NoteText(GroupId group, const PendingNote& note) const {
  const Snapshot& s = session_->snapshot;
  const Options& o = session_->options;
  const QueueId own = s.groups[group].queue;
  const std::string action = note.action == NoteAction::kConsolidate ? "no consolidation"
                             : note.action == NoteAction::kReclaim   ? "no reclaim"
                                                                     : "no preemption";
  const std::string other = note.queue == kNone ? "" : s.queues[note.queue].name;
  switch (note.kind) {
    case NoteKind::kTooManyMoves:
      return action + ": no plan of at most " + std::to_string(o.consolidation_max_moves_per_job) +
             " pod moves (the per-job limit) makes room";
    case NoteKind::kCycleBudget:
      return action + ": this cycle's budget of " +
             std::to_string(o.consolidation_max_moves_per_cycle) + " pod moves is spent";
    case NoteKind::kQueueAtFairShare:
      return action + ": queue " + s.queues[own].name + " is not below its fair share (gpu " +
             FormatAmount(kGpu, session_->state.QueueAllocated(own)[kGpu]) + " allocated of " +
             FormatAmount(kGpu, session_->fair_share[own][kGpu]) + ")";
    case NoteKind::kNoVictims:
      return action +
             ": queues above their fair share hold no preemptible jobs past their "
             "minimum runtime that would make room";
    case NoteKind::kVictimsMinRuntime:
      return action + ": the jobs that would make room (queue " + other +
             ") are within their minimum runtime of " + std::to_string(note.seconds) + "s";
    case NoteKind::kVictimsNonPreemptible:
      return action + ": the jobs that would make room (queue " + other + ") are non-preemptible";
    case NoteKind::kWithinPreemptionDelay:
      // Said without the delay itself: the text is kept per note, and two
      // jobs of a queue may have different delays that end alike.
      return "no eviction for it: the job is within its preemption delay and may not evict "
             "others before " +
             UtcTimeText(note.seconds);
  }
  return "";
}

const std::string& PendingReasons::CachedNoteText(GroupId group, const PendingNote& note) {
  const NoteKey key{session_->job_facts[group].queue, note.action, note.kind, note.queue,
                    note.seconds};
  auto it = note_text_.find(key);
  if (it != note_text_.end()) return it->second;
  return note_text_.emplace(key, NoteText(group, note)).first->second;
}

PendingReasons::NotesKey PendingReasons::NotesKeyOf(GroupId group) const {
  const NoteList list = session_->notes.Of(group);
  NotesKey key{};
  key[0] = session_->job_facts[group].queue;
  key[1] = list.size;
  for (int i = 0; i < list.size; ++i) {
    const PendingNote& n = list.notes[i];
    key[2 + 3 * i] = int64_t(n.action) << 8 | int64_t(n.kind);
    key[3 + 3 * i] = n.queue;
    key[4 + 3 * i] = n.seconds;
  }
  return key;
}

const std::string& PendingReasons::Notes(GroupId group) {
  const NotesKey key = NotesKeyOf(group);
  auto it = notes_.find(key);
  if (it != notes_.end()) return it->second;
  std::string out;
  for (const PendingNote& n : session_->notes.Of(group)) {
    out += "; ";
    out += CachedNoteText(group, n);
  }
  return notes_.emplace(key, std::move(out)).first->second;
}

ReasonId PendingReasons::Intern(std::string text, PendingKind kind) {
  auto it = by_text_.find(text);
  if (it != by_text_.end()) return it->second;
  const ReasonId id{static_cast<uint32_t>(texts_.size())};
  texts_.push_back(std::move(text));
  kinds_.push_back(kind);
  by_text_.emplace(texts_.back(), id);
  return id;
}

ReasonId PendingReasons::Common(GroupId group, PodId pod) {
  const uint64_t key = uint64_t{session_->job_facts[group].queue} << 32 | session_->pod_shape[pod];
  const uint32_t notes = notes_id_[group];
  // The small table first: a busy cycle asks for a few hundred keys tens of
  // thousands of times.
  // (The product's top bits depend on every bit of queue, shape and notes.)
  RecentCommon& recent = recent_common_[((key ^ uint64_t{notes} << 52 ^ uint64_t{notes} >> 12) *
                                         0x9e3779b97f4a7c15ull) >>
                                        (64 - kRecentCommonBits)];
  if (recent.key == key && recent.notes == notes && recent.set) return recent.id;
  std::vector<std::pair<uint32_t, ReasonId>>& seen = common_[key];
  for (const auto& [n, id] : seen)
    if (n == notes) {
      recent = {key, notes, true, id};
      return id;
    }
  const ReasonId id = Intern(Joined(NodeFit(pod), Notes(group)));
  seen.emplace_back(notes, id);
  recent = {key, notes, true, id};
  return id;
}

std::vector<std::string> PendingReasons::TakeTexts() {
  by_text_.clear();
  std::vector<std::string> out(std::make_move_iterator(texts_.begin()),
                               std::make_move_iterator(texts_.end()));
  texts_.clear();
  return out;
}

std::vector<PendingKind> PendingReasons::TakeKinds() { return std::move(kinds_); }

ReasonId PendingReasons::For(GroupId group, PodId pod) {
  const ShapeId shape = session_->pod_shape[pod];
  if (group == last_.group && shape == last_.shape) return last_.id;
  const ReasonId id = Uncached(group, pod);
  // A reason depends on the pod only through its shape, but for a gang
  // that failed part-way without naming its failing pod: that reason names
  // the pod itself.
  const JobOutcome& why = session_->outcome[group];
  if (why.block != JobBlock::kGangPartial || why.failing_pod != kNone) last_ = {group, shape, id};
  return id;
}

ReasonId PendingReasons::Uncached(GroupId group, PodId pod) {
  const Snapshot& s = session_->snapshot;
  const JobOutcome& why = session_->outcome[group];
  // The PodGroup record is read only for gangs and topologies.
  const int32_t min_member = session_->job_facts[group].min_member;
  // Most pending jobs of a busy cycle take one of the two ways to Common
  // below; they are tested first, so that those jobs skip the texts the
  // other cases build. (The pod itself is pending and unplaced, so a job
  // that needs at most one more pod never reads "fewer pending pods".)
  if (why.block == JobBlock::kNone) return Common(group, pod);
  if (why.block == JobBlock::kNoNode && min_member <= 1 && why.needed <= 1) {
    const PodId failing = why.failing_pod == kNone ? pod : why.failing_pod;
    if (failing == pod || session_->pod_shape[failing] == session_->pod_shape[pod])
      return Common(group, failing);
  }
  // A job is a gang when it needs pods placed together: by its minMember,
  // or by its sub-groups' minimums.
  const std::string gang =
      min_member > 1
          ? "gang " + s.groups[group].name + " (minMember " + std::to_string(min_member) + ")"
      : session_->has_subgroups[group] ? "gang " + s.groups[group].name + " (sub-group minimums)"
                                       : "";
  switch (why.block) {
    case JobBlock::kQueueLimit:
      return Intern(Budget(why, false), PendingKind::kOverLimit);
    case JobBlock::kNonPreemptibleQuota:
      return Intern(Budget(why, true), PendingKind::kNonPreemptibleOverQuota);
    case JobBlock::kTopology:
      // A job of one pod is no gang, but the same constraint holds it.
      return Intern((gang.empty() ? "job " + s.groups[group].name : gang) + " needs " +
                    std::to_string(why.needed) + (why.needed == 1 ? " pod" : " pods") +
                    " within one " + s.strings.Get(why.level) +
                    " domain; no single domain has room");
    case JobBlock::kNoNode:
    case JobBlock::kGangPartial: {
      PodId failing = why.failing_pod == kNone ? pod : why.failing_pod;
      int32_t pending = 0;  // from the session's packed list of the group's pending pods
      for (uint32_t i = session_->pending_begin[group]; i < session_->pending_begin[group + 1]; ++i)
        if (!session_->state.IsPlaced(session_->pending[i].pod)) ++pending;
      if (why.needed > pending)
        return Intern(gang + " has " + std::to_string(pending) + " pending pods, fewer than the " +
                      std::to_string(why.needed) + " it still needs to start");
      const std::string& fit = NodeFit(failing);
      std::string text;
      if (why.block == JobBlock::kGangPartial) {
        text = gang + " needs " + std::to_string(why.needed) + " pods placed together; only " +
               std::to_string(why.placed_before_failure) + " fit at once";
        // After the rollback the failing pod may fit alone; then the node
        // counts would only confuse.
        if (fit.starts_with("0/")) text += "; pod " + s.pods[failing].name + ": " + fit;
      } else if (failing != pod && session_->pod_shape[failing] != session_->pod_shape[pod]) {
        text = "waiting for pod " + s.pods[failing].name + " of " +
               (gang.empty() ? "its job" : gang) + ": " + fit;
      } else if (gang.empty()) {
        return Common(group, failing);  // the pod's own shape, or one equal to it
      } else {
        text = gang + ": " + fit;
      }
      return Intern(text + Notes(group));
    }
    case JobBlock::kNone:
      break;
  }
  return Common(group, pod);
}

}  // namespace vtenant::sched
