#include "scheduler/node_pool.h"

#include <gtest/gtest.h>

#include "kube/label_selector.h"
#include "kube/testing/json.h"

namespace vtenant::scheduler {
namespace {

TEST(NodePoolTest, TheDefaultShardTakesWhatCarriesNoPoolLabel) {
  NodePool pool;  // KAI's default: kai.scheduler/node-pool, no value
  EXPECT_TRUE(pool.Includes(sched::LabelPairs{{"zone", "a"}}));
  EXPECT_FALSE(pool.Includes(sched::LabelPairs{{"kai.scheduler/node-pool", "a"}}));
  EXPECT_FALSE(pool.Includes(std::map<std::string, std::string>{{"kai.scheduler/node-pool", ""}}));
  EXPECT_EQ(pool.Name(), "default");
}

TEST(NodePoolTest, AShardTakesWhatCarriesItsValue) {
  NodePool pool{.value = "a100"};
  EXPECT_TRUE(pool.Includes(kube::Labels{{"kai.scheduler/node-pool", "a100"}}));
  EXPECT_FALSE(pool.Includes(kube::Labels{{"kai.scheduler/node-pool", "h100"}}));
  EXPECT_FALSE(pool.Includes(kube::Labels{}));
  EXPECT_TRUE(pool.IncludesObject(
      kube::Json(R"({"metadata":{"labels":{"kai.scheduler/node-pool":"a100"}}})")));
  EXPECT_FALSE(pool.IncludesObject(kube::Json(R"({"metadata":{"name":"q"}})")));
  EXPECT_EQ(pool.Name(), "a100");
}

TEST(NodePoolTest, NoLabelKeyMeansOnePoolOfEverything) {
  NodePool pool{.label_key = "", .value = "ignored"};
  EXPECT_TRUE(pool.Includes(sched::LabelPairs{{"kai.scheduler/node-pool", "x"}}));
  EXPECT_TRUE(pool.IncludesObject(kube::Json("{}")));
}

}  // namespace
}  // namespace vtenant::scheduler
