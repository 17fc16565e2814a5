// What the actions after allocate made of a job they could not help, kept
// as data until the cycle's pending reasons are written: one channel for
// every action, at most one note per action and job.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "scheduler-core/model.h"

namespace vtenant::sched {

enum class NoteAction : uint8_t { kConsolidate, kReclaim, kPreempt };
constexpr int kNumNoteActions = 3;

enum class NoteKind : uint8_t {
  // Consolidation: no plan within the per-job move cap made room.
  kTooManyMoves,
  // Consolidation: the cycle's move budget was spent (or too little was left).
  kCycleBudget,
  // Reclaim: the job's queue is not below its fair share (or quota) with it.
  kQueueAtFairShare,
  // Reclaim: queues it may take from hold no evictable jobs that make room.
  kNoVictims,
  // Reclaim / preempt: the jobs it could take are within their queue's
  // minimum runtime (`queue` names one such queue, `seconds` its minimum).
  kVictimsMinRuntime,
  // Reclaim: the jobs it could take are non-preemptible.
  kVictimsNonPreemptible,
  // The job is within its preemption delay (PodGroup::preemption_delay_s),
  // so no action evicted for it; `seconds` is when the delay ends (the
  // snapshot's clock). Kept in the reclaim slot, which it stands for.
  kWithinPreemptionDelay,
};

struct PendingNote {
  NoteAction action = NoteAction::kReclaim;
  NoteKind kind = NoteKind::kNoVictims;
  QueueId queue = kNone;
  int64_t seconds = 0;
};

// A job's notes, at most one per action, in the order the actions run.
struct NoteList {
  std::array<PendingNote, kNumNoteActions> notes;
  int size = 0;

  const PendingNote* begin() const { return notes.data(); }
  const PendingNote* end() const { return notes.data() + size; }
  // Inline: the pending reasons compare the lists of every noted job.
  bool operator==(const NoteList& other) const {
    if (size != other.size) return false;
    for (int i = 0; i < size; ++i) {
      const PendingNote& a = notes[i];
      const PendingNote& b = other.notes[i];
      if (a.action != b.action || a.kind != b.kind || a.queue != b.queue || a.seconds != b.seconds)
        return false;
    }
    return true;
  }
};

class PendingNotes {
 public:
  // Room for a note on every group is reserved at once: a busy cycle notes
  // most of its pending jobs, and growing the slots step by step would copy
  // them (megabytes) several times. Untouched reserved memory costs nothing.
  explicit PendingNotes(size_t groups) : slot_of_(groups, kNone) { slots_.reserve(groups); }

  // Replaces what `note.action` said about `group` before.
  void Set(GroupId group, PendingNote note);
  // Forgets what `action` said about `group` (it helped after all).
  void Clear(GroupId group, NoteAction action);
  // The notes of `group`, in the order the actions run.
  NoteList Of(GroupId group) const;

  // Calls fn(group, notes) once for every group that was ever given a note
  // (its notes may be empty again after Clear), in the order the groups
  // got their first note. It reads the notes in the order they are kept,
  // where Of for one group after another jumps around in them. `notes` is
  // null where they equal those of the group before (a busy cycle notes
  // long runs of jobs alike), so that the list is neither built nor compared.
  template <typename Fn>
  void ForEachNoted(Fn&& fn) const {
    const Slot* previous = nullptr;
    for (const Slot& slot : slots_) {
      if (previous != nullptr && SameNotes(*previous, slot)) {
        fn(slot.group, static_cast<const NoteList*>(nullptr));
      } else {
        const NoteList list = ListOf(slot);
        fn(slot.group, &list);
      }
      previous = &slot;
    }
  }

 private:
  // One note per action; `held` says which are set.
  struct Slot {
    std::array<PendingNote, kNumNoteActions> by_action;
    GroupId group = kNone;
    uint8_t held = 0;  // bit per NoteAction
  };
  // Whether the two hold the same notes (ListOf equal), without building them.
  static bool SameNotes(const Slot& a, const Slot& b) {
    if (a.held != b.held) return false;
    for (int i = 0; i < kNumNoteActions; ++i) {
      if (!(a.held & (1u << i))) continue;
      const PendingNote& x = a.by_action[i];
      const PendingNote& y = b.by_action[i];
      if (x.action != y.action || x.kind != y.kind || x.queue != y.queue || x.seconds != y.seconds)
        return false;
    }
    return true;
  }
  // Inline, for ForEachNoted's walk over every noted job.
  static NoteList ListOf(const Slot& slot) {
    NoteList out;
    for (int a = 0; a < kNumNoteActions; ++a)
      if (slot.held & (1u << a)) out.notes[out.size++] = slot.by_action[a];
    return out;
  }
  // Per group: its slot in slots_, kNone until a note is set. A busy cycle
  // notes tens of thousands of jobs; one shared array instead of a list per
  // job keeps that from allocating per job.
  std::vector<uint32_t> slot_of_;
  std::vector<Slot> slots_;
};

}  // namespace vtenant::sched
