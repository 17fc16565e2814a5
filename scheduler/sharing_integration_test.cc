// Integration: vtenant-scheduler on a real API server with simulated GPU
// nodes (kwok runs what is bound): GPU sharing end to end (webhook,
// reservation pods, ConfigMaps, binding), malformed requests refused, gangs
// (with KAI sub-groups too).
// Each test uses its own node pool (nodeSelector) and namespace.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include "base/eventually.h"
#include "kube/conditions.h"
#include "kube/json_builder.h"
#include "localenv/command.h"
#include "localenv/testing/cluster_test.h"
#include "localenv/tools.h"
#include "scheduler/kai_names.h"
#include "scheduler/reservation.h"
#include "scheduler/testing/scheduler_cluster_test.h"
#include "scheduler/testing/scheduler_fixture.h"

namespace vtenant::scheduler {
namespace {

using namespace testing;

class SharingTest : public SchedulerClusterTest {
 protected:
  static void SetUpTestSuite() {
    // This suite's own nodes; every scheduler suite starts its cluster alike
    // (testing/scheduler_cluster_test.h).
    StartWithNodes("sched-sharing", R"(
nodes:
- {name: half, count: 2, cpu: 16, memory: 64Gi, gpus: 1, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: half}}
- {name: mem, count: 1, cpu: 16, memory: 64Gi, gpus: 1, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: mem}}
- {name: gang, count: 1, cpu: 32, memory: 128Gi, gpus: 4, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: gang}}
- {name: job, count: 1, cpu: 32, memory: 128Gi, gpus: 2, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: job}}
- {name: mig, count: 1, cpu: 16, memory: 64Gi, gpus: 0, resources: {nvidia.com/mig-1g.10gb: 3, nvidia.com/mig-3g.40gb: 1}, labels: {pool: mig}}
- {name: heal, count: 1, cpu: 16, memory: 64Gi, gpus: 1, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: heal}}
- {name: sub, count: 1, cpu: 32, memory: 128Gi, gpus: 3, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: sub}}
- {name: wait, count: 1, cpu: 16, memory: 64Gi, gpus: 1, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: wait}}
- {name: runtime, count: 1, cpu: 16, memory: 64Gi, gpus: 1, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: runtime}}
- {name: nogang, count: 1, cpu: 16, memory: 64Gi, gpus: 1, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: nogang}}
- {name: stale, count: 1, cpu: 16, memory: 64Gi, gpus: 2, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: stale}}
- {name: jobset, count: 1, cpu: 16, memory: 64Gi, gpus: 2, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: jobset}}
- {name: topo-b1, count: 1, cpu: 16, memory: 64Gi, gpus: 2, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: topo, example.com/block: b1, example.com/rack: r1}}
- {name: topo-b2, count: 1, cpu: 16, memory: 64Gi, gpus: 2, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: topo, example.com/block: b2, example.com/rack: r1}}
- {name: split-r1, count: 1, cpu: 16, memory: 64Gi, gpus: 3, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: split, example.com/block: b1, example.com/rack: r1}}
- {name: split-r2, count: 1, cpu: 16, memory: 64Gi, gpus: 2, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: split, example.com/block: b1, example.com/rack: r2}}
- {name: serve, count: 1, cpu: 16, memory: 64Gi, gpus: 1, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: serve}}
- {name: vol-a, count: 1, cpu: 16, memory: 64Gi, gpus: 1, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: vol, topology.kubernetes.io/zone: a}}
- {name: vol-b, count: 1, cpu: 16, memory: 64Gi, gpus: 1, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: vol, topology.kubernetes.io/zone: b}}
- {name: apart, count: 2, cpu: 16, memory: 64Gi, gpus: 2, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: apart}}
- {name: prefer, count: 2, cpu: 16, memory: 64Gi, gpus: 1, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: prefer}}
- {name: spread-a, count: 2, cpu: 16, memory: 64Gi, gpus: 2, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: spread, topology.kubernetes.io/zone: a}}
- {name: spread-b, count: 1, cpu: 16, memory: 64Gi, gpus: 2, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: spread, topology.kubernetes.io/zone: b}}
- {name: extras-ib, count: 1, cpu: 16, memory: 64Gi, gpus: 2, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, resources: {rdma/ib: 1}, labels: {pool: extras}}
- {name: extras-plain, count: 1, cpu: 16, memory: 64Gi, gpus: 2, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: extras}}
- {name: near, count: 2, cpu: 16, memory: 64Gi, gpus: 2, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: near}}
- {name: amd, count: 1, cpu: 16, memory: 64Gi, gpus: 0, resources: {amd.com/gpu: 2}, labels: {pool: amd}}
- {name: nolabel, count: 1, cpu: 16, memory: 64Gi, gpus: 0, resources: {nvidia.com/gpu: 1}, labels: {pool: nolabel}}
- {name: nssel, count: 2, cpu: 16, memory: 64Gi, gpus: 1, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: nssel}}
- {name: grove, count: 1, cpu: 32, memory: 128Gi, gpus: 3, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: grove}}
- {name: attach, count: 2, cpu: 16, memory: 64Gi, gpus: 0, labels: {pool: attach}}
- {name: solo, count: 2, cpu: 16, memory: 64Gi, gpus: 0, labels: {pool: solo}}
- {name: dra, count: 2, cpu: 16, memory: 64Gi, gpus: 0, labels: {pool: dra}}
- {name: drareclaim, count: 1, cpu: 16, memory: 64Gi, gpus: 0, labels: {pool: drareclaim}}
- {name: drashare, count: 2, cpu: 16, memory: 64Gi, gpus: 1, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068, labels: {pool: drashare}}
- {name: drataint, count: 1, cpu: 16, memory: 64Gi, gpus: 0, labels: {pool: drataint}}
- {name: drapart, count: 1, cpu: 16, memory: 64Gi, gpus: 0, labels: {pool: drapart}}
- {name: draadmin, count: 1, cpu: 16, memory: 64Gi, gpus: 0, labels: {pool: draadmin}}
- {name: drapernode, count: 2, cpu: 16, memory: 64Gi, gpus: 0, labels: {pool: drapernode}}
- {name: draext, count: 1, cpu: 16, memory: 64Gi, gpus: 0, labels: {pool: draext}}
)",
                   {"half",     "mem",      "bad",     "gang",     "job",        "heal",
                    "mig",      "sub",      "wait",    "runtime",  "nogang",     "stale",
                    "jobset",   "topo",     "split",   "serve",    "vol",        "apart",
                    "near",     "prefer",   "spread",  "extras",   "amd",        "nolabel",
                    "nssel",    "grove",    "attach",  "solo",     "dra",        "drareclaim",
                    "drashare", "drataint", "drapart", "draadmin", "drapernode", "draext"});
    if (HasFatalFailure()) return;
    ASSERT_TRUE(client().Create(res::kQueues, "", QueueManifest("team", "", -1)).ok());
    SchedulerFlags flags;
    flags.enable_quota_validation = true;  // KaisQueueChecksHoldAtTheApiServer
    StartSuiteScheduler(std::move(flags));
  }

  static Object Pod(const std::string& ns, const std::string& name, PodOptions o) {
    o.queue = o.queue.empty() ? "team" : o.queue;
    Object pod = PodManifest(ns, name, o);
    kube::SetString(pod, {"spec", "nodeSelector"}, "pool", ns);
    return pod;
  }

  // Creates the object `json` describes, of `type`, in `ns`; a refusal
  // fails the test.
  static void CreateJson(const kube::ResourceType& type, const std::string& ns,
                         const std::string& json) {
    Status s = client().Create(type, ns, ParseTestJson(json)).status();
    EXPECT_TRUE(s.ok()) << s.ToString();
  }

  // A pod asking for no GPU (only its volume chooses between the nodes)
  // with volume "data" of claim `claim`.
  static Object PodWithClaim(const std::string& ns, const std::string& name,
                             const std::string& claim) {
    Object pod = Pod(ns, name, {});
    pod["spec"].AddMember(
        "volumes",
        rapidjson::Value(ParseTestJson(R"([{"name":"data","persistentVolumeClaim":{"claimName":")" +
                                       claim + R"("}}])"),
                         pod.GetAllocator()),
        pod.GetAllocator());
    return pod;
  }

  // DeviceClass `driver`, of every device of driver `driver`.
  static void ClassOf(const std::string& driver) {
    CreateJson(res::kDeviceClasses, "",
               R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":")" +
                   driver + R"("},"spec":{"selectors":[{"cel":{"expression":
        "device.driver == ')" +
                   driver + R"('"}}]}})");
  }

  // DeviceClass `driver`, of that driver's devices, and a ResourceSlice
  // of node `node` (its pool) with that driver's one device "gpu-0".
  static void OneDeviceOf(const std::string& driver, const std::string& node) {
    ClassOf(driver);
    CreateJson(res::kResourceSlices, "",
               R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":")" +
                   node + R"("},"spec":{"driver":")" + driver + R"(","nodeName":")" + node +
                   R"(","pool":{"name":")" + node +
                   R"(","generation":1,"resourceSliceCount":1},"devices":[{"name":"gpu-0"}]}})");
  }

  // A pod of `o` with ResourceClaim `claim` as its entry "gpu".
  static Object PodWithDeviceClaim(const std::string& ns, const std::string& name,
                                   const std::string& claim, PodOptions o = {}) {
    Object pod = Pod(ns, name, std::move(o));
    pod["spec"].AddMember("resourceClaims",
                          rapidjson::Value(ParseTestJson(R"([{"name":"gpu","resourceClaimName":")" +
                                                         claim + R"("}])"),
                                           pod.GetAllocator()),
                          pod.GetAllocator());
    return pod;
  }

  static std::vector<Object> PodsOf(const std::string& ns) {
    Result<kube::ObjectList> list = client().ListAll(res::kPods, ns);
    EXPECT_TRUE(list.ok());
    return list.ok() ? std::move(list->items) : std::vector<Object>{};
  }

  static std::vector<Object> ReservationPods() { return PodsOf("vtenant-reservation"); }

  // Whether pod ns/name gets, in time, an Unschedulable Event whose message
  // holds `expected`; a failure says what it got instead.
  static ::testing::AssertionResult WaitsSaying(const std::string& ns, const std::string& name,
                                                const std::string& expected) {
    std::vector<std::string> why;
    if (Eventually([&] {
          why = EventMessages(client(), ns, name, "Unschedulable");
          return !why.empty() && why.front().find(expected) != std::string::npos;
        }))
      return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << name << ": " << (why.empty() ? "no Event" : why.front());
  }

  // The gang tests' first step: a whole-GPU pod "blocker" in pool `ns`,
  // running, so that the gang that follows is one GPU short.
  static bool RunBlocker(const std::string& ns) {
    return client().Create(res::kPods, ns, Pod(ns, "blocker", {.whole_gpus = 1})).ok() &&
           Eventually([&] { return CountPods(client(), ns, "Running") == 1; });
  }

  // Creates PodGroup ns/name with `spec`, a JSON object.
  static bool CreatePodGroup(const std::string& ns, const std::string& name,
                             const std::string& spec) {
    Object pg = kube::BuildJson(
        kube::JsonObject{{"apiVersion", "scheduling.run.ai/v2alpha2"},
                         {"kind", "PodGroup"},
                         {"metadata", kube::JsonObject{{"name", name}, {"namespace", ns}}},
                         {"spec", kube::JsonValue(ParseTestJson(spec))}});
    return client().Create(res::kPodGroups, ns, pg).ok();
  }

  // Whether PodGroup ns/name comes to say it waits (phase Pending, with a
  // scheduling condition whose reason is PodSchedulingErrors), before the
  // deadline.
  static bool GroupWaitsWithAReason(const std::string& ns, const std::string& name) {
    return Eventually([&] {
      Result<Object> pg = client().Get(res::kPodGroups, ns, name);
      if (!pg.ok() || kube::GetString(*pg, {"status", "phase"}) != "Pending") return false;
      // Named as KAI names it, under reasons[], which the CRD keeps.
      const rapidjson::Value* conditions = kube::Find(*pg, {"status", "schedulingConditions"});
      if (conditions == nullptr || !conditions->IsArray() || conditions->Empty()) return false;
      const rapidjson::Value* reasons = kube::Find((*conditions)[0], {"reasons"});
      return reasons != nullptr && reasons->IsArray() && !reasons->Empty() &&
             kube::GetString((*reasons)[0], {"reason"}) == "PodSchedulingErrors";
    });
  }

  // No pod in `ns` but the blocker has a node.
  static void ExpectOnlyTheBlockerBound(const std::string& ns) {
    for (const Object& p : PodsOf(ns))
      if (kube::Name(p) != "blocker") {
        EXPECT_EQ(kube::GetString(p, {"spec", "nodeName"}), "") << kube::Name(p);
      }
  }
};

TEST_F(SharingTest, FiveHalvesOnTwoGpusRunFourAndSayWhyTheFifthWaits) {
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(client()
                    .Create(res::kPods, "half",
                            Pod("half", "h" + std::to_string(i),
                                {.annotations = {{"gpu-fraction", "0.5"}}}))
                    .ok());
  ASSERT_TRUE(Eventually([&] { return CountPods(client(), "half", "Running") == 4; }))
      << "running: " << CountPods(client(), "half", "Running");
  // The fifth stays pending, with an Event that says why.
  std::string pending;
  for (const Object& p : PodsOf("half"))
    if (kube::GetString(p, {"spec", "nodeName"}).empty()) pending = std::string(kube::Name(p));
  ASSERT_FALSE(pending.empty());
  std::vector<std::string> why;
  ASSERT_TRUE(Eventually([&] {
    why = EventMessages(client(), "half", pending, "Unschedulable");
    return !why.empty();
  }));
  EXPECT_NE(why[0].find("nodes"), std::string::npos) << why[0];
  // And the pod's PodScheduled condition, as kube-scheduler and KAI write it.
  std::string condition;
  EXPECT_TRUE(Eventually([&] {
    condition.clear();
    Result<Object> p = client().Get(res::kPods, "half", pending);
    if (!p.ok()) return false;
    if (std::optional<kube::Condition> c = kube::FindCondition(*p, "PodScheduled"))
      condition = c->status + " " + c->reason + ": " + c->message;
    return condition.starts_with("False Unschedulable: ") &&
           condition.find("nodes") != std::string::npos;
  })) << condition;

  // Each running pod's ConfigMap names its GPU (its reservation's UUID) and portion.
  // Each is labelled with its GPU's group, as the reservation pod is.
  std::map<std::string, std::string> uuid_of_node;  // one GPU per node here
  std::map<std::string, std::string> group_of_node;
  std::vector<Object> reservations = ReservationPods();
  for (const Object& r : reservations) {
    const std::string node(kube::GetString(r, {"spec", "nodeName"}));
    uuid_of_node[node] = std::string(kube::Annotation(r, kReservedGpuAnnotation).value_or(""));
    group_of_node[node] = std::string(kube::Label(r, kGpuGroupLabel).value_or(""));
  }
  EXPECT_EQ(reservations.size(), 2u) << "one reservation pod per used GPU";
  std::map<std::string, int> per_node;
  for (const Object& p : PodsOf("half")) {
    const std::string node(kube::GetString(p, {"spec", "nodeName"}));
    if (node.empty()) continue;
    ++per_node[node];
    std::string prefix(kube::Annotation(p, kSharedGpuConfigMapAnnotation).value_or(""));
    ASSERT_FALSE(prefix.empty()) << "the webhook did not annotate " << kube::Name(p);
    // Found as KAI's own suites find a shared pod's GPU: through the
    // ConfigMap key its NVIDIA_VISIBLE_DEVICES env var refers to.
    const rapidjson::Value& container = p["spec"]["containers"][0];
    const rapidjson::Value* visible = nullptr;
    for (const rapidjson::Value& e : container["env"].GetArray())
      if (kube::GetString(e, {"name"}) == kVisibleDevicesKey) visible = &e;
    ASSERT_NE(visible, nullptr) << kube::Name(p);
    const std::string configmap(
        kube::GetString(*visible, {"valueFrom", "configMapKeyRef", "name"}));
    EXPECT_EQ(configmap, prefix + "-0");
    Result<Object> cm = client().Get(res::kConfigMaps, "half", configmap);
    ASSERT_TRUE(cm.ok()) << cm.status().ToString();
    EXPECT_EQ(
        kube::GetString(*cm, {"data", std::string(kube::GetString(
                                          *visible, {"valueFrom", "configMapKeyRef", "key"}))}),
        uuid_of_node[node]);
    EXPECT_FALSE(uuid_of_node[node].empty());
    EXPECT_EQ(kube::GetString(*cm, {"data", kGpuPortionKey}), "0.50");
    EXPECT_EQ(kube::GetString(*cm, {"data", kNumGpusKey}), "0.50");
    // Its envFrom ConfigMap exists too: the kubelet would not start it otherwise.
    EXPECT_EQ(kube::GetString(container["envFrom"][0], {"configMapRef", "name"}),
              prefix + "-0-evar");
    EXPECT_TRUE(client().Get(res::kConfigMaps, "half", prefix + "-0-evar").ok());
    EXPECT_EQ(kube::Annotation(p, kGpuIndexAnnotation).value_or(""), "0");
    EXPECT_FALSE(group_of_node[node].empty());
    EXPECT_EQ(kube::Label(p, kGpuGroupLabel).value_or(""), group_of_node[node]) << kube::Name(p);
  }
  EXPECT_EQ(per_node, (std::map<std::string, int>{{"half-0", 2}, {"half-1", 2}}));

  // When a GPU empties, its reservation pod goes.
  for (const Object& p : PodsOf("half"))
    if (kube::GetString(p, {"spec", "nodeName"}) == "half-1" || kube::Name(p) == pending) {
      ASSERT_TRUE(client().Delete(res::kPods, "half", kube::Name(p)).ok());
    }
  EXPECT_TRUE(Eventually([&] {
    std::vector<Object> left = ReservationPods();
    return left.size() == 1 && kube::GetString(left[0], {"spec", "nodeName"}) == "half-0";
  })) << ReservationPods().size()
      << " reservation pods";
}

TEST_F(SharingTest, GpuMemoryPodsAndAHalfShareOneL40s) {
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(
        client()
            .Create(res::kPods, "mem",
                    Pod("mem", "m" + std::to_string(i), {.annotations = {{"gpu-memory", "4000"}}}))
            .ok());
  // A dotted name, which the webhook's volume for the pod may not carry:
  // the API server refuses a pod whose volume name is no DNS label.
  Result<Object> dotted = client().Create(
      res::kPods, "mem", Pod("mem", "f.v2", {.annotations = {{"gpu-fraction", "0.5"}}}));
  ASSERT_TRUE(dotted.ok()) << dotted.status().ToString();
  ASSERT_TRUE(Eventually([&] { return CountPods(client(), "mem", "Running") == 4; }));
  std::set<std::string> devices;
  for (const Object& p : PodsOf("mem")) {
    EXPECT_EQ(kube::GetString(p, {"spec", "nodeName"}), "mem-0");
    devices.insert(std::string(kube::Annotation(p, kGpuIndexAnnotation).value_or("?")));
    if (kube::Name(p) == "m0") {
      Result<Object> cm = client().Get(
          res::kConfigMaps, "mem",
          std::string(kube::Annotation(p, kSharedGpuConfigMapAnnotation).value_or("")) + "-0");
      ASSERT_TRUE(cm.ok());
      // 4000 MiB of 46068 MiB: 87 thousandths (rounded up so memory is
      // never overcommitted), written with two decimals as KAI writes it.
      EXPECT_EQ(kube::GetString(*cm, {"data", kGpuPortionKey}), "0.09");
    }
  }
  EXPECT_EQ(devices, (std::set<std::string>{"0"}));
}

TEST_F(SharingTest, MalformedGpuRequestsAreRefusedWithAReason) {
  struct Case {
    std::map<std::string, std::string> annotations;
    int whole = 0;
    std::string says;
  };
  for (const Case& c :
       std::vector<Case>{{{{"gpu-fraction", "1.5"}}, 0, "gpu-fraction"},
                         {{{"gpu-fraction", "0"}}, 0, "gpu-fraction"},
                         {{{"gpu-memory", "4k"}}, 0, "gpu-memory"},
                         {{{"gpu-fraction", "0.5"}, {"gpu-memory", "100"}}, 0, "both"},
                         {{{"gpu-fraction", "0.5"}}, 1, "nvidia.com/gpu"}}) {
    Result<Object> r = client().Create(
        res::kPods, "bad", Pod("bad", "p", {.annotations = c.annotations, .whole_gpus = c.whole}));
    ASSERT_FALSE(r.ok()) << "accepted " << kube::ToJson(*r);
    EXPECT_NE(r.status().message().find(c.says), std::string::npos) << r.status().ToString();
  }
  // Pods of other schedulers are none of its business.
  PodOptions other{.annotations = {{"gpu-fraction", "1.5"}}, .scheduler_name = "default-scheduler"};
  EXPECT_TRUE(client().Create(res::kPods, "bad", Pod("bad", "other", other)).ok());
}

TEST_F(SharingTest, AGangWaitsWholeAndBindsWholeWhenAGpuFrees) {
  ASSERT_TRUE(RunBlocker("gang"));
  ASSERT_TRUE(CreatePodGroup("gang", "train", R"({"minMember":4,"queue":"team"})"));
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(client()
                    .Create(res::kPods, "gang",
                            Pod("gang", "w" + std::to_string(i),
                                {.annotations = {{"pod-group-name", "train"}}, .whole_gpus = 1}))
                    .ok());
  // Three GPUs free for four pods: none is bound, and the group says why.
  ASSERT_TRUE(GroupWaitsWithAReason("gang", "train"));
  ExpectOnlyTheBlockerBound("gang");
  ASSERT_TRUE(client().Delete(res::kPods, "gang", "blocker").ok());
  ASSERT_TRUE(Eventually([&] { return CountPods(client(), "gang", "Running") == 4; }));
  ASSERT_TRUE(Eventually([&] {
    Result<Object> pg = client().Get(res::kPodGroups, "gang", "train");
    return pg.ok() && kube::GetString(*pg, {"status", "phase"}) == "Running";
  }));
}

// Dynamic resource allocation, as kube-scheduler's DynamicResources plugin
// (which KAI runs) has it: each pod's claim is given a device its class
// selects on the pod's node, written into the claim before the pod is
// bound; a device is one claim's at a time, and freed when its pods go.
TEST_F(SharingTest, ResourceClaimsAreGivenDevicesOfThePodsNodes) {
  const kube::ResourceType templates{"resource.k8s.io", "v1", "resourceclaimtemplates",
                                     "ResourceClaimTemplate", true};
  CreateJson(res::kDeviceClasses, "", R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass",
      "metadata":{"name":"gpu.example.com"},"spec":{"selectors":[{"cel":{"expression":
      "device.driver == 'gpu.example.com' && device.attributes['gpu.example.com'].type == 'gpu'"
      }}]}})");
  // Each node publishes a GPU and a NIC; the class selects the GPU only.
  for (const char* node : {"dra-0", "dra-1"})
    CreateJson(res::kResourceSlices, "",
               R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":")" +
                   std::string(node) + R"("},"spec":{"driver":"gpu.example.com","nodeName":")" +
                   node + R"(","pool":{"name":")" + node +
                   R"(","generation":1,"resourceSliceCount":1},"devices":[
        {"name":"nic-0","attributes":{"type":{"string":"nic"}}},
        {"name":"gpu-0","attributes":{"type":{"string":"gpu"}}}]}})");
  auto claim = [](const std::string& name, const std::string& labels) {
    return R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":")" +
           name + R"(","labels":)" + labels + R"(},"spec":{"devices":{"requests":[
        {"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]}}})";
  };
  auto pod = [](const std::string& name, const std::string& entry) {
    Object p = Pod("dra", name, {});
    p["spec"].AddMember("resourceClaims",
                        rapidjson::Value(ParseTestJson("[" + entry + "]"), p.GetAllocator()),
                        p.GetAllocator());
    return p;
  };
  // Claims the pods share name their queue, as KAI requires of GPU claims.
  for (const char* name : {"a", "b", "c"}) {
    CreateJson(res::kResourceClaims, "dra", claim(name, R"({"kai.scheduler/queue":"team"})"));
    ASSERT_TRUE(client()
                    .Create(res::kPods, "dra",
                            pod(std::string("p") + name, R"({"name":"gpu","resourceClaimName":")" +
                                                             std::string(name) + R"("})"))
                    .ok());
  }
  ASSERT_TRUE(Eventually([&] { return CountPods(client(), "dra", "Running") == 2; }));
  std::set<std::string> nodes;
  std::string waiting, running;
  for (const Object& p : PodsOf("dra")) {
    if (kube::GetString(p, {"spec", "nodeName"}).empty()) {
      waiting = std::string(kube::Name(p));
      continue;
    }
    running = std::string(kube::Name(p));
    nodes.insert(std::string(kube::GetString(p, {"spec", "nodeName"})));
    // Its claim holds the node's GPU, reserved for it.
    Result<Object> c = client().Get(res::kResourceClaims, "dra", running.substr(1));
    ASSERT_TRUE(c.ok());
    const rapidjson::Value* results =
        kube::Find(*c, {"status", "allocation", "devices", "results"});
    ASSERT_TRUE(results != nullptr && results->IsArray() && results->Size() == 1)
        << kube::ToJson(*c);
    EXPECT_EQ(kube::GetString((*results)[0], {"device"}), "gpu-0");
    EXPECT_EQ(kube::GetString((*results)[0], {"pool"}), kube::GetString(p, {"spec", "nodeName"}));
    const rapidjson::Value* reserved = kube::Find(*c, {"status", "reservedFor"});
    ASSERT_TRUE(reserved != nullptr && reserved->IsArray() && reserved->Size() == 1);
    EXPECT_EQ(kube::GetString((*reserved)[0], {"uid"}), kube::Uid(p));
  }
  EXPECT_EQ(nodes.size(), 2u) << "one GPU a node";
  ASSERT_FALSE(waiting.empty());
  EXPECT_TRUE(WaitsSaying("dra", waiting, "cannot allocate all claims"));

  // A GPU claim without the queue label is refused, as KAI refuses it.
  CreateJson(res::kResourceClaims, "dra", claim("unlabelled", "{}"));
  ASSERT_TRUE(client()
                  .Create(res::kPods, "dra",
                          pod("punlabelled", R"({"name":"gpu","resourceClaimName":"unlabelled"})"))
                  .ok());
  EXPECT_TRUE(WaitsSaying("dra", "punlabelled", "does not have a queue label"));

  // Once a pod goes, the resourceclaim controller frees its claim's device
  // and the waiting pod has it.
  ASSERT_TRUE(client().Delete(res::kPods, "dra", running).ok());
  EXPECT_FALSE(NodeOnceRunning(client(), "dra", waiting).empty());

  // A claim made from a template for the pod (its own: no queue label
  // asked) is given a device too.
  for (const Object& p : PodsOf("dra")) {
    if (!kube::GetString(p, {"spec", "nodeName"}).empty()) {
      ASSERT_TRUE(client().Delete(res::kPods, "dra", kube::Name(p)).ok());
    }
  }
  CreateJson(templates, "dra", R"({"apiVersion":"resource.k8s.io/v1",
      "kind":"ResourceClaimTemplate","metadata":{"name":"one-gpu"},"spec":{"spec":{"devices":{
      "requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]}}}})");
  ASSERT_TRUE(client()
                  .Create(res::kPods, "dra",
                          pod("own", R"({"name":"gpu","resourceClaimTemplateName":"one-gpu"})"))
                  .ok());
  EXPECT_FALSE(NodeOnceRunning(client(), "dra", "own").empty());
}

// Pods that share a claim no bind has allocated yet go to one node, where
// the first bind allocates it: a gang of two that each need a node's one
// GPU waits whole rather than run one pod beside a claim on the other
// node; two pods that fit together run together, both in the claim.
TEST_F(SharingTest, PodsSharingAClaimGoToTheNodeItIsAllocatedOn) {
  CreateJson(res::kDeviceClasses, "", R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass",
      "metadata":{"name":"share.example.com"},"spec":{"selectors":[{"cel":{"expression":
      "device.driver == 'share.example.com'"}}]}})");
  for (const char* node : {"drashare-0", "drashare-1"})
    CreateJson(res::kResourceSlices, "",
               R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":")" +
                   std::string(node) + R"("},"spec":{"driver":"share.example.com","nodeName":")" +
                   node + R"(","pool":{"name":")" + node +
                   R"(","generation":1,"resourceSliceCount":1},"devices":[{"name":"nic-0"}]}})");
  CreateJson(res::kResourceClaims, "drashare", R"({"apiVersion":"resource.k8s.io/v1",
      "kind":"ResourceClaim","metadata":{"name":"pair"},"spec":{"devices":{"requests":[
      {"name":"nic","exactly":{"deviceClassName":"share.example.com"}}]}}})");
  auto pod = [](const std::string& name, PodOptions o) {
    return PodWithDeviceClaim("drashare", name, "pair", std::move(o));
  };
  ASSERT_TRUE(CreatePodGroup("drashare", "apart", R"({"minMember":2,"queue":"team"})"));
  for (const char* name : {"g0", "g1"})
    ASSERT_TRUE(
        client()
            .Create(res::kPods, "drashare",
                    pod(name, {.annotations = {{"pod-group-name", "apart"}}, .whole_gpus = 1}))
            .ok());
  ASSERT_TRUE(GroupWaitsWithAReason("drashare", "apart"));
  for (const Object& p : PodsOf("drashare"))
    EXPECT_EQ(kube::GetString(p, {"spec", "nodeName"}), "") << kube::Name(p) << " was bound";
  Result<Object> claim = client().Get(res::kResourceClaims, "drashare", "pair");
  ASSERT_TRUE(claim.ok());
  EXPECT_EQ(kube::Find(*claim, {"status", "allocation"}), nullptr) << kube::ToJson(*claim);

  for (const char* name : {"g0", "g1"})
    ASSERT_TRUE(client().Delete(res::kPods, "drashare", name).ok());
  for (const char* name : {"s0", "s1"})
    ASSERT_TRUE(client().Create(res::kPods, "drashare", pod(name, {})).ok());
  const std::string node = NodeOnceRunning(client(), "drashare", "s0");
  ASSERT_NE(node, "");
  EXPECT_EQ(NodeOnceRunning(client(), "drashare", "s1"), node);
  claim = client().Get(res::kResourceClaims, "drashare", "pair");
  ASSERT_TRUE(claim.ok());
  const rapidjson::Value* reserved = kube::Find(*claim, {"status", "reservedFor"});
  ASSERT_TRUE(reserved != nullptr && reserved->IsArray());
  EXPECT_EQ(reserved->Size(), 2u) << kube::ToJson(*claim);
}

// Device taints (GA in Kubernetes 1.37): a device its driver taints
// NoSchedule, or one a DeviceTaintRule taints, is given to no claim that
// does not tolerate the taint; once the rule goes, the device is given.
TEST_F(SharingTest, ATaintedDeviceIsGivenToNoClaimThatDoesNotTolerateIt) {
  ClassOf("taint.example.com");
  CreateJson(res::kResourceSlices, "", R"({"apiVersion":"resource.k8s.io/v1",
      "kind":"ResourceSlice","metadata":{"name":"drataint-0"},"spec":{
      "driver":"taint.example.com","nodeName":"drataint-0","pool":{"name":"drataint-0",
      "generation":1,"resourceSliceCount":1},"devices":[
      {"name":"gpu-0","taints":[{"key":"taint.example.com/unhealthy","value":"xid-79",
        "effect":"NoSchedule"}]},
      {"name":"gpu-1"}]}})");
  for (const char* name : {"a", "b"}) {
    CreateJson(res::kResourceClaims, "drataint",
               R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":")" +
                   std::string(name) + R"("},"spec":{"devices":{"requests":[
        {"name":"gpu","exactly":{"deviceClassName":"taint.example.com"}}]}}})");
    ASSERT_TRUE(client()
                    .Create(res::kPods, "drataint",
                            PodWithDeviceClaim("drataint", std::string("p") + name, name))
                    .ok());
  }
  ASSERT_TRUE(Eventually([&] { return CountPods(client(), "drataint", "Running") == 1; }));
  std::string running, waiting;
  for (const Object& p : PodsOf("drataint"))
    (kube::GetString(p, {"spec", "nodeName"}).empty() ? waiting : running) = kube::Name(p);
  ASSERT_FALSE(waiting.empty());
  Result<Object> given = client().Get(res::kResourceClaims, "drataint", running.substr(1));
  ASSERT_TRUE(given.ok());
  const rapidjson::Value* results =
      kube::Find(*given, {"status", "allocation", "devices", "results"});
  ASSERT_TRUE(results != nullptr && results->IsArray() && results->Size() == 1);
  EXPECT_EQ(kube::GetString((*results)[0], {"device"}), "gpu-1") << "gpu-0 is tainted";
  EXPECT_TRUE(WaitsSaying("drataint", waiting, "cannot allocate all claims"));

  // An admin drains gpu-1 too; the running pod goes, and its device with
  // it, but the waiting pod does not get it while the rule stands.
  CreateJson(res::kDeviceTaintRules, "", R"({"apiVersion":"resource.k8s.io/v1",
      "kind":"DeviceTaintRule","metadata":{"name":"drain-gpu-1"},"spec":{
      "deviceSelector":{"driver":"taint.example.com","pool":"drataint-0","device":"gpu-1"},
      "taint":{"key":"example.com/drain","effect":"NoSchedule"}}})");
  ASSERT_TRUE(client().Delete(res::kPods, "drataint", running, {.grace_period_seconds = 0}).ok());
  ASSERT_TRUE(Eventually([&] {
    Result<Object> freed = client().Get(res::kResourceClaims, "drataint", running.substr(1));
    return freed.ok() && kube::Find(*freed, {"status", "allocation"}) == nullptr;
  }));
  std::this_thread::sleep_for(std::chrono::seconds(3));  // cycles that could bind it
  Result<Object> still = client().Get(res::kPods, "drataint", waiting);
  ASSERT_TRUE(still.ok());
  EXPECT_EQ(kube::GetString(*still, {"spec", "nodeName"}), "") << "gpu-1 is drained";

  ASSERT_TRUE(client().Delete(res::kDeviceTaintRules, "", "drain-gpu-1").ok());
  EXPECT_EQ(NodeOnceRunning(client(), "drataint", waiting), "drataint-0");
}

// Partitionable devices (beta, on by default from Kubernetes 1.36): a GPU
// published whole and as two halves, which consume the counters its pool
// shares (in a slice of their own), is given as one or the other: while a
// half runs, the whole GPU waits and the other half is given; once the
// halves go, the whole GPU is given.
TEST_F(SharingTest, PartitionsOfAGpuAreGivenWithinItsCounters) {
  ClassOf("part.example.com");
  const std::string pool =
      R"("driver":"part.example.com","nodeName":"drapart-0","pool":{"name":"drapart-0",
      "generation":1,"resourceSliceCount":2})";
  CreateJson(res::kResourceSlices, "",
             R"({"apiVersion":"resource.k8s.io/v1",
      "kind":"ResourceSlice","metadata":{"name":"drapart-0-counters"},"spec":{)" +
                 pool + R"(,"sharedCounters":[{"name":"gpu-0",
      "counters":{"memory":{"value":"40Gi"}}}]}})");
  auto device = [](const std::string& name, const std::string& profile, const std::string& memory) {
    return R"({"name":")" + name + R"(","attributes":{"profile":{"string":")" + profile +
           R"("}},"consumesCounters":[{"counterSet":"gpu-0","counters":{"memory":{"value":")" +
           memory + R"("}}}]})";
  };
  CreateJson(res::kResourceSlices, "",
             R"({"apiVersion":"resource.k8s.io/v1",
      "kind":"ResourceSlice","metadata":{"name":"drapart-0-devices"},"spec":{)" +
                 pool + R"(,"devices":[)" + device("gpu-0", "full", "40Gi") + "," +
                 device("gpu-0-half-0", "half", "20Gi") + "," +
                 device("gpu-0-half-1", "half", "20Gi") + "]}}");
  auto run = [&](const std::string& name, const std::string& profile) {
    CreateJson(res::kResourceClaims, "drapart",
               R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":")" +
                   name + R"("},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{
        "deviceClassName":"part.example.com","selectors":[{"cel":{"expression":
        "device.attributes['part.example.com'].profile == ')" +
                   profile + R"('"}}]}}]}}})");
    ASSERT_TRUE(client()
                    .Create(res::kPods, "drapart", PodWithDeviceClaim("drapart", "p-" + name, name))
                    .ok());
  };
  run("half-a", "half");
  ASSERT_EQ(NodeOnceRunning(client(), "drapart", "p-half-a"), "drapart-0");
  run("full", "full");
  EXPECT_TRUE(WaitsSaying("drapart", "p-full", "cannot allocate all claims"));
  run("half-b", "half");
  ASSERT_EQ(NodeOnceRunning(client(), "drapart", "p-half-b"), "drapart-0");
  Result<Object> full = client().Get(res::kPods, "drapart", "p-full");
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(kube::GetString(*full, {"spec", "nodeName"}), "") << "both halves are given";

  for (const char* name : {"p-half-a", "p-half-b"})
    ASSERT_TRUE(client().Delete(res::kPods, "drapart", name, {.grace_period_seconds = 0}).ok());
  EXPECT_EQ(NodeOnceRunning(client(), "drapart", "p-full"), "drapart-0");
}

// A slice with perDeviceNodeSelection, as a driver of devices shared by
// several hosts writes it: its one device names drapernode-1, so the pod
// that claims it goes there, and one that asks for two devices waits.
TEST_F(SharingTest, ADeviceThatNamesItsNodeIsGivenThere) {
  ClassOf("pernode.example.com");
  CreateJson(res::kResourceSlices, "", R"({"apiVersion":"resource.k8s.io/v1",
      "kind":"ResourceSlice","metadata":{"name":"drapernode-shared"},"spec":{
      "driver":"pernode.example.com","perDeviceNodeSelection":true,
      "pool":{"name":"shared","generation":1,"resourceSliceCount":1},
      "devices":[{"name":"dev-0","nodeName":"drapernode-1"}]}})");
  auto run = [&](const std::string& name, int count) {
    CreateJson(res::kResourceClaims, "drapernode",
               R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":")" +
                   name + R"("},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{
        "deviceClassName":"pernode.example.com","count":)" +
                   std::to_string(count) + "}}]}}}");
    ASSERT_TRUE(
        client()
            .Create(res::kPods, "drapernode", PodWithDeviceClaim("drapernode", "p-" + name, name))
            .ok());
  };
  run("two", 2);
  EXPECT_TRUE(WaitsSaying("drapernode", "p-two", "cannot allocate all claims"));
  run("one", 1);
  EXPECT_EQ(NodeOnceRunning(client(), "drapernode", "p-one"), "drapernode-1");
}

// A pod that asks for a class's extended resource by Kubernetes' name for
// it (KEP-5004), which the API server takes: it waits, and its Event says
// why, while a pod that claims the same class's device runs.
TEST_F(SharingTest, APodAskingForAClassesExtendedResourceWaitsSayingWhy) {
  OneDeviceOf("ext.example.com", "draext-0");
  Object legacy = Pod("draext", "legacy", {});
  rapidjson::Value& container = legacy["spec"]["containers"][0];
  container.RemoveMember("resources");
  container.AddMember("resources",
                      rapidjson::Value(ParseTestJson(R"({"limits":{
                          "deviceclass.resource.kubernetes.io/ext.example.com":"1"}})"),
                                       legacy.GetAllocator()),
                      legacy.GetAllocator());
  Status created = client().Create(res::kPods, "draext", legacy).status();
  ASSERT_TRUE(created.ok()) << created.ToString();
  EXPECT_TRUE(WaitsSaying("draext", "legacy",
                          "vtenant-scheduler does not allocate extended resources backed by device "
                          "classes: ask for the devices with a ResourceClaim"));
  CreateJson(res::kResourceClaims, "draext", R"({"apiVersion":"resource.k8s.io/v1",
      "kind":"ResourceClaim","metadata":{"name":"gpu"},"spec":{"devices":{"requests":[
      {"name":"gpu","exactly":{"deviceClassName":"ext.example.com"}}]}}})");
  ASSERT_TRUE(
      client().Create(res::kPods, "draext", PodWithDeviceClaim("draext", "claimant", "gpu")).ok());
  EXPECT_EQ(NodeOnceRunning(client(), "draext", "claimant"), "draext-0");
}

// Admin access (GA in Kubernetes 1.36), from a namespace labelled for it:
// a monitoring agent's claim is given the device a workload's claim holds,
// and both pods run.
TEST_F(SharingTest, AnAdminAccessClaimIsGivenADeviceAnotherClaimHolds) {
  ASSERT_TRUE(
      client()
          .Patch(res::kNamespaces, "", "draadmin", kube::PatchType::kMerge,
                 R"({"metadata":{"labels":{"resource.kubernetes.io/admin-access":"true"}}})")
          .ok());
  OneDeviceOf("admin.example.com", "draadmin-0");
  auto run = [&](const std::string& name, const std::string& admin) {
    CreateJson(res::kResourceClaims, "draadmin",
               R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":")" +
                   name + R"("},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{
        "deviceClassName":"admin.example.com")" +
                   admin + "}}]}}}");
    ASSERT_TRUE(
        client()
            .Create(res::kPods, "draadmin", PodWithDeviceClaim("draadmin", "p-" + name, name))
            .ok());
  };
  run("work", "");
  ASSERT_EQ(NodeOnceRunning(client(), "draadmin", "p-work"), "draadmin-0");
  run("monitor", R"(,"adminAccess":true)");
  ASSERT_EQ(NodeOnceRunning(client(), "draadmin", "p-monitor"), "draadmin-0");
  Result<Object> monitor = client().Get(res::kResourceClaims, "draadmin", "monitor");
  ASSERT_TRUE(monitor.ok());
  const rapidjson::Value* results =
      kube::Find(*monitor, {"status", "allocation", "devices", "results"});
  ASSERT_TRUE(results != nullptr && results->IsArray() && results->Size() == 1)
      << kube::ToJson(*monitor);
  EXPECT_EQ(kube::GetString((*results)[0], {"device"}), "gpu-0");
  EXPECT_TRUE(kube::Find((*results)[0], {"adminAccess"}) != nullptr &&
              kube::Find((*results)[0], {"adminAccess"})->IsTrue());
}

// GPUs of resource claims are the queues', as KAI counts DRA GPUs: a
// queue below its quota reclaims the node's one DRA GPU from a queue above
// its own; the evicted pod's claim is freed by the resourceclaim
// controller, and the reclaimer's claim is given the device.
TEST_F(SharingTest, ResourceClaimGpusAreReclaimedForAQueueBelowItsQuota) {
  for (const auto& [queue, quota] : {std::pair{"dra-low", 0.0}, std::pair{"dra-high", 1.0}})
    ASSERT_TRUE(client().Create(res::kQueues, "", QueueManifest(queue, "", quota)).ok());
  OneDeviceOf("gpu-reclaim.example.com", "drareclaim-0");
  // A claim of `queue` and its pod, both named `name`.
  auto run = [](const std::string& name, const std::string& queue) {
    CreateJson(res::kResourceClaims, "drareclaim",
               R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{
        "name":")" +
                   name + R"(","labels":{"kai.scheduler/queue":")" + queue +
                   R"("}},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{
        "deviceClassName":"gpu-reclaim.example.com"}}]}}})");
    return client()
        .Create(res::kPods, "drareclaim",
                PodWithDeviceClaim("drareclaim", name, name, {.queue = queue}))
        .status();
  };
  ASSERT_TRUE(run("low", "dra-low").ok());
  ASSERT_EQ(NodeOnceRunning(client(), "drareclaim", "low"), "drareclaim-0");
  ASSERT_TRUE(run("high", "dra-high").ok());
  EXPECT_EQ(NodeOnceRunning(client(), "drareclaim", "high"), "drareclaim-0");
  EXPECT_FALSE(EventMessages(client(), "drareclaim", "low", "Reclaimed").empty());
  Result<Object> claim = client().Get(res::kResourceClaims, "drareclaim", "high");
  ASSERT_TRUE(claim.ok());
  const rapidjson::Value* results =
      kube::Find(*claim, {"status", "allocation", "devices", "results"});
  ASSERT_TRUE(results != nullptr && results->IsArray() && results->Size() == 1)
      << kube::ToJson(*claim);
  EXPECT_EQ(kube::GetString((*results)[0], {"device"}), "gpu-0");
}

// A Grove workload (NVIDIA Dynamo's prefill and decode) starts whole, as
// its PodGang says, with KAI's grove grouper's group: three GPU pods on a
// node of three GPUs, one of them taken, wait together until it frees.
TEST_F(SharingTest, AGroveWorkloadStartsWholeAsItsPodGangSays) {
  // Grove's kinds, served as Grove's CRDs serve them (schemas left open).
  for (const auto& [group, kind, plural] :
       {std::tuple{"grove.io", "PodCliqueSet", "podcliquesets"},
        std::tuple{"grove.io", "PodClique", "podcliques"},
        std::tuple{"scheduler.grove.io", "PodGang", "podgangs"}}) {
    const std::string crd = std::string(R"({"metadata":{"name":")") + plural + "." + group +
                            R"("},"spec":{"group":")" + group +
                            R"(","scope":"Namespaced","names":{"plural":")" + plural +
                            R"(","kind":")" + kind + R"("},"versions":[{"name":"v1alpha1",
        "served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",
        "x-kubernetes-preserve-unknown-fields":true}}}]}})";
    ASSERT_TRUE(client().Create(res::kCustomResourceDefinitions, "", ParseTestJson(crd)).ok());
  }
  // Creates `json` as `type` in namespace grove once its CRD is served.
  auto create = [](const kube::ResourceType& type, const std::string& json) {
    Result<Object> made = Status::Ok();
    EXPECT_TRUE(Eventually([&] {
      made = client().Create(type, "grove", ParseTestJson(json));
      return made.ok();
    })) << made.status().ToString();
    return made.ok() ? std::move(made).value() : Object();
  };
  // The ownerReferences member naming `owner` as controller.
  auto owned_by = [](const Object& owner) {
    return std::string(R"("ownerReferences":[{"apiVersion":")") +
           std::string(kube::GetString(owner, {"apiVersion"})) + R"(","kind":")" +
           std::string(kube::GetString(owner, {"kind"})) + R"(","name":")" +
           std::string(kube::Name(owner)) + R"(","uid":")" + std::string(kube::Uid(owner)) +
           R"(","controller":true}])";
  };
  const Object set = create({"grove.io", "v1alpha1", "podcliquesets", "PodCliqueSet", true},
                            R"({"apiVersion":"grove.io/v1alpha1","kind":"PodCliqueSet",
      "metadata":{"name":"serve"},"spec":{}})");
  const Object clique = create({"grove.io", "v1alpha1", "podcliques", "PodClique", true},
                               R"({"apiVersion":"grove.io/v1alpha1","kind":"PodClique",
      "metadata":{"name":"serve-0",)" +
                                   owned_by(set) + R"(},"spec":{}})");
  const Object gang = create({"scheduler.grove.io", "v1alpha1", "podgangs", "PodGang", true},
                             R"({"apiVersion":"scheduler.grove.io/v1alpha1","kind":"PodGang",
      "metadata":{"name":"serve-0"},"spec":{"podgroups":[
      {"name":"prefill","minReplicas":1,"podReferences":[{"namespace":"grove","name":"prefill-0"}]},
      {"name":"decode","minReplicas":2,"podReferences":[{"namespace":"grove","name":"decode-0"},
        {"namespace":"grove","name":"decode-1"}]}]}})");
  ASSERT_FALSE(HasFailure());

  ASSERT_TRUE(RunBlocker("grove"));
  const Object owner_refs = ParseTestJson("{" + owned_by(clique) + "}");
  for (const char* name : {"prefill-0", "decode-0", "decode-1"}) {
    Object pod = Pod("grove", name, {.whole_gpus = 1});
    kube::SetString(pod, {"metadata", "labels"}, "grove.io/podgang", "serve-0");
    pod["metadata"].AddMember("ownerReferences",
                              rapidjson::Value(owner_refs["ownerReferences"], pod.GetAllocator()),
                              pod.GetAllocator());
    ASSERT_TRUE(client().Create(res::kPods, "grove", pod).ok());
  }
  // Two GPUs free for three pods: none is bound, and the group says why.
  const std::string group = "pg-serve-0-" + std::string(kube::Uid(gang));
  ASSERT_TRUE(GroupWaitsWithAReason("grove", group));
  ExpectOnlyTheBlockerBound("grove");
  Result<Object> decode = client().Get(res::kPods, "grove", "decode-1");
  ASSERT_TRUE(decode.ok());
  EXPECT_EQ(kube::Label(*decode, "kai.scheduler/subgroup-name"), "decode");
  ASSERT_TRUE(client().Delete(res::kPods, "grove", "blocker").ok());
  EXPECT_TRUE(Eventually([&] { return CountPods(client(), "grove", "Running") == 3; }));
}

TEST_F(SharingTest, SubGroupsWaitUntilEachCanHaveItsMinMemberThenBindTogether) {
  ASSERT_TRUE(RunBlocker("sub"));
  // A KAI manifest as users write it: the group's own minMember is met by
  // one pod; its sub-groups ask for a leader and two workers.
  ASSERT_TRUE(CreatePodGroup("sub", "lws",
                             R"({"minMember":1,"queue":"team",
      "subGroups":[{"name":"leader","minMember":1},{"name":"workers","minMember":2}]})"));
  auto member = [](const std::string& name, const std::string& sub) {
    Object pod = Pod("sub", name, {.annotations = {{"pod-group-name", "lws"}}, .whole_gpus = 1});
    kube::SetString(pod, {"metadata", "labels"}, kSubGroupLabel, sub);
    return pod;
  };
  for (auto [name, sub] : std::vector<std::pair<std::string, std::string>>{{"leader-0", "leader"},
                                                                           {"worker-0", "workers"},
                                                                           {"worker-1", "workers"},
                                                                           {"typo", "wrokers"}})
    ASSERT_TRUE(client().Create(res::kPods, "sub", member(name, sub)).ok()) << name;
  // Two GPUs free for three pods: none is bound, the group says why, and
  // the pod naming no sub-group of the group is told which it named.
  ASSERT_TRUE(GroupWaitsWithAReason("sub", "lws"));
  std::vector<std::string> why;
  ASSERT_TRUE(Eventually([&] {
    why = EventMessages(client(), "sub", "typo", "Unschedulable");
    return !why.empty();
  }));
  EXPECT_NE(why[0].find("sub-group \"wrokers\""), std::string::npos) << why[0];
  ExpectOnlyTheBlockerBound("sub");
  ASSERT_TRUE(client().Delete(res::kPods, "sub", "blocker").ok());
  ASSERT_TRUE(Eventually([&] { return CountPods(client(), "sub", "Running") == 3; }))
      << "running: " << CountPods(client(), "sub", "Running");
  for (const Object& p : PodsOf("sub"))
    if (kube::Name(p) == "typo") {
      EXPECT_EQ(kube::GetString(p, {"spec", "nodeName"}), "");
    }
}

// KAI's PodGroup webhook, on the real API server: a group whose sub-groups
// go round is refused as it is created, in KAI's words.
TEST_F(SharingTest, APodGroupKaisWebhookRefusesIsRefusedAtCreate) {
  Object pg = kube::BuildJson(
      kube::JsonObject{{"apiVersion", "scheduling.run.ai/v2alpha2"},
                       {"kind", "PodGroup"},
                       {"metadata", kube::JsonObject{{"name", "round"}, {"namespace", "sub"}}},
                       {"spec", kube::JsonValue(ParseTestJson(R"({"queue":"team","subGroups":[
          {"name":"a","parent":"b","minMember":1},{"name":"b","parent":"a","minMember":1}]})"))}});
  Result<Object> created = client().Create(res::kPodGroups, "sub", pg);
  ASSERT_FALSE(created.ok()) << "admitted";
  EXPECT_NE(created.status().message().find("cycle detected in subgroups"), std::string::npos)
      << created.status().ToString();
}

// KAI's Queue webhook, on the real API server: a Queue needs resources, and
// a parent is not deleted while its status names children. With its quota
// validation on (as in this suite), a child beyond its parent is admitted
// with KAI's warnings, which kubectl prints, and one whose parent does not
// exist is refused.
TEST_F(SharingTest, KaisQueueChecksHoldAtTheApiServer) {
  Result<Object> bare = client().Create(res::kQueues, "", ParseTestJson(R"({
      "apiVersion":"scheduling.run.ai/v2","kind":"Queue","metadata":{"name":"bare"},"spec":{}})"));
  ASSERT_FALSE(bare.ok()) << "admitted";
  EXPECT_NE(bare.status().message().find("resources must be specified"), std::string::npos)
      << bare.status().ToString();
  ASSERT_TRUE(client().Create(res::kQueues, "", QueueManifest("lab", "", -1)).ok());
  ASSERT_TRUE(client().Create(res::kQueues, "", QueueManifest("lab-a", "lab", -1)).ok());
  ASSERT_TRUE(Eventually([&] {
    Result<Object> lab = client().Get(res::kQueues, "", "lab");
    const rapidjson::Value* children =
        lab.ok() ? kube::Find(*lab, {"status", "childQueues"}) : nullptr;
    return children != nullptr && children->IsArray() && children->Size() == 1;
  })) << "the scheduler names the child on its parent";
  Status refused = client().Delete(res::kQueues, "", "lab");
  ASSERT_FALSE(refused.ok()) << "a parent deleted under its child";
  EXPECT_NE(refused.message().find("cannot delete queue lab: it has child queues [lab-a]"),
            std::string::npos)
      << refused.ToString();
  ASSERT_TRUE(client().Delete(res::kQueues, "", "lab-a").ok());
  EXPECT_TRUE(Eventually([&] { return client().Delete(res::kQueues, "", "lab").ok(); }))
      << "once its status names no child";

  ASSERT_TRUE(client().Create(res::kQueues, "", QueueManifest("org", "", 1)).ok());
  Result<std::string> kubectl = localenv::FindTool("kubectl");
  ASSERT_TRUE(kubectl.ok()) << kubectl.status().ToString();
  Result<localenv::CommandResult> created = localenv::RunCommand(
      {*kubectl, "--kubeconfig", cluster().api_server().kubeconfig_path(), "create", "-f", "-"},
      kube::ToJson(QueueManifest("org-a", "org", 1.5)));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->exit_code, 0) << created->err;
  EXPECT_NE(created->err.find(
                "Warning: child queue GPU quota (1.50) exceeds parent queue org GPU quota (1.00)"),
            std::string::npos)
      << created->err;
  Result<Object> orphan =
      client().Create(res::kQueues, "", QueueManifest("orphan", "no-such-parent", 1));
  ASSERT_FALSE(orphan.ok()) << "admitted under a parent that does not exist";
  EXPECT_NE(orphan.status().message().find("failed to get parent queue no-such-parent"),
            std::string::npos)
      << orphan.status().ToString();
  ASSERT_TRUE(client().Delete(res::kQueues, "", "org-a").ok());
  EXPECT_TRUE(Eventually([&] { return client().Delete(res::kQueues, "", "org").ok(); }));
}

TEST_F(SharingTest, APodOfAMissingQueueWaitsWithAnEventNamingIt) {
  ASSERT_TRUE(client()
                  .Create(res::kPods, "bad",
                          Pod("bad", "lost", {.queue = "no-such-queue", .whole_gpus = 1}))
                  .ok());
  std::vector<std::string> why;
  ASSERT_TRUE(Eventually([&] {
    why = EventMessages(client(), "bad", "lost", "Unschedulable");
    return !why.empty();
  }));
  EXPECT_NE(why[0].find("queue \"no-such-queue\" does not exist"), std::string::npos) << why[0];
  Result<Object> pod = client().Get(res::kPods, "bad", "lost");
  ASSERT_TRUE(pod.ok());
  EXPECT_EQ(kube::GetString(*pod, {"spec", "nodeName"}), "");
}

// What a pod waits for before it is scheduled, on a real API server: its
// scheduling gates (the API server would refuse the binding; no bind is
// tried, and the server's own SchedulingGated condition stays), and, as
// KAI's predicate has it, a ConfigMap it mounts that does not exist yet.
TEST_F(SharingTest, APodWaitsForItsGatesAndItsConfigMaps) {
  Object gated = Pod("wait", "gated", {.annotations = {{"gpu-fraction", "0.5"}}});
  kube::Object gates =
      kube::BuildJson(kube::JsonArray{kube::JsonObject{{"name", "example.com/admission-check"}}});
  gated["spec"].AddMember("schedulingGates", rapidjson::Value(gates, gated.GetAllocator()),
                          gated.GetAllocator());
  ASSERT_TRUE(client().Create(res::kPods, "wait", gated).ok());
  Object mounts = Pod("wait", "mounts", {});
  kube::Object volumes = kube::BuildJson(kube::JsonArray{
      kube::JsonObject{{"name", "conf"}, {"configMap", kube::JsonObject{{"name", "settings"}}}}});
  kube::Object volume_mounts = kube::BuildJson(
      kube::JsonArray{kube::JsonObject{{"name", "conf"}, {"mountPath", "/etc/app"}}});
  mounts["spec"].AddMember("volumes", rapidjson::Value(volumes, mounts.GetAllocator()),
                           mounts.GetAllocator());
  mounts["spec"]["containers"][0].AddMember("volumeMounts",
                                            rapidjson::Value(volume_mounts, mounts.GetAllocator()),
                                            mounts.GetAllocator());
  ASSERT_TRUE(client().Create(res::kPods, "wait", mounts).ok());

  std::vector<std::string> why;
  ASSERT_TRUE(Eventually([&] {
    why = EventMessages(client(), "wait", "mounts", "Unschedulable");
    return !why.empty();
  }));
  EXPECT_EQ(why[0], "Missing required configmaps: [settings]");
  Result<Object> held = client().Get(res::kPods, "wait", "gated");
  ASSERT_TRUE(held.ok());
  EXPECT_EQ(kube::GetString(*held, {"spec", "nodeName"}), "");
  std::optional<kube::Condition> scheduled = kube::FindCondition(*held, "PodScheduled");
  ASSERT_TRUE(scheduled.has_value());
  EXPECT_EQ(scheduled->reason, "SchedulingGated");
  EXPECT_TRUE(EventMessages(client(), "wait", "gated", "FailedBinding").empty());
  EXPECT_TRUE(EventMessages(client(), "wait", "gated", "Unschedulable").empty());

  // The ConfigMap appears and the gate goes: both run.
  ASSERT_TRUE(client()
                  .Create(res::kConfigMaps, "wait",
                          kube::BuildJson(
                              kube::JsonObject{{"metadata", kube::JsonObject{{"name", "settings"}}},
                                               {"data", kube::JsonObject{{"mode", "fast"}}}}))
                  .ok());
  ASSERT_TRUE(client()
                  .Patch(res::kPods, "wait", "gated", kube::PatchType::kMerge,
                         R"({"spec":{"schedulingGates":null}})")
                  .ok());
  EXPECT_TRUE(Eventually([&] { return CountPods(client(), "wait", "Running") == 2; }));
}

TEST_F(SharingTest, AJobThatAsksForAGangGetsOnePodGroupWithThatMinMember) {
  ASSERT_TRUE(client()
                  .Create(res::kJobs, "job", ParseTestJson(R"({"apiVersion":"batch/v1","kind":"Job",
      "metadata":{"name":"train","namespace":"job","labels":{"kai.scheduler/queue":"team"},
      "annotations":{"kai.scheduler/batch-min-member":"2"}},
      "spec":{"parallelism":2,"completions":2,"template":{"spec":{"schedulerName":"kai-scheduler",
      "restartPolicy":"Never","nodeSelector":{"pool":"job"},"containers":[{"name":"main","image":"busybox",
      "resources":{"limits":{"nvidia.com/gpu":"1"}}}]}}}})"))
                  .ok());
  Result<Object> job = client().Get(res::kJobs, "job", "train");
  ASSERT_TRUE(job.ok());
  const std::string group = "pg-train-" + std::string(kube::Uid(*job));
  ASSERT_TRUE(Eventually([&] { return client().Get(res::kPodGroups, "job", group).ok(); }))
      << group;
  Result<Object> pg = client().Get(res::kPodGroups, "job", group);
  EXPECT_EQ(kube::GetInt(*pg, {"spec", "minMember"}), 2);
  EXPECT_EQ(kube::GetString(*pg, {"spec", "queue"}), "team") << "the queue label of the Job";
  EXPECT_EQ(kube::GetString(*pg, {"spec", "priorityClassName"}), "train");
  // The Job's labels and annotations, and which object it stands for.
  EXPECT_EQ(kube::Label(*pg, "kai.scheduler/queue"), "team");
  EXPECT_EQ(kube::Annotation(*pg, "kai.scheduler/batch-min-member"), "2");
  EXPECT_EQ(kube::Annotation(*pg, "kai.scheduler/top-owner-metadata"),
            "name: train\nuid: " + std::string(kube::Uid(*job)) +
                "\ngroup: batch\nversion: v1\nkind: Job\n");
  ASSERT_TRUE(Eventually([&] { return CountPods(client(), "job", "Running") == 2; }));
  for (const Object& p : PodsOf("job"))
    EXPECT_EQ(kube::Annotation(p, kPodGroupAnnotation).value_or(""), group) << kube::Name(p);
}

// As KAI's: a Deployment's group is of class "inference", and a group's
// priority is its class's, not its pods' (which name no class here, so
// are of priority 0). A training pod of class "train" (50) cannot preempt
// it: the server is not preemptible. Had the priority been the pods', the
// trainer would have evicted it.
TEST_F(SharingTest, AServingDeploymentIsNotPreemptedByATrainingPod) {
  for (const auto& [name, value] : {std::pair{"inference", 125}, std::pair{"train", 50}}) {
    Result<Object> made = client().Create(
        res::kPriorityClasses, "",
        ParseTestJson(R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass",
            "metadata":{"name":")" +
                      std::string(name) + R"("},"value":)" + std::to_string(value) + "}"));
    ASSERT_TRUE(made.ok() || made.status().code() == StatusCode::kAlreadyExists)
        << made.status().ToString();
  }
  ASSERT_TRUE(client()
                  .Create(res::kDeployments, "serve",
                          ParseTestJson(R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"name":"server","namespace":"serve","labels":{"kai.scheduler/queue":"team"}},
      "spec":{"replicas":1,"selector":{"matchLabels":{"app":"server"}},
      "template":{"metadata":{"labels":{"app":"server"}},"spec":{"schedulerName":"kai-scheduler",
      "nodeSelector":{"pool":"serve"},"containers":[{"name":"main","image":"vllm",
      "resources":{"limits":{"nvidia.com/gpu":"1"}}}]}}}})"))
                  .ok());
  ASSERT_TRUE(Eventually([&] { return CountPods(client(), "serve", "Running") == 1; }));
  const std::vector<Object> pods = PodsOf("serve");
  const Object& server = pods.at(0);
  const std::string group(kube::Annotation(server, kPodGroupAnnotation).value_or(""));
  Result<Object> pg = client().Get(res::kPodGroups, "serve", group);
  ASSERT_TRUE(pg.ok()) << group;
  EXPECT_EQ(kube::GetString(*pg, {"spec", "priorityClassName"}), "inference");

  ASSERT_TRUE(client()
                  .Create(res::kPods, "serve",
                          Pod("serve", "trainer", {.whole_gpus = 1, .priority_class = "train"}))
                  .ok());
  auto where = [&] {
    std::string out;
    for (const Object& p : PodsOf("serve"))
      out += std::string(kube::Name(p)) + " on '" +
             std::string(kube::GetString(p, {"spec", "nodeName"})) + "'; ";
    return out;
  };
  ASSERT_TRUE(Eventually([&] {
    return !EventMessages(client(), "serve", "trainer", "Unschedulable").empty();
  })) << where();
  Result<Object> still = client().Get(res::kPods, "serve", std::string(kube::Name(server)));
  ASSERT_TRUE(still.ok()) << "the server was evicted";
  EXPECT_EQ(kube::Uid(*still), kube::Uid(server));
  EXPECT_FALSE(kube::IsBeingDeleted(*still));
  Result<Object> trainer = client().Get(res::kPods, "serve", "trainer");
  ASSERT_TRUE(trainer.ok());
  EXPECT_EQ(kube::GetString(*trainer, {"spec", "nodeName"}), "");
}

TEST_F(SharingTest, ABarePodGetsAPodGroupNamedAfterIt) {
  Result<Object> pod = client().Create(res::kPods, "job", Pod("job", "solo", {.queue = "team"}));
  ASSERT_TRUE(pod.ok());
  const std::string group = "pg-solo-" + std::string(kube::Uid(*pod));
  ASSERT_TRUE(Eventually([&] { return client().Get(res::kPodGroups, "job", group).ok(); }))
      << group;
  Result<Object> pg = client().Get(res::kPodGroups, "job", group);
  EXPECT_EQ(kube::GetString((*pg)["metadata"]["ownerReferences"][0], {"kind"}), "Pod");
  EXPECT_EQ(kube::GetString(*pg, {"spec", "queue"}), "team");
  EXPECT_TRUE(Eventually([&] {
    Result<Object> p = client().Get(res::kPods, "job", "solo");
    return p.ok() && kube::Annotation(*p, kPodGroupAnnotation) == group &&
           kube::GetString(*p, {"status", "phase"}) == "Running";
  }));
}

// As KAI's admission: a sharing pod runs under the NVIDIA container
// runtime, which reads its NVIDIA_VISIBLE_DEVICES, once the cluster has
// that RuntimeClass; before, naming it would have the pod refused. A
// whole-GPU pod gets its GPU from the device plugin and keeps its runtime.
TEST_F(SharingTest, ASharingPodRunsUnderTheNvidiaRuntimeClassOnceTheClusterHasIt) {
  auto runtime_of = [](const Object& pod) {
    return std::string(kube::GetString(pod, {"spec", "runtimeClassName"}));
  };
  const PodOptions half{.annotations = {{"gpu-fraction", "0.5"}}};
  Result<Object> before = client().Create(res::kPods, "runtime", Pod("runtime", "before", half));
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  EXPECT_EQ(runtime_of(*before), "");

  ASSERT_TRUE(client()
                  .Create(res::kRuntimeClasses, "",
                          kube::BuildJson(
                              kube::JsonObject{{"apiVersion", "node.k8s.io/v1"},
                                               {"kind", "RuntimeClass"},
                                               {"metadata", kube::JsonObject{{"name", "nvidia"}}},
                                               {"handler", "nvidia"}}))
                  .ok());
  // The scheduler learns of it from its informer: a pod made before that
  // is let be, so each try is a new pod.
  int tries = 0;
  std::string after;
  ASSERT_TRUE(Eventually([&] {
    if (!after.empty()) {
      EXPECT_TRUE(client().Delete(res::kPods, "runtime", after).ok());
    }
    after = "after-" + std::to_string(tries++);
    Result<Object> pod = client().Create(res::kPods, "runtime", Pod("runtime", after, half));
    return pod.ok() && runtime_of(*pod) == "nvidia";
  })) << "no sharing pod got the RuntimeClass";
  Result<Object> whole =
      client().Create(res::kPods, "runtime", Pod("runtime", "whole", {.whole_gpus = 1}));
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(runtime_of(*whole), "");
  EXPECT_TRUE(Eventually([&] {
    Result<Object> p = client().Get(res::kPods, "runtime", after);
    return p.ok() && kube::GetString(*p, {"status", "phase"}) == "Running";
  }));
  ASSERT_TRUE(client().Delete(res::kRuntimeClasses, "", "nvidia").ok());
}

// KAI's minMember 0, "no gang requirement": the API server takes the group
// and its pods go as they fit.
TEST_F(SharingTest, APodGroupOfMinMemberZeroIsTakenAndItsPodsRun) {
  ASSERT_TRUE(CreatePodGroup("nogang", "elastic", R"({"minMember":0,"queue":"team"})"));
  for (const char* name : {"e0", "e1"})
    ASSERT_TRUE(
        client()
            .Create(res::kPods, "nogang",
                    Pod("nogang", name,
                        {.annotations = {{"pod-group-name", "elastic"}, {"gpu-fraction", "0.5"}}}))
            .ok());
  EXPECT_TRUE(Eventually([&] { return CountPods(client(), "nogang", "Running") == 2; }));
  Result<Object> pg = client().Get(res::kPodGroups, "nogang", "elastic");
  ASSERT_TRUE(pg.ok());
  const rapidjson::Value* conditions = kube::Find(*pg, {"status", "schedulingConditions"});
  EXPECT_TRUE(conditions == nullptr || !conditions->IsArray() || conditions->Empty())
      << kube::ToJson(*pg);
}

// A gang that lost a member holds a GPU it cannot use: once it has run
// below its minMember for its spec.stalenessGracePeriod, the scheduler
// evicts it. KAI's PodGroup fields for this and for the preemption delay
// are kept by the API server (the CRD has them).
TEST_F(SharingTest, AGangThatLostAMemberIsEvictedOnceItsGraceHasPassed) {
  ASSERT_TRUE(CreatePodGroup("stale", "ring", R"({"minMember":2,"queue":"team",
      "stalenessGracePeriod":"2s","preemptionDelay":"1m"})"));
  Result<Object> pg = client().Get(res::kPodGroups, "stale", "ring");
  ASSERT_TRUE(pg.ok());
  EXPECT_EQ(kube::GetString(*pg, {"spec", "stalenessGracePeriod"}), "2s");
  EXPECT_EQ(kube::GetString(*pg, {"spec", "preemptionDelay"}), "1m");
  for (const char* name : {"s0", "s1"})
    ASSERT_TRUE(client()
                    .Create(res::kPods, "stale",
                            Pod("stale", name,
                                {.annotations = {{"pod-group-name", "ring"}}, .whole_gpus = 1}))
                    .ok());
  ASSERT_TRUE(Eventually([&] { return CountPods(client(), "stale", "Running") == 2; }));
  // A member is lost; the other runs on alone, below minMember 2.
  ASSERT_TRUE(client().Delete(res::kPods, "stale", "s1").ok());
  EXPECT_TRUE(Eventually([&] { return !client().Get(res::kPods, "stale", "s0").ok(); }))
      << "the member left behind was not evicted";
  // Its owner makes a member again; the eviction is on the group, as KAI
  // records it, for a scheduler that starts afresh.
  ASSERT_TRUE(client()
                  .Create(res::kPods, "stale",
                          Pod("stale", "s2",
                              {.annotations = {{"pod-group-name", "ring"}}, .whole_gpus = 1}))
                  .ok());
  EXPECT_TRUE(Eventually([&] {
    Result<Object> group = client().Get(res::kPodGroups, "stale", "ring");
    return group.ok() && kube::Annotation(*group, kLastEvictionTimestampAnnotation).has_value();
  }));
}

// KAI's minSubGroup, as its JobSet grouper writes it: the group runs once
// one of its two replicas can, on two GPUs for two replicas of two. The
// replica that runs is whole, and the group is not stale for the replica
// that waits: past its 1 s grace the running one is still there.
TEST_F(SharingTest, AGroupOfMinSubGroupOneRunsTheReplicaThatFitsAndKeepsIt) {
  ASSERT_TRUE(CreatePodGroup("jobset", "js", R"({"minSubGroup":1,"queue":"team",
      "stalenessGracePeriod":"1s",
      "subGroups":[{"name":"replica-0","minMember":2},{"name":"replica-1","minMember":2}]})"));
  Result<Object> pg = client().Get(res::kPodGroups, "jobset", "js");
  ASSERT_TRUE(pg.ok());
  EXPECT_NE(kube::Find(*pg, {"spec", "minSubGroup"}), nullptr) << "the CRD keeps it";
  // Refused at create time, as KAI's webhook refuses them.
  EXPECT_FALSE(CreatePodGroup("jobset", "both", R"({"minMember":1,"minSubGroup":1})"));
  EXPECT_FALSE(CreatePodGroup("jobset", "both",
                              R"({"subGroups":[{"name":"a","minMember":1,"minSubGroup":0}]})"));
  for (const char* replica : {"replica-0", "replica-1"}) {
    for (int i = 0; i < 2; ++i) {
      Object pod = Pod("jobset", std::string(replica) + "-" + std::to_string(i),
                       {.annotations = {{"pod-group-name", "js"}}, .whole_gpus = 1});
      kube::SetString(pod, {"metadata", "labels"}, kSubGroupLabel, replica);
      ASSERT_TRUE(client().Create(res::kPods, "jobset", pod).ok());
    }
  }
  ASSERT_TRUE(Eventually([&] { return CountPods(client(), "jobset", "Running") == 2; }));
  std::set<std::string> running_replicas;
  for (const Object& p : PodsOf("jobset"))
    if (!kube::GetString(p, {"spec", "nodeName"}).empty())
      running_replicas.insert(std::string(kube::Label(p, kSubGroupLabel).value_or("")));
  EXPECT_EQ(running_replicas.size(), 1u) << "the two running pods are one replica";
  std::this_thread::sleep_for(std::chrono::seconds(4));
  EXPECT_EQ(CountPods(client(), "jobset", "Running"), 2)
      << "a satisfied group was taken for a stale one";
  Result<Object> group = client().Get(res::kPodGroups, "jobset", "js");
  ASSERT_TRUE(group.ok());
  EXPECT_FALSE(kube::Annotation(*group, kStalePodGroupTimestampAnnotation).has_value())
      << "the group is not stale, and its status does not say so";
}

// KAI's Topology: a level is a domain within the wider ones (rack r1 of
// block b1 is not rack r1 of block b2), a workload may name a level by its
// alias, and one naming a Topology that does not exist waits, saying so.
TEST_F(SharingTest, KaiTopologiesPlaceGangsWithinOneRackOfOneBlock) {
  ASSERT_TRUE(client()
                  .Create(res::kTopologies, "", ParseTestJson(R"({
      "apiVersion":"kai.scheduler/v1alpha1","kind":"Topology","metadata":{"name":"dc"},
      "spec":{"levels":[{"nodeLabel":"example.com/block"},
                        {"nodeLabel":"example.com/rack","alias":"rack"}]}})"))
                  .ok());
  auto gang = [&](const std::string& name, int pods, const std::string& topology) {
    ASSERT_TRUE(CreatePodGroup("topo", name,
                               R"({"minMember":)" + std::to_string(pods) +
                                   R"(,"queue":"team","topologyConstraint":{"topology":")" +
                                   topology + R"(","requiredTopologyLevel":"rack"}})"));
    for (int i = 0; i < pods; ++i)
      ASSERT_TRUE(client()
                      .Create(res::kPods, "topo",
                              Pod("topo", name + "-" + std::to_string(i),
                                  {.annotations = {{"pod-group-name", name}}, .whole_gpus = 1}))
                      .ok());
  };
  // Three pods, two GPUs in each rack: the two nodes' racks share a name,
  // but not a block.
  gang("wide", 3, "dc");
  ASSERT_TRUE(GroupWaitsWithAReason("topo", "wide"));
  gang("pair", 2, "dc");
  ASSERT_TRUE(Eventually([&] {
    int bound = 0;
    for (const Object& p : PodsOf("topo"))
      if (kube::Name(p).starts_with("pair-") && !kube::GetString(p, {"spec", "nodeName"}).empty())
        ++bound;
    return bound == 2;
  }));
  std::set<std::string> nodes;
  for (const Object& p : PodsOf("topo")) {
    if (kube::Name(p).starts_with("wide-")) {
      EXPECT_EQ(kube::GetString(p, {"spec", "nodeName"}), "") << kube::Name(p);
    }
    if (kube::Name(p).starts_with("pair-"))
      nodes.insert(std::string(kube::GetString(p, {"spec", "nodeName"})));
  }
  EXPECT_EQ(nodes.size(), 1u) << "the pair shares one rack of one block";
  gang("lost", 1, "lab");
  EXPECT_TRUE(Eventually([&] {
    Result<Object> pg = client().Get(res::kPodGroups, "topo", "lost");
    return pg.ok() &&
           kube::ToJson(*pg).find("Requested topology lab does not exist") != std::string::npos;
  })) << "the PodGroup says why it waits";
}

// A sub-group's own topology (KAI's subGroups[].topologyConstraint, which
// its grouper writes for JobSet replicas and LWS segments): each sub-group
// shares a rack, the group as a whole does not have to. Binpack alone would
// put a-0 and b-0 on split-r2, the fuller node, and split b across racks.
TEST_F(SharingTest, EachSubGroupSharesARackOfItsOwn) {
  ASSERT_TRUE(client()
                  .Create(res::kTopologies, "", ParseTestJson(R"({
      "apiVersion":"kai.scheduler/v1alpha1","kind":"Topology","metadata":{"name":"split-dc"},
      "spec":{"levels":[{"nodeLabel":"example.com/block"},
                        {"nodeLabel":"example.com/rack","alias":"rack"}]}})"))
                  .ok());
  const std::string rack = R"({"topology":"split-dc","requiredTopologyLevel":"rack"})";
  ASSERT_TRUE(CreatePodGroup("split", "pair",
                             R"({"minMember":3,"queue":"team","subGroups":[
      {"name":"a","minMember":1,"topologyConstraint":)" +
                                 rack + R"(},
      {"name":"b","minMember":2,"topologyConstraint":)" +
                                 rack + "}]}"));
  for (const char* name : {"a-0", "b-0", "b-1"}) {
    Object pod = Pod("split", name, {.annotations = {{"pod-group-name", "pair"}}, .whole_gpus = 1});
    kube::SetString(pod, {"metadata", "labels"}, kSubGroupLabel, std::string(1, name[0]));
    ASSERT_TRUE(client().Create(res::kPods, "split", pod).ok());
  }
  ASSERT_TRUE(Eventually([&] { return CountPods(client(), "split", "Running") == 3; }));
  std::map<std::string, std::string> node_of;
  for (const Object& p : PodsOf("split"))
    node_of[std::string(kube::Name(p))] = std::string(kube::GetString(p, {"spec", "nodeName"}));
  EXPECT_EQ(node_of["b-0"], node_of["b-1"]) << "sub-group b shares one rack";

  // A sub-group naming a level its Topology lacks waits, and says which.
  ASSERT_TRUE(CreatePodGroup("split", "lost", R"({"minMember":1,"queue":"team","subGroups":[
      {"name":"w","minMember":1,"topologyConstraint":{"topology":"split-dc",
       "requiredTopologyLevel":"zone"}}]})"));
  Object lost = Pod("split", "lost-0", {.annotations = {{"pod-group-name", "lost"}}});
  kube::SetString(lost, {"metadata", "labels"}, kSubGroupLabel, "w");
  ASSERT_TRUE(client().Create(res::kPods, "split", lost).ok());
  EXPECT_TRUE(Eventually([&] {
    Result<Object> pg = client().Get(res::kPodGroups, "split", "lost");
    return pg.ok() && kube::ToJson(*pg).find(
                          "sub-group w specified 'zone' as the required "
                          "topology constraint level") != std::string::npos;
  })) << "the PodGroup says why it waits";
}

TEST_F(SharingTest, MigSlicesAreBoundWhereTheyFitAndWaitWithAReasonWhereNot) {
  auto mig_pod = [](const std::string& name, const std::string& profile) {
    const std::string slice = "nvidia.com/mig-" + profile;
    return kube::BuildJson(kube::JsonObject{
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata",
         kube::JsonObject{{"name", name},
                          {"namespace", "mig"},
                          {"labels", kube::JsonObject{{"kai.scheduler/queue", "team"}}}}},
        {"spec", kube::JsonObject{
                     {"schedulerName", "kai-scheduler"},
                     {"nodeSelector", kube::JsonObject{{"pool", "mig"}}},
                     {"containers",
                      kube::JsonArray{kube::JsonObject{
                          {"name", "main"},
                          {"image", "busybox"},
                          {"resources",
                           kube::JsonObject{{"limits", kube::JsonObject{{slice, "1"}}}}}}}}}}});
  };
  // Three 1g.10gb slices and one 3g.40gb: four pods fit, one of each
  // profile too many does not, nor a profile the node does not have.
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(
        client().Create(res::kPods, "mig", mig_pod("small-" + std::to_string(i), "1g.10gb")).ok());
  for (int i = 0; i < 2; ++i)
    ASSERT_TRUE(
        client().Create(res::kPods, "mig", mig_pod("large-" + std::to_string(i), "3g.40gb")).ok());
  ASSERT_TRUE(client().Create(res::kPods, "mig", mig_pod("odd", "2g.20gb")).ok());
  ASSERT_TRUE(Eventually([&] { return CountPods(client(), "mig", "Running") == 4; }))
      << CountPods(client(), "mig", "Running") << " running";
  std::map<std::string, int> running;
  std::vector<std::string> waiting;
  for (const Object& p : PodsOf("mig")) {
    const std::string name(kube::Name(p));
    const std::string profile = name.substr(0, name.find('-'));
    if (kube::GetString(p, {"status", "phase"}) == "Running") {
      EXPECT_EQ(kube::GetString(p, {"spec", "nodeName"}), "mig-0");
      ++running[profile];
    } else {
      waiting.push_back(name);
    }
  }
  EXPECT_EQ(running, (std::map<std::string, int>{{"large", 1}, {"small", 3}}));
  ASSERT_EQ(waiting.size(), 3u);
  for (const std::string& name : waiting) {
    std::vector<std::string> why;
    EXPECT_TRUE(Eventually([&] {
      why = EventMessages(client(), "mig", name, "Unschedulable");
      return !why.empty();
    })) << name;
    Result<Object> p = client().Get(res::kPods, "mig", name);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(kube::GetString(*p, {"spec", "nodeName"}), "") << name;
  }
}

// kube-scheduler's volume binding, as KAI's "Scheduling of Pod with PVC"
// suite states it and more: a pod waits for a claim that does not exist or
// that nothing binds; a bound claim holds it to its volume's zone; a claim
// of a class that waits for its first consumer is told the pod's node.
TEST_F(SharingTest, APodGoesWhereItsVolumesLetItAndWaitsForTheirClaims) {
  auto pod_with_claim = [](const std::string& name, const std::string& claim) {
    return PodWithClaim("vol", name, claim);
  };
  auto claim = [](const std::string& name, const std::string& storage_class) {
    return ParseTestJson(R"({"apiVersion":"v1","kind":"PersistentVolumeClaim",
        "metadata":{"name":")" +
                         name + R"(","namespace":"vol"},
        "spec":{"accessModes":["ReadWriteOnce"],"storageClassName":")" +
                         storage_class + R"(","resources":{"requests":{"storage":"1Gi"}}}})");
  };
  auto waits_saying = [&](const std::string& name, const std::string& reason) {
    std::vector<std::string> why;
    const bool said = Eventually([&] {
      why = EventMessages(client(), "vol", name, "Unschedulable");
      return std::find(why.begin(), why.end(), reason) != why.end();
    });
    Result<Object> p = client().Get(res::kPods, "vol", name);
    return said && p.ok() && kube::GetString(*p, {"spec", "nodeName"}).empty();
  };
  auto node_once_running = [&](const std::string& name) {
    return NodeOnceRunning(client(), "vol", name);
  };

  // A claim that does not exist yet.
  ASSERT_TRUE(client().Create(res::kPods, "vol", pod_with_claim("zonal", "in-b")).ok());
  EXPECT_TRUE(waits_saying("zonal", "persistentvolumeclaim \"in-b\" not found"));
  // Then the claim, and a volume in zone b for the volume controller to
  // bind it to (no StorageClass "manual": bound at once).
  ASSERT_TRUE(client()
                  .Create(res::kPersistentVolumes, "", ParseTestJson(R"({"apiVersion":"v1",
      "kind":"PersistentVolume","metadata":{"name":"vol-zone-b"},
      "spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],
        "storageClassName":"manual","hostPath":{"path":"/tmp/vol-zone-b"},
        "nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[
          {"key":"topology.kubernetes.io/zone","operator":"In","values":["b"]}]}]}}}})"))
                  .ok());
  ASSERT_TRUE(client().Create(res::kPersistentVolumeClaims, "vol", claim("in-b", "manual")).ok());
  EXPECT_EQ(node_once_running("zonal"), "vol-b-0");

  // A class that does not exist: nothing will bind the claim.
  ASSERT_TRUE(
      client()
          .Create(res::kPersistentVolumeClaims, "vol", claim("lost", "invalid-storageclass"))
          .ok());
  ASSERT_TRUE(client().Create(res::kPods, "vol", pod_with_claim("stuck", "lost")).ok());
  EXPECT_TRUE(
      waits_saying("stuck",
                   "pod has unbound immediate PersistentVolumeClaims: persistentvolumeclaim "
                   "\"lost\" waits for the volume controller to bind it"));

  // A class that provisions on the first consumer's node, in zone a only.
  ASSERT_TRUE(
      client()
          .Create(res::kStorageClasses, "", ParseTestJson(R"({"apiVersion":"storage.k8s.io/v1",
      "kind":"StorageClass","metadata":{"name":"vol-wffc"},"provisioner":"example.com/disks",
      "volumeBindingMode":"WaitForFirstConsumer","allowedTopologies":[{"matchLabelExpressions":[
        {"key":"topology.kubernetes.io/zone","values":["a"]}]}]})"))
          .ok());
  ASSERT_TRUE(
      client().Create(res::kPersistentVolumeClaims, "vol", claim("fresh", "vol-wffc")).ok());
  ASSERT_TRUE(client().Create(res::kPods, "vol", pod_with_claim("first", "fresh")).ok());
  EXPECT_EQ(node_once_running("first"), "vol-a-0");
  Result<Object> fresh = client().Get(res::kPersistentVolumeClaims, "vol", "fresh");
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(kube::Annotation(*fresh, "volume.kubernetes.io/selected-node").value_or(""), "vol-a-0");

  // Local disks: a class that makes none, and one disk, on vol-b-0. The
  // claim is bound to it on the node the pod goes to, by the scheduler.
  ASSERT_TRUE(
      client()
          .Create(res::kStorageClasses, "", ParseTestJson(R"({"apiVersion":"storage.k8s.io/v1",
      "kind":"StorageClass","metadata":{"name":"vol-local"},
      "provisioner":"kubernetes.io/no-provisioner","volumeBindingMode":"WaitForFirstConsumer"})"))
          .ok());
  ASSERT_TRUE(
      client().Create(res::kPersistentVolumeClaims, "vol", claim("nvme", "vol-local")).ok());
  ASSERT_TRUE(client().Create(res::kPods, "vol", pod_with_claim("local", "nvme")).ok());
  EXPECT_TRUE(waits_saying("local",
                           "persistentvolumeclaim \"nvme\" has no available PersistentVolume of "
                           "StorageClass \"vol-local\" that fits it, and the class "
                           "(kubernetes.io/no-provisioner) makes none"));
  ASSERT_TRUE(client()
                  .Create(res::kPersistentVolumes, "", ParseTestJson(R"({"apiVersion":"v1",
      "kind":"PersistentVolume","metadata":{"name":"vol-b-nvme"},
      "spec":{"capacity":{"storage":"10Gi"},"accessModes":["ReadWriteOnce"],
        "storageClassName":"vol-local","local":{"path":"/mnt/nvme0"},
        "nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[
          {"key":"kubernetes.io/hostname","operator":"In","values":["vol-b-0"]}]}]}}}})"))
                  .ok());
  EXPECT_EQ(node_once_running("local"), "vol-b-0");
  // The volume controller completes what the scheduler's claimRef began.
  EXPECT_TRUE(Eventually([&] {
    Result<Object> nvme = client().Get(res::kPersistentVolumeClaims, "vol", "nvme");
    return nvme.ok() && kube::GetString(*nvme, {"spec", "volumeName"}) == "vol-b-nvme" &&
           kube::GetString(*nvme, {"status", "phase"}) == "Bound";
  }));
}

// KAI's "Don't schedule pod with pvc that exceeds volume capacity", and
// its converse: a class whose CSI driver tracks storage capacity makes a
// volume only on nodes a CSIStorageCapacity with room for it selects.
TEST_F(SharingTest, AClaimIsProvisionedOnlyWhereItsDriverReportsRoom) {
  CreateJson(res::kCsiDrivers, "", R"({"apiVersion":"storage.k8s.io/v1","kind":"CSIDriver",
      "metadata":{"name":"vol.csi.example.com"},"spec":{"storageCapacity":true}})");
  CreateJson(res::kStorageClasses, "", R"({"apiVersion":"storage.k8s.io/v1","kind":"StorageClass",
      "metadata":{"name":"vol-tracked"},"provisioner":"vol.csi.example.com",
      "volumeBindingMode":"WaitForFirstConsumer"})");
  CreateJson(res::kCsiStorageCapacities, "vol", R"({"apiVersion":"storage.k8s.io/v1",
      "kind":"CSIStorageCapacity","metadata":{"name":"zone-b"},"storageClassName":"vol-tracked",
      "capacity":"50Gi","nodeTopology":{"matchLabels":{"topology.kubernetes.io/zone":"b"}}})");
  for (const auto& [name, size] : {std::pair{"too-big", "100Gi"}, std::pair{"fits", "10Gi"}}) {
    CreateJson(res::kPersistentVolumeClaims, "vol",
               R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":")" +
                   std::string(name) + R"("},"spec":{"accessModes":["ReadWriteOnce"],
               "storageClassName":"vol-tracked","resources":{"requests":{"storage":")" +
                   size + R"("}}}})");
    ASSERT_TRUE(client().Create(res::kPods, "vol", PodWithClaim("vol", name, name)).ok());
  }
  EXPECT_EQ(NodeOnceRunning(client(), "vol", "fits"), "vol-b-0");
  Result<Object> fits = client().Get(res::kPersistentVolumeClaims, "vol", "fits");
  ASSERT_TRUE(fits.ok());
  EXPECT_EQ(kube::Annotation(*fits, "volume.kubernetes.io/selected-node").value_or(""), "vol-b-0");
  EXPECT_TRUE(WaitsSaying("vol", "too-big", "did not have enough free storage"));
}

// kube-scheduler's NodeVolumeLimits: a node attaches no more volumes of a
// CSI driver than its CSINode counts; the pod whose disk would be one too
// many waits, and binds once a node may attach it.
TEST_F(SharingTest, ANodeAttachesNoMoreVolumesThanItsCsiNodeCounts) {
  CreateJson(res::kStorageClasses, "", R"({"apiVersion":"storage.k8s.io/v1","kind":"StorageClass",
      "metadata":{"name":"attach-disk"},"provisioner":"attach.csi.example.com",
      "volumeBindingMode":"WaitForFirstConsumer"})");
  for (const char* node : {"attach-0", "attach-1"}) {
    CreateJson(res::kCsiNodes, "",
               R"({"apiVersion":"storage.k8s.io/v1","kind":"CSINode",
        "metadata":{"name":")" +
                   std::string(node) + R"("},"spec":{"drivers":[
        {"name":"attach.csi.example.com","nodeID":")" +
                   node + R"(","allocatable":{"count":1}},
        {"name":"unlimited.csi.example.com","nodeID":")" +
                   node + R"("}]}})");
  }
  for (int i = 0; i < 3; ++i) {
    const std::string name = "disk-" + std::to_string(i);
    CreateJson(res::kPersistentVolumeClaims, "attach",
               R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":")" + name +
                   R"("},"spec":{"accessModes":["ReadWriteOnce"],"storageClassName":"attach-disk",
               "resources":{"requests":{"storage":"10Gi"}}}})");
    ASSERT_TRUE(client().Create(res::kPods, "attach", PodWithClaim("attach", name, name)).ok());
  }
  ASSERT_TRUE(Eventually([&] { return CountPods(client(), "attach", "Running") == 2; }));
  std::set<std::string> nodes;
  std::string waiting;
  for (const Object& p : PodsOf("attach")) {
    if (kube::GetString(p, {"spec", "nodeName"}).empty())
      waiting = std::string(kube::Name(p));
    else
      nodes.insert(std::string(kube::GetString(p, {"spec", "nodeName"})));
  }
  EXPECT_EQ(nodes.size(), 2u) << "one disk a node";
  ASSERT_FALSE(waiting.empty());
  EXPECT_TRUE(WaitsSaying("attach", waiting, "exceed max volume count"));
  // Without its CSINode, attach-1 sets no limit.
  ASSERT_TRUE(client().Delete(res::kCsiNodes, "", "attach-1").ok());
  EXPECT_EQ(NodeOnceRunning(client(), "attach", waiting), "attach-1");
}

// kube-scheduler's VolumeRestrictions: a ReadWriteOncePod claim is one
// pod's at a time; the second pod waits, saying so, until the first goes.
TEST_F(SharingTest, AReadWriteOncePodClaimWaitsForItsPodToGo) {
  CreateJson(res::kStorageClasses, "", R"({"apiVersion":"storage.k8s.io/v1",
      "kind":"StorageClass","metadata":{"name":"solo-disk"},"provisioner":"solo.csi.example.com",
      "volumeBindingMode":"WaitForFirstConsumer"})");
  CreateJson(res::kPersistentVolumeClaims, "solo", R"({"apiVersion":"v1",
      "kind":"PersistentVolumeClaim","metadata":{"name":"solo"},
      "spec":{"accessModes":["ReadWriteOncePod"],"storageClassName":"solo-disk",
      "resources":{"requests":{"storage":"1Gi"}}}})");
  ASSERT_TRUE(client().Create(res::kPods, "solo", PodWithClaim("solo", "first", "solo")).ok());
  ASSERT_FALSE(NodeOnceRunning(client(), "solo", "first").empty());
  ASSERT_TRUE(client().Create(res::kPods, "solo", PodWithClaim("solo", "second", "solo")).ok());
  EXPECT_TRUE(WaitsSaying("solo", "second",
                          "node has pod using PersistentVolumeClaim with the same name and "
                          "ReadWriteOncePod access mode"));
  ASSERT_TRUE(client().Delete(res::kPods, "solo", "first").ok());
  EXPECT_FALSE(NodeOnceRunning(client(), "solo", "second").empty());
}

// Replicas held apart by a required pod anti-affinity on the hostname, as
// a serving Deployment writes it: one a node, though each node has GPUs for
// two; the one too many waits, saying why.
TEST_F(SharingTest, ReplicasWithRequiredAntiAffinityTakeANodeEach) {
  for (int i = 0; i < 3; ++i) {
    Object pod = Pod("apart", "web-" + std::to_string(i), {.whole_gpus = 1});
    kube::SetString(pod, {"metadata", "labels"}, "app", "web");
    pod["spec"].AddMember("affinity",
                          rapidjson::Value(ParseTestJson(R"({"podAntiAffinity":{
        "requiredDuringSchedulingIgnoredDuringExecution":[{
          "labelSelector":{"matchLabels":{"app":"web"}},
          "topologyKey":"kubernetes.io/hostname"}]}})"),
                                           pod.GetAllocator()),
                          pod.GetAllocator());
    ASSERT_TRUE(client().Create(res::kPods, "apart", pod).ok());
  }
  ASSERT_TRUE(Eventually([&] { return CountPods(client(), "apart", "Running") == 2; }));
  std::set<std::string> nodes;
  std::string waiting;
  for (const Object& p : PodsOf("apart")) {
    if (kube::GetString(p, {"status", "phase"}) == "Running")
      nodes.insert(std::string(kube::GetString(p, {"spec", "nodeName"})));
    else
      waiting = std::string(kube::Name(p));
  }
  EXPECT_EQ(nodes, (std::set<std::string>{"apart-0", "apart-1"}));
  EXPECT_TRUE(WaitsSaying("apart", waiting, "pod anti-affinity"));
}

// Required pod affinity and anti-affinity toward other pods. The first two
// steps restate KAI's "Pod Affinity" predicate test: a pod whose affinity
// selects its own label starts anywhere; a second one, kept by node
// affinity off the first one's node, cannot be scheduled. Then a pod follows
// the first onto its node, one keeps away from it, and a pod of the first
// one's label may not join the node where that one's anti-affinity holds.
TEST_F(SharingTest, PodsFollowAndAvoidOtherPodsByTheirLabels) {
  auto with = [](Object pod, const std::string& affinity) {
    pod["spec"].AddMember("affinity", rapidjson::Value(ParseTestJson(affinity), pod.GetAllocator()),
                          pod.GetAllocator());
    return pod;
  };
  auto labelled = [](Object pod) {
    kube::SetString(pod, {"metadata", "labels"}, "pod-affinity-test", "true");
    return pod;
  };
  const std::string toward = R"({"requiredDuringSchedulingIgnoredDuringExecution":[{
      "labelSelector":{"matchLabels":{"pod-affinity-test":"true"}},"namespaces":["near"],
      "topologyKey":"kubernetes.io/hostname"}]})";
  auto node_of = [&](const std::string& name) {
    Result<Object> p = client().Get(res::kPods, "near", name);
    return p.ok() ? std::string(kube::GetString(*p, {"spec", "nodeName"})) : "";
  };

  Object first =
      labelled(with(Pod("near", "first", {.whole_gpus = 1}), R"({"podAffinity":)" + toward + "}"));
  ASSERT_TRUE(client().Create(res::kPods, "near", first).ok());
  ASSERT_TRUE(Eventually([&] { return CountPods(client(), "near", "Running") == 1; }));
  const std::string node = node_of("first");
  const std::string other = node == "near-0" ? "near-1" : "near-0";
  Object second =
      labelled(with(Pod("near", "second", {.whole_gpus = 1}), R"({"podAffinity":)" + toward +
                                                                  R"(,"nodeAffinity":{
      "requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[
        {"key":"kubernetes.io/hostname","operator":"NotIn","values":[")" +
                                                                  node + R"("]}]}]}}})"));
  ASSERT_TRUE(client().Create(res::kPods, "near", second).ok());
  EXPECT_TRUE(WaitsSaying("near", "second", "pod affinity does not match"));

  Object follower =
      with(Pod("near", "follower", {.whole_gpus = 1}), R"({"podAffinity":)" + toward + "}");
  Object away =
      with(Pod("near", "away", {.whole_gpus = 1}), R"({"podAntiAffinity":)" + toward + "}");
  ASSERT_TRUE(client().Create(res::kPods, "near", follower).ok());
  ASSERT_TRUE(client().Create(res::kPods, "near", away).ok());
  ASSERT_TRUE(Eventually([&] { return CountPods(client(), "near", "Running") == 3; }));
  EXPECT_EQ(node_of("follower"), node);
  EXPECT_EQ(node_of("away"), other);

  // The first one's node is full; the other holds "away", whose
  // anti-affinity keeps pods of that label out.
  Object joiner = labelled(Pod("near", "joiner", {.whole_gpus = 1}));
  ASSERT_TRUE(client().Create(res::kPods, "near", joiner).ok());
  EXPECT_TRUE(WaitsSaying("near", "joiner", "existing pods' anti-affinity does not match"));
  EXPECT_EQ(node_of("second"), "");
  EXPECT_EQ(node_of("joiner"), "");
}

// Preferred pod affinity and anti-affinity, as KAI's "Affinity" node-order
// test has them: pods that ask for nothing go to the node of the pod their
// preferred affinity names, and away from it with preferred anti-affinity;
// and, as kube-scheduler scores, a running pod's preferred terms draw and
// push the pods they name.
// As kube-scheduler reads a pod affinity term's namespaceSelector: it
// reaches the pods of the namespaces whose labels it matches, as they are
// labelled now.
TEST_F(SharingTest, ANamespaceSelectorReachesPodsByTheirNamespacesLabels) {
  // A pod with a required term of `kind` toward the database pods of blue
  // namespaces, and `more` affinity (JSON members).
  auto with_terms = [](Object pod, const std::string& kind, const std::string& more = "") {
    pod["spec"].AddMember("affinity",
                          rapidjson::Value(ParseTestJson(R"({")" + kind + R"(":{
        "requiredDuringSchedulingIgnoredDuringExecution":[{
          "labelSelector":{"matchLabels":{"app":"db"}},
          "namespaceSelector":{"matchLabels":{"team":"blue"}},
          "topologyKey":"kubernetes.io/hostname"}]})" + more +
                                                         "}"),
                                           pod.GetAllocator()),
                          pod.GetAllocator());
    return pod;
  };
  auto label_db_namespace = [&](const char* team) {
    const std::string patch = std::string(R"({"metadata":{"labels":{"team":)") + team + "}}}";
    return client().Patch(res::kNamespaces, "", "nssel-db", kube::PatchType::kMerge, patch).ok();
  };
  // The database runs in a namespace of its own, labelled team=blue.
  ASSERT_TRUE(
      client()
          .Create(res::kNamespaces, "",
                  ParseTestJson(R"({"metadata":{"name":"nssel-db","labels":{"team":"blue"}}})"))
          .ok());
  Object db = Pod("nssel-db", "db", {.whole_gpus = 0});
  kube::SetString(db, {"spec", "nodeSelector"}, "pool", "nssel");
  kube::SetString(db, {"metadata", "labels"}, "app", "db");
  ASSERT_TRUE(client().Create(res::kPods, "nssel-db", db).ok());
  const std::string db_node = NodeOnceRunning(client(), "nssel-db", "db");
  ASSERT_NE(db_node, "");

  // Kept off the database's node, though it would rather be there.
  ASSERT_TRUE(client()
                  .Create(res::kPods, "nssel",
                          with_terms(Pod("nssel", "away", {.whole_gpus = 0}), "podAntiAffinity",
                                     R"(,"podAffinity":{
        "preferredDuringSchedulingIgnoredDuringExecution":[{"weight":100,"podAffinityTerm":{
          "labelSelector":{"matchLabels":{"app":"db"}},"namespaces":["nssel-db"],
          "topologyKey":"kubernetes.io/hostname"}}]})"))
                  .ok());
  const std::string away = NodeOnceRunning(client(), "nssel", "away");
  EXPECT_NE(away, "");
  EXPECT_NE(away, db_node);

  // Once the namespace is no longer blue, the database is no one's to join;
  // when it is blue again, the waiting pod goes to it.
  ASSERT_TRUE(label_db_namespace(R"("green")"));
  ASSERT_TRUE(client()
                  .Create(res::kPods, "nssel",
                          with_terms(Pod("nssel", "near", {.whole_gpus = 0}), "podAffinity"))
                  .ok());
  EXPECT_TRUE(WaitsSaying("nssel", "near", "pod affinity does not match"));
  ASSERT_TRUE(label_db_namespace(R"("blue")"));
  EXPECT_EQ(NodeOnceRunning(client(), "nssel", "near"), db_node);
}

TEST_F(SharingTest, PreferredPodAffinityChoosesTheNode) {
  auto preferring = [](Object pod, const std::string& kind) {
    pod["spec"].AddMember("affinity",
                          rapidjson::Value(ParseTestJson(R"({")" + kind + R"(":{
        "preferredDuringSchedulingIgnoredDuringExecution":[{"weight":10,"podAffinityTerm":{
          "labelSelector":{"matchLabels":{"app":"running"}},"namespaces":["prefer"],
          "topologyKey":"kubernetes.io/hostname"}}]}})"),
                                           pod.GetAllocator()),
                          pod.GetAllocator());
    return pod;
  };
  auto node_of = [&](const std::string& name) {
    std::string node;
    EXPECT_TRUE(Eventually([&] {
      Result<Object> p = client().Get(res::kPods, "prefer", name);
      node = p.ok() ? std::string(kube::GetString(*p, {"spec", "nodeName"})) : "";
      return !node.empty();
    })) << name
        << " was not scheduled";
    return node;
  };
  Object running = Pod("prefer", "running", {.whole_gpus = 0});
  kube::SetString(running, {"metadata", "labels"}, "app", "running");
  // Its own terms toward the guests below, which name no one.
  running["spec"].AddMember("affinity",
                            rapidjson::Value(ParseTestJson(R"({
      "podAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":10,
        "podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"guest-a"}},
        "topologyKey":"kubernetes.io/hostname"}}]},
      "podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":10,
        "podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"guest-b"}},
        "topologyKey":"kubernetes.io/hostname"}}]}})"),
                                             running.GetAllocator()),
                            running.GetAllocator());
  ASSERT_TRUE(client().Create(res::kPods, "prefer", running).ok());
  const std::string node = node_of("running");
  ASSERT_TRUE(client()
                  .Create(res::kPods, "prefer",
                          preferring(Pod("prefer", "drawn", {.whole_gpus = 0}), "podAffinity"))
                  .ok());
  EXPECT_EQ(node_of("drawn"), node);
  ASSERT_TRUE(client()
                  .Create(res::kPods, "prefer",
                          preferring(Pod("prefer", "pushed", {.whole_gpus = 0}), "podAntiAffinity"))
                  .ok());
  const std::string pushed = node_of("pushed");
  EXPECT_NE(pushed, node);
  EXPECT_NE(pushed, "");

  // The other way round, as kube-scheduler scores: the running pod's terms
  // draw guest-a to its node and push guest-b off it (binpack alone would
  // put both beside it, on the fuller node).
  for (const char* guest : {"guest-a", "guest-b"}) {
    Object pod = Pod("prefer", guest, {.whole_gpus = 0});
    kube::SetString(pod, {"metadata", "labels"}, "app", guest);
    ASSERT_TRUE(client().Create(res::kPods, "prefer", pod).ok());
    if (std::string(guest) == "guest-a") {
      EXPECT_EQ(node_of(guest), node);
    }
  }
  EXPECT_EQ(node_of("guest-b"), pushed);
}

// Replicas under a required topology spread over zones (maxSkew 1): zone b
// has one node, zone a two. Five of six run, three in a and two in b; the
// sixth would put a two ahead once b is full, so it waits, saying why.
TEST_F(SharingTest, ReplicasSpreadOverZonesWithinTheirSkew) {
  for (int i = 0; i < 6; ++i) {
    Object pod = Pod("spread", "web-" + std::to_string(i), {.whole_gpus = 1});
    kube::SetString(pod, {"metadata", "labels"}, "app", "web");
    pod["spec"].AddMember("topologySpreadConstraints",
                          rapidjson::Value(ParseTestJson(R"([{"maxSkew":1,
        "topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule",
        "labelSelector":{"matchLabels":{"app":"web"}}}])"),
                                           pod.GetAllocator()),
                          pod.GetAllocator());
    ASSERT_TRUE(client().Create(res::kPods, "spread", pod).ok());
  }
  ASSERT_TRUE(Eventually([&] { return CountPods(client(), "spread", "Running") == 5; }));
  std::map<char, int> per_zone;
  std::string waiting;
  for (const Object& p : PodsOf("spread")) {
    const std::string_view node = kube::GetString(p, {"spec", "nodeName"});
    if (node.empty())
      waiting = std::string(kube::Name(p));
    else
      ++per_zone[node[std::string_view("spread-").size()]];
  }
  EXPECT_EQ(per_zone, (std::map<char, int>{{'a', 3}, {'b', 2}}));
  EXPECT_TRUE(WaitsSaying("spread", waiting, "topology spread"));
}

// An RDMA device and a host port, which the kubelet would refuse a pod
// for: a pod asking for the one device goes to its node, a second waits;
// pods binding one host port take a node each, a third waits.
TEST_F(SharingTest, OtherResourcesAndHostPortsAreCountedPerNode) {
  for (const char* name : {"ib-0", "ib-1"}) {
    Object pod = Pod("extras", name, {.whole_gpus = 1});
    pod["spec"]["containers"][0]["resources"]["limits"].AddMember("rdma/ib", "1",
                                                                  pod.GetAllocator());
    Status created = client().Create(res::kPods, "extras", pod).status();
    ASSERT_TRUE(created.ok()) << created.ToString();
    if (std::string(name) == "ib-0") {
      ASSERT_TRUE(Eventually([&] { return CountPods(client(), "extras", "Running") == 1; }));
    }
  }
  Result<Object> first = client().Get(res::kPods, "extras", "ib-0");
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(kube::GetString(*first, {"spec", "nodeName"}), "extras-ib-0");
  EXPECT_TRUE(WaitsSaying("extras", "ib-1", "insufficient other resources"));

  for (int i = 0; i < 3; ++i) {
    Object pod = Pod("extras", "exporter-" + std::to_string(i), {.whole_gpus = 0});
    pod["spec"]["containers"][0].AddMember(
        "ports",
        rapidjson::Value(ParseTestJson(R"([{"containerPort":9400,"hostPort":9400}])"),
                         pod.GetAllocator()),
        pod.GetAllocator());
    ASSERT_TRUE(client().Create(res::kPods, "extras", pod).ok());
  }
  ASSERT_TRUE(Eventually([&] { return CountPods(client(), "extras", "Running") == 3; }));
  std::set<std::string> nodes;
  std::string waiting;
  for (const Object& p : PodsOf("extras")) {
    if (!kube::Name(p).starts_with("exporter")) continue;
    const std::string node(kube::GetString(p, {"spec", "nodeName"}));
    if (node.empty())
      waiting = std::string(kube::Name(p));
    else
      EXPECT_TRUE(nodes.insert(node).second) << node << " holds the port twice";
  }
  EXPECT_EQ(nodes.size(), 2u);
  EXPECT_TRUE(WaitsSaying("extras", waiting, "host ports in use"));
}

// KAI counts AMD's GPUs as GPUs: a node's amd.com/gpu, a pod's request and
// its queue's allocation. A GPU node without GPU feature discovery's memory
// label takes whole GPUs and fractions (KAI gives it 100 MiB a device).
TEST_F(SharingTest, AmdGpusAndNodesWithoutTheMemoryLabelAreScheduled) {
  ASSERT_TRUE(client().Create(res::kQueues, "", QueueManifest("amd", "", -1)).ok());
  for (int i = 0; i < 3; ++i) {
    Object pod = Pod("amd", "amd-" + std::to_string(i), {.queue = "amd"});
    pod["spec"]["containers"][0]["resources"].AddMember(
        "limits", rapidjson::Value(ParseTestJson(R"({"amd.com/gpu":"1"})"), pod.GetAllocator()),
        pod.GetAllocator());
    ASSERT_TRUE(client().Create(res::kPods, "amd", pod).ok());
    if (i < 2) {
      ASSERT_TRUE(Eventually([&] { return CountPods(client(), "amd", "Running") == i + 1; }));
    }
  }
  EXPECT_TRUE(WaitsSaying("amd", "amd-2", "not enough idle whole GPUs"));
  auto allocated = [&] {
    Result<Object> q = client().Get(res::kQueues, "", "amd");
    return q.ok() ? std::string(kube::GetString(*q, {"status", "allocated", kGpuResource})) : "";
  };
  EXPECT_TRUE(Eventually([&] { return allocated() == "2"; })) << allocated();

  ASSERT_TRUE(client()
                  .Create(res::kPods, "nolabel",
                          Pod("nolabel", "half", {.annotations = {{"gpu-fraction", "0.5"}}}))
                  .ok());
  EXPECT_EQ(NodeOnceRunning(client(), "nolabel", "half"), "nolabel-0");
  ASSERT_TRUE(client()
                  .Create(res::kPods, "nolabel",
                          Pod("nolabel", "by-memory", {.annotations = {{"gpu-memory", "4000"}}}))
                  .ok());
  EXPECT_TRUE(WaitsSaying("nolabel", "by-memory", "less memory than requested"));
}

TEST_F(SharingTest, AReCreatedQueueGetsItsStatusBack) {
  auto allocated = [&] {
    Result<Object> q = client().Get(res::kQueues, "", "heal");
    return q.ok() ? std::string(kube::GetString(*q, {"status", "allocated", kGpuResource}))
                  : "<gone>";
  };
  ASSERT_TRUE(client().Create(res::kQueues, "", QueueManifest("heal", "", -1)).ok());
  ASSERT_TRUE(client()
                  .Create(res::kPods, "heal", Pod("heal", "w", {.queue = "heal", .whole_gpus = 1}))
                  .ok());
  ASSERT_TRUE(Eventually([&] { return CountPods(client(), "heal", "Running") == 1; }));
  ASSERT_TRUE(Eventually([&] { return allocated() == "1"; })) << allocated();
  // Deleted and re-created, as an operator healing drift does: the pod
  // still runs, so the new Queue's status says so, though nothing changed.
  ASSERT_TRUE(client().Delete(res::kQueues, "", "heal").ok());
  ASSERT_TRUE(Eventually([&] { return allocated() == "<gone>"; }));
  ASSERT_TRUE(client().Create(res::kQueues, "", QueueManifest("heal", "", -1)).ok());
  EXPECT_TRUE(Eventually([&] { return allocated() == "1"; })) << allocated();
}

}  // namespace
}  // namespace vtenant::scheduler
