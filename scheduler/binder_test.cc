// Binder against an in-memory API server: what a bind writes, and that a
// failed bind leaves nothing behind.
#include "scheduler/binder.h"

#include <gtest/gtest.h>

#include "kube/json_builder.h"
#include "scheduler/kai_names.h"
#include "scheduler/testing/fake_cluster.h"

namespace vtenant::scheduler {
namespace {

namespace res = kube::resources;

using testing::Json;

class BinderTest : public ::testing::Test, protected testing::FakeCluster {
 protected:
  BinderTest() {
    Add(res::kNodes, "", R"({"metadata":{"name":"n1","labels":{"nvidia.com/gpu.memory":"46068",
        "vtenant.dev/simulated-node":"true"}},"status":{"allocatable":{"cpu":"8","memory":"8Gi",
        "nvidia.com/gpu":"2"},"conditions":[{"type":"Ready","status":"True"}]}})");
    EXPECT_TRUE(reservations_.EnsureNamespace().ok());
  }

  void AddPod(const std::string& name, const kube::JsonObject& annotations) {
    Add(res::kPods, "ns",
        kube::ToJson(kube::BuildJson(kube::JsonObject{
            {"metadata",
             kube::JsonObject{{"name", name}, {"namespace", "ns"}, {"annotations", annotations}}},
            {"spec", kube::JsonObject{
                         {"schedulerName", "kai-scheduler"},
                         {"containers", kube::JsonArray{kube::JsonObject{{"name", "c"}}}}}}})));
  }

  // The reservation pod of device `index` on n1, made before the bind asks for it.
  void AddReservation(int index) {
    ASSERT_TRUE(client_
                    .Create(res::kPods, "vtenant-reservation",
                            ReservationPodManifest(reservations_.options(), "n1", index, true))
                    .ok());
  }

  std::string NodeOf(const std::string& name) { return FakeCluster::NodeOf("ns", name); }
};

TEST_F(BinderTest, WholeGpuPodIsOneBinding) {
  AddPod("w", {});
  Binder binder(client_, view_, reservations_, events_, {.workers = 1});
  ASSERT_TRUE(binder.BindNow("ns/w", {"n1", {0}, 1000, false}).ok());
  EXPECT_EQ(NodeOf("w"), "n1");
  EXPECT_EQ(client_.Calls("create"), 1 + 1 + 1 + 1);  // node, namespace, pod, binding
}

// As KAI's: each bound pod gets a Normal Event "Scheduled", sent off the
// bind's thread; a failed bind gets none.
TEST_F(BinderTest, ABoundPodIsToldItWasScheduledInKaisWords) {
  AddPod("w", {});
  AddPod("late", {});
  kube::AsyncEventRecorder scheduled(events_, 8);
  Binder binder(client_, view_, reservations_, events_,
                {.workers = 1, .scheduled_events = &scheduled});
  ASSERT_TRUE(binder.BindNow("ns/w", {"n1", {0}, 1000, false}).ok());
  client_.InjectError("create", "pods", Status(StatusCode::kConflict, "node changed"), 1);
  ASSERT_FALSE(binder.BindNow("ns/late", {"n1", {1}, 1000, false}).ok());
  scheduled.Flush();
  std::vector<std::string> told;
  const kube::ObjectList events = client_.ListAll(res::kEvents, "ns").value();
  for (const kube::Object& e : events.items)
    if (kube::GetString(e, {"reason"}) == "Scheduled")
      told.push_back(std::string(kube::GetString(e, {"involvedObject", "name"})) + ": " +
                     std::string(kube::GetString(e, {"message"})));
  EXPECT_EQ(told, std::vector<std::string>{
                      "w: Successfully assigned pod ns/w to node n1 at node-pool default"});
}

// A bare pod is named into the group the pod grouper will make for it in
// the binding itself; a pod in a group keeps it.
TEST_F(BinderTest, TheBindingNamesABarePodsOwnGroup) {
  AddPod("w", {});
  AddPod("g", {{"pod-group-name", "team-gang"}});
  Binder binder(client_, view_, reservations_, events_, {.workers = 1});
  ASSERT_TRUE(binder.BindNow("ns/w", {"n1", {0}, 1000, false}).ok());
  ASSERT_TRUE(binder.BindNow("ns/g", {"n1", {1}, 1000, false}).ok());
  kube::Object w = client_.Get(res::kPods, "ns", "w").value();
  EXPECT_EQ(kube::Annotation(w, kPodGroupAnnotation).value_or(""),
            "pg-w-" + std::string(kube::Uid(w)));
  kube::Object g = client_.Get(res::kPods, "ns", "g").value();
  EXPECT_EQ(kube::Annotation(g, kPodGroupAnnotation).value_or(""), "team-gang");
  EXPECT_EQ(client_.Calls("patch"), 0) << "one write per pod: its binding";
}

TEST_F(BinderTest, SharingPodGetsReservationConfigMapThenBinding) {
  AddPod("s", {{"gpu-fraction", "0.5"}, {"runai/shared-gpu-configmap", "s-abc-shared-gpu"}});
  Binder binder(client_, view_, reservations_, events_, {.workers = 1});
  ASSERT_TRUE(binder.BindNow("ns/s", {"n1", {1}, 500, true}).ok());
  EXPECT_EQ(NodeOf("s"), "n1");
  kube::Object reservation =
      client_.Get(res::kPods, "vtenant-reservation", ReservationPodName("n1", 1)).value();
  EXPECT_EQ(kube::GetString(reservation, {"spec", "nodeName"}), "n1");
  EXPECT_EQ(kube::Annotation(reservation, kReservationIndexAnnotation).value_or(""), "1");
  const std::string uuid(kube::Annotation(reservation, kReservedGpuAnnotation).value_or(""));
  EXPECT_EQ(uuid, FakeGpuUuid("n1", 1));
  kube::Object cm = client_.Get(res::kConfigMaps, "ns", "s-abc-shared-gpu-0").value();
  EXPECT_EQ(kube::GetString(cm, {"data", kVisibleDevicesKey}), uuid);
  EXPECT_EQ(kube::GetString(cm, {"data", kGpuPortionKey}), "0.50");
  EXPECT_EQ(kube::GetString(cm, {"data", kNumGpusKey}), "0.50");
  // The envFrom ConfigMap exists, empty, and goes with the pod too.
  kube::Object evar = client_.Get(res::kConfigMaps, "ns", "s-abc-shared-gpu-0-evar").value();
  EXPECT_EQ(kube::ToJson(evar["data"]), "{}");
  EXPECT_EQ(kube::GetString(evar["metadata"]["ownerReferences"][0], {"name"}), "s");
  kube::Object pod = client_.Get(res::kPods, "ns", "s").value();
  EXPECT_EQ(kube::Annotation(pod, kGpuIndexAnnotation).value_or(""), "1");
  EXPECT_EQ(kube::Annotation(pod, kPodGroupAnnotation).value_or(""),
            "pg-s-" + std::string(kube::Uid(pod)));
  // Labelled with its GPU's group, as its reservation pod is.
  ASSERT_TRUE(kube::Label(reservation, kGpuGroupLabel).has_value());
  EXPECT_EQ(kube::Label(pod, kGpuGroupLabel), kube::Label(reservation, kGpuGroupLabel));
}

// As KAI writes them: one device's group under runai-gpu-group, several
// devices' each under runai-gpu-group/<group>.
TEST(GpuGroupLabelsTest, OneLabelForOneDeviceAndOnePerDeviceForSeveral) {
  EXPECT_EQ(GpuGroupLabels("n1", {1}),
            (std::map<std::string, std::string>{{"runai-gpu-group", GpuGroupName("n1", 1)}}));
  const std::string g0 = GpuGroupName("n1", 0), g1 = GpuGroupName("n1", 1);
  EXPECT_NE(g0, g1);
  EXPECT_EQ(GpuGroupLabels("n1", {0, 1}),
            (std::map<std::string, std::string>{{"runai-gpu-group/" + g0, g0},
                                                {"runai-gpu-group/" + g1, g1}}));
}

TEST_F(BinderTest, APodSharingTwoGpusIsLabelledWithBothGroups) {
  AddPod("s", {{"gpu-fraction", "0.5"},
               {"gpu-fraction-num-devices", "2"},
               {"runai/shared-gpu-configmap", "s-abc-shared-gpu"}});
  Binder binder(client_, view_, reservations_, events_, {.workers = 1});
  ASSERT_TRUE(binder.BindNow("ns/s", {"n1", {0, 1}, 500, true}).ok());
  kube::Object pod = client_.Get(res::kPods, "ns", "s").value();
  EXPECT_EQ(kube::Annotation(pod, kGpuIndexAnnotation).value_or(""), "0,1");
  for (int d : {0, 1}) {
    const std::string group = GpuGroupName("n1", d);
    EXPECT_EQ(kube::Label(pod, "runai-gpu-group/" + group).value_or(""), group) << d;
  }
  EXPECT_FALSE(kube::Label(pod, kGpuGroupLabel).has_value());
}

TEST_F(BinderTest, AFailedLabelLeavesThePodUnboundAndTakesTheConfigMapBack) {
  AddPod("s", {{"gpu-fraction", "0.5"}, {"runai/shared-gpu-configmap", "s-abc-shared-gpu"}});
  Binder binder(client_, view_, reservations_, events_, {.workers = 1});
  AddReservation(0);
  client_.InjectError("patch", "pods", Status(StatusCode::kConflict, "uid changed"), 1);
  Status s = binder.BindNow("ns/s", {"n1", {0}, 500, true});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(kGpuGroupLabel), std::string::npos) << s.ToString();
  EXPECT_EQ(NodeOf("s"), "");
  EXPECT_FALSE(client_.Get(res::kConfigMaps, "ns", "s-abc-shared-gpu-0").ok());
  EXPECT_FALSE(client_.Get(res::kConfigMaps, "ns", "s-abc-shared-gpu-0-evar").ok());
}

TEST_F(BinderTest, AFailedBindingTakesTheConfigMapBack) {
  AddPod("s", {{"gpu-fraction", "0.5"}, {"runai/shared-gpu-configmap", "s-abc-shared-gpu"}});
  Binder binder(client_, view_, reservations_, events_, {.workers = 1});
  // The reservation exists already; the ConfigMap is made, then the binding fails.
  AddReservation(0);
  client_.InjectError("create", "pods", Status(StatusCode::kConflict, "node changed"), 1);
  Status s = binder.BindNow("ns/s", {"n1", {0}, 500, true});
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(NodeOf("s"), "");
  EXPECT_FALSE(client_.Get(res::kConfigMaps, "ns", "s-abc-shared-gpu-0").ok())
      << "ConfigMap left behind";
  EXPECT_FALSE(client_.Get(res::kConfigMaps, "ns", "s-abc-shared-gpu-0-evar").ok())
      << "envFrom ConfigMap left behind";
  EXPECT_FALSE(kube::Label(client_.Get(res::kPods, "ns", "s").value(), kGpuGroupLabel))
      << "GPU group label left behind";
}

TEST_F(BinderTest, AConfigMapLeftByAnEarlierTryForThePodIsTakenOver) {
  AddPod("s", {{"gpu-fraction", "0.5"}, {"runai/shared-gpu-configmap", "s-abc-shared-gpu"}});
  Binder binder(client_, view_, reservations_, events_, {.workers = 1});
  AddReservation(0);
  client_.InjectError("create", "pods", Status(StatusCode::kConflict, "node changed"), 1);
  // The first try made the ConfigMaps; a crash kept the rollback from running.
  client_.InjectError("delete", "configmaps", Status(StatusCode::kUnavailable, "crash"), 2);
  EXPECT_FALSE(binder.BindNow("ns/s", {"n1", {0}, 500, true}).ok());
  ASSERT_TRUE(client_.Get(res::kConfigMaps, "ns", "s-abc-shared-gpu-0").ok());
  ASSERT_TRUE(client_.Get(res::kConfigMaps, "ns", "s-abc-shared-gpu-0-evar").ok());
  ASSERT_TRUE(binder.BindNow("ns/s", {"n1", {0}, 250, true}).ok());
  EXPECT_EQ(NodeOf("s"), "n1");
  kube::Object cm = client_.Get(res::kConfigMaps, "ns", "s-abc-shared-gpu-0").value();
  EXPECT_EQ(kube::GetString(cm, {"data", kGpuPortionKey}), "0.25");
}

TEST_F(BinderTest, AConfigMapTheBinderDidNotMakeForThePodIsLeftAlone) {
  // The pod's annotation names another object's ConfigMap: a plain one of
  // the namespace, the GPU ConfigMap of another pod, and a plain one in the
  // place of the second ConfigMap only (the first, made by then, is taken
  // back).
  Add(res::kConfigMaps, "ns", R"({"metadata":{"name":"settings-0","namespace":"ns"},
      "data":{"keep":"me"}})");
  Add(res::kConfigMaps, "ns", R"({"metadata":{"name":"env-0-evar","namespace":"ns"},
      "data":{"keep":"me"}})");
  kube::Object other = Add(res::kPods, "ns", R"({"metadata":{"name":"other","namespace":"ns"},
      "spec":{"schedulerName":"kai-scheduler","containers":[{"name":"c"}]}})");
  const std::string other_uid(kube::Uid(other));
  Add(res::kConfigMaps, "ns",
      kube::ToJson(kube::BuildJson(kube::JsonObject{
          {"metadata",
           kube::JsonObject{
               {"name", "other-gpu-0"},
               {"namespace", "ns"},
               {"labels", kube::JsonObject{{"vtenant.io/gpu-environment", other_uid}}},
               {"ownerReferences", kube::JsonArray{kube::JsonObject{{"apiVersion", "v1"},
                                                                    {"kind", "Pod"},
                                                                    {"name", "other"},
                                                                    {"uid", other_uid}}}}}},
          {"data", kube::JsonObject{{"NVIDIA_VISIBLE_DEVICES", "GPU-other"}}}})));
  Binder binder(client_, view_, reservations_, events_, {.workers = 1});
  for (const auto& [pod, prefix] :
       {std::pair{"s1", "settings"}, std::pair{"s2", "other-gpu"}, std::pair{"s3", "env"}}) {
    AddPod(pod, {{"gpu-fraction", "0.5"}, {"runai/shared-gpu-configmap", prefix}});
    Status s = binder.BindNow(std::string("ns/") + pod, {"n1", {0}, 500, true});
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
    EXPECT_NE(s.message().find("not made by vtenant-scheduler for this pod"), std::string::npos);
    EXPECT_EQ(NodeOf(pod), "");
  }
  EXPECT_EQ(
      kube::GetString(client_.Get(res::kConfigMaps, "ns", "settings-0").value(), {"data", "keep"}),
      "me");
  EXPECT_EQ(kube::GetString(client_.Get(res::kConfigMaps, "ns", "other-gpu-0").value(),
                            {"data", "NVIDIA_VISIBLE_DEVICES"}),
            "GPU-other");
  EXPECT_EQ(
      kube::GetString(client_.Get(res::kConfigMaps, "ns", "env-0-evar").value(), {"data", "keep"}),
      "me");
  EXPECT_FALSE(client_.Get(res::kConfigMaps, "ns", "env-0").ok());
}

TEST_F(BinderTest, SharingPodWithoutTheWebhooksAnnotationIsNotBound) {
  AddPod("s", {{"gpu-fraction", "0.5"}});
  Binder binder(client_, view_, reservations_, events_, {.workers = 1});
  Status s = binder.BindNow("ns/s", {"n1", {0}, 500, true});
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("webhook"), std::string::npos);
  EXPECT_EQ(NodeOf("s"), "");
}

}  // namespace
}  // namespace vtenant::scheduler
