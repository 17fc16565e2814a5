// ReadTopology, LevelIndex and DomainPath: KAI's Topology as the scheduler
// reads it.
#include "kai/topology.h"

#include <gtest/gtest.h>

#include <map>

#include "kube/testing/json.h"

namespace vtenant::kai {
namespace {

using kube::Json;

TEST(ReadTopologyTest, LevelsWidestFirstWithTheirAliases) {
  rapidjson::Document t = Json(R"({"metadata":{"name":"dc"},"spec":{"levels":[
      {"nodeLabel":"example.com/block"},{"nodeLabel":"example.com/rack","alias":"rack"},
      {"nodeLabel":"kubernetes.io/hostname"}]}})");
  Result<Topology> topology = ReadTopology(t);
  ASSERT_TRUE(topology.ok()) << topology.status().ToString();
  EXPECT_EQ(*topology, (Topology{"dc",
                                 {{"example.com/block", ""},
                                  {"example.com/rack", "rack"},
                                  {"kubernetes.io/hostname", ""}}}));
  EXPECT_EQ(*LevelIndex(*topology, "rack", "workload", "required"), 1u);
  EXPECT_EQ(*LevelIndex(*topology, "example.com/rack", "workload", "required"), 1u);
  EXPECT_EQ(*LevelIndex(*topology, "kubernetes.io/hostname", "workload", "required"), 2u);
  Result<size_t> none = LevelIndex(*topology, "zone", "workload", "preferred");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(),
            "topology constraint error: workload specified 'zone' as the preferred topology "
            "constraint level, but the topology tree 'dc' does not contain a level with this name");
  EXPECT_FALSE(LevelIndex(*topology, "", "workload", "required").ok()) << "no alias is \"\"";
}

TEST(ReadTopologyTest, RefusesWhatKaiRefuses) {
  for (const char* bad : {
           R"({"metadata":{"name":"t"},"spec":{}})",
           R"({"metadata":{"name":"t"},"spec":{"levels":[]}})",
           R"({"metadata":{"name":"t"},"spec":{"levels":[{"alias":"a"}]}})",
           R"({"metadata":{"name":"t"},"spec":{"levels":[{"nodeLabel":"a"},{"nodeLabel":"a"}]}})",
           R"({"metadata":{"name":"t"},"spec":{"levels":[{"nodeLabel":"a"},
               {"nodeLabel":"b","alias":"a"}]}})",
           R"({"metadata":{"name":"t"},"spec":{"levels":[{"nodeLabel":"a","alias":"x"},
               {"nodeLabel":"b","alias":"x"}]}})",
       }) {
    rapidjson::Document t = Json(bad);
    Result<Topology> topology = ReadTopology(t);
    ASSERT_FALSE(topology.ok()) << bad;
    EXPECT_NE(topology.status().message().find("topology t: spec.levels"), std::string::npos)
        << topology.status().message();
  }
}

TEST(DomainPathTest, APathFromTheWidestLevelAndNoneForANodeOutsideTheTopology) {
  const Topology dc{"dc", {{"block", ""}, {"rack", ""}}};
  std::map<std::string, std::string, std::less<>> labels = {{"block", "b1"}, {"rack", "r1"}};
  auto label_of = [&](std::string_view key) -> std::optional<std::string_view> {
    auto it = labels.find(key);
    if (it == labels.end()) return std::nullopt;
    return it->second;
  };
  EXPECT_EQ(DomainPath(dc, 0, label_of), "b1");
  EXPECT_EQ(DomainPath(dc, 1, label_of), "b1.r1") << "rack r1 of block b1, not of any block";
  labels.erase("block");
  EXPECT_EQ(DomainPath(dc, 1, label_of), std::nullopt);
  EXPECT_EQ(DomainPath(dc, 0, label_of), std::nullopt) << "a node lacking any level is outside";
}

}  // namespace
}  // namespace vtenant::kai
