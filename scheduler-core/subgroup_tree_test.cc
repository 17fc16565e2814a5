// SubGroupTree: when KAI's sub-group tree is satisfied, what each leaf
// still needs, and which trees are refused.
#include "scheduler-core/subgroup_tree.h"

#include <gtest/gtest.h>

namespace vtenant::sched {
namespace {

TEST(SubGroupTreeTest, FlatTreeNeedsEveryLeaf) {
  const std::vector<SubGroup> leaves = {{"a", 2}, {"b", 1}};
  const std::vector<SubGroupSet> sets;
  const SubGroupTree tree{leaves, sets};
  EXPECT_FALSE(tree.Satisfied(std::vector<int32_t>{2, 0}));
  EXPECT_TRUE(tree.Satisfied(std::vector<int32_t>{2, 1}));
  std::vector<int32_t> deficit;
  tree.Deficits(std::vector<int32_t>{1, 0}, &deficit);
  EXPECT_EQ(deficit, (std::vector<int32_t>{1, 1}));
  tree.Deficits(std::vector<int32_t>{3, 1}, &deficit);
  EXPECT_EQ(deficit, (std::vector<int32_t>{0, 0}));
}

// A leaf of minMember 0 (KAI's elastic leaf) is satisfied with none of its
// pods placed: a master and its elastic workers start with the master.
TEST(SubGroupTreeTest, ALeafOfNoMinimumHoldsNothingBack) {
  const std::vector<SubGroup> leaves = {{"master", 1}, {"worker", 0}};
  const std::vector<SubGroupSet> sets;
  const SubGroupTree tree{leaves, sets};
  EXPECT_TRUE(tree.Satisfied(std::vector<int32_t>{1, 0}));
  EXPECT_FALSE(tree.Satisfied(std::vector<int32_t>{0, 3}));
  std::vector<int32_t> deficit;
  tree.Deficits(std::vector<int32_t>{0, 0}, &deficit);
  EXPECT_EQ(deficit, (std::vector<int32_t>{1, 0}));
}

TEST(SubGroupTreeTest, MinSubGroupChoosesTheFirstUnsatisfiedChildren) {
  const std::vector<SubGroup> leaves = {{"r0", 2}, {"r1", 2}, {"r2", 2}};
  const std::vector<SubGroupSet> sets;
  const SubGroupTree tree{leaves, sets, 2};
  EXPECT_FALSE(tree.Satisfied(std::vector<int32_t>{2, 1, 0}));
  EXPECT_TRUE(tree.Satisfied(std::vector<int32_t>{2, 0, 2}));
  std::vector<int32_t> deficit;
  tree.Deficits(std::vector<int32_t>{0, 0, 0}, &deficit);
  EXPECT_EQ(deficit, (std::vector<int32_t>{2, 2, 0}));
  // r1 is satisfied: one more child is lacking, the first unsatisfied one.
  tree.Deficits(std::vector<int32_t>{1, 2, 0}, &deficit);
  EXPECT_EQ(deficit, (std::vector<int32_t>{1, 0, 0}));
}

TEST(SubGroupTreeTest, SetsAreSettledBeforeTheirParents) {
  // group (all) -> {leader, workers (1 of 2) -> {w0, pair (all) -> {w1, w2}}}
  const std::vector<SubGroupSet> sets = {{"workers", kNoParent, 1}, {"pair", 0, kAllChildren}};
  const std::vector<SubGroup> leaves = {{"leader", 1}, {"w0", 3, 0}, {"w1", 1, 1}, {"w2", 1, 1}};
  const SubGroupTree tree{leaves, sets};
  ASSERT_TRUE(tree.Check().ok()) << tree.Check().ToString();
  EXPECT_TRUE(tree.Satisfied(std::vector<int32_t>{1, 0, 1, 1}));
  EXPECT_TRUE(tree.Satisfied(std::vector<int32_t>{1, 3, 0, 0}));
  EXPECT_FALSE(tree.Satisfied(std::vector<int32_t>{1, 2, 1, 0}));
  EXPECT_FALSE(tree.Satisfied(std::vector<int32_t>{0, 3, 1, 1}));
  std::vector<int32_t> deficit;
  // "workers" lacks one child; sets come before leaves, so "pair" is chosen.
  tree.Deficits(std::vector<int32_t>{0, 0, 0, 0}, &deficit);
  EXPECT_EQ(deficit, (std::vector<int32_t>{1, 0, 1, 1}));
}

TEST(SubGroupTreeTest, MinSubGroupZeroIsSatisfiedByNothing) {
  const std::vector<SubGroup> leaves = {{"a", 1}};
  const std::vector<SubGroupSet> sets;
  EXPECT_TRUE((SubGroupTree{leaves, sets, 0}).Satisfied(std::vector<int32_t>{0}));
}

TEST(SubGroupTreeTest, CheckRefusesTreesThatCouldNeverBeSatisfied) {
  const std::vector<SubGroup> leaves = {{"a", 1, 0}, {"b", 1, 0}};
  struct Case {
    std::vector<SubGroupSet> sets;
    int32_t group_min;
    const char* says;
  };
  const Case cases[] = {
      {{{"s", kNoParent, 3}}, kAllChildren, "subgroup s has minSubGroup 3 of its 2 children"},
      {{{"s", kNoParent, kAllChildren}}, 2, "minSubGroup 2 of the group's 1 top-level"},
      {{{"s", 0, kAllChildren}}, kAllChildren, "subgroup s is its own ancestor"},
      {{{"s", 4, kAllChildren}}, kAllChildren, "subgroup s has an unknown parent"},
      {{}, kAllChildren, "subgroup a has an unknown parent"},
  };
  for (const Case& c : cases) {
    Status status = SubGroupTree{leaves, c.sets, c.group_min}.Check();
    ASSERT_FALSE(status.ok()) << c.says;
    EXPECT_NE(status.message().find(c.says), std::string::npos) << status.message();
  }
  const std::vector<SubGroupSet> fine = {{"s", kNoParent, 2}};
  EXPECT_TRUE((SubGroupTree{leaves, fine, 1}).Check().ok());
}

}  // namespace
}  // namespace vtenant::sched
