#include "operator/start_gate.h"

#include <chrono>

namespace vtenant::op {

StartGate::Slot StartGate::Acquire(const std::function<bool()>& abandon) {
  std::unique_lock lock(mu_);
  while (slots_ > 0 && busy_ >= slots_) {
    if (abandon()) return Slot();
    freed_.wait_for(lock, std::chrono::milliseconds(100));
  }
  if (abandon()) return Slot();
  ++busy_;
  return Slot(this);
}

int StartGate::busy() const {
  std::lock_guard lock(mu_);
  return busy_;
}

void StartGate::Release() {
  {
    std::lock_guard lock(mu_);
    --busy_;
  }
  freed_.notify_all();
}

}  // namespace vtenant::op
