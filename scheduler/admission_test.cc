// The webhook's decisions: which pods get the GPU environment, which are refused.
#include "scheduler/admission.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <tuple>

#include "kube/json_builder.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/json.h"

namespace vtenant::scheduler {
namespace {

AdmissionOptions Fixed() {
  return {.random_suffix = [] { return std::string("abcdefg"); }};
}

using kube::Json;

// `pod` with JSON Patch `patch` applied, as the API server applies the
// webhook's answer (which only adds: checked here too).
kube::Object Patched(const kube::Object& pod, const std::string& patch) {
  const kube::Object ops = Json(patch);
  for (const rapidjson::Value& op : ops.GetArray()) EXPECT_EQ(kube::GetString(op, {"op"}), "add");
  kube::Object out = kube::Clone(pod);
  EXPECT_TRUE(kube::ApplyJsonPatch(out, ops).ok()) << patch;
  return out;
}

// KAI's webhook shape: only the share container gets the environment, as
// env entries read from "<prefix>-<i>" (what KAI's own suites look up) and
// envFrom "<prefix>-<i>-evar"; the pod gets a volume of the first.
TEST(AdmissionTest, TheShareContainerGetsKaiEnvironment) {
  const kube::Object pod = Json(R"({"metadata":{"name":"p","ownerReferences":[{"name":"job-1"}],
      "annotations":{"gpu-fraction":"0.5","gpu-fraction-container-name":"gpu"}},
      "spec":{"schedulerName":"kai-scheduler","volumes":[{"name":"data","emptyDir":{}}],
      "containers":[{"name":"side"},{"name":"gpu","env":[{"name":"A","value":"1"},
      {"name":"NVIDIA_VISIBLE_DEVICES","value":"all"}],"envFrom":[{"secretRef":{"name":"s"}}]}]}})");
  Result<std::string> patch = MutatePod(pod, Fixed());
  ASSERT_TRUE(patch.ok()) << patch.status().ToString();
  const kube::Object got = Patched(pod, *patch);
  EXPECT_EQ(kube::Annotation(got, "runai/shared-gpu-configmap"), "job-1-abcdefg-shared-gpu");
  const rapidjson::Value& side = got["spec"]["containers"][0];
  EXPECT_FALSE(side.HasMember("env"));
  EXPECT_FALSE(side.HasMember("envFrom"));
  const rapidjson::Value& gpu = got["spec"]["containers"][1];
  // The author's own NVIDIA_VISIBLE_DEVICES is replaced, the rest kept.
  EXPECT_EQ(
      kube::ToJson(gpu["env"]),
      R"([{"name":"A","value":"1"},)"
      R"({"name":"NVIDIA_VISIBLE_DEVICES","valueFrom":{"configMapKeyRef":{"name":"job-1-abcdefg-shared-gpu-1","key":"NVIDIA_VISIBLE_DEVICES"}}},)"
      R"({"name":"RUNAI_NUM_OF_GPUS","valueFrom":{"configMapKeyRef":{"name":"job-1-abcdefg-shared-gpu-1","key":"RUNAI_NUM_OF_GPUS"}}},)"
      R"({"name":"GPU_PORTION","valueFrom":{"configMapKeyRef":{"name":"job-1-abcdefg-shared-gpu-1","key":"GPU_PORTION"}}}])");
  EXPECT_EQ(kube::ToJson(gpu["envFrom"]),
            R"([{"secretRef":{"name":"s"}},)"
            R"({"configMapRef":{"name":"job-1-abcdefg-shared-gpu-1-evar","optional":false}}])");
  EXPECT_EQ(
      kube::ToJson(got["spec"]["volumes"]),
      R"([{"name":"data","emptyDir":{}},)"
      R"({"name":"job-1-abcdefg-shared-gpu-1-vol","configMap":{"name":"job-1-abcdefg-shared-gpu-1"}}])");
  // Admitting the result again (a retried request) changes it no further.
  Result<std::string> again = MutatePod(got, Fixed());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(kube::ToJson(Patched(got, *again)), kube::ToJson(got));
}

// KAI's hamicore admission plugin: the share container also reads
// CUDA_DEVICE_MEMORY_LIMIT from its GPU ConfigMap (optional), in place of
// any the author wrote, so a team cannot raise its own limit.
TEST(AdmissionTest, WithHamiCoreTheShareContainerReadsItsMemoryLimit) {
  const kube::Object pod = Json(R"({"metadata":{"name":"p","annotations":{"gpu-memory":"4000"}},
      "spec":{"schedulerName":"kai-scheduler","containers":[{"name":"gpu","env":[
      {"name":"CUDA_DEVICE_MEMORY_LIMIT","value":"80000m"}]}]}})");
  AdmissionOptions options = Fixed();
  Result<std::string> off = MutatePod(pod, options);
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_EQ(off->find("optional\":true"), std::string::npos);
  options.hami_core = true;
  Result<std::string> patch = MutatePod(pod, options);
  ASSERT_TRUE(patch.ok()) << patch.status().ToString();
  const kube::Object got = Patched(pod, *patch);
  const rapidjson::Value& env = got["spec"]["containers"][0]["env"];
  ASSERT_EQ(env.Size(), 4u) << kube::ToJson(env);
  EXPECT_EQ(
      kube::ToJson(env[3]),
      R"({"name":"CUDA_DEVICE_MEMORY_LIMIT","valueFrom":{"configMapKeyRef":{"name":"p-abcdefg-shared-gpu-0","key":"CUDA_DEVICE_MEMORY_LIMIT","optional":true}}})");
}

TEST(AdmissionTest, AnInitContainerIsNamedWithI) {
  const kube::Object pod = Json(R"({"metadata":{"name":"p",
      "annotations":{"gpu-memory":"4000","gpu-fraction-container-name":"warm"}},
      "spec":{"schedulerName":"kai-scheduler","initContainers":[{"name":"warm"}],
      "containers":[{"name":"main"}]}})");
  Result<std::string> patch = MutatePod(pod, Fixed());
  ASSERT_TRUE(patch.ok()) << patch.status().ToString();
  const kube::Object got = Patched(pod, *patch);
  EXPECT_EQ(kube::GetString(got["spec"]["initContainers"][0]["env"][0],
                            {"valueFrom", "configMapKeyRef", "name"}),
            "p-abcdefg-shared-gpu-i0");
  EXPECT_FALSE(got["spec"]["containers"][0].HasMember("env"));
}

// A dotted pod name is a valid ConfigMap name but not a volume name; a
// name cut at a dot leaves none before the suffix.
TEST(AdmissionTest, ADottedPodNameGivesAValidVolumeName) {
  kube::Object pod = Json(R"({"metadata":{"annotations":{"gpu-fraction":"0.5"}},
      "spec":{"schedulerName":"kai-scheduler","containers":[{"name":"main"}]}})");
  for (const auto& [name, configmap, volume] :
       {std::tuple<std::string, std::string, std::string>{
            "train.v2", "train.v2-abcdefg-shared-gpu-0", "train-v2-abcdefg-shared-gpu-0-vol"},
        // Cut to KAI's 33 characters, the last a dot.
        {"abcdefghijklmnopqrstuvwxyz012345.tail",
         "abcdefghijklmnopqrstuvwxyz012345-abcdefg-shared-gpu-0",
         "abcdefghijklmnopqrstuvwxyz012345-abcdefg-shared-gpu-0-vol"}}) {
    SCOPED_TRACE(name);
    kube::SetString(pod, {"metadata"}, "name", name);
    Result<std::string> patch = MutatePod(pod, Fixed());
    ASSERT_TRUE(patch.ok()) << patch.status().ToString();
    const kube::Object got = Patched(pod, *patch);
    const rapidjson::Value& added = got["spec"]["volumes"][0];
    EXPECT_EQ(kube::GetString(added, {"name"}), volume);
    EXPECT_EQ(kube::GetString(added, {"configMap", "name"}), configmap);
  }
}

// As KAI's admission: a sharing pod runs under the runtime that reads its
// NVIDIA_VISIBLE_DEVICES, unless it names one; never a RuntimeClass the
// cluster lacks (the API server would refuse the pod), never a pod that
// does not share.
TEST(AdmissionTest, ASharingPodGetsTheGpuRuntimeClassWhereItExists) {
  bool exists = true;
  AdmissionOptions options = Fixed();
  options.gpu_fraction_runtime_class = "nvidia";
  options.runtime_class_exists = [&exists](const std::string& name) {
    return exists && name == "nvidia";
  };
  auto runtime_of = [&](const char* pod_json) -> std::string {
    const kube::Object pod = Json(pod_json);
    Result<std::string> patch = MutatePod(pod, options);
    EXPECT_TRUE(patch.ok()) << patch.status().ToString();
    if (!patch.ok() || patch->empty()) return "<unchanged>";
    return std::string(kube::GetString(Patched(pod, *patch), {"spec", "runtimeClassName"}));
  };
  constexpr char kShared[] = R"({"metadata":{"name":"p","annotations":{"gpu-memory":"4000"}},
      "spec":{"schedulerName":"kai-scheduler","containers":[{"name":"c"}]}})";
  EXPECT_EQ(runtime_of(kShared), "nvidia");
  EXPECT_EQ(runtime_of(R"({"metadata":{"name":"p","annotations":{"gpu-fraction":"0.5"}},
      "spec":{"schedulerName":"kai-scheduler","runtimeClassName":"kata-nvidia",
      "containers":[{"name":"c"}]}})"),
            "kata-nvidia");
  EXPECT_EQ(runtime_of(R"({"metadata":{"name":"p"},"spec":{"schedulerName":"kai-scheduler",
      "containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}})"),
            "<unchanged>");
  exists = false;
  EXPECT_EQ(runtime_of(kShared), "");
  options.runtime_class_exists = nullptr;
  options.gpu_fraction_runtime_class = "";
  EXPECT_EQ(runtime_of(kShared), "");
}

TEST(AdmissionTest, ANamedContainerThatIsNotThereIsRefused) {
  Result<std::string> patch =
      MutatePod(Json(R"({"metadata":{"name":"p","annotations":{"gpu-fraction":"0.5",
      "gpu-fraction-container-name":"gone"}},"spec":{"schedulerName":"kai-scheduler",
      "containers":[{"name":"a"}]}})"),
                Fixed());
  ASSERT_FALSE(patch.ok());
  EXPECT_NE(patch.status().message().find("gpu-fraction-container-name \"gone\""),
            std::string::npos);
}

// A ConfigMap prefix already on the pod is the writer's text: on the host
// only the syncer writes pods of tenants, and it drops a team's runai/
// annotations (SyncerIntegrationTest.HostilePodsAreRefusedOrNeutralised), but
// the patch must stay three adds whatever the text holds.
TEST(AdmissionTest, APrefixOnThePodCannotAddOperationsToThePatch) {
  const std::string hostile = R"(x"}},{"op":"add","path":"/spec/nodeName","value":"n)"
                              "\n";
  const kube::Object pod = kube::BuildJson(kube::JsonObject{
      {"metadata", kube::JsonObject{{"name", "p"},
                                    {"annotations",
                                     kube::JsonObject{{"gpu-fraction", "0.5"},
                                                      {"runai/shared-gpu-configmap", hostile}}}}},
      {"spec",
       kube::JsonObject{{"schedulerName", "kai-scheduler"},
                        {"containers", kube::JsonArray{kube::JsonObject{{"name", "a"}}}}}}});
  Result<std::string> patch = MutatePod(pod, Fixed());
  ASSERT_TRUE(patch.ok()) << patch.status().ToString();
  Result<kube::Object> ops = kube::ParseJson(*patch);
  ASSERT_TRUE(ops.ok()) << *patch;
  ASSERT_TRUE(ops->IsArray());
  ASSERT_EQ(ops->Size(), 3u) << *patch;
  EXPECT_EQ(kube::GetString((*ops)[0], {"path"}), "/spec/containers/0/env");
  EXPECT_EQ(kube::GetString((*ops)[1], {"path"}), "/spec/containers/0/envFrom");
  EXPECT_EQ(kube::GetString((*ops)[2], {"path"}), "/spec/volumes");
  EXPECT_EQ(kube::GetString((*ops)[1]["value"][0], {"configMapRef", "name"}), hostile + "-0-evar");
}

TEST(AdmissionTest, OtherPodsAreLeftAlone) {
  EXPECT_EQ(MutatePod(Json(R"({"metadata":{"name":"p"},"spec":{"schedulerName":"kai-scheduler",
      "containers":[{"name":"a","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}})"),
                      Fixed())
                .value(),
            "");
  EXPECT_EQ(MutatePod(Json(R"({"metadata":{"name":"p","annotations":{"gpu-fraction":"7"}},
      "spec":{"schedulerName":"default-scheduler","containers":[]}})"),
                      Fixed())
                .value(),
            "");
}

// KAI's --block-nvidia-visible-devices: containers without GPUs get
// NVIDIA_VISIBLE_DEVICES=void whatever they wrote; GPU containers may set
// only void or none; a sharing pod's share container keeps its own.
TEST(AdmissionTest, BlockedDeviceAccessVoidsContainersWithoutGpus) {
  AdmissionOptions blocking = Fixed();
  blocking.block_visible_devices = true;
  const kube::Object pod = Json(R"({"metadata":{"name":"p"},"spec":{"schedulerName":"kai-scheduler",
      "initContainers":[{"name":"fetch"}],
      "containers":[
        {"name":"train","resources":{"limits":{"nvidia.com/gpu":"1"}},
         "env":[{"name":"NVIDIA_VISIBLE_DEVICES","value":"none"}]},
        {"name":"spy","env":[{"name":"A","value":"1"},{"name":"NVIDIA_VISIBLE_DEVICES","value":"all"}]},
        {"name":"ref","env":[{"name":"NVIDIA_VISIBLE_DEVICES",
          "valueFrom":{"configMapKeyRef":{"name":"c","key":"k"}}}]},
        {"name":"quiet","env":[{"name":"NVIDIA_VISIBLE_DEVICES","value":"void"}]}]}})");
  Result<std::string> patch = MutatePod(pod, blocking);
  ASSERT_TRUE(patch.ok()) << patch.status().ToString();
  const kube::Object got = Patched(pod, *patch);
  const std::string blocked = R"({"name":"NVIDIA_VISIBLE_DEVICES","value":"void"})";
  EXPECT_EQ(kube::ToJson(got["spec"]["initContainers"][0]["env"]), "[" + blocked + "]");
  EXPECT_EQ(kube::ToJson(got["spec"]["containers"][0]["env"]),
            R"([{"name":"NVIDIA_VISIBLE_DEVICES","value":"none"}])")
      << "a GPU container's own choice of none stays";
  EXPECT_EQ(kube::ToJson(got["spec"]["containers"][1]["env"]),
            R"([{"name":"A","value":"1"},)" + blocked + "]");
  EXPECT_EQ(kube::ToJson(got["spec"]["containers"][2]["env"]), "[" + blocked + "]");
  EXPECT_EQ(kube::ToJson(got["spec"]["containers"][3]["env"]), "[" + blocked + "]");
  EXPECT_EQ(MutatePod(pod, Fixed()).value(), "") << "off by default, as KAI's";

  // A GPU container that widens its own view is refused.
  for (
      const char* env :
      {R"({"name":"NVIDIA_VISIBLE_DEVICES","value":"all"})",
       R"({"name":"NVIDIA_VISIBLE_DEVICES","value":"1,2"})",
       R"({"name":"NVIDIA_VISIBLE_DEVICES","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}})"}) {
    Result<std::string> refused = MutatePod(
        Json(std::string(R"({"metadata":{"name":"p"},"spec":{"schedulerName":"kai-scheduler",
        "containers":[{"name":"train","resources":{"limits":{"nvidia.com/mig-1g.10gb":"1"}},
        "env":[)") +
             env + "]}]}}"),
        blocking);
    EXPECT_FALSE(refused.ok()) << env;
    EXPECT_NE(refused.status().message().find("container train sets NVIDIA_VISIBLE_DEVICES"),
              std::string::npos)
        << refused.status().message();
  }

  // A sharing pod: the share container gets the sharing environment, the
  // sidecar is blocked.
  const kube::Object sharing =
      Json(R"({"metadata":{"name":"p","annotations":{"gpu-fraction":"0.5"}},
      "spec":{"schedulerName":"kai-scheduler","containers":[{"name":"gpu"},{"name":"side"}]}})");
  patch = MutatePod(sharing, blocking);
  ASSERT_TRUE(patch.ok()) << patch.status().ToString();
  const kube::Object shared = Patched(sharing, *patch);
  EXPECT_NE(kube::ToJson(shared["spec"]["containers"][0]["env"]).find("configMapKeyRef"),
            std::string::npos);
  EXPECT_EQ(kube::ToJson(shared["spec"]["containers"][1]["env"]), "[" + blocked + "]");
}

TEST(AdmissionTest, ReviewRefusesMalformedRequestsWithTheReason) {
  Result<std::string> r =
      Review(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"42",
      "object":{"metadata":{"name":"p","annotations":{"gpu-fraction":"1.5"}},"spec":{"schedulerName":"kai-scheduler",
      "containers":[{"name":"a"}]}}}})",
             Fixed());
  ASSERT_TRUE(r.ok());
  kube::Object doc = Json(*r);
  EXPECT_EQ(kube::GetString(doc, {"response", "uid"}), "42");
  EXPECT_FALSE(doc["response"]["allowed"].GetBool());
  EXPECT_NE(kube::GetString(doc, {"response", "status", "message"}).find("gpu-fraction"),
            std::string::npos);
}

TEST(AdmissionTest, ReviewAllowsWithABase64JsonPatch) {
  Result<std::string> r = Review(
      R"({"request":{"uid":"1","object":{"metadata":{"name":"p","annotations":{"gpu-memory":"4000"}},
      "spec":{"schedulerName":"kai-scheduler","containers":[{"name":"a"}]}}}})",
      Fixed());
  ASSERT_TRUE(r.ok());
  kube::Object doc = Json(*r);
  EXPECT_TRUE(doc["response"]["allowed"].GetBool());
  EXPECT_EQ(kube::GetString(doc, {"response", "patchType"}), "JSONPatch");
  EXPECT_FALSE(kube::GetString(doc, {"response", "patch"}).empty());
  EXPECT_FALSE(Review("{}", Fixed()).ok());
}

// A PodGroup is refused, or warned about, as KAI's webhook does, and never
// patched.
TEST(AdmissionTest, ReviewJudgesAPodGroupAsKaisWebhook) {
  auto review = [](const std::string& operation, const std::string& sub_groups) {
    Result<std::string> r =
        Review(R"({"request":{"uid":"7","operation":")" + operation +
                   R"(","kind":{"group":"scheduling.run.ai","version":"v2alpha2",
        "kind":"PodGroup"},"object":{"metadata":{"name":"g"},"spec":{"minSubGroup":2,
        "subGroups":)" +
                   sub_groups + "}}}}",
               Fixed());
    EXPECT_TRUE(r.ok());
    return Json(r.ok() ? *r : "{}");
  };
  kube::Object cycle =
      review("CREATE", R"([{"name":"a","parent":"b","minMember":1},{"name":"b","parent":"a"}])");
  EXPECT_FALSE(cycle["response"]["allowed"].GetBool());
  EXPECT_EQ(kube::GetString(cycle, {"response", "status", "message"}),
            "cycle detected in subgroups");
  kube::Object few = review("UPDATE", R"([{"name":"a","minMember":1}])");
  EXPECT_TRUE(few["response"]["allowed"].GetBool());
  ASSERT_TRUE(few["response"].HasMember("warnings"));
  EXPECT_EQ(std::string(few["response"]["warnings"][0].GetString()),
            "minSubGroup (2) exceeds the number of direct child SubGroups (1)");
  EXPECT_FALSE(few["response"].HasMember("patch"));
}

// A Queue as KAI's webhook judges it; a DELETE is judged on the object
// that goes.
TEST(AdmissionTest, ReviewJudgesAQueueAsKaisWebhook) {
  Result<std::string> r = Review(R"({"request":{"uid":"8","operation":"DELETE",
      "kind":{"group":"scheduling.run.ai","version":"v2","kind":"Queue"},"object":null,
      "oldObject":{"metadata":{"name":"ml-org"},"status":{"childQueues":["nlp"]}}}})",
                                 Fixed());
  ASSERT_TRUE(r.ok());
  kube::Object doc = Json(*r);
  EXPECT_FALSE(doc["response"]["allowed"].GetBool());
  EXPECT_EQ(kube::GetString(doc, {"response", "status", "message"}),
            "cannot delete queue ml-org: it has child queues [nlp]");
}

// With quota validation on, an update is held against the Queues the
// options read, the children taken from the object before; the warnings are
// the response's.
TEST(AdmissionTest, ReviewHoldsAQueueAgainstItsParentWhenAsked) {
  AdmissionOptions options = Fixed();
  const std::string review = R"({"request":{"uid":"9","operation":"UPDATE",
      "kind":{"group":"scheduling.run.ai","version":"v2","kind":"Queue"},
      "object":{"metadata":{"name":"ml-org"},"spec":{"resources":{"gpu":{"quota":0.5}}}},
      "oldObject":{"metadata":{"name":"ml-org"},"spec":{"resources":{"gpu":{"quota":1}}},
                   "status":{"childQueues":["nlp"]}}}})";
  Result<std::string> off = Review(review, options);
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(Json(*off)["response"].HasMember("warnings"));

  options.queues = [](const std::string& name) -> std::shared_ptr<const rapidjson::Value> {
    if (name != "nlp") return nullptr;
    return std::make_shared<kube::Object>(
        Json(R"({"metadata":{"name":"nlp"},"spec":{"parentQueue":"ml-org",
             "resources":{"gpu":{"quota":0.75}}}})"));
  };
  Result<std::string> on = Review(review, options);
  ASSERT_TRUE(on.ok());
  kube::Object doc = Json(*on);
  EXPECT_TRUE(doc["response"]["allowed"].GetBool());
  ASSERT_TRUE(doc["response"].HasMember("warnings"));
  EXPECT_EQ(kube::ToJson(doc["response"]["warnings"]),
            R"x(["child queue nlp GPU quota (0.75) exceeds parent GPU quota (0.50)",)x"
            R"x("total children GPU quota (0.75) exceeds parent GPU quota (0.50)"])x");
}

TEST(AdmissionTest, RandomSuffixIsSevenSafeCharacters) {
  std::string s = RandomSuffix();
  EXPECT_EQ(s.size(), 7u);
  EXPECT_EQ(s.find_first_not_of("bcdfghjklmnpqrstvwxz2456789"), std::string::npos);
}

}  // namespace
}  // namespace vtenant::scheduler
