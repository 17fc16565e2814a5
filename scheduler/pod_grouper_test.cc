// PodGrouper against an in-memory API server: what it writes for a pod, when
// it waits (a bare pod not yet bound), and what a pod whose owner gives no
// minMember is told.
#include "scheduler/pod_grouper.h"

#include <gtest/gtest.h>

#include "base/eventually.h"
#include "kai/podgroup_spec.h"
#include "kube/json_builder.h"
#include "scheduler/core_pod.h"
#include "scheduler/kai_names.h"
#include "scheduler/testing/fake_cluster.h"

namespace vtenant::scheduler {
namespace {

namespace res = kube::resources;
using std::chrono::seconds;

const kube::ResourceType kPyTorchJobs{"kubeflow.org", "v1", "pytorchjobs", "PyTorchJob", true};
const kube::ResourceType kJobSets{"jobset.x-k8s.io", "v1alpha2", "jobsets", "JobSet", true};
const kube::ResourceType kLeaderWorkerSets{"leaderworkerset.x-k8s.io", "v1", "leaderworkersets",
                                           "LeaderWorkerSet", true};
const kube::ResourceType kPodCliqueSets{"grove.io", "v1alpha1", "podcliquesets", "PodCliqueSet",
                                        true};
const kube::ResourceType kPodCliques{"grove.io", "v1alpha1", "podcliques", "PodClique", true};
const kube::ResourceType kPodGangs{"scheduler.grove.io", "v1alpha1", "podgangs", "PodGang", true};

// The ownerReferences member naming `owner` as controller.
kube::JsonArray ControlledBy(const kube::Object& owner) {
  return kube::JsonArray{kube::JsonObject{{"apiVersion", kube::GetString(owner, {"apiVersion"})},
                                          {"kind", kube::GetString(owner, {"kind"})},
                                          {"name", kube::Name(owner)},
                                          {"uid", kube::Uid(owner)},
                                          {"controller", true}}};
}

class PodGrouperTest : public ::testing::Test, protected testing::FakeCluster {
 protected:
  PodGrouperTest()
      : pods_(client_, res::kPods, {.registry = &registry_}),
        grouper_(
            client_, pods_, [this](const std::string& key) { return PodGroup(key); }, events_,
            "kai-scheduler", seconds(5), [this] { return now_; }) {
    EXPECT_TRUE(pods_.Run().ok());
    EXPECT_TRUE(pods_.WaitForSynced(std::chrono::seconds(10)));
  }
  ~PodGrouperTest() override { pods_.Stop(); }

  // What a test pod is made of besides its name, namespace "ns", scheduler
  // kai-scheduler and one container "c".
  struct PodParts {
    kube::JsonObject labels;
    kube::JsonObject annotations;
    const kube::Object* owner = nullptr;  // its controller, when given
    std::string node;                     // bound to it, when not empty
  };

  // Adds pod ns/name made of `parts` and waits until the informer has it.
  kube::Object AddPod(const std::string& name, PodParts parts) {
    kube::JsonObject metadata{{"name", name}, {"namespace", "ns"}};
    if (!parts.labels.empty()) metadata.Set("labels", std::move(parts.labels));
    if (!parts.annotations.empty()) metadata.Set("annotations", std::move(parts.annotations));
    if (parts.owner != nullptr) metadata.Set("ownerReferences", ControlledBy(*parts.owner));
    kube::JsonObject spec{{"schedulerName", "kai-scheduler"},
                          {"containers", kube::JsonArray{kube::JsonObject{{"name", "c"}}}}};
    if (!parts.node.empty()) spec.Set("nodeName", parts.node);
    kube::Object pod =
        Add(res::kPods, "ns",
            kube::ToJson(kube::BuildJson(kube::JsonObject{{"apiVersion", "v1"},
                                                          {"kind", "Pod"},
                                                          {"metadata", std::move(metadata)},
                                                          {"spec", std::move(spec)}})));
    EXPECT_TRUE(Eventually([&] { return pods_.cache().Get("ns/" + name) != nullptr; }));
    return pod;
  }

  // Adds pod ns/name of queue team (bound to `node` when not empty,
  // controlled by `owner` when given) and sets the clock to its creation
  // plus `age`.
  kube::Object CreatePod(const std::string& name, const std::string& node, seconds age,
                         const kube::Object* owner = nullptr) {
    kube::Object pod =
        AddPod(name, {.labels = {{"kai.scheduler/queue", "team"}}, .owner = owner, .node = node});
    now_ = std::chrono::system_clock::from_time_t(
               ParseTimestamp(kube::GetString(pod, {"metadata", "creationTimestamp"}))) +
           age;
    return pod;
  }

  // Groups two bound pods of queue team: "m" with `labels` and
  // `annotations` besides, and a plain "p". Returns their PodGroups as the
  // server has them (null documents when missing, which fails the test).
  std::pair<kube::Object, kube::Object> GroupsOfMarkedAndPlain(kube::JsonObject labels,
                                                               kube::JsonObject annotations) {
    labels.Set("kai.scheduler/queue", "team");
    kube::Object marked = AddPod(
        "m", {.labels = std::move(labels), .annotations = std::move(annotations), .node = "n1"});
    kube::Object plain = CreatePod("p", "n1", seconds(0));
    EXPECT_TRUE(grouper_.Reconcile("ns/m").ok());
    EXPECT_TRUE(grouper_.Reconcile("ns/p").ok());
    auto group_of = [&](const kube::Object& pod) {
      Result<kube::Object> pg =
          client_.Get(res::kPodGroups, "ns",
                      "pg-" + std::string(kube::Name(pod)) + "-" + std::string(kube::Uid(pod)));
      EXPECT_TRUE(pg.ok()) << pg.status().ToString();
      return pg.ok() ? std::move(pg).value() : kube::Object();
    };
    return {group_of(marked), group_of(plain)};
  }

  // The PodGroup of `key` as the API server has it (the grouper's cache).
  kube::ObjectPtr PodGroup(const std::string& key) {
    auto [ns, name] = kube::SplitKey(key);
    Result<kube::Object> pg = client_.Get(res::kPodGroups, ns, name);
    return pg.ok() ? std::make_shared<const kube::Object>(std::move(pg).value()) : nullptr;
  }

  // The message of the last PodGrouperWarning Event in namespace ns.
  std::string GrouperWarning() {
    Result<kube::ObjectList> events = client_.ListAll(res::kEvents, "ns");
    EXPECT_TRUE(events.ok());
    std::string message;
    if (!events.ok()) return message;
    for (const kube::Object& e : events->items)
      if (kube::GetString(e, {"reason"}) == "PodGrouperWarning")
        message = std::string(kube::GetString(e, {"message"}));
    return message;
  }

  std::string GroupOf(const std::string& pod) {
    Result<kube::Object> p = client_.Get(res::kPods, "ns", pod);
    return p.ok() ? std::string(kube::Annotation(*p, kPodGroupAnnotation).value_or("")) : "<gone>";
  }

  kube::SharedInformer pods_;
  std::chrono::system_clock::time_point now_;
  PodGrouper grouper_;
};

TEST_F(PodGrouperTest, APendingBarePodIsGroupedAfterItsDelay) {
  kube::Object pod = CreatePod("p", "", seconds(2));
  Result<kube::ReconcileResult> r = grouper_.Reconcile("ns/p");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->requeue_after, std::chrono::milliseconds(3000)) << "looked at again when due";
  EXPECT_EQ(GroupOf("p"), "");
  EXPECT_EQ(client_.Calls("create"), 1) << "nothing written yet but the pod itself";

  now_ += seconds(3);
  r = grouper_.Reconcile("ns/p");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::string group = "pg-p-" + std::string(kube::Uid(pod));
  EXPECT_EQ(GroupOf("p"), group);
  Result<kube::Object> pg = client_.Get(res::kPodGroups, "ns", group);
  ASSERT_TRUE(pg.ok()) << pg.status().ToString();
  EXPECT_EQ(kube::GetString((*pg)["metadata"]["ownerReferences"][0], {"kind"}), "Pod");
  EXPECT_EQ(kube::GetString((*pg)["metadata"]["ownerReferences"][0], {"uid"}), kube::Uid(pod));
  EXPECT_EQ(kube::GetInt(*pg, {"spec", "minMember"}), 1);
  EXPECT_EQ(kube::GetString(*pg, {"spec", "queue"}), "team");
}

TEST_F(PodGrouperTest, ABoundBarePodIsGroupedAtOnce) {
  kube::Object pod = CreatePod("p", "n1", seconds(0));
  ASSERT_TRUE(grouper_.Reconcile("ns/p").ok());
  EXPECT_EQ(GroupOf("p"), "pg-p-" + std::string(kube::Uid(pod)));
}

TEST_F(PodGrouperTest, ABarePodTheBinderNamedGetsItsGroupWithoutAnotherWrite) {
  kube::Object pod = CreatePod("p", "", seconds(0));
  const std::string group = "pg-p-" + std::string(kube::Uid(pod));
  ASSERT_TRUE(client_.Bind("ns", "p", "n1", {{kPodGroupAnnotation, group}}).ok());
  ASSERT_TRUE(Eventually([&] {
    kube::ObjectPtr seen = pods_.cache().Get("ns/p");
    return seen != nullptr && kube::Annotation(*seen, kPodGroupAnnotation) == group;
  }));
  const int patches = client_.Calls("patch");
  ASSERT_TRUE(grouper_.Reconcile("ns/p").ok());
  Result<kube::Object> pg = client_.Get(res::kPodGroups, "ns", group);
  ASSERT_TRUE(pg.ok()) << pg.status().ToString();
  EXPECT_EQ(kube::GetString(*pg, {"spec", "queue"}), "team");
  EXPECT_EQ(client_.Calls("patch"), patches) << "the pod is named already";

  const int creates = client_.Calls("create");
  ASSERT_TRUE(grouper_.Reconcile("ns/p").ok());
  EXPECT_EQ(client_.Calls("create"), creates) << "a group that exists is not made again";
}

TEST_F(PodGrouperTest, AGroupItsAuthorNamedIsNotMadeForIt) {
  CreatePod("p", "n1", seconds(0));
  ASSERT_TRUE(client_
                  .Patch(res::kPods, "ns", "p", kube::PatchType::kMerge,
                         R"({"metadata":{"annotations":{"pod-group-name":"team-gang"}}})")
                  .ok());
  ASSERT_TRUE(Eventually([&] {
    kube::ObjectPtr seen = pods_.cache().Get("ns/p");
    return seen != nullptr && kube::Annotation(*seen, kPodGroupAnnotation) == "team-gang";
  }));
  ASSERT_TRUE(grouper_.Reconcile("ns/p").ok());
  EXPECT_FALSE(client_.Get(res::kPodGroups, "ns", "team-gang").ok())
      << "a group its author names is the author's to make";
}

TEST_F(PodGrouperTest, APodsPreemptibilityLabelReachesItsPodGroup) {
  auto [marked, plain] =
      GroupsOfMarkedAndPlain({{"kai.scheduler/preemptibility", "non-preemptible"}}, {});
  EXPECT_EQ(kube::GetString(marked, {"spec", "preemptibility"}), "non-preemptible");
  EXPECT_EQ(kube::Find(plain, {"spec", "preemptibility"}), nullptr)
      << "without the label the scheduler derives it from the priority";
}

// KAI's topology annotations reach the PodGroup as its topologyConstraint;
// a pod without them gets none.
TEST_F(PodGrouperTest, TopologyAnnotationsReachThePodGroup) {
  auto [marked, plain] = GroupsOfMarkedAndPlain(
      {}, {{"kai.scheduler/topology", "cluster-topology"},
           {"kai.scheduler/topology-required-placement", "topology.kubernetes.io/zone"}});
  const rapidjson::Value* topology = kube::Find(marked, {"spec", "topologyConstraint"});
  ASSERT_NE(topology, nullptr);
  EXPECT_EQ(
      kube::ToJson(*topology),
      R"({"topology":"cluster-topology","requiredTopologyLevel":"topology.kubernetes.io/zone"})");
  EXPECT_EQ(kube::Find(plain, {"spec", "topologyConstraint"}), nullptr);
}

// KAI's grouper puts a pod's node pool on its PodGroup; here each shard's
// grouper groups only the pods of its own pool.
TEST_F(PodGrouperTest, APodsNodePoolReachesItsPodGroupInItsOwnShard) {
  kube::Object pod =
      AddPod("a", {.labels = {{"kai.scheduler/queue", "team"}, {"kai.scheduler/node-pool", "a100"}},
                   .node = "n1"});
  const std::string group = "pg-a-" + std::string(kube::Uid(pod));
  ASSERT_TRUE(grouper_.Reconcile("ns/a").ok());
  EXPECT_EQ(client_.Get(res::kPodGroups, "ns", group).status().code(), StatusCode::kNotFound)
      << "the default shard leaves another pool's pod alone";

  PodGrouper shard(
      client_, pods_, [this](const std::string& key) { return PodGroup(key); }, events_,
      "kai-scheduler", seconds(5), [this] { return now_; }, NodePool{.value = "a100"});
  ASSERT_TRUE(shard.Reconcile("ns/a").ok());
  Result<kube::Object> pg = client_.Get(res::kPodGroups, "ns", group);
  ASSERT_TRUE(pg.ok()) << pg.status().ToString();
  EXPECT_EQ(kube::Label(*pg, "kai.scheduler/node-pool").value_or(""), "a100");
  EXPECT_EQ(GroupOf("a"), group);
}

// KAI passes over an Argo Workflow: each step it owns is a group of its
// own, named for the pod, with the Workflow's labels where the pod has none.
TEST_F(PodGrouperTest, AnArgoWorkflowsStepIsAGroupOfItsOwn) {
  const kube::ResourceType workflows{"argoproj.io", "v1alpha1", "workflows", "Workflow", true};
  kube::Object wf = Add(workflows, "ns", R"({"apiVersion":"argoproj.io/v1alpha1",
      "kind":"Workflow","metadata":{"name":"wf","namespace":"ns",
      "labels":{"priorityClassName":"build","kai.scheduler/queue":"ignored"}}})");
  kube::Object pod = CreatePod("wf-step", "", seconds(0), &wf);
  ASSERT_TRUE(grouper_.Reconcile("ns/wf-step").ok());
  Result<kube::Object> pg =
      client_.Get(res::kPodGroups, "ns", "pg-wf-step-" + std::string(kube::Uid(pod)));
  ASSERT_TRUE(pg.ok()) << pg.status().ToString();
  EXPECT_EQ(kube::GetString(*pg, {"spec", "priorityClassName"}), "build");
  EXPECT_EQ(kube::GetString(*pg, {"spec", "queue"}), "team") << "the pod's own label wins";
  EXPECT_EQ(kube::GetInt(*pg, {"spec", "minMember"}), 1);
  Result<kube::Object> grouped = client_.Get(res::kPods, "ns", "wf-step");
  ASSERT_TRUE(grouped.ok());
  EXPECT_EQ(kube::Annotation(*grouped, "pod-group-name"),
            "pg-wf-step-" + std::string(kube::Uid(pod)));
}

// As KAI's grouper: the top owner's labels and annotations, the pod's user
// where the owner names none, and which object the group stands for. The
// marks of vtenant's own components stay on the objects they mark.
TEST_F(PodGrouperTest, ThePodGroupCarriesItsTopOwnersLabelsAndAnnotations) {
  kube::Object job =
      Add(res::kJobs, "ns",
          kube::ToJson(kube::BuildJson(kube::JsonObject{
              {"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata",
               kube::JsonObject{
                   {"name", "etl"},
                   {"namespace", "ns"},
                   {"labels", kube::JsonObject{{"app", "etl"}, {"vtenant.io/tenant", "nlp"}}},
                   {"annotations", kube::JsonObject{{"owner-note", "nightly"},
                                                    {"vtenant.io/virtual-name", "etl"}}}}}})));
  kube::Object pod = CreatePod("etl-0", "n1", seconds(0), &job);
  kube::SetString(pod, {"metadata", "labels"}, "user", "alice");
  ASSERT_TRUE(client_.Update(res::kPods, "ns", pod).ok());
  ASSERT_TRUE(Eventually([&] {
    kube::ObjectPtr cached = pods_.cache().Get("ns/etl-0");
    return cached != nullptr && kube::Label(*cached, "user") == "alice";
  }));
  ASSERT_TRUE(grouper_.Reconcile("ns/etl-0").ok());
  Result<kube::Object> pg =
      client_.Get(res::kPodGroups, "ns", "pg-etl-" + std::string(kube::Uid(job)));
  ASSERT_TRUE(pg.ok()) << pg.status().ToString();
  EXPECT_EQ(kube::ToJson(*kube::Find(*pg, {"metadata", "labels"})),
            R"({"app":"etl","user":"alice"})");
  EXPECT_EQ(kube::Annotation(*pg, "owner-note"), "nightly");
  EXPECT_EQ(kube::Annotation(*pg, "vtenant.io/virtual-name"), std::nullopt);
  EXPECT_EQ(kube::Annotation(*pg, "kai.scheduler/top-owner-metadata"),
            "name: etl\nuid: " + std::string(kube::Uid(job)) +
                "\ngroup: batch\nversion: v1\nkind: Job\n");
}

// kai.scheduler/skip-podgrouper on the pod or an owner: its PodGroup is
// made elsewhere, and the grouper neither makes one nor names one.
TEST_F(PodGrouperTest, AWorkloadThatSkipsTheGrouperGetsNoGroup) {
  kube::Object job = Add(
      res::kJobs, "ns",
      kube::ToJson(kube::BuildJson(kube::JsonObject{
          {"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata",
           kube::JsonObject{
               {"name", "external"},
               {"namespace", "ns"},
               {"annotations", kube::JsonObject{{"kai.scheduler/skip-podgrouper", "true"}}}}}})));
  CreatePod("external-0", "n1", seconds(0), &job);
  ASSERT_TRUE(grouper_.Reconcile("ns/external-0").ok());
  EXPECT_EQ(GroupOf("external-0"), "");

  kube::Object bare = CreatePod("bare", "n1", seconds(0));
  kube::SetString(bare, {"metadata", "annotations"}, "kai.scheduler/skip-podgrouper", "true");
  ASSERT_TRUE(client_.Update(res::kPods, "ns", bare).ok());
  ASSERT_TRUE(Eventually([&] {
    kube::ObjectPtr cached = pods_.cache().Get("ns/bare");
    return cached != nullptr && kube::Annotation(*cached, "kai.scheduler/skip-podgrouper");
  }));
  ASSERT_TRUE(grouper_.Reconcile("ns/bare").ok());
  EXPECT_EQ(GroupOf("bare"), "");
  Result<kube::ObjectList> groups = client_.ListAll(res::kPodGroups, "ns");
  ASSERT_TRUE(groups.ok());
  EXPECT_TRUE(groups->items.empty());
}

TEST_F(PodGrouperTest, AnOwnerThatGivesNoMinMemberIsReportedOnThePod) {
  kube::Object job = Add(kPyTorchJobs, "ns", R"({"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob",
      "metadata":{"name":"train","namespace":"ns"},"spec":{"pytorchReplicaSpecs":{"Worker":{}}}})");
  CreatePod("w-0", "", seconds(0), &job);
  Result<kube::ReconcileResult> r = grouper_.Reconcile("ns/w-0");
  EXPECT_FALSE(r.ok()) << "retried with backoff";
  EXPECT_EQ(GroupOf("w-0"), "");
  const std::string message = GrouperWarning();
  EXPECT_NE(message.find("Worker.replicas"), std::string::npos) << message;
}

TEST_F(PodGrouperTest, AKubeflowJobsPodsShareOneGangOfAllReplicas) {
  kube::Object job = Add(kPyTorchJobs, "ns", R"({"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob",
      "metadata":{"name":"train","namespace":"ns"},"spec":{"pytorchReplicaSpecs":{
      "Master":{"replicas":1},"Worker":{"replicas":2}}}})");
  for (const char* name : {"master-0", "worker-0", "worker-1"}) {
    CreatePod(name, "", seconds(0), &job);
    ASSERT_TRUE(grouper_.Reconcile(std::string("ns/") + name).ok());
  }
  const std::string group = "pg-train-" + std::string(kube::Uid(job));
  for (const char* name : {"master-0", "worker-0", "worker-1"}) EXPECT_EQ(GroupOf(name), group);
  Result<kube::Object> pg = client_.Get(res::kPodGroups, "ns", group);
  ASSERT_TRUE(pg.ok());
  EXPECT_EQ(kube::GetInt(*pg, {"spec", "minMember"}), 3);
  EXPECT_EQ(kube::GetString((*pg)["metadata"]["ownerReferences"][0], {"kind"}), "PyTorchJob");
}

// A JobSet: one group of its replicas, as KAI's newest grouper makes it
// (kai/jobset_gang.h), and each pod labelled with its replica's sub-group.
TEST_F(PodGrouperTest, AJobSetsPodsJoinTheirReplicasSubGroups) {
  kube::Object jobset = Add(kJobSets, "ns", R"({"apiVersion":"jobset.x-k8s.io/v1alpha2",
      "kind":"JobSet","metadata":{"name":"train","namespace":"ns"},"spec":{"replicatedJobs":[
      {"name":"w","replicas":2,"template":{"spec":{"parallelism":1}}}]}})");
  for (const char* index : {"0", "1"}) {
    const std::string name = std::string("w-") + index;
    AddPod(name, {.labels = {{"jobset.sigs.k8s.io/replicatedjob-name", "w"},
                             {"jobset.sigs.k8s.io/job-index", index}},
                  .owner = &jobset});
    ASSERT_TRUE(grouper_.Reconcile("ns/" + name).ok());
    Result<kube::Object> pod = client_.Get(res::kPods, "ns", name);
    ASSERT_TRUE(pod.ok());
    EXPECT_EQ(kube::Label(*pod, "kai.scheduler/subgroup-name"), "w-replica-" + std::string(index));
  }
  const std::string group = "pg-train-" + std::string(kube::Uid(jobset));
  EXPECT_EQ(GroupOf("w-0"), group);
  Result<kube::Object> pg = client_.Get(res::kPodGroups, "ns", group);
  ASSERT_TRUE(pg.ok());
  EXPECT_EQ(kube::GetInt(*pg, {"spec", "minSubGroup"}), 1);
  EXPECT_EQ(kube::Find(*pg, {"spec", "minMember"}), nullptr);
  EXPECT_TRUE(kai::ReadPodGroupSpec(*pg).ok()) << kube::ToJson(*pg);
}

// A group made before its kind had sub-groups (a PyTorchJob's, grouped
// flat) keeps none: a new pod joins it unlabelled, so the running pods,
// which carry no sub-group label, stay counted in it.
TEST_F(PodGrouperTest, AGroupMadeWithoutSubGroupsKeepsNone) {
  kube::Object job = Add(kPyTorchJobs, "ns", R"({"apiVersion":"kubeflow.org/v1",
      "kind":"PyTorchJob","metadata":{"name":"old","namespace":"ns"},"spec":{
      "pytorchReplicaSpecs":{"Master":{"replicas":1},"Worker":{"replicas":1}}}})");
  const std::string group = "pg-old-" + std::string(kube::Uid(job));
  Add(res::kPodGroups, "ns",
      R"({"apiVersion":"scheduling.run.ai/v2alpha2","kind":"PodGroup",
      "metadata":{"name":")" +
          group + R"(","namespace":"ns"},
      "spec":{"minMember":2,"queue":"team"}})");
  AddPod("old-worker-0", {.labels = {{"training.kubeflow.org/replica-type", "worker"},
                                     {"training.kubeflow.org/replica-index", "0"}},
                          .owner = &job});
  ASSERT_TRUE(grouper_.Reconcile("ns/old-worker-0").ok());
  EXPECT_EQ(GroupOf("old-worker-0"), group);
  Result<kube::Object> pod = client_.Get(res::kPods, "ns", "old-worker-0");
  ASSERT_TRUE(pod.ok());
  EXPECT_EQ(kube::Label(*pod, "kai.scheduler/subgroup-name"), std::nullopt);
  Result<kube::Object> pg = client_.Get(res::kPodGroups, "ns", group);
  ASSERT_TRUE(pg.ok());
  EXPECT_EQ(kube::Find(*pg, {"spec", "subGroups"}), nullptr);
}

// A LeaderWorkerSet, made as its controller makes it: a StatefulSet of
// leaders, and per leader pod a StatefulSet of workers owned by that pod.
// Leader and worker join one group for their replica group, each in its
// sub-group, as KAI's grouper makes it (kai/leader_worker_set_gang.h).
// Under startupPolicy LeaderReady the group first asks for its unbound
// leader alone, and for the whole group once the worker comes: the
// existing group follows the later pod's plan.
TEST_F(PodGrouperTest, ALeaderWorkerSetsLeaderAndWorkersJoinOneGroup) {
  kube::Object lws = Add(kLeaderWorkerSets, "ns", R"({"apiVersion":"leaderworkerset.x-k8s.io/v1",
      "kind":"LeaderWorkerSet","metadata":{"name":"serve","namespace":"ns"},
      "spec":{"replicas":1,"startupPolicy":"LeaderReady","leaderWorkerTemplate":{"size":2}}})");
  auto statefulset = [&](const std::string& name, const kube::Object& owner) {
    return Add(res::kStatefulSets, "ns",
               kube::ToJson(kube::BuildJson(kube::JsonObject{
                   {"apiVersion", "apps/v1"},
                   {"kind", "StatefulSet"},
                   {"metadata", kube::JsonObject{{"name", name},
                                                 {"namespace", "ns"},
                                                 {"ownerReferences", ControlledBy(owner)}}},
                   {"spec", kube::JsonObject{{"replicas", 1}}}})));
  };
  auto pod = [&](const std::string& name, const std::string& worker, const kube::Object& owner) {
    return AddPod(name, {.labels = {{"leaderworkerset.sigs.k8s.io/group-index", "0"},
                                    {"leaderworkerset.sigs.k8s.io/worker-index", worker}},
                         .owner = &owner});
  };
  const std::string group = "pg-serve-" + std::string(kube::Uid(lws)) + "-group-0";
  auto group_spec = [&] {
    Result<kube::Object> pg = client_.Get(res::kPodGroups, "ns", group);
    return pg.ok() ? kube::ToJson((*pg)["spec"]) : pg.status().ToString();
  };
  auto group_and_label = [&](const std::string& name, const std::string& sub_group) {
    ASSERT_TRUE(grouper_.Reconcile("ns/" + name).ok());
    EXPECT_EQ(GroupOf(name), group) << name;
    Result<kube::Object> labelled = client_.Get(res::kPods, "ns", name);
    ASSERT_TRUE(labelled.ok());
    EXPECT_EQ(kube::Label(*labelled, "kai.scheduler/subgroup-name"), sub_group);
  };
  kube::Object leader = pod("serve-0", "0", statefulset("serve", lws));
  group_and_label("serve-0", "leader");
  EXPECT_NE(group_spec().find(R"("minMember":1,"subGroups":[{"name":"leader","minMember":1}])"),
            std::string::npos)
      << group_spec();

  pod("serve-0-1", "1", statefulset("serve-0", leader));
  group_and_label("serve-0-1", "workers");
  Result<kube::Object> pg = client_.Get(res::kPodGroups, "ns", group);
  ASSERT_TRUE(pg.ok());
  EXPECT_EQ(kube::GetInt(*pg, {"spec", "minMember"}), 2);
  EXPECT_EQ(kube::ToJson((*pg)["spec"]["subGroups"]),
            R"([{"name":"leader","minMember":1},{"name":"workers","minMember":1}])");
  EXPECT_EQ(kube::GetString((*pg)["metadata"]["ownerReferences"][0], {"kind"}), "LeaderWorkerSet");
  EXPECT_TRUE(kai::ReadPodGroupSpec(*pg).ok()) << kube::ToJson(*pg);
}

// A Grove PodCliqueSet's pods are grouped by the PodGang Grove wrote for
// them, as KAI's grove grouper groups them: one group of the PodGang, a
// sub-group per podgroup, each pod in the one that lists it.
TEST_F(PodGrouperTest, AGroveWorkloadsPodsJoinTheirPodGangsGroup) {
  kube::Object set = Add(kPodCliqueSets, "ns", R"({"apiVersion":"grove.io/v1alpha1",
      "kind":"PodCliqueSet","metadata":{"name":"serve","namespace":"ns",
      "labels":{"kai.scheduler/preemptibility":"non-preemptible"}},"spec":{}})");
  kube::Object clique =
      Add(kPodCliques, "ns",
          kube::ToJson(kube::BuildJson(kube::JsonObject{
              {"apiVersion", "grove.io/v1alpha1"},
              {"kind", "PodClique"},
              {"metadata", kube::JsonObject{{"name", "serve-0-decode"},
                                            {"namespace", "ns"},
                                            {"ownerReferences", ControlledBy(set)}}},
              {"spec", kube::JsonObject{}}})));
  auto pod = [&](const std::string& name, std::optional<std::string> gang) {
    kube::JsonObject labels{{"kai.scheduler/queue", "team"}};
    if (gang) labels.Set("grove.io/podgang", *gang);
    AddPod(name, {.labels = std::move(labels), .owner = &clique});
  };

  // Until Grove has written the PodGang, the pod waits (retried).
  pod("serve-0-decode-0", "serve-0");
  EXPECT_FALSE(grouper_.Reconcile("ns/serve-0-decode-0").ok());
  EXPECT_EQ(GroupOf("serve-0-decode-0"), "");

  kube::Object gang = Add(kPodGangs, "ns", R"({"apiVersion":"scheduler.grove.io/v1alpha1",
      "kind":"PodGang","metadata":{"name":"serve-0","namespace":"ns"},"spec":{
      "priorityClassName":"inference","podgroups":[
      {"name":"serve-0-prefill","minReplicas":1,"podReferences":[
        {"namespace":"ns","name":"serve-0-prefill-0"}]},
      {"name":"serve-0-decode","minReplicas":2,"podReferences":[
        {"namespace":"ns","name":"serve-0-decode-0"},{"namespace":"ns","name":"serve-0-decode-1"}]}]}})");
  ASSERT_TRUE(grouper_.Reconcile("ns/serve-0-decode-0").ok());
  const std::string group = "pg-serve-0-" + std::string(kube::Uid(gang));
  EXPECT_EQ(GroupOf("serve-0-decode-0"), group);
  Result<kube::Object> labelled = client_.Get(res::kPods, "ns", "serve-0-decode-0");
  ASSERT_TRUE(labelled.ok());
  EXPECT_EQ(kube::Label(*labelled, "kai.scheduler/subgroup-name"), "serve-0-decode");
  Result<kube::Object> pg = client_.Get(res::kPodGroups, "ns", group);
  ASSERT_TRUE(pg.ok());
  EXPECT_EQ(kube::GetInt(*pg, {"spec", "minMember"}), 3);
  EXPECT_EQ(
      kube::ToJson((*pg)["spec"]["subGroups"]),
      R"([{"name":"serve-0-prefill","minMember":1},{"name":"serve-0-decode","minMember":2}])");
  EXPECT_EQ(kube::GetString(*pg, {"spec", "priorityClassName"}), "inference");
  EXPECT_EQ(kube::GetString(*pg, {"spec", "preemptibility"}), "non-preemptible");
  EXPECT_EQ(kube::GetString(*pg, {"spec", "queue"}), "team");
  EXPECT_EQ(kube::GetString((*pg)["metadata"]["ownerReferences"][0], {"kind"}), "PodGang");
  EXPECT_TRUE(kai::ReadPodGroupSpec(*pg).ok()) << kube::ToJson(*pg);

  // A pod of the workload that names no PodGang is told so.
  pod("serve-0-decode-x", std::nullopt);
  EXPECT_FALSE(grouper_.Reconcile("ns/serve-0-decode-x").ok());
  const std::string message = GrouperWarning();
  EXPECT_NE(message.find("grove.io/podgang"), std::string::npos) << message;
}

}  // namespace
}  // namespace vtenant::scheduler
