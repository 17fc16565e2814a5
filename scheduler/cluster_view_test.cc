// ClusterView: what a live cluster adds to the snapshot — terminating and
// foreign pods hold resources, binds in flight and nominations hold theirs,
// pods without a usable queue wait with a reason.
#include "scheduler/cluster_view.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <sstream>

#include "kube/json_builder.h"
#include "kube/testing/json.h"
#include "scheduler-core/cluster_state.h"
#include "scheduler-core/scheduler.h"

namespace vtenant::scheduler {
namespace {

using kube::Json;

kube::Object Node(const std::string& name, int gpus) {
  return kube::BuildJson(kube::JsonObject{
      {"metadata",
       kube::JsonObject{{"name", name},
                        {"labels", kube::JsonObject{{"nvidia.com/gpu.memory", "46068"}}}}},
      {"status", kube::JsonObject{
                     {"allocatable", kube::JsonObject{{"cpu", "16"},
                                                      {"memory", "64Gi"},
                                                      {"pods", "110"},
                                                      {"nvidia.com/gpu", std::to_string(gpus)}}},
                     {"conditions",
                      kube::JsonArray{kube::JsonObject{{"type", "Ready"}, {"status", "True"}}}}}}});
}

kube::Object Queue(const std::string& name, const std::string& parent = "") {
  return kube::BuildJson(kube::JsonObject{
      {"metadata", kube::JsonObject{{"name", name}}},
      {"spec", kube::JsonObject{
                   {"parentQueue", parent},
                   {"resources",
                    kube::JsonObject{{"gpu", kube::JsonObject{{"quota", -1}, {"limit", -1}}}}}}}});
}

struct P {
  std::string name;
  std::string queue = "team";
  int gpus = 1;
  std::string fraction;
  std::string node;
  std::string scheduler = "kai-scheduler";
  bool terminating = false;
  std::map<std::string, std::string> extra_annotations;  // after gpu-fraction
  std::vector<std::string> claims;                       // a volume of each
};

kube::Object Pod(const P& p) {
  kube::JsonObject annotations;
  if (!p.fraction.empty()) annotations.Set("gpu-fraction", p.fraction);
  for (const auto& [key, value] : p.extra_annotations) annotations.Set(key, value);
  kube::JsonObject metadata{{"name", p.name},
                            {"namespace", "ns"},
                            {"uid", "u-" + p.name},
                            {"labels", kube::JsonObject{{"kai.scheduler/queue", p.queue}}},
                            {"annotations", annotations}};
  if (p.terminating) metadata.Set("deletionTimestamp", "2026-12-01T09:00:00Z");
  kube::JsonObject limits;
  if (p.gpus > 0) limits.Set("nvidia.com/gpu", std::to_string(p.gpus));
  kube::JsonArray volumes;
  for (const std::string& claim : p.claims)
    volumes.Add(kube::JsonObject{
        {"name", claim}, {"persistentVolumeClaim", kube::JsonObject{{"claimName", claim}}}});
  return kube::BuildJson(kube::JsonObject{
      {"metadata", metadata},
      {"spec", kube::JsonObject{
                   {"schedulerName", p.scheduler},
                   {"nodeName", p.node},
                   {"volumes", std::move(volumes)},
                   {"containers",
                    kube::JsonArray{kube::JsonObject{
                        {"name", "c"}, {"resources", kube::JsonObject{{"limits", limits}}}}}}}}});
}

// The sum of `metric`'s samples, every label set, as `registry` renders them.
double Total(const kube::Registry& registry, const std::string& metric) {
  std::istringstream lines(registry.Render());
  double total = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(metric, 0) != 0 || (line[metric.size()] != ' ' && line[metric.size()] != '{'))
      continue;
    total += std::stod(line.substr(line.rfind(' ') + 1));
  }
  return total;
}

double Translations(const kube::Registry& registry) {
  return Total(registry, "vtenant_scheduler_translations_total");
}

double CoreUpdates(const kube::Registry& registry) {
  return Total(registry, "vtenant_scheduler_core_pod_updates_total");
}

class ClusterViewTest : public ::testing::Test {
 protected:
  ClusterViewTest() : view_({}, &registry_) {
    view_.UpsertNode(Node("n1", 2));
    view_.UpsertQueue(Queue("team"));
  }
  World Build() {
    Result<World> w = view_.Build(100);
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    return w.ok() ? std::move(w).value() : World{};
  }
  // n1 publishes one device, "gpu-0" of driver gpu.example.com, which the
  // class of that name selects.
  void GiveN1ADevice() {
    using Kind = ClusterView::DeviceKind;
    view_.UpsertDevices(Kind::kClass, Json(R"({"metadata":{"name":"gpu.example.com"},"spec":{}})"));
    EXPECT_TRUE(view_.UpsertDevices(Kind::kSlice, Json(R"({"metadata":{"name":"n1-gpus"},
        "spec":{"driver":"gpu.example.com","nodeName":"n1","pool":{"name":"n1","generation":1},
        "devices":[{"name":"gpu-0"}]}})")))
        << "a node has a device now";
  }
  // Claim `name` of team's queue, for one device of that class.
  void AddClaim(const std::string& name) {
    view_.UpsertDevices(ClusterView::DeviceKind::kClaim, Json(R"({"metadata":{"name":")" + name +
                                                              R"(","namespace":"ns",
        "uid":"claim-)" + name + R"(","labels":{"kai.scheduler/queue":"team"}},
        "spec":{"devices":{"requests":[{"name":"r","exactly":{
        "deviceClassName":"gpu.example.com"}}]}}})"));
  }
  // Pod `name`, asking for no GPU, with resource claim `claim`; bound to
  // `node` unless empty.
  void AddPodWithClaim(const std::string& name, const std::string& claim,
                       const std::string& node = "") {
    kube::Object pod = Pod({.name = name, .gpus = 0, .node = node});
    pod["spec"].AddMember(
        "resourceClaims",
        rapidjson::Value(Json(R"([{"name":"r","resourceClaimName":")" + claim + R"("}])"),
                         pod.GetAllocator()),
        pod.GetAllocator());
    view_.UpsertPod(pod);
  }
  kube::Registry registry_;
  ClusterView view_;
};

TEST_F(ClusterViewTest, ForeignAndTerminatingPodsHoldTheirGpus) {
  view_.UpsertPod(Pod({.name = "theirs", .node = "n1", .scheduler = "default-scheduler"}));
  view_.UpsertPod(Pod({.name = "leaving", .node = "n1", .terminating = true}));
  view_.UpsertPod(Pod({.name = "new"}));
  World w = Build();
  sched::Decisions d = sched::RunCycle(*w.snapshot);
  EXPECT_TRUE(d.binds.empty()) << "both GPUs are held";
  ASSERT_EQ(d.pending.size(), 1u);
  EXPECT_EQ(w.snapshot->pods[d.pending[0].pod].name, "ns/new");
  // Holders are never victims.
  for (sched::PodId p = 0; p < w.snapshot->pods.size(); ++p)
    EXPECT_EQ(w.movable[p], w.snapshot->pods[p].name == "ns/new") << w.snapshot->pods[p].name;
}

// A node's CSI attach limit counts the volumes of every pod on it, another
// scheduler's too, and inline CSI volumes; without the limit the pod binds.
TEST_F(ClusterViewTest, AnotherSchedulersVolumesCountAgainstTheNodesAttachLimit) {
  using Kind = ClusterView::StorageKind;
  const kube::Object csi_node = Json(R"({"metadata":{"name":"n1"},"spec":{"drivers":[
      {"name":"disk.csi.example.com","nodeID":"n1","allocatable":{"count":2}}]}})");
  EXPECT_TRUE(view_.UpsertCsiNode(csi_node));
  view_.UpsertStorage(Kind::kClass, Json(R"({"metadata":{"name":"disk"},
      "provisioner":"disk.csi.example.com","volumeBindingMode":"WaitForFirstConsumer"})"));
  for (const char* claim : {"theirs-data", "new-data"}) {
    view_.UpsertStorage(Kind::kClaim, Json(R"({"metadata":{"name":")" + std::string(claim) +
                                           R"(","namespace":"ns","uid":"c"},
        "spec":{"storageClassName":"disk","resources":{"requests":{"storage":"1Gi"}}}})"));
  }
  view_.UpsertPod(Pod({.name = "theirs",
                       .gpus = 0,
                       .node = "n1",
                       .scheduler = "default-scheduler",
                       .claims = {"theirs-data"}}));
  kube::Object scratch = Pod({.name = "scratch", .gpus = 0, .node = "n1"});
  scratch["spec"]["volumes"].PushBack(
      rapidjson::Value(Json(R"({"name":"tmp","csi":{"driver":"disk.csi.example.com"}})"),
                       scratch.GetAllocator()),
      scratch.GetAllocator());
  view_.UpsertPod(scratch);
  view_.UpsertPod(Pod({.name = "new", .gpus = 0, .claims = {"new-data"}}));
  World w = Build();
  sched::Decisions d = sched::RunCycle(*w.snapshot);
  EXPECT_TRUE(d.binds.empty()) << "the node attaches two disks, and has them";
  ASSERT_EQ(d.pending.size(), 1u);

  EXPECT_TRUE(view_.DeleteCsiNode(csi_node));
  w = Build();
  d = sched::RunCycle(*w.snapshot);
  ASSERT_EQ(d.binds.size(), 1u) << "no limit without the CSINode";
  EXPECT_EQ(w.snapshot->pods[d.binds[0].pod].name, "ns/new");
}

// Dynamic resource claims: of two pods whose claims each ask for n1's one
// device, one cycle places one, and the device is held from the moment its
// bind chooses it, before the claim shows it.
TEST_F(ClusterViewTest, ADeviceIsGivenToOneClaimAtATime) {
  GiveN1ADevice();
  for (const char* name : {"a", "b"}) {
    AddClaim(name);
    AddPodWithClaim(name, name);
  }
  World w = Build();
  EXPECT_TRUE(w.unschedulable.empty());
  sched::Decisions d = sched::RunCycle(*w.snapshot);
  ASSERT_EQ(d.binds.size(), 1u) << "one device";
  ASSERT_EQ(d.pending.size(), 1u);
  const std::string bound = w.snapshot->pods[d.binds[0].pod].name;
  const std::string other = bound == "ns/a" ? "ns/b" : "ns/a";

  view_.Assume(bound, {.node = "n1"});
  Result<std::vector<ClaimAllocation>> given = view_.AllocateDevices(bound, "n1");
  ASSERT_TRUE(given.ok()) << given.status().ToString();
  ASSERT_EQ(given->size(), 1u);
  EXPECT_EQ((*given)[0].results,
            (std::vector<DeviceResult>{{"r", "gpu.example.com", "n1", "gpu-0"}}));
  EXPECT_EQ(view_.AllocateDevices(other, "n1").status().code(), StatusCode::kFailedPrecondition);
  w = Build();
  ASSERT_EQ(w.unschedulable.size(), 1u);
  EXPECT_EQ(w.unschedulable[0].key, other);
  EXPECT_EQ(w.unschedulable[0].reason,
            "cannot allocate all claims: no node has the devices they ask for free");

  view_.ForgetDevices(bound, {bound.substr(3)});
  w = Build();
  EXPECT_TRUE(w.unschedulable.empty()) << "a bind that failed lets the device go";
}

// A claim two pods share asks for its one device once: both are placed
// where it is, the first bind allocates it, the second joins it.
TEST_F(ClusterViewTest, ASharedClaimAsksForItsDevicesOnce) {
  GiveN1ADevice();
  AddClaim("shared");
  for (const char* name : {"s1", "s2"}) AddPodWithClaim(name, "shared");
  World w = Build();
  sched::Decisions d = sched::RunCycle(*w.snapshot);
  EXPECT_EQ(d.binds.size(), 2u) << "one device, asked for once";
  for (const char* key : {"ns/s1", "ns/s2"}) view_.Assume(key, {.node = "n1"});
  Result<std::vector<ClaimAllocation>> first = view_.AllocateDevices("ns/s1", "n1");
  ASSERT_TRUE(first.ok() && first->size() == 1u);
  EXPECT_TRUE((*first)[0].allocate);
  Result<std::vector<ClaimAllocation>> second = view_.AllocateDevices("ns/s2", "n1");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  ASSERT_EQ(second->size(), 1u);
  EXPECT_FALSE((*second)[0].allocate) << "it joins the claim the first allocates";
}

// Pods that share a claim no bind has allocated yet go to one node, where
// the first bind will allocate it: of two that each need a whole node's
// GPUs, one cycle places one; two that fit together are placed together,
// on either node with a device.
TEST_F(ClusterViewTest, PodsSharingAClaimNotYetAllocatedGoToOneNode) {
  GiveN1ADevice();
  view_.UpsertNode(Node("n2", 2));
  EXPECT_TRUE(
      view_.UpsertDevices(ClusterView::DeviceKind::kSlice, Json(R"({"metadata":{"name":"n2-gpus"},
        "spec":{"driver":"gpu.example.com","nodeName":"n2","pool":{"name":"n2","generation":1},
        "devices":[{"name":"gpu-0"}]}})")));
  AddClaim("shared");
  std::vector<kube::Object> pods;
  auto add_pod = [&](const std::string& name, int gpus) {
    kube::Object pod = Pod({.name = name, .gpus = gpus});
    pod["spec"].AddMember("resourceClaims",
                          rapidjson::Value(Json(R"([{"name":"r","resourceClaimName":"shared"}])"),
                                           pod.GetAllocator()),
                          pod.GetAllocator());
    view_.UpsertPod(pod);
    pods.push_back(std::move(pod));
  };
  for (const char* name : {"big-1", "big-2"}) add_pod(name, 2);
  World w = Build();
  sched::Decisions d = sched::RunCycle(*w.snapshot);
  ASSERT_EQ(d.binds.size(), 1u) << "the second would be on another node than the claim";
  ASSERT_EQ(d.pending.size(), 1u);

  for (const kube::Object& pod : pods) view_.DeletePod(pod);
  for (const char* name : {"small-1", "small-2"}) add_pod(name, 1);
  w = Build();
  d = sched::RunCycle(*w.snapshot);
  ASSERT_EQ(d.binds.size(), 2u);
  EXPECT_EQ(d.binds[0].allocation.node, d.binds[1].allocation.node);
}

// A request with tolerations may take a tainted device, which one without
// may not: of three pods for n1's one device, tainted NoSchedule, one cycle
// places one that tolerates it, and neither of the others.
TEST_F(ClusterViewTest, OneCyclePlacesNoMorePodsThanThereAreDevicesTheyMayTake) {
  using Kind = ClusterView::DeviceKind;
  view_.UpsertDevices(Kind::kClass, Json(R"({"metadata":{"name":"gpu.example.com"},"spec":{}})"));
  ASSERT_TRUE(view_.UpsertDevices(Kind::kSlice, Json(R"({"metadata":{"name":"n1-gpus"},
      "spec":{"driver":"gpu.example.com","nodeName":"n1","pool":{"name":"n1","generation":1},
      "devices":[{"name":"gpu-0","taints":[{"key":"gpu.example.com/unhealthy",
        "effect":"NoSchedule"}]}]}})")));
  auto claim = [&](const std::string& name, const std::string& tolerations) {
    view_.UpsertDevices(Kind::kClaim, Json(R"({"metadata":{"name":")" + name +
                                           R"(","namespace":"ns","uid":"claim-)" + name + R"(",
        "labels":{"kai.scheduler/queue":"team"}},"spec":{"devices":{"requests":[{"name":"r",
        "exactly":{"deviceClassName":"gpu.example.com","tolerations":)" +
                                           tolerations + "}}]}}}"));
  };
  claim("tolerant-1", R"([{"operator":"Exists"}])");
  claim("tolerant-2", R"([{"operator":"Exists"}])");
  claim("plain", "[]");
  for (const char* name : {"tolerant-1", "tolerant-2", "plain"}) AddPodWithClaim(name, name);
  World w = Build();
  sched::Decisions d = sched::RunCycle(*w.snapshot);
  ASSERT_EQ(d.binds.size(), 1u);
  EXPECT_TRUE(w.snapshot->pods[d.binds[0].pod].name.starts_with("ns/tolerant-"));
  ASSERT_EQ(d.pending.size(), 1u) << "the other pod that tolerates the taint";
  EXPECT_TRUE(w.snapshot->pods[d.pending[0].pod].name.starts_with("ns/tolerant-"));
  ASSERT_EQ(w.unschedulable.size(), 1u);
  EXPECT_EQ(w.unschedulable[0].key, "ns/plain") << "no untainted device anywhere";
}

// A pod that asks for a device class's extended resource by Kubernetes'
// name for it gets no device that way here: it waits, saying why, and
// does not take the devices the core counts for claims.
TEST_F(ClusterViewTest, APodAskingForAClassesExtendedResourceWaitsSayingWhy) {
  GiveN1ADevice();
  kube::Object pod = Pod({.name = "legacy", .gpus = 0});
  pod["spec"]["containers"][0]["resources"]["limits"].AddMember(
      "deviceclass.resource.kubernetes.io/gpu.example.com", "1", pod.GetAllocator());
  view_.UpsertPod(pod);
  AddClaim("c");
  AddPodWithClaim("claimant", "c");
  World w = Build();
  sched::Decisions d = sched::RunCycle(*w.snapshot);
  ASSERT_EQ(d.binds.size(), 1u);
  EXPECT_EQ(w.snapshot->pods[d.binds[0].pod].name, "ns/claimant");
  ASSERT_EQ(w.unschedulable.size(), 1u);
  EXPECT_EQ(w.unschedulable[0].key, "ns/legacy");
  EXPECT_EQ(w.unschedulable[0].reason,
            "asks for deviceclass.resource.kubernetes.io/gpu.example.com, the extended resource of "
            "DeviceClass gpu.example.com; vtenant-scheduler does not allocate extended resources "
            "backed by device classes: ask for the devices with a ResourceClaim");
}

// The GPUs of resource claims are the queue's, as KAI counts DRA GPUs: the
// node's GPU driver's devices are capacity, and a claim that pods share is
// charged once, to the first that uses it.
TEST_F(ClusterViewTest, AClaimsGpusAreChargedToItsQueueOnce) {
  GiveN1ADevice();
  AddClaim("shared");
  for (const char* name : {"s1", "s2"}) AddPodWithClaim(name, "shared");
  World w = Build();
  auto pod = [&](const std::string& key) -> const sched::Pod& {
    for (const sched::Pod& p : w.snapshot->pods)
      if (p.name == key) return p;
    ADD_FAILURE() << key << " is not in the snapshot";
    return w.snapshot->pods.front();
  };
  for (const sched::Node& n : w.snapshot->nodes)
    EXPECT_EQ(n.claim_gpus, n.name == "n1" ? 1 : 0) << n.name;
  EXPECT_EQ(pod("ns/s1").request.claim_gpus, 1);
  EXPECT_EQ(pod("ns/s2").request.claim_gpus, 0) << "the claim is charged to s1";
}

// KAI's allocate_dra_test.go cases on queue quota and limit: a claim's
// GPUs count against its queue's (over quota as non-preemptible, over the
// limit), a claim of a class that is no GPU does not.
TEST_F(ClusterViewTest, KaisDraQuotaCasesHold) {
  struct Case {
    std::string name;
    std::string device_class;  // of the node's two devices and of the claim
    bool non_preemptible;
    int limit;  // the queue's GPU limit, -1 none; its quota is 1
    bool runs;
  };
  const Case cases[] = {
      {"pod with simple resource claim - requests over quota as non-preemptable", "nvidia.com/gpu",
       true, -1, false},
      {"pod with simple resource claim - requests over limit", "nvidia.com/gpu", false, 1, false},
      {"pod with simple resource claim - non gpu claims doesn't count for gpu limit",
       "other-device-class", false, 1, true},
  };
  for (const Case& c : cases) {
    ClusterView view({}, &registry_);
    view.UpsertNode(Node("node0", 0));
    view.UpsertQueue(Json(R"({"metadata":{"name":"queue1"},"spec":{"resources":{"gpu":
        {"quota":1,"limit":)" +
                          std::to_string(c.limit) + "}}}}"));
    using Kind = ClusterView::DeviceKind;
    view.UpsertDevices(Kind::kClass,
                       Json(R"({"metadata":{"name":")" + c.device_class + R"("},"spec":{}})"));
    view.UpsertDevices(Kind::kSlice, Json(R"({"metadata":{"name":"node0-gpu"},"spec":{
        "driver":")" + c.device_class + R"(","nodeName":"node0","pool":{"name":"node0",
        "generation":1},"devices":[{"name":"0"},{"name":"1"}]}})"));
    view.UpsertDevices(Kind::kClaim, Json(R"({"metadata":{"name":"claim-0","namespace":"ns",
        "uid":"c0","labels":{"kai.scheduler/queue":"queue1"}},"spec":{"devices":{"requests":[
        {"name":"r","exactly":{"deviceClassName":")" +
                                          c.device_class + R"(","count":2}}]}}})"));
    kube::Object pod = Pod({.name = "pending-job0", .queue = "queue1", .gpus = 0});
    if (c.non_preemptible)
      kube::SetString(pod, {"metadata", "labels"}, "kai.scheduler/preemptibility",
                      "non-preemptible");
    pod["spec"].AddMember("resourceClaims",
                          rapidjson::Value(Json(R"([{"name":"r","resourceClaimName":"claim-0"}])"),
                                           pod.GetAllocator()),
                          pod.GetAllocator());
    view.UpsertPod(pod);
    Result<World> w = view.Build(100);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ASSERT_TRUE(w->unschedulable.empty()) << c.name << ": " << w->unschedulable[0].reason;
    sched::Decisions d = sched::RunCycle(*w->snapshot);
    EXPECT_EQ(d.binds.size(), c.runs ? 1u : 0u) << c.name;
  }
}

// KAI's allocate_shared_dra_test.go: a claim of node0's one DRA GPU,
// allocated and reserved for two running pods of queue1 (1 GPU
// deserved), is charged once, so it neither blocks a CPU-only pod on
// node0 nor a pending pod that the claim is reserved for too.
TEST_F(ClusterViewTest, KaisSharedDraCasesHold) {
  struct Case {
    std::string name;
    std::vector<std::string> running;  // pods running on node0 with the claim
    std::string pending;               // the pending pod
    bool pending_shares;               // whether it names the claim (else CPU only)
  };
  const Case cases[] = {
      {"shared DRA device does not block CPU-only pod",
       {"shared-dra-job0", "shared-dra-job1"},
       "cpu-only-job",
       false},
      {"pending pod can use shared DRA device",
       {"running-shared-dra-job"},
       "pending-shared-dra-job",
       true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ClusterView view({}, &registry_);
    view.UpsertNode(Node("node0", 0));
    view.UpsertQueue(Json(R"({"metadata":{"name":"queue1"},"spec":{"resources":{"gpu":
        {"quota":1,"limit":-1}}}})"));
    using Kind = ClusterView::DeviceKind;
    view.UpsertDevices(Kind::kClass, Json(R"({"metadata":{"name":"nvidia.com/gpu"},"spec":{}})"));
    view.UpsertDevices(Kind::kSlice, Json(R"({"metadata":{"name":"node0-gpu"},"spec":{
        "driver":"nvidia.com/gpu","nodeName":"node0","pool":{"name":"node0","generation":1},
        "devices":[{"name":"0"}]}})"));
    std::string reserved;
    std::vector<std::string> users = c.running;
    if (c.pending_shares) users.push_back(c.pending);
    for (const std::string& pod : users)
      reserved += std::string(reserved.empty() ? "" : ",") + R"({"resource":"pods","name":")" +
                  pod + R"(","uid":"u-)" + pod + R"("})";
    view.UpsertDevices(Kind::kClaim, Json(R"({"metadata":{"name":"shared-claim","namespace":"ns",
        "uid":"c0","labels":{"kai.scheduler/queue":"queue1"}},"spec":{"devices":{"requests":[
        {"name":"request","exactly":{"deviceClassName":"nvidia.com/gpu"}}]}},
        "status":{"allocation":{"devices":{"results":[{"request":"request",
        "driver":"nvidia.com/gpu","pool":"node0","device":"0"}]}},"reservedFor":[)" +
                                          reserved + "]}}"));
    auto pod = [&](const std::string& name, const std::string& node, bool shares) {
      kube::Object p = Pod({.name = name, .queue = "queue1", .gpus = 0, .node = node});
      if (shares)
        p["spec"].AddMember(
            "resourceClaims",
            rapidjson::Value(Json(R"([{"name":"request","resourceClaimName":"shared-claim"}])"),
                             p.GetAllocator()),
            p.GetAllocator());
      view.UpsertPod(p);
    };
    for (const std::string& name : c.running) pod(name, "node0", true);
    pod(c.pending, "", c.pending_shares);
    Result<World> w = view.Build(100);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ASSERT_TRUE(w->unschedulable.empty()) << w->unschedulable[0].reason;
    sched::Decisions d = sched::RunCycle(*w->snapshot);
    ASSERT_EQ(d.binds.size(), 1u);
    EXPECT_EQ(w->snapshot->pods[d.binds[0].pod].name, "ns/" + c.pending);
    EXPECT_EQ(w->snapshot->nodes[d.binds[0].allocation.node].name, "node0");
  }
}

// KAI's reclaim_dra_overflow_test.go: a job whose claims ask for more
// devices than any claim can be given waits, and does not keep a valid
// job of its queue (2 GPUs deserved) from reclaiming node0's two DRA GPUs
// from a queue that deserves none.
TEST_F(ClusterViewTest, KaisDraOverflowCaseHolds) {
  ClusterView view({}, &registry_);
  view.UpsertNode(Node("node0", 0));
  for (const auto& [queue, quota] : {std::pair{"reclaiming-queue", 2}, {"victim-queue", 0}})
    view.UpsertQueue(Json(R"({"metadata":{"name":")" + std::string(queue) +
                          R"("},"spec":{"resources":{"gpu":{"quota":)" + std::to_string(quota) +
                          R"(,"limit":-1,"overQuotaWeight":1}}}})"));
  using Kind = ClusterView::DeviceKind;
  view.UpsertDevices(Kind::kClass, Json(R"({"metadata":{"name":"nvidia.com/gpu"},"spec":{}})"));
  view.UpsertDevices(Kind::kSlice, Json(R"({"metadata":{"name":"node0-gpu"},"spec":{
      "driver":"nvidia.com/gpu","nodeName":"node0","pool":{"name":"node0","generation":1},
      "devices":[{"name":"0"},{"name":"1"}]}})"));
  auto claim = [&](const std::string& name, const std::string& queue, const std::string& count,
                   const std::string& status) {
    view.UpsertDevices(
        Kind::kClaim,
        Json(R"({"metadata":{"name":")" + name + R"(","namespace":"ns","uid":"c-)" + name +
             R"(","labels":{"kai.scheduler/queue":")" + queue +
             R"("}},"spec":{"devices":{"requests":[{"name":")" + name + R"(","exactly":{
        "deviceClassName":"nvidia.com/gpu","count":)" +
             count + "}}]}}" + status + "}"));
  };
  claim("valid-claim", "reclaiming-queue", "2", "");
  claim("overflow-claim-0", "reclaiming-queue", "9223372036854775807", "");
  claim("overflow-claim-1", "reclaiming-queue", "9223372036854775807", "");
  claim("victim-claim", "victim-queue", "2", R"(,"status":{"allocation":{"devices":{"results":[
      {"request":"victim-claim","driver":"nvidia.com/gpu","pool":"node0","device":"0"},
      {"request":"victim-claim","driver":"nvidia.com/gpu","pool":"node0","device":"1"}]}},
      "reservedFor":[{"resource":"pods","name":"victim-job","uid":"u-victim-job"}]})");
  auto pod = [&](const std::string& name, const std::string& queue, const std::string& node,
                 const std::vector<std::string>& claims) {
    kube::Object p = Pod({.name = name, .queue = queue, .gpus = 0, .node = node});
    kube::JsonArray entries;
    for (const std::string& c : claims)
      entries.Add(kube::JsonObject{{"name", c}, {"resourceClaimName", c}});
    p["spec"].AddMember("resourceClaims",
                        rapidjson::Value(kube::BuildJson(std::move(entries)), p.GetAllocator()),
                        p.GetAllocator());
    view.UpsertPod(p);
  };
  pod("valid-job", "reclaiming-queue", "", {"valid-claim"});
  pod("overflow-job", "reclaiming-queue", "", {"overflow-claim-0", "overflow-claim-1"});
  pod("victim-job", "victim-queue", "node0", {"victim-claim"});
  Result<World> w = view.Build(100);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->unschedulable.size(), 1u);
  EXPECT_EQ(w->unschedulable[0].key, "ns/overflow-job");
  sched::Decisions d = sched::RunCycle(*w->snapshot);
  ASSERT_EQ(d.evictions.size(), 1u);
  EXPECT_EQ(w->snapshot->pods[d.evictions[0].pod].name, "ns/victim-job");
}

// A placed pod holds its allocated claim's device in the core: the node
// counts the device as its own and the pod as what it holds, so evicting
// the pod (reclaim, preemption) frees it for a waiting pod.
TEST_F(ClusterViewTest, APlacedPodHoldsItsClaimsDevicesInTheCore) {
  GiveN1ADevice();
  view_.UpsertDevices(ClusterView::DeviceKind::kClaim,
                      Json(R"({"metadata":{"name":"held","namespace":"ns","uid":"claim-held"},
      "spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"gpu.example.com"}}]}},
      "status":{"allocation":{"devices":{"results":[{"request":"r","driver":"gpu.example.com",
      "pool":"n1","device":"gpu-0"}]}},"reservedFor":[{"resource":"pods","name":"a","uid":"u-a"}]}})"));
  AddPodWithClaim("a", "held", "n1");
  AddClaim("wanted");
  AddPodWithClaim("b", "wanted");
  World w = Build();
  ASSERT_TRUE(w.unschedulable.empty()) << w.unschedulable[0].reason;
  const sched::Snapshot& s = *w.snapshot;
  auto pod = [&](const std::string& key) {
    for (sched::PodId p = 0; p < s.pods.size(); ++p)
      if (s.pods[p].name == key) return p;
    ADD_FAILURE() << key << " is not in the snapshot";
    return sched::PodId{0};
  };
  sched::NodeId n1 = 0;
  while (n1 < s.nodes.size() && s.nodes[n1].name != "n1") ++n1;
  ASSERT_LT(n1, s.nodes.size());
  const sched::PodId a = pod("ns/a"), b = pod("ns/b");
  EXPECT_EQ(s.pods[a].request.claim_gpus, 1);
  EXPECT_EQ(s.pods[b].request.claim_gpus, 1);
  sched::ClusterState state(s);
  EXPECT_FALSE(state.Admits(b, n1)) << "a holds the device";
  state.Remove(a);
  EXPECT_TRUE(state.Admits(b, n1)) << "a's eviction frees it";
}

// A claim with room for two more consumers takes two of three waiting
// pods; the third waits, as the API server would refuse its reservation
// (and a gang of the three waits whole).
TEST_F(ClusterViewTest, NoMorePodsJoinAClaimThanItHasRoomFor) {
  GiveN1ADevice();
  std::string reserved;
  for (size_t i = 0; i + 2 < kClaimReservedForMaxSize; ++i)
    reserved += std::string(i ? "," : "") + R"({"resource":"pods","name":"p)" + std::to_string(i) +
                R"(","uid":"old-)" + std::to_string(i) + R"("})";
  view_.UpsertDevices(ClusterView::DeviceKind::kClaim,
                      Json(R"({"metadata":{"name":"busy","namespace":"ns","uid":"c",
      "labels":{"kai.scheduler/queue":"team"}},"spec":{"devices":{"requests":[{"name":"r",
      "exactly":{"deviceClassName":"gpu.example.com"}}]}},"status":{"allocation":{"devices":{
      "results":[{"request":"r","driver":"gpu.example.com","pool":"n1","device":"gpu-0"}]}},
      "reservedFor":[)" + reserved +
                           "]}}"));
  for (const char* name : {"j1", "j2", "j3"}) AddPodWithClaim(name, "busy");
  World w = Build();
  ASSERT_EQ(w.unschedulable.size(), 1u);
  EXPECT_EQ(w.unschedulable[0].key, "ns/j3");
  EXPECT_EQ(w.unschedulable[0].reason,
            "resource claim ns/busy has reached its maximum number of consumers (256)");
}

// A ReadWriteOncePod claim is one pod's at a time, cluster-wide, as
// kube-scheduler's VolumeRestrictions has it: of two pods waiting for it the
// first goes, the other waits while the first uses it.
TEST_F(ClusterViewTest, AReadWriteOncePodClaimIsOnePodsAtATime) {
  using Kind = ClusterView::StorageKind;
  view_.UpsertNode(Node("n2", 2));
  view_.UpsertStorage(Kind::kClass, Json(R"({"metadata":{"name":"disk"},
      "provisioner":"disk.csi.example.com","volumeBindingMode":"WaitForFirstConsumer"})"));
  view_.UpsertStorage(Kind::kClaim, Json(R"({"metadata":{"name":"solo","namespace":"ns"},
      "spec":{"accessModes":["ReadWriteOncePod"],"storageClassName":"disk",
      "resources":{"requests":{"storage":"1Gi"}}}})"));
  const std::string conflict =
      "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access "
      "mode";
  auto waiting = [](const World& w) {
    std::map<std::string, std::string> why;
    for (const Unschedulable& u : w.unschedulable) why[u.key] = u.reason;
    return why;
  };
  view_.UpsertPod(Pod({.name = "a", .gpus = 0, .claims = {"solo"}}));
  view_.UpsertPod(Pod({.name = "b", .gpus = 0, .claims = {"solo"}}));
  World w = Build();
  EXPECT_EQ(waiting(w), (std::map<std::string, std::string>{{"ns/b", conflict}}));
  sched::Decisions d = sched::RunCycle(*w.snapshot);
  ASSERT_EQ(d.binds.size(), 1u);
  EXPECT_EQ(w.snapshot->pods[d.binds[0].pod].name, "ns/a");

  view_.UpsertPod(Pod({.name = "a", .gpus = 0, .node = "n1", .claims = {"solo"}}));
  EXPECT_EQ(waiting(Build()), (std::map<std::string, std::string>{{"ns/b", conflict}}))
      << "on another node too";
  view_.DeletePod(Pod({.name = "a", .gpus = 0, .node = "n1", .claims = {"solo"}}));
  w = Build();
  EXPECT_TRUE(waiting(w).empty());
  EXPECT_EQ(sched::RunCycle(*w.snapshot).binds.size(), 1u);

  // Of two waiting pods, the one of higher priority goes first, as
  // kube-scheduler would try it first, whatever their names.
  view_.UpsertStorage(Kind::kClaim, Json(R"({"metadata":{"name":"duo","namespace":"ns"},
      "spec":{"accessModes":["ReadWriteOncePod"],"storageClassName":"disk"}})"));
  kube::Object urgent = Pod({.name = "z-urgent", .gpus = 0, .claims = {"duo"}});
  urgent["spec"].AddMember("priority", 100, urgent.GetAllocator());
  view_.UpsertPod(urgent);
  view_.UpsertPod(Pod({.name = "c-later", .gpus = 0, .claims = {"duo"}}));
  EXPECT_EQ(waiting(Build()), (std::map<std::string, std::string>{{"ns/c-later", conflict}}));
}

TEST_F(ClusterViewTest, AssumedPlacementsHoldUntilTheInformerShowsTheBind) {
  view_.UpsertPod(Pod({.name = "a"}));
  view_.UpsertPod(Pod({.name = "b"}));
  view_.UpsertPod(Pod({.name = "c"}));
  view_.Assume("ns/a", {"n1", {0}, 1000, false});
  view_.Assume("ns/b", {"n1", {1}, 1000, false});
  EXPECT_EQ(view_.PendingCount(), 1u);
  sched::Decisions d = sched::RunCycle(*Build().snapshot);
  EXPECT_TRUE(d.binds.empty());
  // The informer catches up: bound, no longer assumed, still counted.
  view_.UpsertPod(Pod({.name = "a", .node = "n1"}));
  view_.Forget("ns/b");
  d = sched::RunCycle(*Build().snapshot);
  EXPECT_EQ(d.binds.size(), 1u);
}

TEST_F(ClusterViewTest, NominationsHoldAndBecomeReadyWhenVictimsAreGone) {
  view_.UpsertPod(Pod({.name = "victim", .node = "n1", .terminating = true}));
  view_.UpsertPod(Pod({.name = "winner"}));
  view_.Nominate("ns/winner", {"n1", {0}, 1000, false}, {"ns/victim"}, 100);
  EXPECT_TRUE(view_.NominationsReady(100).empty());
  view_.UpsertPod(Pod({.name = "other"}));
  // The winner holds device 0, the leaving victim device 1: nothing for `other`.
  sched::Decisions d = sched::RunCycle(*Build().snapshot);
  EXPECT_TRUE(d.binds.empty());
  view_.DeletePod(Pod({.name = "victim"}));
  auto ready = view_.NominationsReady(100);
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].first, "ns/winner");
}

TEST_F(ClusterViewTest, AVictimNotYetSeenLeavingStillHoldsTheNomination) {
  // Evicted a moment ago: the informer has not even shown it terminating.
  view_.UpsertPod(Pod({.name = "victim", .node = "n1"}));
  view_.UpsertPod(Pod({.name = "winner"}));
  view_.Nominate("ns/winner", {"n1", {0}, 1000, false}, {"ns/victim"}, 100);
  EXPECT_TRUE(view_.NominationsReady(101).empty());
  // A nomination whose victim never leaves is given up, and planned again.
  EXPECT_TRUE(view_.NominationsReady(100 + 301).empty());
  view_.DeletePod(Pod({.name = "victim"}));
  EXPECT_TRUE(view_.NominationsReady(402).empty()) << "dropped, not kept";
}

TEST_F(ClusterViewTest, SharingPodsKeepTheirDevicesAndWholeGpusTakeTheOthers) {
  view_.UpsertPod(Pod({.name = "half",
                       .gpus = 0,
                       .fraction = "0.5",
                       .node = "n1",
                       .extra_annotations = {{"runai-gpu", "0"}}}));
  view_.UpsertPod(Pod({.name = "whole", .node = "n1"}));
  World w = Build();
  for (const sched::Pod& p : w.snapshot->pods) {
    if (p.name == "ns/half") {
      EXPECT_EQ(p.allocation.device_mask, 0b01u);
    }
    if (p.name == "ns/whole") {
      EXPECT_EQ(p.allocation.device_mask, 0b10u);
    }
  }
  EXPECT_EQ(view_.SharedDevicesInUse(), (std::set<std::pair<std::string, int>>{{"n1", 0}}));
}

TEST_F(ClusterViewTest, PodsWithoutAUsableQueueWaitWithAReason) {
  view_.UpsertQueue(Queue("org"));
  view_.UpsertQueue(Queue("child", "org"));
  view_.UpsertPod(Pod({.name = "lost", .queue = "nope"}));
  view_.UpsertPod(Pod({.name = "parent", .queue = "org"}));
  view_.UpsertPod(Pod({.name = "bad", .fraction = "2"}));
  World w = Build();
  std::map<std::string, std::string> why;
  for (const Unschedulable& u : w.unschedulable) why[u.key] = u.reason;
  EXPECT_NE(why["ns/lost"].find("queue \"nope\" does not exist"), std::string::npos)
      << why["ns/lost"];
  EXPECT_NE(why["ns/parent"].find("parent queue"), std::string::npos) << why["ns/parent"];
  EXPECT_NE(why["ns/bad"].find("gpu-fraction"), std::string::npos) << why["ns/bad"];
  EXPECT_TRUE(w.snapshot->pods.empty());
}

// KAI's ConfigMap predicate: a pod waits for the ConfigMaps it cannot
// start without (mounted volumes, env, envFrom; not optional ones, not a
// sharing pod's own GPU ConfigMaps, which the binder makes), and is
// scheduled once they exist.
TEST_F(ClusterViewTest, APodWaitsForTheConfigMapsItRequires) {
  kube::Object pod = Json(R"({"metadata":{"name":"app","namespace":"ns","uid":"u-app",
      "labels":{"kai.scheduler/queue":"team"},
      "annotations":{"gpu-fraction":"0.5","runai/shared-gpu-configmap":"app-abcdefg-shared-gpu"}},
      "spec":{"schedulerName":"kai-scheduler",
      "volumes":[{"name":"conf","configMap":{"name":"settings"}},
        {"name":"unmounted","configMap":{"name":"never-read"}},
        {"name":"maybe","configMap":{"name":"optional-one","optional":true}},
        {"name":"all","projected":{"sources":[{"configMap":{"name":"bundle"}}]}},
        {"name":"app-abcdefg-shared-gpu-0-vol","configMap":{"name":"app-abcdefg-shared-gpu-0"}}],
      "initContainers":[{"name":"init","envFrom":[{"configMapRef":{"name":"init-env"}}]}],
      "containers":[{"name":"c","volumeMounts":[{"name":"conf","mountPath":"/c"},
        {"name":"maybe","mountPath":"/m"},{"name":"all","mountPath":"/a"}],
        "env":[{"name":"K","valueFrom":{"configMapKeyRef":{"name":"keys","key":"k"}}},
          {"name":"NVIDIA_VISIBLE_DEVICES","valueFrom":{"configMapKeyRef":
            {"name":"app-abcdefg-shared-gpu-0","key":"NVIDIA_VISIBLE_DEVICES"}}}],
        "envFrom":[{"configMapRef":{"name":"app-abcdefg-shared-gpu-0-evar","optional":false}}]}]}})");
  view_.UpsertPod(pod);
  auto reason = [&] {
    World w = Build();
    return w.unschedulable.empty() ? std::string() : w.unschedulable[0].reason;
  };
  EXPECT_EQ(reason(), "Missing required configmaps: [bundle init-env keys settings]");
  auto configmap = [](const char* name, const char* ns) {
    return kube::BuildJson(
        kube::JsonObject{{"metadata", kube::JsonObject{{"name", name}, {"namespace", ns}}}});
  };
  for (const char* name : {"bundle", "init-env", "keys"})
    EXPECT_TRUE(view_.UpsertConfigMap(configmap(name, "ns"))) << name << " was awaited";
  EXPECT_FALSE(view_.UpsertConfigMap(configmap("settings", "elsewhere")));
  EXPECT_EQ(reason(), "Missing required configmaps: [settings]");
  view_.UpsertConfigMap(configmap("settings", "ns"));
  EXPECT_EQ(reason(), "");
  EXPECT_EQ(Build().snapshot->pods.size(), 1u);
  view_.DeleteConfigMap(configmap("keys", "ns"));
  EXPECT_EQ(reason(), "Missing required configmaps: [keys]");
}

TEST_F(ClusterViewTest, PodGroupsGangTheirPods) {
  view_.UpsertPodGroup(Json(
      R"({"metadata":{"name":"train","namespace":"ns"},"spec":{"minMember":3,"queue":"team"}})"));
  for (const char* n : {"w0", "w1", "w2"})
    view_.UpsertPod(Pod({.name = n, .extra_annotations = {{"pod-group-name", "train"}}}));
  World w = Build();
  EXPECT_TRUE(w.podgroups.contains("ns/train"));
  sched::Decisions d = sched::RunCycle(*w.snapshot);
  EXPECT_TRUE(d.binds.empty()) << "three pods, two GPUs: all or nothing";
  EXPECT_EQ(d.pending.size(), 3u);
}

// The binder names a bare pod into its own group at the bind; until the
// grouper has made that group, the pod is still charged to its queue. A
// group someone else named and nobody made holds its pods outside any queue.
TEST_F(ClusterViewTest, ABarePodBoundIntoItsOwnGroupCountsForItsQueueBeforeTheGroupIsMade) {
  view_.UpsertPod(
      Pod({.name = "b", .node = "n1", .extra_annotations = {{"pod-group-name", "pg-b-u-b"}}}));
  view_.UpsertPod(
      Pod({.name = "o", .node = "n1", .extra_annotations = {{"pod-group-name", "other"}}}));
  World w = Build();
  std::map<std::string, std::string> queue_of;
  for (const sched::Pod& p : w.snapshot->pods)
    queue_of[p.name] = w.snapshot->queues[w.snapshot->groups[p.group].queue].name;
  EXPECT_EQ(queue_of["ns/b"], "team");
  EXPECT_EQ(queue_of["ns/o"], kHolderQueue);
}

TEST_F(ClusterViewTest, ABarePodsPreemptibilityLabelDecidesBeforeItsPriority) {
  kube::Object marked = Pod({.name = "marked"});
  kube::SetString(marked, {"metadata", "labels"}, "kai.scheduler/preemptibility",
                  "non-preemptible");
  view_.UpsertPod(marked);
  kube::Object odd = Pod({.name = "odd"});
  kube::SetString(odd, {"metadata", "labels"}, "kai.scheduler/preemptibility", "sometimes");
  view_.UpsertPod(odd);
  view_.UpsertPod(Pod({.name = "plain"}));
  World w = Build();
  std::map<std::string, bool> preemptible;
  for (const sched::Pod& p : w.snapshot->pods)
    preemptible[p.name] = w.snapshot->groups[p.group].preemptible;
  EXPECT_FALSE(preemptible["ns/marked"]) << "the label, although its priority is 0";
  EXPECT_TRUE(preemptible["ns/odd"]) << "an invalid value is passed over: its priority decides";
  EXPECT_TRUE(preemptible["ns/plain"]);
}

// As KAI's: a job's priority is its PodGroup's class's value, whatever its
// pods' spec.priority; no class, or one that does not exist, takes the
// global default class, else 50. So a Deployment's group, which the pod
// grouper names "inference", is not preemptible.
TEST_F(ClusterViewTest, APodGroupsPriorityIsItsClasssValueNotItsPods) {
  for (const auto& [group, klass] : std::vector<std::pair<std::string, std::string>>{
           {"serve", R"("priorityClassName":"inference",)"},
           {"nameless", ""},
           {"typo", R"("priorityClassName":"inferense",)"}}) {
    view_.UpsertPodGroup(Json(R"({"metadata":{"name":")" + group + R"(","namespace":"ns"},
        "spec":{)" + klass + R"("minMember":1,"queue":"team"}})"));
    kube::Object pod =
        Pod({.name = group + "-0", .extra_annotations = {{"pod-group-name", group}}});
    pod["spec"].AddMember("priority", 1000, pod.GetAllocator());
    view_.UpsertPod(pod);
  }
  // Bare pods not yet in a group: of the class the pod grouper will give it.
  kube::Object labelled = Pod({.name = "labelled"});
  kube::SetString(labelled, {"metadata", "labels"}, "priorityClassName", "inference");
  view_.UpsertPod(labelled);
  view_.UpsertPod(Pod({.name = "bare"}));
  view_.UpsertPriorityClass(Json(R"({"metadata":{"name":"inference"},"value":125})"));
  view_.UpsertPriorityClass(Json(R"({"metadata":{"name":"train"},"value":40})"));
  auto standing = [&] {
    World w = Build();
    std::map<std::string, std::pair<int32_t, bool>> out;
    for (const sched::PodGroup& g : w.snapshot->groups) out[g.name] = {g.priority, g.preemptible};
    return out;
  };
  auto s = standing();
  EXPECT_EQ(s["ns/serve"], std::make_pair(125, false)) << "its class, not its pods' 1000";
  EXPECT_EQ(s["ns/nameless"], std::make_pair(50, true));
  EXPECT_EQ(s["ns/typo"], std::make_pair(50, true));
  EXPECT_EQ(s["ns/labelled"], std::make_pair(125, false)) << "its label's class";
  EXPECT_EQ(s["ns/bare"], std::make_pair(40, true)) << "train, as its group will be";

  view_.UpsertPriorityClass(
      Json(R"({"metadata":{"name":"everyday"},"value":110,"globalDefault":true})"));
  s = standing();
  EXPECT_EQ(s["ns/nameless"], std::make_pair(110, false)) << "the global default";
  EXPECT_EQ(s["ns/typo"], std::make_pair(110, false));
  view_.DeletePriorityClass(Json(R"({"metadata":{"name":"inference"}})"));
  EXPECT_EQ(standing()["ns/serve"], std::make_pair(110, false)) << "its class is gone";
}

// A running pod is marked with a set only once some pod's terms name that
// set, and unmarked once none does: here a database that keeps off the
// web server's node arrives after it, and leaves.
TEST_F(ClusterViewTest, APodIsMarkedAgainWhenAnotherPodsTermsComeAndGo) {
  for (const char* name : {"n1", "n2"}) {
    kube::Object node = Node(name, 2);
    kube::SetString(node, {"metadata", "labels"}, "kubernetes.io/hostname", name);
    view_.UpsertNode(node);
  }
  auto away_from = [](kube::Object pod, const std::string& app) {
    pod["spec"].AddMember(
        "affinity",
        rapidjson::Value(Json(R"({"podAntiAffinity":{
        "requiredDuringSchedulingIgnoredDuringExecution":[{
          "labelSelector":{"matchLabels":{"app":")" +
                              app + R"("}},"topologyKey":"kubernetes.io/hostname"}]}})"),
                         pod.GetAllocator()),
        pod.GetAllocator());
    return pod;
  };
  kube::Object web = Pod({.name = "web", .node = "n1"});
  kube::SetString(web, {"metadata", "labels"}, "app", "web");
  view_.UpsertPod(web);
  // A set named all along, so the web pod's marks are worked out before
  // the database's set comes.
  view_.UpsertPod(away_from(Pod({.name = "quiet", .gpus = 0, .node = "n2"}), "batch"));
  auto marks_of = [](const World& w, const std::string& key) {
    for (const sched::Pod& p : w.snapshot->pods)
      if (p.name == key) return sched::ExtrasOf(p).marks.size();
    return size_t{99};
  };
  EXPECT_EQ(marks_of(Build(), "ns/web"), 0u);

  kube::Object db = away_from(Pod({.name = "db"}), "web");
  view_.UpsertPod(db);
  World w = Build();
  EXPECT_EQ(marks_of(w, "ns/web"), 1u);
  EXPECT_EQ(marks_of(w, "ns/db"), 0u);
  sched::Decisions d = sched::RunCycle(*w.snapshot);
  ASSERT_EQ(d.binds.size(), 1u);
  EXPECT_EQ(w.snapshot->nodes[d.binds[0].allocation.node].name, "n2");

  view_.DeletePod(db);
  EXPECT_EQ(marks_of(Build(), "ns/web"), 0u);
}

// KAI's shards: the default scheduler leaves alone the nodes, Queues,
// PodGroups and pods labelled for a node pool, and reports none of them;
// a shard takes only its own.
TEST_F(ClusterViewTest, ANodePoolsObjectsAreItsShardsAlone) {
  auto in_pool = [](kube::Object o, const std::string& pool) {
    kube::SetString(o, {"metadata", "labels"}, "kai.scheduler/node-pool", pool);
    return o;
  };
  auto load = [&](ClusterView& view) {
    view.UpsertNode(Node("n1", 2));
    view.UpsertNode(in_pool(Node("a1", 2), "a"));
    view.UpsertQueue(Queue("team"));
    view.UpsertQueue(in_pool(Queue("a-team"), "a"));
    view.UpsertPodGroup(in_pool(
        Json(
            R"({"metadata":{"name":"pg","namespace":"ns"},"spec":{"minMember":1,"queue":"a-team"}})"),
        "a"));
    view.UpsertPod(Pod({.name = "mine"}));
    view.UpsertPod(in_pool(Pod({.name = "bare-a", .queue = "a-team"}), "a"));
    view.UpsertPod(Pod({.name = "grouped-a", .extra_annotations = {{"pod-group-name", "pg"}}}));
  };
  auto names = [](const World& w) {
    std::set<std::string> out;
    for (const sched::Node& n : w.snapshot->nodes) out.insert(n.name);
    for (const sched::Queue& q : w.snapshot->queues)
      if (q.name != kHolderQueue) out.insert("queue " + q.name);
    for (const sched::Pod& p : w.snapshot->pods) out.insert(p.name);
    for (const Unschedulable& u : w.unschedulable) out.insert("waits " + u.key);
    return out;
  };
  kube::Registry registry;
  ClusterView default_shard({}, &registry);
  load(default_shard);
  Result<World> d = default_shard.Build(100);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(names(*d), (std::set<std::string>{"n1", "queue team", "ns/mine"}));
  EXPECT_TRUE(d->podgroups.empty());

  kube::Registry registry_a;
  ClusterView shard_a({}, &registry_a, {}, NodePool{.value = "a"});
  load(shard_a);
  Result<World> a = shard_a.Build(100);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(names(*a), (std::set<std::string>{"a1", "queue a-team", "ns/bare-a", "ns/grouped-a"}));
  EXPECT_TRUE(a->podgroups.contains("ns/pg"));
}

TEST_F(ClusterViewTest, NodeAffinityTheCoreCannotExpressIsResolvedToNodeNames) {
  kube::Object labelled = Node("n2", 2);
  kube::SetString(labelled, {"metadata", "labels"}, "zone", "b");
  view_.UpsertNode(labelled);
  view_.UpsertNode(Node("n3", 2));
  // Not in zone b, and not n1: only n3 qualifies.
  kube::Object pod = Pod({.name = "picky"});
  kube::Object affinity =
      Json(R"({"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{
      "nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"DoesNotExist"}],
      "matchFields":[{"key":"metadata.name","operator":"NotIn","values":["n1"]}]}]}}})");
  pod["spec"].AddMember("affinity", rapidjson::Value(affinity, pod.GetAllocator()),
                        pod.GetAllocator());
  view_.UpsertPod(pod);
  World w = Build();
  ASSERT_EQ(w.snapshot->pods.size(), 1u);
  sched::Decisions d = sched::RunCycle(*w.snapshot);
  ASSERT_EQ(d.binds.size(), 1u);
  EXPECT_EQ(w.snapshot->nodes[d.binds[0].allocation.node].name, "n3");

  // No node qualifies: the pod waits, saying why.
  kube::Object nowhere = Pod({.name = "nowhere"});
  kube::Object none = Json(R"({"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{
      "nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["c"]}]},
      {"matchExpressions":[{"key":"zone","operator":"NotIn","values":["b"]},
      {"key":"gpus","operator":"Gt","values":["100"]}]}]}}})");
  nowhere["spec"].AddMember("affinity", rapidjson::Value(none, nowhere.GetAllocator()),
                            nowhere.GetAllocator());
  view_.UpsertPod(nowhere);
  w = Build();
  d = sched::RunCycle(*w.snapshot);
  bool waits = false;
  for (const sched::Pending& p : d.pending)
    if (w.snapshot->pods[p.pod].name == "ns/nowhere") {
      waits = true;
      EXPECT_NE(d.ReasonOf(p).find("affinity"), std::string::npos) << d.ReasonOf(p);
    }
  EXPECT_TRUE(waits);
}

// KAI's --restrict-node-scheduling: GPU pods on gpu-worker nodes only,
// others on cpu-worker nodes only, nodes of neither role left alone, and
// the GPUs of a node without the GPU role no queue's share.
TEST(ClusterViewRolesTest, RestrictedNodeSchedulingHoldsEachPodToItsRole) {
  kube::Registry registry;
  ClusterView view({}, &registry, WorkerRoles{.restrict = true});
  auto role_node = [&](const std::string& name, const std::string& role) {
    kube::Object node = Node(name, 2);
    if (!role.empty()) kube::SetString(node, {"metadata", "labels"}, role, "");
    view.UpsertNode(node);
  };
  role_node("gpu-node", "node-role.kubernetes.io/gpu-worker");
  role_node("cpu-node", "node-role.kubernetes.io/cpu-worker");
  role_node("plain", "");
  view.UpsertQueue(Queue("team"));
  view.UpsertPod(Pod({.name = "trainer", .gpus = 1}));
  view.UpsertPod(Pod({.name = "sharer", .gpus = 0, .fraction = "0.5"}));
  view.UpsertPod(Pod({.name = "web", .gpus = 0}));
  Result<World> w = view.Build(100);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  // Each node the view gives, and whether its GPUs are anyone's share.
  std::map<std::string, bool> nodes;
  for (const sched::Node& n : w->snapshot->nodes)
    if (!n.name.empty()) nodes[n.name] = n.gpus_in_capacity;
  EXPECT_EQ(nodes, (std::map<std::string, bool>{{"cpu-node", false}, {"gpu-node", true}}))
      << "plain is not ours";
  sched::Decisions d = sched::RunCycle(*w->snapshot);
  std::map<std::string, std::string> placed;
  for (const sched::Bind& b : d.binds)
    placed[w->snapshot->pods[b.pod].name] = w->snapshot->nodes[b.allocation.node].name;
  EXPECT_EQ(placed,
            (std::map<std::string, std::string>{
                {"ns/sharer", "gpu-node"}, {"ns/trainer", "gpu-node"}, {"ns/web", "cpu-node"}}));

  // The GPU role gone from every node: a GPU pod waits, and says for what.
  role_node("gpu-node", "");
  view.UpsertPod(Pod({.name = "second", .gpus = 1}));
  w = view.Build(101);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  bool said = false;
  for (const Unschedulable& u : w->unschedulable)
    if (u.key == "ns/second") {
      said = true;
      EXPECT_EQ(u.reason,
                "no node carries label node-role.kubernetes.io/gpu-worker: with "
                "--restrict-node-scheduling, pods asking for a GPU go only to nodes that do");
    }
  EXPECT_TRUE(said);
}

// What a cycle would be given, as text: every pod with its group, queue,
// phase, placement and request; nodes, queues, groups; the pods left out.
std::string Describe(const World& w) {
  const sched::Snapshot& s = *w.snapshot;
  std::ostringstream o;
  // Sorted: the order of objects in a snapshot is the Universe's, which
  // depends on the order they came in.
  std::vector<std::string> lines;
  for (const sched::Node& n : s.nodes)
    lines.push_back("node " + n.name + " " + std::to_string(n.labels.size()));
  for (const sched::Queue& q : s.queues) lines.push_back("queue " + q.name);
  for (sched::PodId p = 0; p < s.pods.size(); ++p) {
    std::ostringstream o;
    const sched::Pod& pod = s.pods[p];
    const sched::PodGroup& g = s.groups[pod.group];
    o << "pod " << pod.name << " group=" << g.name << "/" << g.min_member
      << " queue=" << s.queues[g.queue].name << " preemptible=" << g.preemptible
      << " phase=" << static_cast<int>(pod.phase) << " movable=" << w.movable[p];
    if (pod.phase == sched::PodPhase::kRunning)
      o << " on=" << s.nodes[pod.allocation.node].name << ":" << pod.allocation.device_mask << ":"
        << pod.allocation.portion;
    o << " gpus=" << pod.request.whole_gpus << " fraction=" << pod.request.gpu_fraction
      << " affinity=" << pod.node_affinity.size();
    if (!pod.node_affinity.empty()) {
      std::set<std::string> names;  // in name order: ids depend on interning order
      for (sched::StringId v : pod.node_affinity[0].values) names.insert(s.strings.Get(v));
      for (const std::string& n : names) o << " " << n;
    }
    lines.push_back(o.str());
  }
  for (const Unschedulable& u : w.unschedulable)
    lines.push_back("left out " + u.key + ": " + u.reason);
  for (const std::string& g : w.podgroups) lines.push_back("podgroup " + g);
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// The view kept up to date by a random sequence of informer events (new
// versions, resyncs of the current one, deletes) gives the same snapshot as
// a view given only the objects as they ended up, and translates each
// version once.
TEST(ClusterViewIncrementalTest, EventsGiveWhatAFullRebuildGives) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
    int rv = 0;
    auto with_rv = [&](kube::Object o) {
      kube::SetString(o, {"metadata"}, "resourceVersion", std::to_string(++rv));
      return o;
    };
    auto node = [&](int i) {
      kube::Object n = Node("n" + std::to_string(i), 1 + pick(4));
      if (pick(2)) kube::SetString(n, {"metadata", "labels"}, "zone", pick(2) ? "a" : "b");
      return with_rv(std::move(n));
    };
    auto queue = [&](int i) {
      return with_rv(Queue("q" + std::to_string(i), i == 2 && pick(2) ? "q0" : ""));
    };
    auto group = [&](int i) {
      // A braced list is evaluated in order: minMember is drawn before queue.
      return with_rv(kube::BuildJson(kube::JsonObject{
          {"metadata", kube::JsonObject{{"name", "g" + std::to_string(i)}, {"namespace", "ns"}}},
          {"spec", kube::JsonObject{{"minMember", 1 + pick(2)},
                                    {"queue", "q" + std::to_string(pick(3))}}}}));
    };
    auto pod = [&](int i) {
      P p{.name = "p" + std::to_string(i), .queue = "q" + std::to_string(pick(4)), .gpus = pick(3)};
      if (pick(3) == 0) p.node = "n" + std::to_string(pick(3));
      if (pick(5) == 0) p.terminating = true;
      if (pick(6) == 0) p.scheduler = "default-scheduler";
      if (pick(4) == 0) p.extra_annotations = {{"pod-group-name", "g" + std::to_string(pick(2))}};
      kube::Object o = Pod(p);
      if (pick(4) == 0) {
        kube::Object affinity =
            Json(R"({"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{
            "nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"NotIn","values":["b"]}]}]}}})");
        o["spec"].AddMember("affinity", rapidjson::Value(affinity, o.GetAllocator()),
                            o.GetAllocator());
      }
      return with_rv(std::move(o));
    };

    kube::Registry counts;
    ClusterView incremental({}, &counts);
    // kind -> key -> the object as it is now
    std::map<char, std::map<int, kube::Object>> now_objects;
    uint64_t versions = 0;
    for (int step = 0; step < 200; ++step) {
      const char kind = "nqgppp"[pick(6)];
      const int i = pick(kind == 'p' ? 8 : 3);
      auto& objects = now_objects[kind];
      const int action = pick(10);
      auto upsert = [&](const kube::Object& o) {
        if (kind == 'n') incremental.UpsertNode(o);
        if (kind == 'q') incremental.UpsertQueue(o);
        if (kind == 'g') incremental.UpsertPodGroup(o);
        if (kind == 'p') incremental.UpsertPod(o);
      };
      if (action < 2 && objects.contains(i)) {  // deleted
        const kube::Object& o = objects.at(i);
        if (kind == 'n') incremental.DeleteNode(o);
        if (kind == 'q') incremental.DeleteQueue(o);
        if (kind == 'g') incremental.DeletePodGroup(o);
        if (kind == 'p') incremental.DeletePod(o);
        objects.erase(i);
      } else if (action < 5 && objects.contains(i)) {  // a resync: the same version again
        upsert(objects.at(i));
      } else {  // a new version
        kube::Object o = kind == 'n'   ? node(i)
                         : kind == 'q' ? queue(i)
                         : kind == 'g' ? group(i)
                                       : pod(i);
        upsert(o);
        objects.insert_or_assign(i, std::move(o));
        ++versions;
      }
      // Cycles in between: the Universe follows the events step by step.
      if (pick(3) == 0) {
        Result<World> cycle = incremental.Build(100);
        if (cycle.ok()) {
          ASSERT_TRUE(sched::Validate(*cycle->snapshot).ok());
        }
      }
    }
    ClusterView rebuilt({});
    for (const auto& [i, o] : now_objects['n']) rebuilt.UpsertNode(o);
    for (const auto& [i, o] : now_objects['q']) rebuilt.UpsertQueue(o);
    for (const auto& [i, o] : now_objects['g']) rebuilt.UpsertPodGroup(o);
    for (const auto& [i, o] : now_objects['p']) rebuilt.UpsertPod(o);
    Result<World> a = incremental.Build(100), b = rebuilt.Build(100);
    ASSERT_EQ(a.ok(), b.ok()) << a.status().ToString() << " vs " << b.status().ToString();
    if (!a.ok()) continue;
    EXPECT_EQ(Describe(*a), Describe(*b));
    EXPECT_EQ(Translations(counts), versions) << "a resync is not translated again";
  }
}

TEST_F(ClusterViewTest, ACycleHandsTheCoreOnlyWhatChanged) {
  view_.UpsertPod(Pod({.name = "a"}));
  view_.UpsertPod(Pod({.name = "b", .node = "n1"}));
  Build();
  EXPECT_EQ(CoreUpdates(registry_), 2);
  Build();
  EXPECT_EQ(CoreUpdates(registry_), 2) << "nothing changed, nothing handed over";
  // A new version that changes nothing the core sees is translated, not
  // handed over; a bind in flight changes where a runs, which each cycle
  // gives fresh.
  kube::Object a = Pod({.name = "a"});
  kube::SetString(a, {"metadata"}, "resourceVersion", "2");
  const double translations = Translations(registry_);
  view_.UpsertPod(a);
  EXPECT_EQ(Translations(registry_), translations + 1);
  view_.Assume("ns/a", {"n1", {1}, 1000, false});
  World w = Build();
  EXPECT_EQ(CoreUpdates(registry_), 2);
  ASSERT_EQ(w.snapshot->pods.size(), 2u);
  for (const sched::Pod& p : w.snapshot->pods) EXPECT_EQ(p.phase, sched::PodPhase::kRunning);
  // The queue goes: both pods now only hold their GPUs, and are handed over again.
  view_.DeleteQueue(Queue("team"));
  w = Build();
  EXPECT_EQ(CoreUpdates(registry_), 4);
  ASSERT_EQ(w.movable.size(), 2u);
  EXPECT_FALSE(w.movable[0]);
  EXPECT_FALSE(w.movable[1]);
}

TEST_F(ClusterViewTest, TheWorkloadIsLearnedFromArrivalsOnce) {
  auto model = std::make_shared<sched::WorkloadModel>();
  view_.LearnWorkload(model);
  view_.UpsertPod(Pod({.name = "half", .gpus = 0, .fraction = "0.5"}));
  view_.UpsertPod(Pod({.name = "whole"}));
  view_.UpsertPod(Pod({.name = "theirs", .node = "n1", .scheduler = "default-scheduler"}));
  view_.UpsertPod(Pod({.name = "leaving", .node = "n1", .terminating = true}));
  Build();
  EXPECT_EQ(model->version(), 2u) << "two arrivals; holders are not workload";
  std::vector<sched::WorkloadModel::Entry> shapes = model->Top(10, 1.0);
  ASSERT_EQ(shapes.size(), 2u);
  EXPECT_DOUBLE_EQ(shapes[0].weight + shapes[1].weight, 1.0);
  // Later cycles, a new version of a pod, or its bind do not count it again.
  Build();
  kube::Object whole = Pod({.name = "whole", .node = "n1"});
  kube::SetString(whole, {"metadata"}, "resourceVersion", "2");
  view_.UpsertPod(whole);
  Build();
  EXPECT_EQ(model->version(), 2u);
  // A third arrival does.
  view_.UpsertPod(Pod({.name = "next", .gpus = 0, .fraction = "0.5"}));
  Build();
  EXPECT_EQ(model->version(), 3u);
}

}  // namespace
}  // namespace vtenant::scheduler
