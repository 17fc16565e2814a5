#include "operator/start_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "base/eventually.h"

namespace vtenant::op {
namespace {

TEST(StartGateTest, HoldsAtMostItsSlots) {
  StartGate gate(2);
  StartGate::Slot a = gate.Acquire([] { return false; });
  StartGate::Slot b = gate.Acquire([] { return false; });
  ASSERT_TRUE(a.held());
  ASSERT_TRUE(b.held());
  EXPECT_EQ(gate.busy(), 2);

  std::atomic<bool> third_held = false;
  std::thread waiter([&] {
    StartGate::Slot c = gate.Acquire([] { return false; });
    third_held = c.held();
  });
  // The third waits while both slots are held...
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(third_held);
  EXPECT_EQ(gate.busy(), 2);
  // ...and gets one as soon as one is released.
  { StartGate::Slot gone = std::move(a); }
  waiter.join();
  EXPECT_TRUE(third_held);
  EXPECT_EQ(gate.busy(), 1);  // b; the waiter's slot went when it returned
}

TEST(StartGateTest, AbandonedWaitHoldsNothing) {
  StartGate gate(1);
  StartGate::Slot a = gate.Acquire([] { return false; });
  std::atomic<bool> stop = false;
  std::atomic<bool> done = false;
  bool held = true;
  std::thread waiter([&] {
    held = gate.Acquire([&] { return stop.load(); }).held();
    done = true;
  });
  stop = true;
  ASSERT_TRUE(Eventually([&] { return done.load(); }));
  waiter.join();
  EXPECT_FALSE(held);
  EXPECT_EQ(gate.busy(), 1);
}

TEST(StartGateTest, NoLimitNeverWaits) {
  StartGate gate(0);
  std::vector<StartGate::Slot> slots;
  for (int i = 0; i < 50; ++i) slots.push_back(gate.Acquire([] { return false; }));
  for (const auto& s : slots) EXPECT_TRUE(s.held());
  EXPECT_EQ(gate.busy(), 50);
  slots.clear();
  EXPECT_EQ(gate.busy(), 0);
}

}  // namespace
}  // namespace vtenant::op
