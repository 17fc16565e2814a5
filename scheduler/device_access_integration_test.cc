// Integration: KAI's --block-nvidia-visible-devices against a real API
// server and its admission chain. A container that asks for no GPU cannot
// reach the node's GPUs through the NVIDIA container runtime by setting
// NVIDIA_VISIBLE_DEVICES (the runtime reads it, the device plugin never
// sees it): the webhook sets it to "void" in the stored pod, and a GPU
// container that widens its own view is refused. Pods of other schedulers
// are not ours to change. And KAI's hamicore plugins (--hami-core): a
// sharing pod's memory limit comes from its GPU ConfigMap, which the
// binder fills with its share of the device, whatever the team wrote.
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
    flags.hami_core = true;
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

TEST_F(DeviceAccessTest, ASharingPodsMemoryLimitIsItsShareWhateverItWrote) {
  Object pod =
      PodManifest("ml", "shared", {.queue = "team", .annotations = {{"gpu-fraction", "0.33"}}});
  pod["spec"]["containers"][0].AddMember(
      "env",
      rapidjson::Value(ParseTestJson(R"([{"name":"CUDA_DEVICE_MEMORY_LIMIT","value":"46068m"}])"),
                       pod.GetAllocator()),
      pod.GetAllocator());
  Result<Object> created = client().Create(res::kPods, "ml", pod);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const std::string configmap =
      std::string(kube::Annotation(*created, "runai/shared-gpu-configmap").value_or("")) + "-0";
  std::string from;
  for (const rapidjson::Value& e : (*created)["spec"]["containers"][0]["env"].GetArray())
    if (kube::GetString(e, {"name"}) == "CUDA_DEVICE_MEMORY_LIMIT")
      from = kube::GetString(e, {"value"}).empty()
                 ? std::string(kube::GetString(e, {"valueFrom", "configMapKeyRef", "name"}))
                 : "value " + std::string(kube::GetString(e, {"value"}));
  EXPECT_EQ(from, configmap) << "the team's own limit is replaced";
  EXPECT_NE(NodeOnceRunning(client(), "ml", "shared"), "");
  Result<Object> data = client().Get(res::kConfigMaps, "ml", configmap);
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  EXPECT_EQ(kube::GetString(*data, {"data", "CUDA_DEVICE_MEMORY_LIMIT"}), "15202m")
      << "0.33 of 46068 MiB";
}

}  // namespace
}  // namespace vtenant::scheduler
