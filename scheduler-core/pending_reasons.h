// Turns what stopped a job into a sentence a person can act on: which queue
// and resource hit which limit, or how many nodes failed the pod and why.
#pragma once

#include <array>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "scheduler-core/scheduler.h"
#include "scheduler-core/session.h"

namespace vtenant::sched {

class PendingReasons {
 public:
  // Reads `session` as the actions left it: construct it after the last
  // action, since the job's notes are read once, here.
  explicit PendingReasons(Session& session);

  // Why `pod` (of `group`) is still pending after the cycle: the id of its
  // text in TakeTexts(). Pods whose reasons read the same share one id; the
  // common reason (no node fits the pod's shape, then its job's notes) is
  // found by key without formatting or comparing text.
  ReasonId For(GroupId group, PodId pod);

  // The texts of the ids For returned, and their kinds, by id. Call once,
  // after the last For.
  std::vector<std::string> TakeTexts();
  std::vector<PendingKind> TakeKinds();

  // "0/4 nodes fit: 3 insufficient cpu (needs 2000m), 1 untolerated
  // taint", on the state after the cycle; and, where the pod asks more
  // than any node has at all (KAI's max-node-resources check), "; no node
  // is that large: the most GPUs on one node is 8". Cached per pod shape.
  const std::string& NodeFit(PodId pod);

 private:
  // (job's queue, number of notes, then each note's action and kind, queue,
  // seconds): what a job's notes text depends on.
  using NotesKey = std::array<int64_t, 2 + 3 * kNumNoteActions>;
  // For without the memo of the last group and shape.
  ReasonId Uncached(GroupId group, PodId pod);
  // The id of `text`, a new one of `kind` when no pod had it yet.
  ReasonId Intern(std::string text, PendingKind kind = PendingKind::kPlacement);
  // NodeFit(pod) and the job's notes, by key: the reason of most pods.
  ReasonId Common(GroupId group, PodId pod);
  NotesKey NotesKeyOf(GroupId group) const;
  std::string Budget(const JobOutcome& why, bool non_preemptible) const;
  // "; no reclaim: ..." and the like, for what later actions noted. Cached
  // by the job's queue and notes: tens of thousands of pending pods carry
  // the same few.
  const std::string& Notes(GroupId group);
  // NoteText, cached: a busy cycle leaves tens of thousands of jobs with
  // the same few notes, and the text depends only on the key below (the
  // state it quotes no longer changes once the actions are done).
  const std::string& CachedNoteText(GroupId group, const PendingNote& note);
  std::string NoteText(GroupId group, const PendingNote& note) const;

  Session* session_;
  // "; no node is that large: ..." for `request`, "" when some node is.
  std::string TooLarge(const PodRequest& request);
  std::vector<std::optional<std::string>> node_fit_;  // by shape, filled on first use
  // The most of each that one node has, found on first use.
  struct Largest {
    int64_t cpu_milli = 0, memory_bytes = 0;
    int32_t gpus = 0;
  };
  std::optional<Largest> largest_;
  std::map<NotesKey, std::string> notes_;  // NotesKeyOf -> Notes
  // (job's queue, action, kind, note's queue, seconds) -> NoteText.
  using NoteKey = std::tuple<QueueId, NoteAction, NoteKind, QueueId, int64_t>;
  std::map<NoteKey, std::string> note_text_;
  // Common's reasons: by the job's queue and the shape (queue << 32 | shape),
  // the notes_id_ each was seen with. Few pods of one queue and shape differ in
  // their notes.
  std::unordered_map<uint64_t, std::vector<std::pair<uint32_t, ReasonId>>> common_;
  // Some of common_'s answers again, by a hash of key and notes id, each
  // with its whole key: most of Common's questions end here.
  struct RecentCommon {
    uint64_t key = 0;
    uint32_t notes = 0;
    bool set = false;
    ReasonId id{};
  };
  static constexpr int kRecentCommonBits = 10;
  std::array<RecentCommon, size_t{1} << kRecentCommonBits> recent_common_{};
  // Per group: which distinct note list it holds (0: none), worked out once
  // in the order the notes are kept, so that the walk over pending pods
  // reads an id per group instead of the group's notes.
  std::vector<uint32_t> notes_id_;
  // The last reason For worked out: the pods of a group come one after
  // another and most share a shape, and a gang's reason quotes its name.
  struct Last {
    GroupId group = kNone;
    ShapeId shape = kNone;
    ReasonId id{};
  } last_;
  // The texts by id; a deque, so that the views in by_text_ stay valid.
  std::deque<std::string> texts_;
  std::vector<PendingKind> kinds_;  // by id
  std::unordered_map<std::string_view, ReasonId> by_text_;
};

}  // namespace vtenant::sched
