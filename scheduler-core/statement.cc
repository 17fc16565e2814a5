#include "scheduler-core/statement.h"

namespace vtenant::sched {

void Statement::Place(PodId pod, const Allocation& allocation) {
  state_->Place(pod, allocation);
  journal_.push_back({pod, true, EvictionCause::kNone, kNone, {}});
}

void Statement::Evict(PodId pod, EvictionCause cause, GroupId by) {
  Allocation previous = state_->AllocationOf(pod);
  state_->Remove(pod);
  journal_.push_back({pod, false, cause, by, previous});
}

void Statement::Rollback(Checkpoint mark) {
  while (journal_.size() > mark) {
    const Entry& e = journal_.back();
    if (e.place) {
      state_->Remove(e.pod);
    } else {
      state_->Place(e.pod, e.previous);
    }
    journal_.pop_back();
  }
}

bool Statement::EvictedSince(Checkpoint mark) const {
  for (size_t i = mark; i < journal_.size(); ++i)
    if (!journal_[i].place) return true;
  return false;
}

}  // namespace vtenant::sched
