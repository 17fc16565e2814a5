// Dynamic resource claims: where they let a pod go, what nodes have free,
// and what a bind writes into a claim.
#include "scheduler/device_claims.h"

#include <gtest/gtest.h>

#include "kube/testing/json.h"

namespace vtenant::scheduler {
namespace {

using kube::Json;

const std::string kGpuClass = "nvidia.com/gpu";

// A slice of node `node` with `devices` devices "gpu-0".. of driver
// gpu.example.com, each of attribute type `type`.
kube::Object Slice(const std::string& node, int devices, const std::string& type = "gpu",
                   int generation = 1, const std::string& name = "") {
  std::string list;
  for (int i = 0; i < devices; ++i)
    list += std::string(i ? "," : "") + R"({"name":"gpu-)" + std::to_string(i) +
            R"(","attributes":{"type":{"string":")" + type + R"("}}})";
  return Json(R"({"metadata":{"name":")" + (name.empty() ? node + "-gpu" : name) +
              R"("},"spec":{"driver":"gpu.example.com","nodeName":")" + node +
              R"(","pool":{"name":")" + node + R"(","generation":)" + std::to_string(generation) +
              R"(,"resourceSliceCount":1},"devices":[)" + list + "]}}");
}

kube::Object Class(const std::string& name, const std::string& selectors = "[]") {
  return Json(R"({"metadata":{"name":")" + name + R"("},"spec":{"selectors":)" + selectors +
              R"(,"config":[{"opaque":{"driver":"gpu.example.com","parameters":{"a":1}}}]}})");
}

// A claim "<name>" in namespace "team" of queue `queue` ("": none) asking
// for `count` devices of `device_class`; `extra` is added to its top level.
kube::Object Claim(const std::string& name, int count, const std::string& extra = "",
                   const std::string& device_class = kGpuClass, const std::string& queue = "team") {
  const std::string labels = queue.empty() ? "{}" : R"({"kai.scheduler/queue":")" + queue + R"("})";
  return Json(R"({"metadata":{"name":")" + name + R"(","namespace":"team","uid":"uid-)" + name +
              R"(","labels":)" + labels +
              R"(},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":")" +
              device_class + R"(","count":)" + std::to_string(count) + "}}]}}" + extra + "}");
}

std::vector<PodDeviceClaim> Claims(std::initializer_list<std::string> names) {
  std::vector<PodDeviceClaim> out;
  for (const std::string& n : names) out.push_back({"entry-" + n, n, false});
  return out;
}

struct Nodes {
  sched::LabelPairs labels;
  std::vector<DeviceClaims::NodeRef> refs{{"node0", &labels}, {"node1", &labels}};
};

// The node names a verdict's affinity admits, of node0 and node1.
std::vector<std::string> Admitted(const DeviceClaims::Verdict& v) {
  std::vector<std::string> out;
  for (const char* n : {"node0", "node1"})
    if (v.affinity.empty() || v.affinity.Matches(n, {})) out.emplace_back(n);
  return out;
}

// What node `name` is given of class kGpuClass (milli): its untainted
// devices, or with `tainted_too` all of them.
int64_t Free(const DeviceClaims& d, const std::string& name, bool tainted_too = false) {
  sched::NodeSpec node;
  d.Apply(name, &node);
  auto it = node.other_resources.find(tainted_too ? AnyDeviceClassResource(kGpuClass)
                                                  : DeviceClassResource(kGpuClass));
  return it == node.other_resources.end() ? 0 : it->second;
}

// What a request for `count` devices of kGpuClass without tolerations asks
// of the core.
std::map<std::string, int64_t> Asks(int64_t count) {
  return {{DeviceClassResource(kGpuClass), count * 1000},
          {AnyDeviceClassResource(kGpuClass), count * 1000}};
}

class DeviceClaimsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    devices.UpsertClass(Class(kGpuClass));
    devices.UpsertSlice(Slice("node0", 1));
    devices.UpsertSlice(Slice("node1", 1));
  }
  DeviceClaims devices;
  Nodes nodes;
};

TEST_F(DeviceClaimsTest, AClaimIsGivenAFreeDeviceAndNoOtherClaimGetsIt) {
  devices.UpsertClaim(Claim("a", 1));
  devices.UpsertClaim(Claim("b", 1));
  DeviceClaims::Verdict v = devices.Check("team", "pod-a", "team", Claims({"a"}), nodes.refs);
  EXPECT_EQ(v.reason, "");
  EXPECT_EQ(Admitted(v), (std::vector<std::string>{"node0", "node1"}));
  EXPECT_EQ(v.requests, Asks(1));
  EXPECT_EQ(Free(devices, "node0"), 1000);

  Result<std::vector<ClaimAllocation>> plan =
      devices.PlanAllocation("team", "pod-a", Claims({"a"}), nodes.refs[0]);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->size(), 1u);
  EXPECT_TRUE((*plan)[0].allocate);
  EXPECT_EQ((*plan)[0].claim_uid, "uid-a");
  EXPECT_EQ((*plan)[0].results,
            (std::vector<DeviceResult>{{"gpu", "gpu.example.com", "node0", "gpu-0"}}));
  EXPECT_EQ(kube::ToJson(Json((*plan)[0].config_json)),
            R"([{"source":"FromClass","requests":["gpu"],"opaque":{"driver":"gpu.example.com",)"
            R"("parameters":{"a":1}}}])");

  const uint64_t version = devices.version();
  devices.Assume("team", "a", "node0", (*plan)[0].results);
  EXPECT_GT(devices.version(), version);
  EXPECT_EQ(Free(devices, "node0"), 0) << "held from the moment it is chosen";
  EXPECT_TRUE(devices.Requests("team", Claims({"a"})).empty()) << "its devices are held already";
  EXPECT_EQ(Admitted(devices.Check("team", "pod-b", "team", Claims({"b"}), nodes.refs)),
            (std::vector<std::string>{"node1"}));
  EXPECT_FALSE(devices.PlanAllocation("team", "pod-b", Claims({"b"}), nodes.refs[0]).ok());

  // A pod that shares the claim joins it on its node, and asks for no
  // device of its own.
  EXPECT_EQ(Admitted(devices.Check("team", "pod-c", "team", Claims({"a"}), nodes.refs)),
            (std::vector<std::string>{"node0"}));
  EXPECT_FALSE(devices.PlanAllocation("team", "pod-c", Claims({"a"}), nodes.refs[1]).ok());
  Result<std::vector<ClaimAllocation>> join =
      devices.PlanAllocation("team", "pod-c", Claims({"a"}), nodes.refs[0]);
  ASSERT_TRUE(join.ok()) << join.status().ToString();
  ASSERT_EQ(join->size(), 1u);
  EXPECT_FALSE((*join)[0].allocate);

  devices.Forget("team", "a");
  EXPECT_EQ(Free(devices, "node0"), 1000) << "a bind that failed lets go";
  EXPECT_EQ(devices.Requests("team", Claims({"a", "b"}), {"team/a"}), Asks(1))
      << "a claim another pod asks for is not asked for twice";
}

TEST_F(DeviceClaimsTest, AClaimForMoreDevicesThanANodeHasWaits) {
  devices.UpsertClaim(Claim("a", 2));
  EXPECT_EQ(devices.Check("team", "pod", "team", Claims({"a"}), nodes.refs).reason,
            "cannot allocate all claims: no node has the devices they ask for free");
}

TEST_F(DeviceClaimsTest, AnAllocatedClaimHoldsItsPodToItsNodeAndItsDevice) {
  devices.UpsertClaim(Claim("a", 1, R"(,"status":{"allocation":{"devices":{"results":[
      {"request":"gpu","driver":"gpu.example.com","pool":"node1","device":"gpu-0"}]},
      "nodeSelector":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name",
      "operator":"In","values":["node1"]}]}]}},"reservedFor":[{"resource":"pods","name":"p",
      "uid":"pod-1"}]})"));
  DeviceClaims::Verdict v = devices.Check("team", "pod-2", "team", Claims({"a"}), nodes.refs);
  EXPECT_EQ(v.reason, "");
  EXPECT_EQ(Admitted(v), (std::vector<std::string>{"node1"}));
  EXPECT_TRUE(v.requests.empty()) << "its device is held by the claim, not by each pod";
  EXPECT_EQ(Free(devices, "node1"), 0);
  EXPECT_EQ(Free(devices, "node0"), 1000);

  Result<std::vector<ClaimAllocation>> plan =
      devices.PlanAllocation("team", "pod-2", Claims({"a"}), nodes.refs[1]);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->size(), 1u);
  EXPECT_FALSE((*plan)[0].allocate) << "only reserved for the second pod";
  EXPECT_TRUE(devices.PlanAllocation("team", "pod-1", Claims({"a"}), nodes.refs[1])->empty())
      << "reserved for the first already: nothing to write";
  EXPECT_FALSE(devices.PlanAllocation("team", "pod-2", Claims({"a"}), nodes.refs[0]).ok());
}

TEST_F(DeviceClaimsTest, APodWaitsForClaimsThatAreNotThereOrNotReadable) {
  EXPECT_EQ(devices.Check("team", "pod", "team", Claims({"missing"}), nodes.refs).reason,
            "resource claim team/missing does not exist");
  EXPECT_EQ(devices.Check("team", "pod", "team", {{"gpu", "", true}}, nodes.refs).reason,
            "waiting for the resource claim of gpu to be made from its template");
  devices.UpsertClaim(Claim("other", 1, "", "no-such-class"));
  EXPECT_EQ(devices.Check("team", "pod", "team", Claims({"other"}), nodes.refs).reason,
            "device class no-such-class does not exist for claim team/other request gpu");
  devices.UpsertClass(Class("odd.example.com", R"json([{"cel":{"expression":
      "device.attributes.all(a, true)"}}])json"));
  devices.UpsertClaim(Claim("odd", 1, "", "odd.example.com"));
  const std::string odd = devices.Check("team", "pod", "team", Claims({"odd"}), nodes.refs).reason;
  EXPECT_EQ(odd.rfind("device class odd.example.com has a selector vtenant-scheduler cannot "
                      "read: unsupported CEL",
                      0),
            0u)
      << odd;
  DeviceClaims unserved;
  unserved.SetUnavailable("not served");
  EXPECT_EQ(unserved.Check("team", "pod", "team", Claims({"a"}), nodes.refs).reason, "not served");
}

TEST_F(DeviceClaimsTest, AClaimReservedForAsManyPodsAsAllowedTakesNoMore) {
  auto reserved = [](int pods) {
    std::string list;
    for (int i = 0; i < pods; ++i)
      list += std::string(i ? "," : "") + R"({"resource":"pods","name":"p)" + std::to_string(i) +
              R"(","uid":"pod-)" + std::to_string(i) + R"("})";
    return R"(,"status":{"allocation":{"devices":{"results":[]}},"reservedFor":[)" + list + "]}";
  };
  devices.UpsertClaim(Claim("a", 1, reserved(255)));
  EXPECT_EQ(devices.Check("team", "new", "team", Claims({"a"}), nodes.refs).reason, "");
  devices.UpsertClaim(Claim("a", 1, reserved(256)));
  EXPECT_EQ(devices.Check("team", "new", "team", Claims({"a"}), nodes.refs).reason,
            "resource claim team/a has reached its maximum number of consumers (256)");
  EXPECT_EQ(devices.Check("team", "pod-7", "team", Claims({"a"}), nodes.refs).reason, "")
      << "one of its pods";
}

TEST_F(DeviceClaimsTest, ASharedGpuClaimMustBeOfThePodsQueue) {
  devices.UpsertClaim(Claim("unlabelled", 1, "", kGpuClass, ""));
  devices.UpsertClaim(Json(R"({"metadata":{"name":"labelled","namespace":"team",
      "labels":{"kai.scheduler/queue":"queue1"}},"spec":{"devices":{"requests":[{"name":"gpu",
      "exactly":{"deviceClassName":"nvidia.com/gpu"}}]}}})"));
  devices.UpsertClass(Class("nic.example.com"));
  devices.UpsertClaim(Claim("nic", 1, "", "nic.example.com"));
  auto reason = [&](std::vector<PodDeviceClaim> claims, const std::string& queue) {
    return devices.Check("team", "pod", queue, claims, nodes.refs).reason;
  };
  EXPECT_EQ(reason(Claims({"unlabelled"}), "queue1"),
            "DRA claim unlabelled is a shared GPU claim but does not have a queue label "
            "(kai.scheduler/queue)");
  EXPECT_EQ(reason(Claims({"labelled"}), "queue2"),
            "DRA claim labelled is a shared GPU claim with wrong queue label (expected queue: "
            "queue2, claim queue label: queue1)");
  EXPECT_EQ(reason(Claims({"labelled"}), "queue1"), "");
  EXPECT_EQ(reason(Claims({"nic"}), "queue1"), "") << "not a GPU class";
  EXPECT_EQ(reason({{"gpu", "unlabelled", true}}, "queue1"), "")
      << "a template's claim is the pod's own";
}

TEST_F(DeviceClaimsTest, AClassSelectsItsDevicesByCel) {
  devices.UpsertClass(Class(kGpuClass, R"([{"cel":{"expression":
      "device.attributes['gpu.example.com'].type == 'gpu'"}}])"));
  devices.UpsertSlice(Slice("node0", 2, "nic"));
  EXPECT_EQ(Free(devices, "node0"), 0) << "its devices are not GPUs";
  EXPECT_EQ(Free(devices, "node1"), 1000);
  devices.UpsertClaim(Claim("a", 1));
  EXPECT_EQ(Admitted(devices.Check("team", "pod", "team", Claims({"a"}), nodes.refs)),
            (std::vector<std::string>{"node1"}));
}

TEST_F(DeviceClaimsTest, OnlyAPoolsNewestGenerationCounts) {
  devices.UpsertSlice(Slice("node0", 3, "gpu", 2, "node0-gpu-new"));
  EXPECT_EQ(Free(devices, "node0"), 3000);
  devices.DeleteSlice(Slice("node0", 3, "gpu", 2, "node0-gpu-new"));
  EXPECT_EQ(Free(devices, "node0"), 1000);
}

TEST_F(DeviceClaimsTest, TheFirstAvailableSubrequestThatCanBeHadIsGiven) {
  devices.UpsertClaim(Json(R"({"metadata":{"name":"a","namespace":"team","uid":"u"},
      "spec":{"devices":{"requests":[{"name":"gpu","firstAvailable":[
      {"name":"two","deviceClassName":"nvidia.com/gpu","count":2},
      {"name":"one","deviceClassName":"nvidia.com/gpu","count":1}]}]}}})"));
  Result<std::vector<ClaimAllocation>> plan =
      devices.PlanAllocation("team", "pod", Claims({"a"}), nodes.refs[0]);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ((*plan)[0].results,
            (std::vector<DeviceResult>{{"gpu/one", "gpu.example.com", "node0", "gpu-0"}}));
}

TEST_F(DeviceClaimsTest, AnAllRequestTakesEveryDeviceOfANodeOrNone) {
  devices.UpsertSlice(Slice("node0", 2));
  devices.UpsertSlice(Slice("node1", 3));
  devices.UpsertClaim(Claim("held", 1, R"(,"status":{"allocation":{"devices":{"results":[
      {"request":"gpu","driver":"gpu.example.com","pool":"node0","device":"gpu-1"}]}}})"));
  devices.UpsertClaim(Json(R"({"metadata":{"name":"all","namespace":"team","uid":"u",
      "labels":{"kai.scheduler/queue":"team"}},"spec":{"devices":{"requests":[{"name":"gpu",
      "exactly":{"deviceClassName":"nvidia.com/gpu","allocationMode":"All"}}]}}})"));
  EXPECT_EQ(Admitted(devices.Check("team", "pod", "team", Claims({"all"}), nodes.refs)),
            (std::vector<std::string>{"node1"}))
      << "one of node0's devices is held";
  Result<std::vector<ClaimAllocation>> plan =
      devices.PlanAllocation("team", "pod", Claims({"all"}), nodes.refs[1]);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ((*plan)[0].results.size(), 3u);
}

// The GPUs a pod's claims charge its queue, as KAI counts DRA GPUs: the
// requests of a class whose name says "gpu" (All: one) before allocation,
// the devices given to them after; a claim charged to another pod, none.
TEST_F(DeviceClaimsTest, ClaimsChargeTheirGpuRequestsDevices) {
  devices.UpsertSlice(Slice("node0", 3));
  devices.UpsertClaim(Claim("two", 2));
  devices.UpsertClaim(Claim("nic", 4, "", "nic.example.com"));
  devices.UpsertClaim(Json(R"({"metadata":{"name":"all","namespace":"team","uid":"u"},
      "spec":{"devices":{"requests":[{"name":"gpu","exactly":{
      "deviceClassName":"nvidia.com/gpu","allocationMode":"All"}}]}},
      "status":{"allocation":{"devices":{"results":[
      {"request":"gpu","driver":"gpu.example.com","pool":"node0","device":"gpu-0"},
      {"request":"gpu","driver":"gpu.example.com","pool":"node0","device":"gpu-1"},
      {"request":"gpu","driver":"gpu.example.com","pool":"node0","device":"gpu-2"}]}}}})"));
  devices.UpsertClaim(Json(R"({"metadata":{"name":"pending-all","namespace":"team","uid":"v"},
      "spec":{"devices":{"requests":[{"name":"gpu","exactly":{
      "deviceClassName":"nvidia.com/gpu","allocationMode":"All"}}]}}})"));
  EXPECT_EQ(devices.Gpus("team", Claims({"two"})), 2);
  EXPECT_EQ(devices.Gpus("team", Claims({"nic"})), 0) << "not a GPU class";
  EXPECT_EQ(devices.Gpus("team", Claims({"all"})), 3) << "the devices it was given";
  EXPECT_EQ(devices.Gpus("team", Claims({"pending-all"})), 1);
  EXPECT_EQ(devices.Gpus("team", Claims({"two", "all", "missing"})), 5);
  EXPECT_EQ(devices.Gpus("team", Claims({"two", "all"}), {"team/all"}), 2);

  // A count no claim can be given (KAI's overflow case) waits, saying so,
  // and counts as the most a claim can be given.
  devices.UpsertClaim(Json(R"({"metadata":{"name":"huge","namespace":"team","uid":"h",
      "labels":{"kai.scheduler/queue":"team"}},"spec":{"devices":{"requests":[{"name":"gpu",
      "exactly":{"deviceClassName":"nvidia.com/gpu","count":9223372036854775807}}]}}})"));
  EXPECT_EQ(devices.Check("team", "pod", "team", Claims({"huge"}), nodes.refs).reason,
            "resource claim team/huge cannot be allocated: request gpu: adding "
            "9223372036854775807 devices exceeds the claim limit of 32, with 0 already accounted "
            "for");
  EXPECT_EQ(devices.Gpus("team", Claims({"huge"})), 32);
  EXPECT_EQ(devices.Requests("team", Claims({"huge"})).at(DeviceClassResource(kGpuClass)), 32000);

  sched::NodeSpec node0, node1;
  devices.Apply("node0", &node0);
  devices.Apply("node1", &node1);
  EXPECT_EQ(node0.claim_gpus, 3) << "held or free, its GPU driver's devices";
  EXPECT_EQ(node1.claim_gpus, 1);
}

TEST_F(DeviceClaimsTest, ConstrainedDevicesShareTheirAttribute) {
  // node0 has a GPU on each of two PCIe roots, and a NIC on the second.
  devices.UpsertClass(Class("nic.example.com", R"([{"cel":{"expression":
      "device.attributes['gpu.example.com'].type == 'nic'"}}])"));
  devices.UpsertClass(Class(kGpuClass, R"([{"cel":{"expression":
      "device.attributes['gpu.example.com'].type == 'gpu'"}}])"));
  devices.UpsertSlice(Json(R"({"metadata":{"name":"node0-gpu"},"spec":{
      "driver":"gpu.example.com","nodeName":"node0","pool":{"name":"node0","generation":1},
      "devices":[
      {"name":"gpu-0","attributes":{"type":{"string":"gpu"},"pcieRoot":{"string":"a"}}},
      {"name":"gpu-1","attributes":{"type":{"string":"gpu"},"pcieRoot":{"string":"b"}}},
      {"name":"nic-0","attributes":{"type":{"string":"nic"},"pcieRoot":{"string":"b"}}}]}})"));
  devices.UpsertClaim(Json(R"({"metadata":{"name":"near","namespace":"team","uid":"u",
      "labels":{"kai.scheduler/queue":"team"}},"spec":{"devices":{"requests":[
      {"name":"gpu","exactly":{"deviceClassName":"nvidia.com/gpu"}},
      {"name":"nic","exactly":{"deviceClassName":"nic.example.com"}}],
      "constraints":[{"matchAttribute":"gpu.example.com/pcieRoot"}]}}})"));
  Result<std::vector<ClaimAllocation>> plan =
      devices.PlanAllocation("team", "pod", Claims({"near"}), nodes.refs[0]);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ((*plan)[0].results,
            (std::vector<DeviceResult>{{"gpu", "gpu.example.com", "node0", "gpu-1"},
                                       {"nic", "gpu.example.com", "node0", "nic-0"}}))
      << "the GPU on the NIC's root, though gpu-0 comes first";
  EXPECT_EQ(Admitted(devices.Check("team", "pod", "team", Claims({"near"}), nodes.refs)),
            (std::vector<std::string>{"node0"}))
      << "node1 has no NIC";

  devices.UpsertClaim(Claim("other", 1, R"(,"status":{"allocation":{"devices":{"results":[
      {"request":"gpu","driver":"gpu.example.com","pool":"node0","device":"gpu-1"}]}}})"));
  EXPECT_FALSE(devices.PlanAllocation("team", "pod", Claims({"near"}), nodes.refs[0]).ok())
      << "the GPU beside the NIC is taken, and gpu-0 is on another root";
}

TEST(PodDeviceClaimsTest, ATemplatesClaimIsNamedByThePodsStatus) {
  EXPECT_EQ(PodDeviceClaims(Json(R"({"spec":{"resourceClaims":[
      {"name":"shared","resourceClaimName":"team-gpu"},
      {"name":"own","resourceClaimTemplateName":"one-gpu"},
      {"name":"later","resourceClaimTemplateName":"one-gpu"}]},
      "status":{"resourceClaimStatuses":[{"name":"own","resourceClaimName":"pod-own-x7"}]}})")),
            (std::vector<PodDeviceClaim>{
                {"shared", "team-gpu", false}, {"own", "pod-own-x7", true}, {"later", "", true}}));
}

TEST(WriteAllocationTest, TheDevicesAndThePodAreWrittenIntoTheClaimsStatus) {
  ClaimAllocation a{.claim = "a",
                    .claim_uid = "uid-a",
                    .allocate = true,
                    .results = {{"gpu", "gpu.example.com", "node0", "gpu-0"}},
                    .config_json = "[]"};
  kube::Object claim = Json(R"({"metadata":{"name":"a","uid":"uid-a"},"spec":{}})");
  ASSERT_TRUE(WriteAllocation(a, "p", "pod-1", "node0", &claim).ok());
  EXPECT_EQ(kube::ToJson(claim["status"]),
            R"({"allocation":{"devices":{"results":[{"request":"gpu","driver":"gpu.example.com",)"
            R"("pool":"node0","device":"gpu-0"}],"config":[]},"nodeSelector":{)"
            R"("nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In",)"
            R"("values":["node0"]}]}]}},"reservedFor":[{"resource":"pods","name":"p",)"
            R"("uid":"pod-1"}]})");
  ASSERT_TRUE(WriteAllocation(a, "p", "pod-1", "node0", &claim).ok()) << "the same, again";
  EXPECT_EQ(claim["status"]["reservedFor"].Size(), 1u);

  ClaimAllocation other = a;
  other.results[0].device = "gpu-1";
  EXPECT_EQ(WriteAllocation(other, "q", "pod-2", "node0", &claim).code(),
            StatusCode::kFailedPrecondition)
      << "allocated meanwhile to another device";
  ClaimAllocation reserve{.claim = "a", .claim_uid = "uid-a"};
  ASSERT_TRUE(WriteAllocation(reserve, "q", "pod-2", "node0", &claim).ok());
  EXPECT_EQ(claim["status"]["reservedFor"].Size(), 2u);
  reserve.claim_uid = "uid-old";
  EXPECT_EQ(WriteAllocation(reserve, "q", "pod-2", "node0", &claim).code(),
            StatusCode::kFailedPrecondition)
      << "another claim of its name";
}

// Device taints, as the allocator has them: a device tainted NoSchedule or
// NoExecute, by its slice or by a DeviceTaintRule, goes only to a request
// that tolerates the taint; effect None is ignored; an All request that
// selects an untolerated device waits.
TEST_F(DeviceClaimsTest, ATaintedDeviceGoesOnlyToARequestThatToleratesIt) {
  devices.UpsertSlice(Json(R"({"metadata":{"name":"node0-gpu"},"spec":{
      "driver":"gpu.example.com","nodeName":"node0","pool":{"name":"node0","generation":1},
      "devices":[{"name":"gpu-0","taints":[{"key":"gpu.example.com/unhealthy",
        "value":"xid-79","effect":"NoSchedule"}]},
      {"name":"gpu-1","taints":[{"key":"gpu.example.com/note","effect":"None"}]}]}})"));
  auto claim = [&](const std::string& name, const std::string& extra) {
    devices.UpsertClaim(Json(R"({"metadata":{"name":")" + name +
                             R"(","namespace":"team","uid":"u-)" + name + R"(",
        "labels":{"kai.scheduler/queue":"team"}},"spec":{"devices":{"requests":[{"name":"gpu",
        "exactly":{"deviceClassName":"nvidia.com/gpu")" +
                             extra + "}}]}}}"));
  };
  claim("plain", R"(,"count":2)");
  claim("tolerant", R"(,"count":2,"tolerations":[{"key":"gpu.example.com/unhealthy",
      "operator":"Exists","effect":"NoSchedule"}])");
  claim("all", R"(,"allocationMode":"All")");
  // The nodes it may go to; none when it waits.
  auto admitted = [&](const std::string& name) {
    DeviceClaims::Verdict v = devices.Check("team", "pod", "team", Claims({name}), nodes.refs);
    return v.reason.empty() ? Admitted(v) : std::vector<std::string>{};
  };
  EXPECT_TRUE(admitted("plain").empty()) << "gpu-0 is tainted; None on gpu-1 is not a taint";
  EXPECT_EQ(admitted("tolerant"), (std::vector<std::string>{"node0"}));
  EXPECT_EQ(admitted("all"), (std::vector<std::string>{"node1"}));
  Result<std::vector<ClaimAllocation>> plan =
      devices.PlanAllocation("team", "pod", Claims({"plain"}), nodes.refs[0]);
  EXPECT_EQ(plan.status().code(), StatusCode::kFailedPrecondition);
  // The core counts the untainted device, and both devices for a request
  // that may take a tainted one; each request asks for what it may take.
  EXPECT_EQ(Free(devices, "node0"), 1000);
  EXPECT_EQ(Free(devices, "node0", /*tainted_too=*/true), 2000);
  EXPECT_EQ(devices.Requests("team", Claims({"tolerant"})),
            (std::map<std::string, int64_t>{{AnyDeviceClassResource(kGpuClass), 2000}}));
  EXPECT_EQ(devices.Requests("team", Claims({"plain"})), Asks(2));

  // A rule taints node1's device for every request but the tolerant ones.
  devices.UpsertTaintRule(Json(R"({"metadata":{"name":"drain-node1"},"spec":{
      "deviceSelector":{"driver":"gpu.example.com","pool":"node1"},
      "taint":{"key":"example.com/drain","effect":"NoExecute"}}})"));
  EXPECT_TRUE(admitted("all").empty());
  claim("drain-tolerant", R"(,"tolerations":[{"operator":"Exists"}])");
  EXPECT_EQ(admitted("drain-tolerant"), (std::vector<std::string>{"node0", "node1"}));
  // A rule without a selector taints nothing; a deleted one no more.
  devices.UpsertTaintRule(Json(R"({"metadata":{"name":"drain-node1"},"spec":{
      "taint":{"key":"example.com/drain","effect":"NoExecute"}}})"));
  EXPECT_EQ(admitted("all"), (std::vector<std::string>{"node1"}));
  devices.UpsertTaintRule(Json(R"({"metadata":{"name":"drain-node1"},"spec":{
      "deviceSelector":{"device":"gpu-0"},"taint":{"key":"k","effect":"NoSchedule"}}})"));
  EXPECT_TRUE(admitted("all").empty());
  devices.DeleteTaintRule(Json(R"({"metadata":{"name":"drain-node1"}})"));
  EXPECT_EQ(admitted("all"), (std::vector<std::string>{"node1"}));
}

// A slice with perDeviceNodeSelection names each device's nodes: gpu-0
// node0's, gpu-1 every node's, gpu-2 those in rack a.
TEST_F(DeviceClaimsTest, DevicesThatNameTheirOwnNodesServeThoseNodesOnly) {
  devices.UpsertSlice(Json(R"({"metadata":{"name":"shared-gpus"},"spec":{
      "driver":"gpu.example.com","pool":{"name":"shared","generation":1},
      "perDeviceNodeSelection":true,"devices":[{"name":"gpu-0","nodeName":"node0"},
      {"name":"gpu-1","allNodes":true},{"name":"gpu-2","nodeSelector":{"nodeSelectorTerms":[
      {"matchExpressions":[{"key":"rack","operator":"In","values":["a"]}]}]}}]}})"));
  EXPECT_EQ(Free(devices, "node0"), 3000) << "its own slice's, gpu-0 and gpu-1";
  EXPECT_EQ(Free(devices, "node1"), 2000);
  devices.UpsertClaim(Claim("three", 3));
  EXPECT_EQ(Admitted(devices.Check("team", "pod", "team", Claims({"three"}), nodes.refs)),
            (std::vector<std::string>{"node0"}));
  Result<std::vector<ClaimAllocation>> plan =
      devices.PlanAllocation("team", "pod", Claims({"three"}), nodes.refs[0]);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->size(), 1u);
  EXPECT_EQ((*plan)[0].results,
            (std::vector<DeviceResult>{{"gpu", "gpu.example.com", "node0", "gpu-0"},
                                       {"gpu", "gpu.example.com", "shared", "gpu-0"},
                                       {"gpu", "gpu.example.com", "shared", "gpu-1"}}));

  nodes.labels = {{"rack", "a"}};
  EXPECT_EQ(Free(devices, "node1"), 2000) << "Free asks without labels";
  EXPECT_EQ(Admitted(devices.Check("team", "pod", "team", Claims({"three"}), nodes.refs)),
            (std::vector<std::string>{"node0", "node1"}))
      << "node1 in rack a has gpu-2 too";

  // resource.k8s.io/v1beta1 writes a device's nodes under "basic".
  devices.UpsertSlice(Json(R"({"metadata":{"name":"beta-gpus"},"spec":{
      "driver":"gpu.example.com","pool":{"name":"beta","generation":1},
      "perDeviceNodeSelection":true,"devices":[{"name":"gpu-b","basic":{"nodeName":"node1"}}]}})"));
  EXPECT_EQ(Free(devices, "node1"), 3000);
  EXPECT_EQ(Free(devices, "node0"), 3000);
}

// Partitionable devices: node0's GPU is published whole and as two
// halves, each consuming its share of the GPU's counters (memory, compute
// slices); a partition is given only while the counters it consumes are
// free, across held claims, the requests of one claim, and the claims of
// one pod.
TEST_F(DeviceClaimsTest, PartitionsOfOneGpuAreGivenWithinItsCounters) {
  devices.UpsertSlice(Json(R"({"metadata":{"name":"node0-gpu"},"spec":{
      "driver":"gpu.example.com","nodeName":"node0","pool":{"name":"node0","generation":1},
      "sharedCounters":[{"name":"gpu-0","counters":{"memory":{"value":"40Gi"},
        "slices":{"value":"7"}}}],
      "devices":[
      {"name":"gpu-0","attributes":{"profile":{"string":"full"}},
       "consumesCounters":[{"counterSet":"gpu-0","counters":{"memory":{"value":"40Gi"},
         "slices":{"value":"7"}}}]},
      {"name":"gpu-0-half-0","attributes":{"profile":{"string":"half"}},
       "consumesCounters":[{"counterSet":"gpu-0","counters":{"memory":{"value":"20Gi"},
         "slices":{"value":"3"}}}]},
      {"name":"gpu-0-half-1","attributes":{"profile":{"string":"half"}},
       "consumesCounters":[{"counterSet":"gpu-0","counters":{"memory":{"value":"20Gi"},
         "slices":{"value":"3"}}}]},
      {"name":"gpu-0-ghost","attributes":{"profile":{"string":"ghost"}},
       "consumesCounters":[{"counterSet":"gpu-9","counters":{"slices":{"value":"1"}}}]}]}})"));
  auto claim = [&](const std::string& name, const std::string& profile, int count) {
    devices.UpsertClaim(Json(R"({"metadata":{"name":")" + name +
                             R"(","namespace":"team","uid":"u-)" + name + R"(",
        "labels":{"kai.scheduler/queue":"team"}},"spec":{"devices":{"requests":[{"name":"gpu",
        "exactly":{"deviceClassName":"nvidia.com/gpu","count":)" +
                             std::to_string(count) + R"(,"selectors":[{"cel":{"expression":
        "device.attributes['gpu.example.com'].profile == ')" +
                             profile + R"('"}}]}}]}}})"));
  };
  auto on_node0 = [&](std::initializer_list<std::string> names) {
    DeviceClaims::Verdict v = devices.Check("team", "pod", "team", Claims(names), nodes.refs);
    const std::vector<std::string> admitted = Admitted(v);
    return v.reason.empty() &&
           std::find(admitted.begin(), admitted.end(), "node0") != admitted.end();
  };
  claim("full", "full", 1);
  claim("half", "half", 1);
  claim("other-half", "half", 1);
  claim("two-halves", "half", 2);
  claim("three-halves", "half", 3);
  claim("ghost", "ghost", 1);
  EXPECT_TRUE(on_node0({"full"}));
  EXPECT_TRUE(on_node0({"two-halves"}));
  EXPECT_FALSE(on_node0({"three-halves"})) << "two halves fill the GPU's counters";
  EXPECT_TRUE(on_node0({"half", "other-half"}));
  EXPECT_FALSE(on_node0({"full", "half"})) << "one pod's claims share the counters too";
  EXPECT_FALSE(on_node0({"ghost"})) << "its counter set is not its pool's";
  EXPECT_EQ(Free(devices, "node0"), 3000) << "the whole GPU and its halves; no ghost";

  // A half held, the whole GPU is not free; the other half is.
  Result<std::vector<ClaimAllocation>> plan =
      devices.PlanAllocation("team", "pod", Claims({"half"}), nodes.refs[0]);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  devices.Assume("team", "half", "node0", (*plan)[0].results);
  EXPECT_FALSE(on_node0({"full"}));
  EXPECT_TRUE(on_node0({"other-half"}));
  EXPECT_EQ(Free(devices, "node0"), 1000) << "the other half";
  EXPECT_EQ(
      devices.PlanAllocation("team", "pod-2", Claims({"full"}), nodes.refs[0]).status().code(),
      StatusCode::kFailedPrecondition);
  devices.Forget("team", "half");
  EXPECT_TRUE(on_node0({"full"}));
}

// Admin access (a monitoring agent's claim): it is given a device another
// claim holds, holds none itself, asks the core for none, charges no
// queue, and its allocation says so.
TEST_F(DeviceClaimsTest, AdminAccessReachesHeldDevicesAndHoldsNone) {
  devices.UpsertClaim(Claim("held", 1, R"(,"status":{"allocation":{"devices":{"results":[
      {"request":"gpu","driver":"gpu.example.com","pool":"node0","device":"gpu-0"}]}}})"));
  devices.UpsertClaim(Json(R"({"metadata":{"name":"monitor","namespace":"team","uid":"u-m",
      "labels":{"kai.scheduler/queue":"team"}},"spec":{"devices":{"requests":[{"name":"gpu",
      "exactly":{"deviceClassName":"nvidia.com/gpu","adminAccess":true}}]}}})"));
  DeviceClaims::Verdict v = devices.Check("team", "agent", "team", Claims({"monitor"}), nodes.refs);
  EXPECT_EQ(v.reason, "");
  EXPECT_EQ(Admitted(v), (std::vector<std::string>{"node0", "node1"}));
  EXPECT_TRUE(v.requests.empty());
  EXPECT_EQ(devices.Gpus("team", Claims({"monitor"})), 0);
  Result<std::vector<ClaimAllocation>> plan =
      devices.PlanAllocation("team", "agent", Claims({"monitor"}), nodes.refs[0]);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ((*plan)[0].results,
            (std::vector<DeviceResult>{{"gpu", "gpu.example.com", "node0", "gpu-0", true}}))
      << "held by another claim";
  // Given node1's free device, it does not hold it.
  plan = devices.PlanAllocation("team", "agent", Claims({"monitor"}), nodes.refs[1]);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  devices.Assume("team", "monitor", "node1", (*plan)[0].results);
  EXPECT_EQ(Free(devices, "node1"), 1000);
  devices.UpsertClaim(Claim("worker", 1));
  EXPECT_EQ(Admitted(devices.Check("team", "w", "team", Claims({"worker"}), nodes.refs)),
            (std::vector<std::string>{"node1"}));

  kube::Object claim = Json(R"({"metadata":{"name":"monitor","uid":"u-m"},"spec":{}})");
  ASSERT_TRUE(WriteAllocation((*plan)[0], "agent", "agent-uid", "node0", &claim).ok());
  EXPECT_TRUE(kube::Find(claim, {"status", "allocation", "devices", "results"})
                  ->GetArray()[0]["adminAccess"]
                  .IsTrue());
}

}  // namespace
}  // namespace vtenant::scheduler
