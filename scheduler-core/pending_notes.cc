#include "scheduler-core/pending_notes.h"

namespace vtenant::sched {

void PendingNotes::Set(GroupId group, PendingNote note) {
  if (slot_of_[group] == kNone) {
    slot_of_[group] = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back().group = group;
  }
  Slot& slot = slots_[slot_of_[group]];
  const int a = static_cast<int>(note.action);
  slot.by_action[a] = note;
  slot.held |= uint8_t(1u << a);
}

void PendingNotes::Clear(GroupId group, NoteAction action) {
  if (slot_of_[group] == kNone) return;
  slots_[slot_of_[group]].held &= uint8_t(~(1u << static_cast<int>(action)));
}

NoteList PendingNotes::Of(GroupId group) const {
  if (slot_of_[group] == kNone) return {};
  return ListOf(slots_[slot_of_[group]]);
}

}  // namespace vtenant::sched
