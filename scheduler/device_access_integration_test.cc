// Integration: KAI's --block-nvidia-visible-devices against a real API
// server and its admission chain. A container that asks for no GPU cannot
// reach the node's GPUs through the NVIDIA container runtime by setting
// NVIDIA_VISIBLE_DEVICES (the runtime reads it, the device plugin never
// sees it): the webhook sets it to "void" in the stored pod, and a GPU
// container that widens its own view is refused. Pods of other schedulers
// are not ours to change.
#include <gtest/gtest.h>

#include "localenv/testing/cluster_test.h"
#include "scheduler/testing/scheduler_cluster_test.h"
#include "scheduler/testing/scheduler_fixture.h"

namespace vtenant::scheduler {
namespace {

using namespace testing;

class DeviceAccessTest : public SchedulerClusterTest {
 protected:
  static void SetUpTestSuite() {
    StartWithNodes("sched-devices", R"(
nodes:
- {name: gpu, count: 1, cpu: 16, memory: 64Gi, gpus: 2, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068}
)",
                   {"ml"});
    if (HasFatalFailure()) return;
    ASSERT_TRUE(client().Create(res::kQueues, "", QueueManifest("team", "", -1)).ok());
    SchedulerFlags flags;
    flags.block_nvidia_visible_devices = true;
    StartSuiteScheduler(flags);
  }

  // A pod of queue team: a container "train" of `gpus` whole GPUs with
  // `train_env`, and a container "spy" asking for none with `spy_env`.
  static Object TwoContainers(const std::string& name, int gpus, const std::string& train_env,
                              const std::string& spy_env,
                              const std::string& scheduler = "kai-scheduler") {
    Object pod = PodManifest("ml", name, {.queue = "team", .whole_gpus = gpus});
    kube::SetString(pod, {"spec"}, "schedulerName", scheduler);
    rapidjson::Value& containers = pod["spec"]["containers"];
    containers[0].AddMember("env", rapidjson::Value(ParseTestJson(train_env), pod.GetAllocator()),
                            pod.GetAllocator());
    rapidjson::Value spy(ParseTestJson(R"({"name":"spy","image":"busybox"})"), pod.GetAllocator());
    spy.AddMember("env", rapidjson::Value(ParseTestJson(spy_env), pod.GetAllocator()),
                  pod.GetAllocator());
    containers.PushBack(spy, pod.GetAllocator());
    return pod;
  }

  // The stored value of NVIDIA_VISIBLE_DEVICES in container `index` of `pod`.
  static std::string VisibleDevices(const Object& pod, int index) {
    for (const rapidjson::Value& e :
         pod["spec"]["containers"][static_cast<rapidjson::SizeType>(index)]["env"].GetArray())
      if (kube::GetString(e, {"name"}) == "NVIDIA_VISIBLE_DEVICES")
        return std::string(kube::GetString(e, {"value"}));
    return "<unset>";
  }
};

TEST_F(DeviceAccessTest, AContainerWithoutGpusIsBlockedFromTheNodesGpus) {
  Result<Object> created = client().Create(
      res::kPods, "ml",
      TwoContainers("snoop", 1, R"([{"name":"NVIDIA_VISIBLE_DEVICES","value":"none"}])",
                    R"([{"name":"NVIDIA_VISIBLE_DEVICES","value":"all"}])"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(VisibleDevices(*created, 1), "void") << "the spy asked for no GPU";
  EXPECT_EQ(VisibleDevices(*created, 0), "none") << "the GPU container's own choice stays";
}

TEST_F(DeviceAccessTest, AGpuContainerThatWidensItsViewIsRefused) {
  Result<Object> refused = client().Create(
      res::kPods, "ml",
      TwoContainers("greedy", 1, R"([{"name":"NVIDIA_VISIBLE_DEVICES","value":"all"}])", "[]"));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(
      refused.status().message().find("container main sets NVIDIA_VISIBLE_DEVICES to \"all\""),
      std::string::npos)
      << refused.status().message();
  EXPECT_EQ(client().Get(res::kPods, "ml", "greedy").status().code(), StatusCode::kNotFound);
}

TEST_F(DeviceAccessTest, AnotherSchedulersPodIsNotOurs) {
  Result<Object> created = client().Create(
      res::kPods, "ml",
      TwoContainers("theirs", 0, "[]", R"([{"name":"NVIDIA_VISIBLE_DEVICES","value":"all"}])",
                    "default-scheduler"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(VisibleDevices(*created, 1), "all");
}

}  // namespace
}  // namespace vtenant::scheduler
