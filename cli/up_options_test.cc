// `vtenant up`'s options survive the trip to the supervisor, and each
// mistake ends the command with a usage error.
#include "cli/up_options.h"

#include <gtest/gtest.h>

namespace vtenant::cli {
namespace {

TEST(UpOptionsTest, TheSupervisorReadsBackWhatUpWasGiven) {
  UpOptions given;
  ASSERT_EQ(ParseUpOptions("up",
                           {"--nodes=/n.yaml", "--port", "6443", "--real-node-gpu", "--crds", "/c",
                            "--chart", "/h", "--syncer-binary", "/s", "--cluster-only",
                            "--scheduler-arg=--hami-core", "--scheduler-arg", "--v=2"},
                           given),
            -1);
  EXPECT_EQ(given.nodes_path, "/n.yaml");
  EXPECT_EQ(given.port, 6443);
  EXPECT_TRUE(given.real_node);  // a GPU on the real node asks for the node
  EXPECT_TRUE(given.real_node_gpu);
  EXPECT_EQ(given.syncer_binary, "/s");
  EXPECT_EQ(given.scheduler_args, (std::vector<std::string>{"--hami-core", "--v=2"}));
  UpOptions read;
  ASSERT_EQ(ParseUpOptions("supervise", UpArguments(given), read), -1);
  EXPECT_EQ(read.nodes_path, given.nodes_path);
  EXPECT_EQ(read.port, given.port);
  EXPECT_EQ(read.real_node, given.real_node);
  EXPECT_EQ(read.real_node_gpu, given.real_node_gpu);
  EXPECT_TRUE(read.cluster_only);
  EXPECT_EQ(read.crds_dir, given.crds_dir);
  EXPECT_EQ(read.chart_dir, given.chart_dir);
  EXPECT_EQ(read.operator_binary, given.operator_binary);
  EXPECT_EQ(read.syncer_binary, given.syncer_binary);
  EXPECT_EQ(read.scheduler_args, given.scheduler_args);
}

TEST(UpOptionsTest, HelpAndMistakesEndTheCommand) {
  UpOptions o;
  EXPECT_EQ(ParseUpOptions("up", {"--port", "1", "--help"}, o), 0);
  for (const std::vector<std::string>& bad :
       std::vector<std::vector<std::string>>{{"--bogus"},
                                             {"--port", "65536"},
                                             {"--port", "x"},
                                             {"--nodes"},
                                             {"stray"},
                                             {"--real-node=maybe"}}) {
    EXPECT_EQ(ParseUpOptions("up", bad, o), 2) << bad[0];
  }
}

}  // namespace
}  // namespace vtenant::cli
