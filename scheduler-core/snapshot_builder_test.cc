#include "scheduler-core/snapshot_builder.h"

#include <gtest/gtest.h>

#include <functional>

namespace vtenant::sched {
namespace {

// A small valid world that each bad-input case breaks in one way.
SnapshotBuilder ValidWorld() {
  SnapshotBuilder b;
  b.AddNode({.name = "n1",
             .cpu_milli = 8000,
             .memory_bytes = 1 << 30,
             .gpus = 2,
             .gpu_memory_mib = 46068,
             .gpu_model = "NVIDIA-L40S"});
  b.AddQueue(GpuQueue("org", "", 1000));
  b.AddQueue(GpuQueue("team", "org", 1000));
  return b;
}

struct BadCase {
  std::string name;
  std::function<void(SnapshotBuilder&)> breakit;
  std::string message_part;
};

// One row per input Build() refuses, each breaking ValidWorld() one way and
// checked alike below.
TEST(SnapshotBuilderTest, RejectsBadInputsNamingObjectAndField) {
  const BadCase cases[] = {
      {"fraction above one",
       [](SnapshotBuilder& b) { b.AddPod({.name = "p", .queue = "team", .gpu_fraction = 1500}); },
       "pod p: gpu-fraction 1500m is outside (0, 1000m]"},
      {"fraction and whole GPUs",
       [](SnapshotBuilder& b) {
         b.AddPod({.name = "p", .queue = "team", .whole_gpus = 1, .gpu_fraction = 500});
       },
       "whole GPUs never share a device"},
      {"fraction and memory",
       [](SnapshotBuilder& b) {
         b.AddPod({.name = "p", .queue = "team", .gpu_fraction = 500, .gpu_memory_mib = 4000});
       },
       "gpu-fraction and gpu-memory are both set"},
      {"num devices without sharing",
       [](SnapshotBuilder& b) {
         b.AddPod({.name = "p", .queue = "team", .whole_gpus = 1, .num_devices = 2});
       },
       "gpu-fraction-num-devices needs gpu-fraction or gpu-memory"},
      {"unknown queue",
       [](SnapshotBuilder& b) { b.AddPod({.name = "p", .queue = "nope", .cpu_milli = 1}); },
       "queue \"nope\" does not exist"},
      {"job in a parent queue",
       [](SnapshotBuilder& b) { b.AddPod({.name = "p", .queue = "org", .cpu_milli = 1}); },
       "only leaf queues hold jobs"},
      {"unknown parent queue", [](SnapshotBuilder& b) { b.AddQueue(GpuQueue("x", "ghost", 0)); },
       "queue x: parentQueue ghost does not exist"},
      {"parent cycle",
       [](SnapshotBuilder& b) {
         b.AddQueue(GpuQueue("c1", "c2", 0));
         b.AddQueue(GpuQueue("c2", "c1", 0));
       },
       "forms a cycle"},
      {"quota above limit", [](SnapshotBuilder& b) { b.AddQueue(GpuQueue("x", "", 2000, 1000)); },
       "queue x: spec.resources.gpu.quota 2000m exceeds its limit 1000m"},
      {"duplicate pod",
       [](SnapshotBuilder& b) {
         b.AddPod({.name = "p", .queue = "team"});
         b.AddPod({.name = "p", .queue = "team"});
       },
       "pod p is defined twice"},
      {"runs on an unknown node",
       [](SnapshotBuilder& b) {
         b.AddPod({.name = "p", .queue = "team", .whole_gpus = 1, .node = "n9", .devices = {0}});
       },
       "runs on unknown node n9"},
      {"runs on a device the node lacks",
       [](SnapshotBuilder& b) {
         b.AddPod({.name = "p", .queue = "team", .whole_gpus = 1, .node = "n1", .devices = {5}});
       },
       "device 5 that node n1 does not have"},
      {"whole GPU pod holding the wrong device count",
       [](SnapshotBuilder& b) {
         b.AddPod({.name = "p", .queue = "team", .whole_gpus = 2, .node = "n1", .devices = {0}});
       },
       "exactly its 2 whole devices"},
      {"bad MIG profile",
       [](SnapshotBuilder& b) {
         b.AddPod({.name = "p", .queue = "team", .mig_profile = "9g.80gb", .mig_count = 1});
       },
       "MIG profile \"9g.80gb\""},
      {"too many GPUs on a node",
       [](SnapshotBuilder& b) { b.AddNode({.name = "big", .gpus = 65}); }, "node big: 65 GPUs"},
      {"negative minMember",
       [](SnapshotBuilder& b) { b.AddGroup({.name = "g", .queue = "team", .min_member = 0}); },
       "podgroup g: minMember must be at least 1"},
      {"unknown pod group", [](SnapshotBuilder& b) { b.AddPod({.name = "p", .group = "nope"}); },
       "pod p: pod group nope does not exist"},
  };
  for (const BadCase& c : cases) {
    SnapshotBuilder b = ValidWorld();
    c.breakit(b);
    Result<Snapshot> got = b.Build();
    ASSERT_FALSE(got.ok()) << c.name;
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument) << c.name;
    EXPECT_NE(got.status().message().find(c.message_part), std::string::npos)
        << c.name << ": " << got.status().message();
  }
}

TEST(SnapshotBuilderTest, ValidWorldBuilds) {
  Result<Snapshot> got = ValidWorld().Build();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->nodes.size(), 1u);
  EXPECT_EQ(got->devices.size(), 2u);
  EXPECT_EQ(got->queues[0].children, std::vector<QueueId>{1});
}

TEST(SnapshotBuilderTest, PodWithoutGroupIsAJobOfItsOwn) {
  SnapshotBuilder b = ValidWorld();
  b.AddPod(
      {.name = "solo", .queue = "team", .priority = 7, .preemptible = false, .gpu_fraction = 500});
  Result<Snapshot> got = b.Build();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  const PodGroup& g = got->groups[got->pods[0].group];
  EXPECT_EQ(g.name, "solo");
  EXPECT_EQ(g.min_member, 1);
  EXPECT_EQ(g.priority, 7);
  EXPECT_FALSE(g.preemptible);
  EXPECT_EQ(got->queues[g.queue].name, "team");
}

TEST(SnapshotBuilderTest, EqualRequestsShareAShapeAndOthersDoNot) {
  SnapshotBuilder b = ValidWorld();
  b.AddPod({.name = "a", .queue = "team", .gpu_fraction = 500});
  b.AddPod({.name = "b", .queue = "team", .gpu_fraction = 500});
  b.AddPod({.name = "c", .queue = "team", .gpu_fraction = 250});
  b.AddPod({.name = "d", .queue = "team", .gpu_fraction = 500, .node_selector = {{"k", "v"}}});
  Result<Snapshot> got = b.Build();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->pods[0].shape, got->pods[1].shape);
  EXPECT_NE(got->pods[0].shape, got->pods[2].shape);
  EXPECT_NE(got->pods[0].shape, got->pods[3].shape);
  EXPECT_EQ(got->num_shapes, 3);
}

TEST(SnapshotBuilderTest, RunningMemoryPodIsPricedOnItsDevice) {
  SnapshotBuilder b = ValidWorld();
  b.AddPod({.name = "m", .queue = "team", .gpu_memory_mib = 4000, .node = "n1", .devices = {1}});
  Result<Snapshot> got = b.Build();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  // ceil(4000 * 1000 / 46068) = 87.
  EXPECT_EQ(got->pods[0].allocation.portion, 87);
  EXPECT_EQ(got->pods[0].allocation.device_mask, 0b10u);
}

}  // namespace
}  // namespace vtenant::sched
