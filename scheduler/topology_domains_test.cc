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
  sched::GroupSpec spec;
  EXPECT_EQ(ResolveTopology(Dc(), {"dc", "rack", "example.com/rack"}, &spec), "");
  EXPECT_EQ(spec.required_topology, "dc:example.com/rack");
  EXPECT_EQ(spec.preferred_topology, "dc:example.com/rack");

  sched::GroupSpec plain{.required_topology = "zone"};
  EXPECT_EQ(ResolveTopology(Dc(), {"", "zone", ""}, &plain), "");
  EXPECT_EQ(plain.required_topology, "zone") << "no Topology named: a node label key as written";
}

TEST(ResolveTopologyTest, SaysWhyInKaisWords) {
  sched::GroupSpec spec;
  EXPECT_EQ(ResolveTopology(Dc(), {"lab", "rack", ""}, &spec),
            "Requested topology lab does not exist");
  EXPECT_NE(ResolveTopology(Dc(), {"dc", "zone", ""}, &spec)
                .find("workload specified 'zone' as the required topology constraint level"),
            std::string::npos);
  // KAI looks for the preferred level only within the required one.
  EXPECT_NE(ResolveTopology(Dc(), {"dc", "rack", "example.com/block"}, &spec)
                .find("'example.com/block' as the preferred topology constraint level"),
            std::string::npos);
}

}  // namespace
}  // namespace vtenant::scheduler
