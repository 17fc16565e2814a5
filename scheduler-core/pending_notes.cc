#include "scheduler-core/pending_notes.h"

#include <algorithm>

namespace vtenant::sched {

void PendingNotes::Set(GroupId group, PendingNote note) {
  for (PendingNote& n : notes_[group]) {
    if (n.action == note.action) {
      n = note;
      return;
    }
  }
  notes_[group].push_back(note);
}

void PendingNotes::Clear(GroupId group, NoteAction action) {
  auto& list = notes_[group];
  list.erase(std::remove_if(list.begin(), list.end(),
                            [&](const PendingNote& n) { return n.action == action; }),
             list.end());
}

std::vector<PendingNote> PendingNotes::Of(GroupId group) const {
  std::vector<PendingNote> out = notes_[group];
  // Most jobs have one note or none; stable_sort would still take a buffer.
  if (out.size() > 1)
    std::stable_sort(out.begin(), out.end(), [](const PendingNote& a, const PendingNote& b) {
      return a.action < b.action;
    });
  return out;
}

}  // namespace vtenant::sched
