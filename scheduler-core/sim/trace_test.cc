#include "scheduler-core/sim/trace.h"

#include <gtest/gtest.h>

namespace vtenant::sched::sim {
namespace {

constexpr char kPodsHeader[] =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n";

TEST(TraceTest, ReadsOpenbStyleRows) {
  Result<std::vector<PodRecord>> pods =
      ParsePodsCsv("pods.csv", std::string(kPodsHeader) +
                                   "p1,4000,8192,1,500,,LS,Running,10,20,11\n"
                                   "p2,8000,16384,2,1000,V100M16|V100M32,BE,Running,12,,13\n"
                                   "p3,1000,1024,0,0,,Burstable,Running,13,-1,\n"
                                   "p4,1000,1024,2,300,,BE,Pending,14,,\n");
  ASSERT_TRUE(pods.ok()) << pods.status().ToString();
  ASSERT_EQ(pods->size(), 4u);
  const PodSpec& p1 = (*pods)[0].spec;
  EXPECT_EQ(p1.gpu_fraction, 500);
  EXPECT_EQ(p1.memory_bytes, int64_t{8192} << 20);
  EXPECT_EQ(p1.priority, 100);  // LS
  EXPECT_EQ(p1.queue, "default");
  EXPECT_EQ((*pods)[0].deletion_time, 20);
  const PodSpec& p2 = (*pods)[1].spec;
  EXPECT_EQ(p2.whole_gpus, 2);
  ASSERT_EQ(p2.node_affinity_in.size(), 1u);
  EXPECT_EQ(p2.node_affinity_in[0].second, (std::vector<std::string>{"V100M16", "V100M32"}));
  EXPECT_EQ((*pods)[1].deletion_time, -1);
  EXPECT_EQ((*pods)[2].spec.whole_gpus, 0);
  EXPECT_EQ((*pods)[3].spec.gpu_fraction, 300);
  EXPECT_EQ((*pods)[3].spec.num_devices, 2);
}

struct BadRow {
  std::string row;
  std::string message;
};

TEST(TraceTest, MalformedPodsNameFileLineAndField) {
  const BadRow cases[] = {
      {"p,abc,1,0,0,,BE,Running,1,,", "pods.csv:2: field cpu_milli: \"abc\" is not a whole number"},
      {"p,1,1,1,1500,,BE,Running,1,,",
       "pods.csv:2: field gpu_milli: 1500 is outside 0..1000 (a share of one device)"},
      {"p,1,1,0,500,,BE,Running,1,,",
       "pods.csv:2: field num_gpu: is 0 while gpu_milli asks for 500m"},
      {"p,1,1,1,500,,BE,Running,,,", "pods.csv:2: field creation_time: is empty"},
      {"p,1,1,1,500,,BE,Running,10,5,", "pods.csv:2: field deletion_time: is before creation_time"},
      {",1,1,1,500,,BE,Running,10,,", "pods.csv:2: field name: is empty"},
  };
  for (const BadRow& c : cases) {
    Result<std::vector<PodRecord>> pods = ParsePodsCsv("pods.csv", kPodsHeader + c.row + "\n");
    ASSERT_FALSE(pods.ok()) << c.row;
    EXPECT_EQ(pods.status().message().substr(0, c.message.size()), c.message)
        << pods.status().message();
  }
}

TEST(TraceTest, MissingColumnIsNamed) {
  Result<std::vector<PodRecord>> pods = ParsePodsCsv("pods.csv", "name,cpu_milli\np,1\n");
  ASSERT_FALSE(pods.ok());
  EXPECT_EQ(pods.status().message(), "pods.csv:1: header lacks the column memory_mib");
}

TEST(TraceTest, NodesTakeGpuMemoryFromTheColumnOrTheModel) {
  Result<std::vector<NodeSpec>> nodes =
      ParseNodesCsv("nodes.csv",
                    "sn,cpu_milli,memory_mib,gpu,model,gpu_memory_mib,labels\n"
                    "a,96000,786432,8,V100M32,,rack=r1;zone=z\n"
                    "b,96000,786432,1,L40S,46068,\n"
                    "c,32000,131072,0,,,\n");
  ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
  EXPECT_EQ((*nodes)[0].gpu_memory_mib, 32768);
  EXPECT_EQ((*nodes)[0].labels.size(), 3u);  // model, rack, zone
  EXPECT_EQ((*nodes)[1].gpu_memory_mib, 46068);
  EXPECT_EQ((*nodes)[2].gpus, 0);
  Result<std::vector<NodeSpec>> bad =
      ParseNodesCsv("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nx,1,1,99,T4\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "nodes.csv:2: field gpu: 99 is outside 0..64");
}

TEST(TraceTest, CrossFileProblemsPointAtThePodsLine) {
  Trace t;
  t.queues = {GpuQueue("org", "", 0), GpuQueue("team", "org", 0)};
  const std::string header =
      std::string(kPodsHeader).substr(0, std::string(kPodsHeader).size() - 1) +
      ",queue,gang,min_member\n";
  const std::pair<std::string, std::string> cases[] = {
      {"p,1,1,1,500,,BE,Running,1,,,ghost,,1\n",
       "pods.csv:2: field queue: queue \"ghost\" is not defined in the queues file"},
      {"p,1,1,1,500,,BE,Running,1,,,org,,1\n",
       "pods.csv:2: field queue: queue \"org\" has child queues; only leaf queues hold jobs"},
      {"p,1,1,1,500,,BE,Running,1,,,team,g,2\nq,1,1,1,500,,BE,Running,1,,,team,g,3\n",
       "pods.csv:3: field min_member: gang g had min_member 2 on line 2"},
  };
  for (const auto& [rows, message] : cases) {
    t.pods = ParsePodsCsv("pods.csv", header + rows).value();
    EXPECT_EQ(CheckTrace(t, "pods.csv").message(), message);
  }
}

// The tutorial's queues, verbatim in shape.
constexpr char kTutorialQueues[] = R"(apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: ml-org
spec:
  resources:
    gpu:
      quota: 1
      limit: 1
      overQuotaWeight: 1
    cpu:
      quota: -1
      limit: -1
      overQuotaWeight: 1
    memory:
      quota: -1
      limit: -1
      overQuotaWeight: 1
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: nlp
spec:
  parentQueue: ml-org
  priority: 5
  reclaimMinRuntime: 10m
  resources:
    gpu:
      quota: 0.33
      limit: 1
      overQuotaWeight: 1
    memory:
      quota: 2000
      limit: -1
      overQuotaWeight: 2.5
)";

TEST(TraceTest, ReadsKaiQueues) {
  Result<std::vector<QueueSpec>> queues = ParseQueuesYaml("queues.yaml", kTutorialQueues);
  ASSERT_TRUE(queues.ok()) << queues.status().ToString();
  ASSERT_EQ(queues->size(), 2u);
  const QueueSpec& nlp = (*queues)[1];
  EXPECT_EQ(nlp.parent, "ml-org");
  EXPECT_EQ(nlp.priority, 5);
  EXPECT_EQ(nlp.reclaim_min_runtime_s, 600);
  EXPECT_EQ(nlp.resources[kGpu].quota, 330);
  EXPECT_EQ(nlp.resources[kGpu].limit, 1000);
  EXPECT_EQ(nlp.resources[kMemory].quota, 2000LL * 1000 * 1000);  // MB
  EXPECT_EQ(nlp.resources[kMemory].over_quota_weight_milli, 2500);
  EXPECT_EQ((*queues)[0].resources[kCpu].quota, kUnlimited);
}

TEST(TraceTest, MalformedQueuesNameLineAndField) {
  const std::pair<std::string, std::string> cases[] = {
      {"kind: Queue\nmetadata:\n  name: q\nspec:\n  resources:\n    gpu:\n      quota: lots\n",
       "queues.yaml:7: field spec.resources.gpu.quota: spec.resources.gpu.quota \"lots\" is not a "
       "number"},
      {"kind: Queue\nmetadata:\n  name: q\nspec:\n  reclaimMinRuntime: 5x\n",
       "queues.yaml:5: field spec.reclaimMinRuntime: duration \"5x\" is not like"},
      {"kind: Pod\nmetadata:\n  name: q\n", "queues.yaml:1: field kind: \"Pod\" is not Queue"},
      {"kind: Queue\nmetadata: {name: [unclosed\n", "queues.yaml:"},
  };
  for (const auto& [yaml, message] : cases) {
    Result<std::vector<QueueSpec>> queues = ParseQueuesYaml("queues.yaml", yaml);
    ASSERT_FALSE(queues.ok()) << yaml;
    EXPECT_EQ(queues.status().message().substr(0, message.size()), message)
        << queues.status().message();
  }
}

}  // namespace
}  // namespace vtenant::sched::sim
