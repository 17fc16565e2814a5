#include "kube/cancellation.h"

#include <gtest/gtest.h>

namespace vtenant::kube {
namespace {

TEST(CancellationTest, FiresRegisteredCallbacksOnceAndLateOnesImmediately) {
  Cancellation cancel;
  int fired = 0;
  cancel.OnCancel([&] { ++fired; });
  EXPECT_FALSE(cancel.cancelled());
  cancel.Cancel();
  cancel.Cancel();
  EXPECT_EQ(fired, 1);
  EXPECT_EQ(cancel.OnCancel([&] { ++fired; }), 0u);
  EXPECT_EQ(fired, 2);
  EXPECT_TRUE(cancel.WaitFor(std::chrono::milliseconds(0)));
}

TEST(CancellationTest, ScopedRegistrationsDoNotAccumulate) {
  Cancellation cancel;
  int fired = 0;
  for (int i = 0; i < 1000; ++i) {
    CancellationRegistration scoped(&cancel, [&] { ++fired; });
  }
  {
    CancellationRegistration live(&cancel, [&] { fired += 100; });
    cancel.Cancel();
  }
  EXPECT_EQ(fired, 100) << "only the registration still in scope may fire";
  CancellationRegistration none(nullptr, [&] { ++fired; });  // no cancellation: no-op
  EXPECT_EQ(fired, 100);
}

}  // namespace
}  // namespace vtenant::kube
