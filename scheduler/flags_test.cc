// The command line: every flag parses, bad values say which flag, --help
// lists them all.
#include "scheduler/flags.h"

#include <gtest/gtest.h>

namespace vtenant::scheduler {
namespace {

TEST(FlagsTest, DefaultsAreTheDocumentedOnes) {
  SchedulerFlags f = ParseFlags({}).value();
  EXPECT_EQ(f.scheduler_name, "kai-scheduler");
  EXPECT_EQ(f.cycle_period, std::chrono::seconds(1));
  EXPECT_EQ(f.reservation_namespace, "vtenant-reservation");
  EXPECT_EQ(f.policy, "fgd");
  EXPECT_FALSE(f.leader_elect);
  EXPECT_TRUE(f.webhook_address.empty());
  EXPECT_EQ(f.gpu_fraction_runtime_class, "nvidia") << "KAI's default";
  EXPECT_EQ(ParseFlags({"--gpu-fraction-runtime-class="}).value().gpu_fraction_runtime_class, "");
}

TEST(FlagsTest, EveryFormParses) {
  SchedulerFlags f =
      ParseFlags({"--kubeconfig", "/k", "--scheduler-name=mine", "--cycle-period", "500ms",
                  "--reservation-namespace=res", "--webhook-address", "127.0.0.1:9443",
                  "--health-address=", "--leader-elect", "--policy", "spread", "--bind-workers=4",
                  "--status-period", "5s", "--default-staleness-grace-period=-1s"})
          .value();
  EXPECT_EQ(f.kubeconfig, "/k");
  EXPECT_EQ(f.scheduler_name, "mine");
  EXPECT_EQ(f.cycle_period, std::chrono::milliseconds(500));
  EXPECT_EQ(f.reservation_namespace, "res");
  EXPECT_EQ(f.webhook_address, "127.0.0.1:9443");
  EXPECT_EQ(f.health_address, "");
  EXPECT_TRUE(f.leader_elect);
  EXPECT_EQ(f.policy, "spread");
  EXPECT_EQ(f.bind_workers, 4);
  EXPECT_EQ(f.status_period, std::chrono::seconds(5));
  EXPECT_EQ(f.default_staleness_grace_period, std::chrono::seconds(-1));
  EXPECT_EQ(ParseFlags({}).value().default_staleness_grace_period, std::chrono::seconds(60));
  EXPECT_FALSE(ParseFlags({"--leader-elect=false"}).value().leader_elect);
  // KAI's restrict-node-scheduling, as its shard arguments spell it.
  const SchedulerFlags restricted =
      ParseFlags({"--restrict-node-scheduling=true", "--gpu-worker-node-label-key=gpu",
                  "--cpu-worker-node-label-key", "cpu"})
          .value();
  EXPECT_TRUE(restricted.restrict_node_scheduling);
  EXPECT_EQ(restricted.gpu_worker_node_label_key, "gpu");
  EXPECT_EQ(restricted.cpu_worker_node_label_key, "cpu");
  const SchedulerFlags defaults = ParseFlags({}).value();
  EXPECT_FALSE(defaults.restrict_node_scheduling);
  EXPECT_EQ(defaults.gpu_worker_node_label_key, "node-role.kubernetes.io/gpu-worker");
  EXPECT_EQ(defaults.cpu_worker_node_label_key, "node-role.kubernetes.io/cpu-worker");
  // KAI's shard: the default takes what carries no kai.scheduler/node-pool.
  EXPECT_EQ(defaults.nodepool_label_key, "kai.scheduler/node-pool");
  EXPECT_EQ(defaults.partition_label_value, "");
  const SchedulerFlags shard =
      ParseFlags({"--nodepool-label-key=pool", "--partition-label-value=a100"}).value();
  EXPECT_EQ(shard.nodepool_label_key, "pool");
  EXPECT_EQ(shard.partition_label_value, "a100");
  EXPECT_EQ(ParseFlags({"--nodepool-label-key="}).value().nodepool_label_key, "");
}

TEST(FlagsTest, TimeBasedFairshareIsOffUntilAWindowIsGiven) {
  const SchedulerFlags defaults = ParseFlags({}).value();
  EXPECT_EQ(defaults.usage_window.count(), 0);
  EXPECT_EQ(defaults.usage_k, 1.0) << "KAI's default kValue";
  const SchedulerFlags f = ParseFlags({"--usage-window=7d", "--usage-resolution=5m",
                                       "--usage-half-life=10m", "--usage-k=0.5"})
                               .value();
  EXPECT_EQ(f.usage_window, std::chrono::hours(168));
  EXPECT_EQ(f.usage_resolution, std::chrono::minutes(5));
  EXPECT_EQ(f.usage_half_life, std::chrono::minutes(10));
  EXPECT_EQ(f.usage_k, 0.5);
  EXPECT_EQ(f.usage_window_type, "sliding");

  const SchedulerFlags tumbling =
      ParseFlags({"--usage-window-type=tumbling", "--usage-window-start=2026-12-07T00:00:00Z"})
          .value();
  EXPECT_EQ(tumbling.usage_window_start, std::optional<int64_t>(1796601600));
  Result<SchedulerFlags> alone = ParseFlags({"--usage-window-type=tumbling"});
  ASSERT_FALSE(alone.ok());
  EXPECT_NE(alone.status().message().find("--usage-window-start"), std::string::npos);

  const SchedulerFlags cron =
      ParseFlags({"--usage-window-type=cron", "--usage-cron=0 0 * * 1"}).value();
  EXPECT_EQ(cron.usage_cron, "0 0 * * 1");
  Result<SchedulerFlags> no_cron = ParseFlags({"--usage-window-type=cron"});
  ASSERT_FALSE(no_cron.ok());
  EXPECT_NE(no_cron.status().message().find("--usage-cron"), std::string::npos);
}

TEST(FlagsTest, BadInputNamesTheFlag) {
  for (auto args : std::vector<std::vector<std::string>>{{"--nope"},
                                                         {"--cycle-period", "soon"},
                                                         // Too long for a number of ms.
                                                         {"--cycle-period", "9223372036854775807s"},
                                                         {"--policy", "best"},
                                                         {"--default-staleness-grace-period=1y"},
                                                         {"--webhook-address", "9443"},
                                                         {"--bind-workers=0"},
                                                         {"--gpu-worker-node-label-key="},
                                                         {"--kubeconfig"},
                                                         {"--usage-window=-1h"},
                                                         {"--usage-resolution=0"},
                                                         {"--usage-k=1001"},
                                                         {"--usage-k=-1"},
                                                         {"--usage-window-type=cron"},
                                                         {"--usage-window-type=weekly"},
                                                         {"--usage-cron=0 0 * * 8"},
                                                         {"--usage-window-start=monday"},
                                                         {"stray"}}) {
    Result<SchedulerFlags> r = ParseFlags(args);
    ASSERT_FALSE(r.ok()) << args[0];
    const std::string flag = args[0].substr(0, args[0].find('='));
    if (flag.starts_with("--")) {
      EXPECT_NE(r.status().message().find(flag), std::string::npos) << r.status().ToString();
    }
  }
}

TEST(FlagsTest, HelpListsEveryFlag) {
  const std::string usage = Usage();
  for (const char* flag : {"--kubeconfig",
                           "--scheduler-name",
                           "--cycle-period",
                           "--reservation-namespace",
                           "--reservation-image",
                           "--reservation-service-account",
                           "--webhook-address",
                           "--webhook-url",
                           "--webhook-cert",
                           "--webhook-key",
                           "--health-address",
                           "--leader-elect",
                           "--leader-elect-namespace",
                           "--policy",
                           "--bind-workers",
                           "--status-period",
                           "--default-staleness-grace-period",
                           "--restrict-node-scheduling",
                           "--gpu-worker-node-label-key",
                           "--cpu-worker-node-label-key",
                           "--usage-window",
                           "--usage-resolution",
                           "--usage-half-life",
                           "--usage-k",
                           "--usage-window-type",
                           "--usage-window-start",
                           "--usage-cron",
                           "--help"})
    EXPECT_NE(usage.find(flag), std::string::npos) << flag;
  EXPECT_TRUE(ParseFlags({"--help"}).value().help);
}

}  // namespace
}  // namespace vtenant::scheduler
