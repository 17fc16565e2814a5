#include "kube/conditions.h"

#include <gtest/gtest.h>

namespace vtenant::kube {
namespace {

Object Tenant() {
  Result<Object> o = ParseJson(R"({"metadata":{"name":"nlp","generation":3},"spec":{}})");
  return std::move(o).value();
}

TEST(ConditionsTest, AddsThenKeepsTransitionTimeWhileStatusHolds) {
  Object t = Tenant();
  EXPECT_FALSE(FindCondition(t, "Ready").has_value());
  EXPECT_TRUE(SetCondition(t, {"Ready", "False", "ControlPlaneStarting", "waiting", 3}, "T1"));
  EXPECT_TRUE(
      SetCondition(t, {"Ready", "False", "ControlPlaneStarting", "still waiting", 3}, "T2"));
  std::optional<Condition> c = FindCondition(t, "Ready");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->message, "still waiting");
  EXPECT_EQ(c->last_transition_time, "T1");  // status did not change
  EXPECT_EQ(c->observed_generation, 3);

  EXPECT_TRUE(SetCondition(t, {"Ready", "True", "Ready", "control plane up", 3}, "T3"));
  EXPECT_EQ(FindCondition(t, "Ready")->last_transition_time, "T3");
  EXPECT_FALSE(SetCondition(t, {"Ready", "True", "Ready", "control plane up", 3}, "T4"))
      << "an identical condition is not a change";
  EXPECT_EQ(t["status"]["conditions"].Size(), 1u);
}

TEST(ConditionsTest, KeepsOtherTypesAndOtherStatusFields) {
  Result<Object> parsed = ParseJson(
      R"({"status":{"phase":"Ready","conditions":[{"type":"QueueReady","status":"True"}]}})");
  ASSERT_TRUE(parsed.ok());
  Object t = std::move(parsed).value();
  EXPECT_TRUE(SetCondition(t, {"Ready", "Unknown", "Reconciling", "", 1}, "T1"));
  EXPECT_EQ(t["status"]["conditions"].Size(), 2u);
  EXPECT_EQ(FindCondition(t, "QueueReady")->status, "True");
  EXPECT_EQ(GetString(t, {"status", "phase"}), "Ready");
}

}  // namespace
}  // namespace vtenant::kube
