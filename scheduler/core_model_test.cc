// Pods, Nodes, Queues and PodGroups as the scheduler core sees them.
#include <gtest/gtest.h>

#include <map>

#include "kube/json_builder.h"
#include "kube/testing/json.h"
#include "scheduler-core/annotations.h"
#include "scheduler/core_node.h"
#include "scheduler/core_pod.h"
#include "scheduler/core_podgroup.h"
#include "scheduler/core_queue.h"
#include "scheduler/kai_names.h"

namespace vtenant::scheduler {
namespace {

using kube::Json;

// A pod of queue nlp with `annotations` (a JSON object), container a's
// `limits` (a JSON object) and spec.nodeName `node` ("" for none).
kube::Object Pod(const std::string& annotations, const std::string& limits = "{}",
                 const std::string& node = "") {
  kube::JsonObject spec{{"schedulerName", "kai-scheduler"}};
  if (!node.empty()) spec.Set("nodeName", node);
  spec.Set(
      "containers",
      kube::JsonArray{
          kube::JsonObject{
              {"name", "a"},
              {"resources",
               kube::JsonObject{{"requests", kube::JsonObject{{"cpu", "500m"}, {"memory", "1Gi"}}},
                                {"limits", kube::JsonValue(Json(limits))}}}},
          kube::JsonObject{
              {"name", "b"},
              {"resources",
               kube::JsonObject{{"limits", kube::JsonObject{{"cpu", "1"}, {"memory", "1Gi"}}}}}}});
  spec.Set("initContainers",
           kube::JsonArray{kube::JsonObject{
               {"name", "i"},
               {"resources", kube::JsonObject{{"requests", kube::JsonObject{{"cpu", "4"}}}}}}});
  return kube::BuildJson(kube::JsonObject{
      {"metadata", kube::JsonObject{{"name", "p"},
                                    {"namespace", "ns"},
                                    {"uid", "u1"},
                                    {"creationTimestamp", "2026-12-01T09:00:00Z"},
                                    {"labels", kube::JsonObject{{"kai.scheduler/queue", "nlp"}}},
                                    {"annotations", kube::JsonValue(Json(annotations))}}},
      {"spec", spec}});
}

TEST(PodTranslatorTest, RequestIsTheContainersSumAtLeastTheLargestInit) {
  CorePod t = CorePodFromHost(Pod("{}"), {});
  ASSERT_TRUE(t.problem.ok()) << t.problem.ToString();
  EXPECT_EQ(t.role, CorePod::Role::kOurs);
  EXPECT_EQ(t.key, "ns/p");
  EXPECT_EQ(t.spec.cpu_milli, 4000);          // the init container's 4 beats 1.5
  EXPECT_EQ(t.spec.memory_bytes, 2LL << 30);  // limits stand in for missing requests
  EXPECT_EQ(t.queue, "nlp");
  EXPECT_EQ(t.spec.creation_time, 1796115600);
}

// kube-scheduler's reading (resource.PodRequests): sidecars run beside the
// containers and before later init containers; the RuntimeClass's overhead
// comes on top; a pod-level request replaces the containers' sum.
TEST(PodTranslatorTest, SidecarsOverheadAndPodLevelRequestsCount) {
  kube::Object pod = Json(R"({"metadata":{"name":"p","namespace":"ns"},"spec":{
      "schedulerName":"kai-scheduler",
      "initContainers":[
        {"name":"mesh","restartPolicy":"Always","resources":{"requests":{"cpu":"500m","memory":"1Gi"}}},
        {"name":"fetch","resources":{"requests":{"cpu":"3","memory":"1Gi"}}}],
      "containers":[{"name":"main","resources":{"requests":{"cpu":"2","memory":"4Gi"}}}],
      "overhead":{"cpu":"250m","memory":"128Mi"}}})");
  CorePod t = CorePodFromHost(pod, {});
  ASSERT_TRUE(t.problem.ok()) << t.problem.ToString();
  // CPU: fetch's 3 beside the mesh's 0.5 beats main's 2 beside it; + 0.25.
  EXPECT_EQ(t.spec.cpu_milli, 3750);
  // Memory: main's 4Gi beside the mesh's 1Gi, + 128Mi.
  EXPECT_EQ(t.spec.memory_bytes, (5LL << 30) + (128LL << 20));

  kube::SetString(pod, {"spec", "resources", "requests"}, "cpu", "8");
  t = CorePodFromHost(pod, {});
  EXPECT_EQ(t.spec.cpu_milli, 8250) << "the pod's own request, + overhead";
  EXPECT_EQ(t.spec.memory_bytes, (5LL << 30) + (128LL << 20)) << "no pod-level memory";
}

// Other resources count as CPU and memory do (init containers, sidecars,
// overhead), whether written as requests or limits; host ports by protocol.
TEST(PodTranslatorTest, OtherResourcesAndHostPorts) {
  kube::Object pod = Json(R"({"metadata":{"name":"p","namespace":"ns"},"spec":{
      "schedulerName":"kai-scheduler",
      "initContainers":[{"name":"unpack","resources":{"requests":{"ephemeral-storage":"20Gi"}}}],
      "containers":[
        {"name":"main","resources":{"limits":{"rdma/ib":"1","nvidia.com/gpu":"1"},
          "requests":{"ephemeral-storage":"5Gi","hugepages-2Mi":"512Mi"}},
         "ports":[{"containerPort":8080},{"containerPort":9400,"hostPort":9400},
                  {"containerPort":53,"hostPort":53,"protocol":"UDP"}]},
        {"name":"sidecar","resources":{"requests":{"ephemeral-storage":"1Gi"}}}],
      "overhead":{"cpu":"100m"}}})");
  CorePod t = CorePodFromHost(pod, {});
  ASSERT_TRUE(t.problem.ok()) << t.problem.ToString();
  EXPECT_EQ(t.spec.whole_gpus, 1);
  EXPECT_EQ(t.spec.other_resources,
            (std::map<std::string, int64_t>{{"ephemeral-storage", (20LL << 30) * 1000},
                                            {"hugepages-2Mi", (512LL << 20) * 1000},
                                            {"rdma/ib", 1000}}));
  EXPECT_EQ(t.spec.host_ports, (std::vector<std::string>{"TCP/9400", "UDP/53"}));
}

TEST(PodTranslatorTest, GpuRequests) {
  EXPECT_EQ(CorePodFromHost(Pod("{}", R"({"nvidia.com/gpu":"2"})"), {}).spec.whole_gpus, 2);
  EXPECT_EQ(CorePodFromHost(Pod("{}", R"({"amd.com/gpu":"3"})"), {}).spec.whole_gpus, 3)
      << "KAI counts AMD's GPUs as GPUs";
  EXPECT_TRUE(
      CorePodFromHost(Pod("{}", R"({"amd.com/gpu":"3"})"), {}).spec.other_resources.empty());
  EXPECT_EQ(CorePodFromHost(Pod(R"({"gpu-fraction":"0.33"})"), {}).spec.gpu_fraction, 330);
  CorePod mem = CorePodFromHost(Pod(R"({"gpu-memory":"4000","gpu-fraction-num-devices":"2"})"), {});
  EXPECT_EQ(mem.spec.gpu_memory_mib, 4000);
  EXPECT_EQ(mem.spec.num_devices, 2);
  CorePod mig = CorePodFromHost(Pod("{}", R"({"nvidia.com/mig-1g.10gb":"1"})"), {});
  EXPECT_EQ(mig.spec.mig_profile, "1g.10gb");
  EXPECT_EQ(mig.spec.mig_count, 1);
}

TEST(PodTranslatorTest, MalformedGpuRequestsSayWhatToChange) {
  struct Case {
    std::string annotations, limits, says;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"gpu-fraction":"1.5"})", "{}", "gpu-fraction"},
           {R"({"gpu-fraction":"0"})", "{}", "gpu-fraction"},
           {R"({"gpu-memory":"-3"})", "{}", "gpu-memory"},
           {R"({"gpu-memory":"4.5"})", "{}", "gpu-memory"},
           {R"({"gpu-fraction":"0.5","gpu-memory":"100"})", "{}", "both"},
           {R"({"gpu-fraction":"0.5"})", R"({"nvidia.com/gpu":"1"})", "nvidia.com/gpu"},
           {R"({"gpu-fraction-num-devices":"2"})", "{}", "needs gpu-fraction"},
       }) {
    CorePod t = CorePodFromHost(Pod(c.annotations, c.limits), {});
    ASSERT_FALSE(t.problem.ok()) << c.annotations;
    EXPECT_NE(t.problem.message().find(c.says), std::string::npos) << t.problem.ToString();
  }
}

// A pod's dynamic resource claims are read, ours or another scheduler's
// (device_claims.h allocates them); asking for them is no problem.
TEST(PodTranslatorTest, APodsResourceClaimsAreRead) {
  CorePod t = CorePodFromHost(Json(R"({"metadata":{"name":"x","namespace":"ns"},
      "spec":{"schedulerName":"kai-scheduler","resourceClaims":[{"name":"gpu",
        "resourceClaimName":"a-gpu"}],"containers":[{"name":"c","resources":{
        "claims":[{"name":"gpu"}]}}]}})"),
                              {});
  EXPECT_TRUE(t.problem.ok()) << t.problem.ToString();
  EXPECT_EQ(t.device_claims, (std::vector<PodDeviceClaim>{{"gpu", "a-gpu", false}}));
  EXPECT_TRUE(CorePodFromHost(Json(R"({"metadata":{"name":"x","namespace":"ns"},
      "spec":{"schedulerName":"kai-scheduler","resourceClaims":[],"containers":[]}})"),
                              {})
                  .device_claims.empty());
}

TEST(PodTranslatorTest, RolesAndPlacement) {
  CorePod other = CorePodFromHost(Json(R"({"metadata":{"name":"x","namespace":"ns"},
      "spec":{"schedulerName":"default-scheduler","nodeName":"n1","containers":[]}})"),
                                  {});
  EXPECT_EQ(other.role, CorePod::Role::kOthers);
  EXPECT_EQ(other.node, "n1");
  CorePod done = CorePodFromHost(Json(R"({"metadata":{"name":"x","namespace":"ns"},
      "spec":{"schedulerName":"kai-scheduler"},"status":{"phase":"Succeeded"}})"),
                                 {});
  EXPECT_EQ(done.role, CorePod::Role::kFinished);
  CorePod res = CorePodFromHost(
      Json(R"({"metadata":{"name":"gpu-reservation-n1-0","namespace":"vtenant-reservation",
      "labels":{"vtenant.io/gpu-reservation":"true"},"annotations":{"vtenant.io/gpu-index":"1","run.ai/reserve_for_gpu_index":"GPU-1"}},
      "spec":{"nodeName":"n1"}})"),
      {});
  EXPECT_EQ(res.role, CorePod::Role::kReservation);
  EXPECT_EQ(res.reservation_index, 1);
  EXPECT_EQ(res.reserved_gpu_uuid, "GPU-1");
  CorePod shared =
      CorePodFromHost(Pod(R"({"gpu-fraction":"0.5","runai-gpu":"0,2"})", "{}", "n1"), {});
  EXPECT_EQ(shared.gpu_indices, (std::vector<int>{0, 2}));
  EXPECT_FALSE(ParseGpuIndices("0,x").ok());
}

TEST(PodTranslatorTest, OnlyTheReservationNamespaceHoldsReservationPods) {
  // A tenant's pod dressed as a reservation pod, in its host namespace: the
  // labels a reservation pod carries, its annotations, its GPU.
  const kube::Object dressed = Json(R"({"labels":{"vtenant.io/gpu-reservation":"true",
      "app":"vtenant-gpu-reservation"},"annotations":{"vtenant.io/gpu-index":"0",
      "run.ai/reserve_for_gpu_index":"GPU-0"}})");
  for (const std::string ns : {"vtenant-nlp", "vtenant-reservation-x"}) {
    CorePod t = CorePodFromHost(
        kube::BuildJson(kube::JsonObject{
            {"metadata",
             kube::JsonObject{{"name", "gpu-reservation-n1-0"},
                              {"namespace", ns},
                              {"labels", kube::JsonValue(dressed["labels"])},
                              {"annotations", kube::JsonValue(dressed["annotations"])}}},
            {"spec", kube::JsonObject{{"schedulerName", "kai-scheduler"},
                                      {"nodeName", "n1"},
                                      {"containers", kube::JsonArray{}}}}}),
        {});
    EXPECT_EQ(t.role, CorePod::Role::kOurs) << ns;
    EXPECT_EQ(t.reservation_index, -1) << ns;
  }
  // In the reservation namespace, only the vtenant.io label makes one (the
  // "app" label is for people).
  CorePod app_only =
      CorePodFromHost(Json(R"({"metadata":{"name":"r","namespace":"vtenant-reservation",
      "labels":{"app":"vtenant-gpu-reservation"}},"spec":{"nodeName":"n1","containers":[]}})"),
                      {});
  EXPECT_EQ(app_only.role, CorePod::Role::kOthers);
}

TEST(PodTranslatorTest, AnotherSchedulersPodClaimsNoShareAndPinsNoDevice) {
  kube::Object pod =
      Pod(R"({"gpu-fraction":"0.5","gpu-fraction-num-devices":"2","runai-gpu":"0,1"})", "{}", "n1");
  kube::SetString(pod, {"spec"}, "schedulerName", "other-scheduler");
  CorePod holder = CorePodFromHost(pod, {});
  EXPECT_EQ(holder.role, CorePod::Role::kOthers);
  EXPECT_EQ(holder.spec.gpu_fraction, 0);
  EXPECT_EQ(holder.spec.gpu_memory_mib, 0);
  EXPECT_EQ(holder.spec.num_devices, 1);
  EXPECT_TRUE(holder.gpu_indices.empty());
}

TEST(NodeTranslatorTest, GpusFromCapacityAndLabels) {
  Result<sched::NodeSpec> n = CoreNodeFromHost(Json(R"({"metadata":{"name":"n1","labels":{
      "nvidia.com/gpu.memory":"46068","nvidia.com/gpu.product":"NVIDIA-L40S"}},
      "spec":{"taints":[{"key":"k","value":"v","effect":"NoExecute"}]},
      "status":{"allocatable":{"cpu":"32","memory":"64Gi","pods":"110","nvidia.com/gpu":"4","nvidia.com/mig-1g.10gb":"2",
        "rdma/ib":"8","ephemeral-storage":"100Gi","hugepages-1Gi":"0"},
      "conditions":[{"type":"Ready","status":"True"}]}})"));
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(n->gpus, 4);
  EXPECT_EQ(n->gpu_memory_mib, 46000) << "floored to 100 MiB, as KAI";
  EXPECT_EQ(n->gpu_model, "NVIDIA-L40S");
  EXPECT_EQ(n->cpu_milli, 32000);
  EXPECT_EQ(n->memory_bytes, 64LL << 30);
  EXPECT_TRUE(n->schedulable);
  ASSERT_EQ(n->mig.size(), 1u);
  EXPECT_EQ(n->mig[0].first, "1g.10gb");
  EXPECT_EQ(n->other_resources,
            (std::map<std::string, int64_t>{{"ephemeral-storage", (100LL << 30) * 1000},
                                            {"rdma/ib", 8000}}))
      << "every other resource it offers, in milli";
  ASSERT_EQ(n->taints.size(), 1u);
  EXPECT_EQ(n->taints[0].effect, sched::TaintEffect::kNoExecute);
}

// GPU memory as KAI reads GFD's label: floored to 100 MiB, bytes taken for
// MiB where the value is that large, and 100 MiB a device where the label
// is missing or unreadable, so such a node still takes whole GPUs.
TEST(NodeTranslatorTest, GpuMemoryIsReadAsKaiReadsIt) {
  auto memory_of = [](const std::string& labels) {
    Result<sched::NodeSpec> n =
        CoreNodeFromHost(Json(R"({"metadata":{"name":"n1","labels":)" + labels + R"(},
        "status":{"allocatable":{"nvidia.com/gpu":"1"}}})"));
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    EXPECT_EQ(n->gpus, 1);
    return n->gpu_memory_mib;
  };
  EXPECT_EQ(memory_of(R"({"nvidia.com/gpu.memory":"46068"})"), 46000);
  EXPECT_EQ(memory_of(R"({"nvidia.com/gpu.memory":"42949672960"})"), 40900) << "40 GiB in bytes";
  EXPECT_EQ(memory_of("{}"), 100);
  EXPECT_EQ(memory_of(R"({"nvidia.com/gpu.memory":"lots"})"), 100);
  EXPECT_EQ(memory_of(R"({"nvidia.com/gpu.memory":"40"})"), 100);
}

TEST(NodeTranslatorTest, AmdGpusAreGpus) {
  Result<sched::NodeSpec> n = CoreNodeFromHost(Json(R"({"metadata":{"name":"n1"},
      "status":{"allocatable":{"amd.com/gpu":"8"},"conditions":[{"type":"Ready","status":"True"}]}})"));
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(n->gpus, 8);
  EXPECT_TRUE(n->other_resources.empty()) << "not an other resource";
  EXPECT_FALSE(IsOtherResource("amd.com/gpu"));
}

TEST(NodeTranslatorTest, NotReadyOrCordonedTakesNoPods) {
  Result<sched::NodeSpec> n =
      CoreNodeFromHost(Json(R"({"metadata":{"name":"n1"},"spec":{"unschedulable":true},
      "status":{"conditions":[{"type":"Ready","status":"True"}]}})"));
  ASSERT_TRUE(n.ok());
  EXPECT_FALSE(n->schedulable);
}

TEST(QueueTranslatorTest, KaiUnits) {
  Result<sched::QueueSpec> q =
      CoreQueueFromHost(Json(R"({"metadata":{"name":"nlp"},"spec":{"parentQueue":"ml-org",
      "reclaimMinRuntime":"1m30s","resources":{"gpu":{"quota":0.33,"limit":1,"overQuotaWeight":2},
      "cpu":{"quota":2000,"limit":-1},"memory":{"quota":1000,"limit":-1,"overQuotaWeight":1}}}})"));
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->parent, "ml-org");
  EXPECT_EQ(q->priority, 100);
  EXPECT_EQ(q->resources[sched::kGpu].quota, 330);
  EXPECT_EQ(q->resources[sched::kGpu].limit, 1000);
  EXPECT_EQ(q->resources[sched::kGpu].over_quota_weight_milli, 2000);
  EXPECT_EQ(q->resources[sched::kCpu].quota, 2000);
  EXPECT_EQ(q->resources[sched::kCpu].limit, sched::kUnlimited);
  EXPECT_EQ(q->resources[sched::kMemory].quota, 1000000000);
  EXPECT_EQ(q->reclaim_min_runtime_s, 90);
  EXPECT_FALSE(q->preempt_min_runtime_s.has_value());
}

TEST(QueueTranslatorTest, BadNumbersNameTheField) {
  Result<sched::QueueSpec> q = CoreQueueFromHost(
      Json(R"({"metadata":{"name":"nlp"},"spec":{"resources":{"gpu":{"quota":-2}}}})"));
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().message().find("spec.resources.gpu"), std::string::npos)
      << q.status().ToString();
}

// A Queue object's numbers read as the simulator reads Queue YAML: each
// JSON number through sched::ParseQueueAmount, so a value finer than the
// model's unit rounds the same way in both ("0.3333" GPU is 334 milli).
TEST(QueueTranslatorTest, NumbersReadAsTheSimulatorReadsThem) {
  for (const char* number : {"0.3333", "0.0005", "1e-3", "2.5", "0.1", "7"}) {
    // Parsed from its text, as the API server's JSON is: "7" stays an integer.
    const kube::JsonValue amount(Json(number));
    Result<sched::QueueSpec> q = CoreQueueFromHost(kube::BuildJson(kube::JsonObject{
        {"metadata", kube::JsonObject{{"name", "nlp"}}},
        {"spec", kube::JsonObject{
                     {"resources", kube::JsonObject{{"gpu", kube::JsonObject{{"quota", amount}}},
                                                    {"cpu", kube::JsonObject{{"quota", amount}}},
                                                    {"memory", kube::JsonObject{{"limit", amount},
                                                                                {"overQuotaWeight",
                                                                                 amount}}}}}}}}));
    ASSERT_TRUE(q.ok()) << number << ": " << q.status().ToString();
    EXPECT_EQ(q->resources[sched::kGpu].quota, *sched::ParseQueueAmount(number, sched::kGpu, "q"))
        << number;
    EXPECT_EQ(q->resources[sched::kCpu].quota, *sched::ParseQueueAmount(number, sched::kCpu, "q"))
        << number;
    EXPECT_EQ(q->resources[sched::kMemory].limit,
              *sched::ParseQueueAmount(number, sched::kMemory, "q"))
        << number;
    EXPECT_EQ(q->resources[sched::kMemory].over_quota_weight_milli,
              *sched::ParseQueueWeight(number, "w"))
        << number;
  }
  Result<sched::QueueSpec> q = CoreQueueFromHost(
      Json(R"({"metadata":{"name":"nlp"},"spec":{"resources":{"gpu":{"quota":0.3333}}}})"));
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->resources[sched::kGpu].quota, 334);
}

// Min runtimes are metav1.Durations, read as KAI reads them (Go's syntax),
// in whole seconds rounded up; what KAI refuses, or a negative one, names
// the field.
TEST(QueueTranslatorTest, MinRuntimesTakeGoDurationsAndBadOnesNameTheField) {
  auto queue = [](const std::string& runtime) {
    return CoreQueueFromHost(kube::BuildJson(
        kube::JsonObject{{"metadata", kube::JsonObject{{"name", "nlp"}}},
                         {"spec", kube::JsonObject{{"preemptMinRuntime", runtime}}}}));
  };
  for (const auto& [text, want] : std::vector<std::pair<std::string, int64_t>>{
           {"1h30m", 5400}, {"1.5h", 5400}, {"500ms", 1}, {"0", 0}}) {
    Result<sched::QueueSpec> q = queue(text);
    ASSERT_TRUE(q.ok()) << text << ": " << q.status().ToString();
    EXPECT_EQ(q->preempt_min_runtime_s, want) << text;
  }
  for (const char* bad : {"5 minutes", "-5m", "99999999999999999999s", "9223372036854775807h"}) {
    Result<sched::QueueSpec> q = queue(bad);
    ASSERT_FALSE(q.ok()) << bad;
    EXPECT_NE(q.status().message().find("spec.preemptMinRuntime"), std::string::npos)
        << q.status().ToString();
  }
}

TEST(PodGroupTranslatorTest, FieldsAndPreemptibility) {
  Result<CoreGroup> g = CoreGroupFromHost(Json(R"({"metadata":{"name":"train","namespace":"ns"},
      "spec":{"minMember":4,"queue":"nlp","preemptibility":"non-preemptible",
      "topologyConstraint":{"requiredTopologyLevel":"zone"},"subGroups":[{"name":"workers","minMember":3}]}})"));
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->spec.name, "ns/train");
  EXPECT_EQ(g->spec.min_member, 4);
  EXPECT_EQ(g->spec.preemptible, std::optional<bool>(false));
  EXPECT_TRUE(g->preemptibility_set);
  EXPECT_EQ(g->spec.required_topology, "zone");
  ASSERT_EQ(g->spec.subgroups.size(), 1u);
  EXPECT_EQ(g->spec.subgroups[0], (sched::SubGroup{"workers", 3}));
  EXPECT_FALSE(
      CoreGroupFromHost(
          Json(R"({"metadata":{"name":"t","namespace":"ns"},"spec":{"preemptibility":"maybe"}})"))
          .ok());
  EXPECT_TRUE(DefaultPreemptible(50));
  EXPECT_FALSE(DefaultPreemptible(100));
}

// What the scheduler wrote on a group is read back after a restart.
TEST(PodGroupTranslatorTest, TheSchedulersTimestampsAreReadBack) {
  Result<CoreGroup> g = CoreGroupFromHost(Json(R"({"metadata":{"name":"train","namespace":"ns",
      "annotations":{"kai.scheduler/stale-podgroup-timestamp":"2026-12-05T22:00:00Z",
      "kai.scheduler/last-eviction-timestamp":"2026-12-05T21:59:00Z",
      "kai.scheduler/last-start-timestamp":"2026-12-05T21:58:00Z"}},"spec":{"queue":"nlp"}})"));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->stale_since_written, 1796508000);
  EXPECT_EQ(g->last_eviction_written, 1796507940);
  EXPECT_EQ(g->last_start_written, 1796507880);
}

// A PodGroup whose spec.subGroups is `subs` (JSON).
Result<CoreGroup> GroupWithSubGroups(const std::string& subs) {
  return CoreGroupFromHost(kube::BuildJson(kube::JsonObject{
      {"metadata", kube::JsonObject{{"name", "train"}, {"namespace", "ns"}}},
      {"spec",
       kube::JsonObject{
           {"minMember", 3}, {"queue", "nlp"}, {"subGroups", kube::JsonValue(Json(subs))}}}}));
}

TEST(PodGroupTranslatorTest, SubGroupsGiveTheCoreTheirLeaves) {
  struct Case {
    std::string name, subs;
    std::vector<sched::SubGroup> leaves;
    std::vector<std::string> parents;
  };
  for (const Case& c : std::vector<Case>{
           {"none", "[]", {}, {}},
           {"flat",
            R"([{"name":"leader","minMember":1},{"name":"workers","minMember":2}])",
            {{"leader", 1}, {"workers", 2}},
            {}},
           // KAI reads an absent or zero minMember as 0.
           {"minMember absent or 0 is 0",
            R"([{"name":"a"},{"name":"b","minMember":0}])",
            {{"a", 0}, {"b", 0}},
            {}},
           // A parent holds no pods: its children carry the minimums.
           {"nested",
            R"([{"name":"decode","minMember":5},{"name":"d-leader","parent":"decode","minMember":1},
                {"name":"d-workers","parent":"decode","minMember":4},{"name":"prefill","minMember":2}])",
            {{"d-leader", 1, 0}, {"d-workers", 4, 0}, {"prefill", 2}},
            {"decode"}},
           {"parent null is the top",
            R"([{"name":"a","parent":null,"minMember":2}])",
            {{"a", 2}},
            {}},
       }) {
    Result<CoreGroup> g = GroupWithSubGroups(c.subs);
    ASSERT_TRUE(g.ok()) << c.name << ": " << g.status().ToString();
    EXPECT_EQ(g->spec.subgroups, c.leaves) << c.name;
    std::vector<std::string> parents;
    for (const sched::SubGroupSet& set : g->spec.subgroup_sets) parents.push_back(set.name);
    EXPECT_EQ(parents, c.parents) << c.name;
  }
}

TEST(PodGroupTranslatorTest, MalformedSubGroupsRefuseTheGroupAndSayWhy) {
  struct Case {
    std::string subs, says;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"name":"a"})", "spec.subGroups is not a list"},
           {R"(["a"])", "spec.subGroups[0] is not an object"},
           {R"([{"minMember":1}])", "spec.subGroups[0] has no name"},
           {R"([{"name":"","minMember":1}])", "spec.subGroups[0] has no name"},
           {R"([{"name":"a"},{"name":"a"}])", "spec.subGroups[1] repeats the name \"a\""},
           {R"([{"name":"a","minMember":-1}])", "minMember -1 is negative"},
           {R"([{"name":"a","minMember":"2"}])", "(\"a\") minMember is not an integer"},
           {R"([{"name":"a","minMember":1.5}])", "(\"a\") minMember is not an integer"},
           {R"([{"name":"a","parent":"b"}])", "names parent \"b\", which is not a sub-group"},
           {R"([{"name":"a","parent":7}])", "parent is not a sub-group name"},
           {R"([{"name":"a","parent":"b"},{"name":"b","parent":"a"}])", "its own ancestor"},
           {R"([{"name":"a","parent":"a"}])", "its own ancestor"},
           {R"([{"name":"a","minSubGroup":1}])",
            "(\"a\") sets minSubGroup, but no sub-group names it as parent"},
           {R"([{"name":"p","minSubGroup":2},{"name":"c","parent":"p"}])",
            "(\"p\") minSubGroup 2 is more than its 1 child sub-groups"},
           {R"([{"name":"p","minSubGroup":1,"minMember":1},{"name":"c","parent":"p"}])",
            "(\"p\") sets both minMember and minSubGroup"},
           {R"([{"name":"p","minSubGroup":-1},{"name":"c","parent":"p"}])",
            "(\"p\") minSubGroup -1 is negative"},
       }) {
    Result<CoreGroup> g = GroupWithSubGroups(c.subs);
    ASSERT_FALSE(g.ok()) << c.subs;
    EXPECT_NE(g.status().message().find(c.says), std::string::npos)
        << c.subs << " gave " << g.status().ToString();
    EXPECT_NE(g.status().message().find("podgroup ns/train"), std::string::npos)
        << g.status().ToString();
  }
}

// KAI's minSubGroup, at the top and on a parent, reaches the core's tree.
TEST(PodGroupTranslatorTest, MinSubGroupReachesTheCore) {
  Result<CoreGroup> g = CoreGroupFromHost(Json(R"({"metadata":{"name":"js","namespace":"ns"},
      "spec":{"queue":"nlp","minSubGroup":1,"subGroups":[
        {"name":"replica-0","minSubGroup":1},{"name":"r0-a","parent":"replica-0","minMember":2},
        {"name":"r0-b","parent":"replica-0","minMember":2},{"name":"replica-1","minMember":4}]}})"));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->spec.min_sub_group, 1);
  EXPECT_EQ(g->spec.subgroup_sets,
            (std::vector<sched::SubGroupSet>{{"replica-0", sched::kNoParent, 1}}));
  EXPECT_EQ(g->spec.subgroups,
            (std::vector<sched::SubGroup>{{"r0-a", 2, 0}, {"r0-b", 2, 0}, {"replica-1", 4}}));

  Result<CoreGroup> both = CoreGroupFromHost(Json(R"({"metadata":{"name":"js","namespace":"ns"},
      "spec":{"minMember":2,"minSubGroup":1,"subGroups":[{"name":"a"},{"name":"b"}]}})"));
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.status().message().find("spec.minMember and spec.minSubGroup are both set"),
            std::string::npos)
      << both.status().ToString();
  Result<CoreGroup> over = CoreGroupFromHost(Json(R"({"metadata":{"name":"js","namespace":"ns"},
      "spec":{"minSubGroup":3,"subGroups":[{"name":"a"},{"name":"b"}]}})"));
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.status().message().find("spec.minSubGroup 3 is more than the group's 2"),
            std::string::npos)
      << over.status().ToString();
}

// Each sub-group's topologyConstraint reaches the core as written (the
// cluster view resolves a named Topology's levels, topology_domains.h).
TEST(PodGroupTranslatorTest, SubGroupTopologiesReachTheCore) {
  Result<CoreGroup> g = CoreGroupFromHost(Json(R"({"metadata":{"name":"js","namespace":"ns"},
      "spec":{"queue":"nlp","subGroups":[
        {"name":"replica","topologyConstraint":{"topology":"dc","requiredTopologyLevel":"zone"}},
        {"name":"w","parent":"replica","minMember":2,
         "topologyConstraint":{"topology":"dc","preferredTopologyLevel":"rack"}},
        {"name":"other","minMember":1}]}})"));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->subgroup_topology, (std::map<std::string, kai::TopologyConstraint>{
                                      {"replica", {"dc", "zone", ""}}, {"w", {"dc", "", "rack"}}}));
  EXPECT_EQ(g->spec.subgroup_topology, (std::map<std::string, sched::GroupSpec::Levels>{
                                           {"replica", {"zone", ""}}, {"w", {"", "rack"}}}));
}

TEST(PodTranslatorTest, SubGroupLabelNamesThePodsSubGroup) {
  struct Case {
    std::string labels, subgroup;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"kai.scheduler/queue":"nlp"})", ""},
           {R"({"kai.scheduler/queue":"nlp","kai.scheduler/subgroup-name":"workers"})", "workers"},
       }) {
    CorePod t = CorePodFromHost(
        kube::BuildJson(kube::JsonObject{
            {"metadata",
             kube::JsonObject{
                 {"name", "p"}, {"namespace", "ns"}, {"labels", kube::JsonValue(Json(c.labels))}}},
            {"spec", kube::JsonObject{{"schedulerName", "kai-scheduler"},
                                      {"containers", kube::JsonArray{}}}}}),
        {});
    ASSERT_TRUE(t.problem.ok()) << t.problem.ToString();
    EXPECT_EQ(t.spec.subgroup, c.subgroup) << c.labels;
  }
}

}  // namespace
}  // namespace vtenant::scheduler
