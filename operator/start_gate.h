// StartGate: at most N of something starting at once.
//
// The process backend starts each tenant's kube-apiserver through one gate.
// Twenty API servers starting together on two cores do not finish sooner
// than in turns: each start-up is CPU work, and run side by side they cost
// more CPU apiece (caches, scheduler, the shared etcd), so the last of them
// is ready later (bench/history/operator_bench.md). A tenant that waits
// here has its status say so.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>

namespace vtenant::op {

class StartGate {
 public:
  // `slots` starts at once; 0 or less means no limit.
  explicit StartGate(int slots) : slots_(slots) {}
  StartGate(const StartGate&) = delete;
  StartGate& operator=(const StartGate&) = delete;

  // A held slot; released when destroyed. Empty (held() false) when the
  // wait was abandoned.
  class Slot {
   public:
    Slot() = default;
    Slot(Slot&& other) noexcept : gate_(other.gate_) { other.gate_ = nullptr; }
    Slot& operator=(Slot&&) = delete;
    ~Slot() {
      if (gate_ != nullptr) gate_->Release();
    }
    bool held() const { return gate_ != nullptr; }

   private:
    friend class StartGate;
    explicit Slot(StartGate* gate) : gate_(gate) {}
    StartGate* gate_ = nullptr;
  };

  // Waits for a free slot. Gives up, returning an empty Slot, once
  // `abandon` returns true; it is asked at least every 100 ms and whenever
  // a slot frees, so a tenant being removed does not wait for the others'
  // start-ups.
  Slot Acquire(const std::function<bool()>& abandon);

  // Slots held now (the tests read it).
  int busy() const;

 private:
  void Release();

  const int slots_;
  mutable std::mutex mu_;
  std::condition_variable freed_;
  int busy_ = 0;
};

}  // namespace vtenant::op
