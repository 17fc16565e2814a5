#include <gtest/gtest.h>

#include <map>

#include "kube/views/core_kinds.h"
#include "kube/views/node.h"
#include "kube/views/object_view.h"
#include "kube/views/owner_chain.h"
#include "kube/views/pod.h"
#include "kube/views/queue.h"
#include "kube/views/tenant.h"

namespace vtenant::kube {
namespace {

Object Parse(const std::string& json) {
  Result<Object> o = ParseJson(json);
  EXPECT_TRUE(o.ok()) << o.status().ToString();
  return o.ok() ? std::move(o).value() : Object(rapidjson::kObjectType);
}

TEST(ObjectViewTest, WritesKeepEveryFieldTheViewDoesNotKnow) {
  Object doc = Parse(R"({"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"p","namespace":"ns","uid":"u1","resourceVersion":"7",
                  "labels":{"a":"1"},"finalizers":["x/keep"]},
      "spec":{"futureField":{"deep":[1,2,3]},"containers":[]},
      "status":{"phase":"Running"}})");
  MutableObjectView edit(doc);
  edit.SetLabel("b", "2");
  edit.SetAnnotation("note", "hello");
  edit.RemoveLabel("a");
  EXPECT_TRUE(edit.AddFinalizer("vtenant.io/cleanup"));
  EXPECT_FALSE(edit.AddFinalizer("vtenant.io/cleanup"));
  EXPECT_TRUE(edit.RemoveFinalizer("x/keep"));
  EXPECT_FALSE(edit.RemoveFinalizer("x/keep"));

  Object round_trip = Parse(ToJson(doc));
  ObjectView view(round_trip);
  EXPECT_EQ(view.name(), "p");
  EXPECT_EQ(view.key(), "ns/p");
  EXPECT_FALSE(view.label("a").has_value());
  EXPECT_EQ(view.label("b"), "2");
  EXPECT_EQ(view.annotation("note"), "hello");
  EXPECT_TRUE(view.has_finalizer("vtenant.io/cleanup"));
  EXPECT_FALSE(view.has_finalizer("x/keep"));
  EXPECT_EQ(ToJson(round_trip["spec"]["futureField"]), R"({"deep":[1,2,3]})");
  EXPECT_EQ(GetString(round_trip, {"status", "phase"}), "Running");
}

TEST(ObjectViewTest, OwnerReferencesAndTheController) {
  Object doc = Parse(R"({"metadata":{"name":"p","ownerReferences":[
      {"apiVersion":"v1","kind":"ConfigMap","name":"other","uid":"c1"},
      {"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"r1","controller":true,
       "blockOwnerDeletion":true}]}})");
  ObjectView view(doc);
  ASSERT_EQ(view.owner_references().size(), 2u);
  std::optional<OwnerReference> controller = view.controller_reference();
  ASSERT_TRUE(controller.has_value());
  EXPECT_EQ(controller->kind, "ReplicaSet");
  EXPECT_TRUE(controller->block_owner_deletion);

  MutableObjectView edit(doc);
  edit.ClearOwnerReferences();
  EXPECT_TRUE(ObjectView(doc).owner_references().empty());
  edit.SetOwnerReferences(
      {{.api_version = "batch/v1", .kind = "Job", .name = "j", .uid = "j1", .controller = true}});
  EXPECT_EQ(ObjectView(doc).controller_reference()->name, "j");
}

TEST(ObjectViewTest, ClearServerFieldsLeavesWhatTheUserWrote) {
  Object doc = Parse(R"({"metadata":{"name":"p","uid":"u","resourceVersion":"3",
      "creationTimestamp":"2026-01-01T00:00:00Z","managedFields":[{}],"labels":{"k":"v"}}})");
  MutableObjectView(doc).ClearServerFields();
  EXPECT_EQ(ToJson(doc), R"({"metadata":{"name":"p","labels":{"k":"v"}}})");
}

TEST(PodViewTest, EffectiveResourcesCountInitContainersAsKubernetesDoes) {
  Object pod = Parse(R"({"metadata":{"name":"p","labels":{"kai.scheduler/queue":"nlp"},
      "annotations":{"gpu-fraction":"0.5"}},
      "spec":{"nodeName":"n1","schedulerName":"kai-scheduler",
        "initContainers":[{"resources":{"requests":{"cpu":"3"}}}],
        "containers":[{"resources":{"requests":{"cpu":"500m","memory":"1Gi"},
                                    "limits":{"nvidia.com/gpu":"1"}}},
                      {"resources":{"requests":{"cpu":"1"}}}]},
      "status":{"phase":"Running"}})");
  PodView view(pod);
  EXPECT_EQ(view.request("cpu")->Milli(), 3000);  // the init container's 3 > 1.5
  EXPECT_EQ(view.request("memory")->Value(), 1073741824);
  EXPECT_EQ(view.limit("nvidia.com/gpu")->Value(), 1);
  EXPECT_FALSE(view.request("nvidia.com/gpu").has_value());
  EXPECT_EQ(view.node_name(), "n1");
  EXPECT_EQ(view.scheduler_name(), "kai-scheduler");
  EXPECT_EQ(view.queue(), "nlp");
  EXPECT_EQ(view.gpu_fraction(), "0.5");
  EXPECT_TRUE(view.scheduled());
  EXPECT_FALSE(view.finished());

  MutablePod edit(pod);
  edit.SetQueue("vision");
  edit.ClearNodeName();
  EXPECT_EQ(PodView(pod).queue(), "vision");
  EXPECT_FALSE(PodView(pod).scheduled());
}

TEST(NodeViewTest, GpusFromCapacityAndFeatureDiscoveryLabels) {
  Object node = Parse(R"({"metadata":{"name":"n","labels":{
      "nvidia.com/gpu.memory":"46068","nvidia.com/gpu.product":"NVIDIA-L40S"}},
      "status":{"allocatable":{"nvidia.com/gpu":"1","cpu":"32"},
                "conditions":[{"type":"Ready","status":"True"}]}})");
  NodeView view(node);
  EXPECT_EQ(view.gpu_count(), 1);
  EXPECT_EQ(view.gpu_memory_mib(), 46068);
  EXPECT_EQ(view.gpu_product(), "NVIDIA-L40S");
  EXPECT_EQ(view.allocatable("cpu")->Milli(), 32000);
  EXPECT_TRUE(view.ready());
  EXPECT_FALSE(view.unschedulable());
  Object bad = Parse(R"({"metadata":{"labels":{"nvidia.com/gpu.memory":"lots"}}})");
  EXPECT_FALSE(NodeView(bad).gpu_memory_mib().has_value());
  EXPECT_EQ(NodeView(bad).gpu_count(), 0);
  EXPECT_FALSE(NodeView(bad).ready());
}

TEST(QueueViewTest, KaiDefaultsForWhatIsNotWritten) {
  Object queue = Parse(R"({"metadata":{"name":"nlp"},"spec":{"parentQueue":"ml-org",
      "resources":{"gpu":{"quota":0.33,"limit":1}}},
      "status":{"allocated":{"nvidia.com/gpu":"330m"}}})");
  QueueView view(queue);
  EXPECT_EQ(view.parent_queue(), "ml-org");
  EXPECT_EQ(view.priority(), 100);
  EXPECT_DOUBLE_EQ(view.resource("gpu").quota, 0.33);
  EXPECT_DOUBLE_EQ(view.resource("gpu").limit, 1);
  EXPECT_DOUBLE_EQ(view.resource("gpu").over_quota_weight, 1);
  EXPECT_DOUBLE_EQ(view.resource("cpu").limit, -1);
  EXPECT_EQ(view.status_quantity("allocated", "nvidia.com/gpu"), "330m");
  EXPECT_EQ(view.status_quantity("requested", "nvidia.com/gpu"), "");
}

TEST(PodGroupViewTest, Fields) {
  Object group = Parse(R"({"spec":{"minMember":4,"queue":"nlp","preemptibility":"non-preemptible"},
      "status":{"phase":"Running"}})");
  PodGroupView view(group);
  EXPECT_EQ(view.min_member(), 4);
  EXPECT_EQ(view.queue(), "nlp");
  EXPECT_EQ(view.preemptibility(), "non-preemptible");
  EXPECT_EQ(view.phase(), "Running");
}

TEST(SecretViewTest, DataIsDecodedAndEncoded) {
  Object secret = Parse(R"({"metadata":{"name":"vc-nlp"},"data":{"bad":"***"}})");
  MutableSecret edit(secret);
  edit.SetData("config", "apiVersion: v1\n");
  EXPECT_EQ(GetString(secret, {"data", "config"}), "YXBpVmVyc2lvbjogdjEK");
  Result<std::optional<std::string>> config = SecretView(secret).data("config");
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(**config, "apiVersion: v1\n");
  EXPECT_FALSE((*SecretView(secret).data("missing")).has_value());
  EXPECT_EQ(SecretView(secret).data("bad").status().code(), StatusCode::kInvalidArgument);
}

TEST(TenantViewTest, SpecAndStatus) {
  Object tenant = Parse(R"({"metadata":{"name":"nlp","generation":2},"spec":{
      "displayName":"NLP team",
      "queue":{"parentQueue":"ml-org","resources":{"gpu":{"quota":0.33,"limit":1,"overQuotaWeight":2}}},
      "controlPlane":{"backend":"process"},
      "isolation":{"allowedPrivilegedFeatures":["hostPath"],"networkPolicy":{"enabled":false}}},
      "status":{"phase":"Ready","endpoint":"https://127.0.0.1:6444","observedGeneration":2}})");
  TenantView view(tenant);
  EXPECT_EQ(view.display_name(), "NLP team");
  EXPECT_EQ(view.parent_queue(), "ml-org");
  EXPECT_DOUBLE_EQ(view.queue_resource("gpu").over_quota_weight, 2);
  EXPECT_DOUBLE_EQ(view.queue_resource("memory").quota, 0);
  EXPECT_EQ(view.backend(), "process");
  EXPECT_EQ(view.allowed_privileged_features(), std::vector<std::string>{"hostPath"});
  EXPECT_FALSE(view.network_policy_enabled());
  EXPECT_EQ(view.phase(), "Ready");
  EXPECT_EQ(view.observed_generation(), view.generation());
  EXPECT_EQ(TenantNamespace("nlp"), "vtenant-nlp");
  EXPECT_EQ(TenantKubeconfigSecret("nlp"), "vc-nlp");
}

TEST(OwnerChainTest, WalksControllersToTheTopOwner) {
  std::map<std::string, ObjectPtr> objects;
  auto add = [&](const std::string& json) {
    auto o = std::make_shared<Object>(Parse(json));
    objects[std::string(GetString(*o, {"kind"})) + "/" + std::string(Name(*o))] = o;
  };
  add(R"({"kind":"ReplicaSet","metadata":{"name":"web-1","uid":"rs1","ownerReferences":[
      {"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"d1","controller":true}]}})");
  add(R"({"kind":"Deployment","metadata":{"name":"web","uid":"d1"}})");
  OwnerLookup lookup = [&](const OwnerReference& ref, std::string_view) -> ObjectPtr {
    auto it = objects.find(ref.kind + "/" + ref.name);
    return it == objects.end() ? nullptr : it->second;
  };
  Object pod = Parse(R"({"metadata":{"name":"web-1-x","namespace":"ns","ownerReferences":[
      {"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-1","uid":"rs1","controller":true}]}})");
  std::vector<OwnerReference> chain = OwnerChain(pod, lookup);
  ASSERT_EQ(chain.size(), 2u);
  EXPECT_EQ(chain[0].kind, "ReplicaSet");
  EXPECT_EQ(chain[1].kind, "Deployment");
  EXPECT_EQ(TopOwner(pod, lookup)->name, "web");
  EXPECT_EQ(OwnerChainJson(chain),
            R"([{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-1","uid":"rs1"},)"
            R"({"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"d1"}])");

  // A re-created ReplicaSet (new uid) is not this pod's owner's owner.
  Object orphaned = Parse(R"({"metadata":{"name":"q","ownerReferences":[
      {"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-1","uid":"old","controller":true}]}})");
  EXPECT_EQ(OwnerChain(orphaned, lookup).size(), 1u);
  Object no_owner = Parse(R"({"metadata":{"name":"bare"}})");
  EXPECT_FALSE(TopOwner(no_owner, lookup).has_value());
}

TEST(OwnerChainTest, ACycleStopsAtTheDepthLimit) {
  auto a = std::make_shared<Object>(Parse(R"({"kind":"X","metadata":{"name":"a","uid":"a",
      "ownerReferences":[{"kind":"X","name":"a","uid":"a","controller":true}]}})"));
  OwnerLookup lookup = [&](const OwnerReference&, std::string_view) -> ObjectPtr { return a; };
  EXPECT_EQ(OwnerChain(*a, lookup, 5).size(), 5u);
}

}  // namespace
}  // namespace vtenant::kube
