// Turns what stopped a job into a sentence a person can act on: which queue
// and resource hit which limit, or how many nodes failed the pod and why.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "scheduler-core/session.h"

namespace vtenant::sched {

class PendingReasons {
 public:
  explicit PendingReasons(Session& session)
      : session_(&session), node_fit_(session.snapshot.num_shapes) {}

  // Why `pod` (of `group`) is still pending after the cycle.
  std::string For(GroupId group, PodId pod);

  // "0/4 nodes fit: 3 insufficient cpu, 1 untolerated taint", on the
  // state after the cycle. Cached per pod shape.
  const std::string& NodeFit(PodId pod);

 private:
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
  std::vector<std::optional<std::string>> node_fit_;  // by shape, filled on first use
  // (job's queue, number of notes, then each note's action and kind, queue,
  // seconds) -> Notes.
  using NotesKey = std::array<int64_t, 2 + 3 * kNumNoteActions>;
  std::map<NotesKey, std::string> notes_;
  // (job's queue, action, kind, note's queue, seconds) -> NoteText.
  using NoteKey = std::tuple<QueueId, NoteAction, NoteKind, QueueId, int64_t>;
  std::map<NoteKey, std::string> note_text_;
};

}  // namespace vtenant::sched
