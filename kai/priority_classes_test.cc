// A job's priority as KAI's scheduler takes it: its PodGroup's class, else
// the global default class, else 50.
#include "kai/priority_classes.h"

#include <gtest/gtest.h>

#include "kube/testing/json.h"

namespace vtenant::kai {
namespace {

using kube::Json;

kube::Object Class(const std::string& name, const std::string& value, bool global = false) {
  return Json(
      R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":")" + name +
      R"("},"value":)" + value + R"(,"globalDefault":)" + (global ? "true" : "false") + "}");
}

TEST(PriorityClassesTest, AGroupTakesTheValueOfTheClassItNames) {
  PriorityClasses classes;
  ASSERT_TRUE(classes.Upsert(Class("train", "50")).ok());
  ASSERT_TRUE(classes.Upsert(Class("inference", "125")).ok());
  EXPECT_EQ(classes.PriorityOf("inference"), 125);
  EXPECT_EQ(classes.PriorityOf("train"), 50);
  ASSERT_TRUE(classes.Upsert(Class("inference", "200")).ok());
  EXPECT_EQ(classes.PriorityOf("inference"), 200) << "a changed class replaces the old value";
}

TEST(PriorityClassesTest, NoClassOrAMissingOneTakesTheGlobalDefaultElseFifty) {
  PriorityClasses classes;
  EXPECT_EQ(classes.PriorityOf(""), kDefaultPodGroupPriority);
  EXPECT_EQ(classes.PriorityOf("build"), 50) << "KAI's DefaultPodGroupPriority";
  ASSERT_TRUE(classes.Upsert(Class("everyday", "7", /*global=*/true)).ok());
  EXPECT_EQ(classes.PriorityOf(""), 7);
  EXPECT_EQ(classes.PriorityOf("build"), 7);
  classes.Remove("everyday");
  EXPECT_EQ(classes.PriorityOf("build"), 50);
  classes.Remove("everyday");  // again: nothing to forget
}

TEST(PriorityClassesTest, AClassTheApiServerWouldRefuseIsForgotten) {
  PriorityClasses classes;
  ASSERT_TRUE(classes.Upsert(Class("odd", "300")).ok());
  EXPECT_FALSE(classes.Upsert(Class("odd", "3000000000")).ok()) << "beyond int32";
  EXPECT_EQ(classes.PriorityOf("odd"), 50) << "the old value is not kept";
  EXPECT_FALSE(classes.Upsert(Class("odd", "\"high\"")).ok());
  EXPECT_FALSE(classes.Upsert(Json(R"({"value":5})")).ok()) << "no name";
}

}  // namespace
}  // namespace vtenant::kai
