// RunsBelowMinimum: when a PodGroup is a stale gang, as KAI's stale-gang
// eviction reads one.
#include "scheduler/gang_members.h"

#include <gtest/gtest.h>

namespace vtenant::scheduler {
namespace {

GangMembers Placed(std::vector<std::string> subgroups, bool succeeded = false) {
  GangMembers m;
  for (const std::string& s : subgroups) m.AddPlaced(s);
  m.succeeded = succeeded;
  return m;
}

TEST(RunsBelowMinimumTest, SomePlacedFewerThanMinMemberNoneSucceeded) {
  const sched::GroupSpec ring{.name = "ns/ring", .min_member = 4};
  EXPECT_TRUE(RunsBelowMinimum(ring, Placed({"", ""})));
  EXPECT_FALSE(RunsBelowMinimum(ring, Placed({"", "", "", ""}))) << "whole";
  EXPECT_FALSE(RunsBelowMinimum(ring, Placed({}))) << "holds nothing: waits, is not stale";
  EXPECT_FALSE(RunsBelowMinimum(ring, Placed({""}, /*succeeded=*/true)))
      << "a finishing job is not a broken one";
}

TEST(RunsBelowMinimumTest, EachLeafSubGroupToItsOwnMinimum) {
  const sched::GroupSpec job{
      .name = "ns/job", .min_member = 2, .subgroups = {{"leader", 1}, {"workers", 2}}};
  EXPECT_FALSE(RunsBelowMinimum(job, Placed({"leader", "workers", "workers"})));
  EXPECT_TRUE(RunsBelowMinimum(job, Placed({"workers", "workers"}))) << "no leader";
  EXPECT_TRUE(RunsBelowMinimum(job, Placed({"leader", "workers"}))) << "one worker short";
}

// KAI's minSubGroup: a group that runs the replicas it asks for is whole,
// though another replica waits (KAI's own IsStale would call it stale).
TEST(RunsBelowMinimumTest, MinSubGroupCountsSatisfiedReplicas) {
  const sched::GroupSpec jobset{
      .name = "ns/js", .subgroups = {{"replica-0", 2}, {"replica-1", 2}}, .min_sub_group = 1};
  EXPECT_FALSE(RunsBelowMinimum(jobset, Placed({"replica-1", "replica-1"})));
  EXPECT_TRUE(RunsBelowMinimum(jobset, Placed({"replica-0", "replica-1"})))
      << "neither replica whole";
}

}  // namespace
}  // namespace vtenant::scheduler
