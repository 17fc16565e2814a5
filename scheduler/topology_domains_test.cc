// The nodes' domain labels, and a PodGroup's topologyConstraint resolved
// against KAI's Topologies.
#include "scheduler/topology_domains.h"

#include <gtest/gtest.h>

namespace vtenant::scheduler {
namespace {

Topologies Dc() {
  return {{"dc", kai::Topology{"dc", {{"example.com/block", ""}, {"example.com/rack", "rack"}}}}};
}

TEST(AddDomainLabelsTest, EachLevelOfEachTopologyTheNodeIsPartOf) {
  sched::LabelPairs labels = {{"example.com/block", "b1"}, {"example.com/rack", "r1"}};
  AddDomainLabels(Dc(), &labels);
  EXPECT_EQ(labels, (sched::LabelPairs{{"example.com/block", "b1"},
                                       {"example.com/rack", "r1"},
                                       {"dc:example.com/block", "b1"},
                                       {"dc:example.com/rack", "b1.r1"}}));
  sched::LabelPairs outside = {{"example.com/rack", "r1"}};
  AddDomainLabels(Dc(), &outside);
  EXPECT_EQ(outside.size(), 1u) << "a node without a block is in no domain of dc";
}

TEST(ResolveTopologyTest, LevelsAndAliasesBecomeDomainKeys) {
  sched::GroupSpec::Levels levels;
  EXPECT_EQ(ResolveTopology(Dc(), {"dc", "rack", "example.com/rack"}, "workload", &levels), "");
  EXPECT_EQ(levels.required, "dc:example.com/rack");
  EXPECT_EQ(levels.preferred, "dc:example.com/rack");

  EXPECT_EQ(ResolveTopology(Dc(), {"", "zone", ""}, "workload", &levels), "");
  EXPECT_EQ(levels.required, "zone") << "no Topology named: a node label key as written";
  EXPECT_EQ(levels.preferred, "");
}

TEST(ResolveTopologyTest, SaysWhyInKaisWords) {
  sched::GroupSpec::Levels levels;
  EXPECT_EQ(ResolveTopology(Dc(), {"lab", "rack", ""}, "workload", &levels),
            "Requested topology lab does not exist");
  EXPECT_NE(ResolveTopology(Dc(), {"dc", "zone", ""}, "workload", &levels)
                .find("workload specified 'zone' as the required topology constraint level"),
            std::string::npos);
  EXPECT_NE(ResolveTopology(Dc(), {"dc", "zone", ""}, "sub-group workers", &levels)
                .find("sub-group workers specified 'zone' as the required"),
            std::string::npos);
  // KAI looks for the preferred level only within the required one.
  EXPECT_NE(ResolveTopology(Dc(), {"dc", "rack", "example.com/block"}, "workload", &levels)
                .find("'example.com/block' as the preferred topology constraint level"),
            std::string::npos);
}

}  // namespace
}  // namespace vtenant::scheduler
