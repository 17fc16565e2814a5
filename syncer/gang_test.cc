#include "syncer/gang.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "kai/names.h"
#include "kai/podgroup_spec.h"
#include "kube/json_builder.h"
#include "syncer/names.h"
#include "syncer/testing/test_objects.h"

namespace vtenant::syncer {
namespace {

using testing::Json;
using testing::NlpConfig;

class MapLookup : public ObjectLookup {
 public:
  void Add(const std::string& json) {
    auto obj = std::make_shared<kube::Object>(Json(json));
    objects_[std::string(kube::GetString(*obj, {"kind"})) + "/" + std::string(kube::Name(*obj))] =
        obj;
  }
  kube::ObjectPtr Get(std::string_view, std::string_view kind, std::string_view,
                      std::string_view name) override {
    auto it = objects_.find(std::string(kind) + "/" + std::string(name));
    return it == objects_.end() ? nullptr : it->second;
  }
  bool Knows(std::string_view, std::string_view kind) override { return kind != "Mystery"; }

 private:
  std::map<std::string, kube::ObjectPtr> objects_;
};

// Pod ml/p, whose controller is `kind` `name` of `api_version` (uid
// "<name>-uid"), with `annotations` (JSON text).
kube::Object PodOwnedBy(const std::string& api_version, const std::string& kind,
                        const std::string& name, const std::string& annotations = "{}") {
  const kube::JsonObject controller{{"apiVersion", api_version},
                                    {"kind", kind},
                                    {"name", name},
                                    {"uid", name + "-uid"},
                                    {"controller", true}};
  return kube::BuildJson(kube::JsonObject{
      {"metadata", kube::JsonObject{{"name", "p"},
                                    {"namespace", "ml"},
                                    {"annotations", kube::JsonValue(Json(annotations))},
                                    {"ownerReferences", kube::JsonArray{controller}}}}});
}

Result<std::optional<Gang>> GangFor(const kube::Object& pod, MapLookup& lookup) {
  return GangOf(pod, OwnerChain(pod, lookup), lookup, NlpConfig());
}

TEST(GangTest, BarePodHasNoGang) {
  MapLookup lookup;
  Result<std::optional<Gang>> gang = GangFor(Json(R"({"metadata":{"name":"p"}})"), lookup);
  ASSERT_TRUE(gang.ok());
  EXPECT_FALSE(*gang);
}

TEST(GangTest, PlainJobIsBatchScheduledLikeKai) {
  MapLookup lookup;
  lookup.Add(
      R"({"kind":"Job","metadata":{"name":"etl","uid":"etl-uid"},"spec":{"parallelism":4}})");
  Result<std::optional<Gang>> gang = GangFor(PodOwnedBy("batch/v1", "Job", "etl"), lookup);
  ASSERT_TRUE(gang.ok() && *gang);
  EXPECT_EQ((*gang)->min_member, 1);
  EXPECT_EQ((*gang)->host_name, WorkloadPodGroupName("etl", "etl-uid", "ml", "nlp"));
}

TEST(GangTest, JobAsksForAGangWithKaisAnnotation) {
  MapLookup lookup;
  lookup.Add(R"({"kind":"Job","metadata":{"name":"ddp","uid":"ddp-uid",
      "annotations":{"kai.scheduler/batch-min-member":"4"}}})");
  Result<std::optional<Gang>> gang = GangFor(PodOwnedBy("batch/v1", "Job", "ddp"), lookup);
  ASSERT_TRUE(gang.ok() && *gang);
  EXPECT_EQ((*gang)->min_member, 4);
  EXPECT_EQ((*gang)->owner.kind, "Job");
}

// A JobSet is one gang of its replicas, as KAI's newest grouper makes it
// (kai/jobset_gang.h): the host group carries minSubGroup and the replicas'
// sub-groups, never minMember, and the host pod its replica's sub-group
// label, whatever the virtual pod says.
TEST(GangTest, AJobSetIsOneGangOfItsReplicas) {
  MapLookup lookup;
  lookup.Add(R"({"kind":"Job","metadata":{"name":"train-w-1","uid":"j",
      "ownerReferences":[{"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","name":"train",
                          "uid":"js","controller":true}]}})");
  lookup.Add(R"({"kind":"JobSet","metadata":{"name":"train","uid":"js"},"spec":{
      "replicatedJobs":[{"name":"w","replicas":2,"template":{"spec":{"parallelism":2}}}]}})");
  kube::Object pod = PodOwnedBy("batch/v1", "Job", "train-w-1");
  kube::SetString(pod, {"metadata", "labels"}, kai::kJobSetReplicatedJobLabel, "w");
  kube::SetString(pod, {"metadata", "labels"}, kai::kJobSetJobIndexLabel, "1");
  kube::SetString(pod, {"metadata", "labels"}, kai::kSubGroupLabel, "w-replica-0");
  Result<std::optional<Gang>> gang = GangFor(pod, lookup);
  ASSERT_TRUE(gang.ok() && *gang) << gang.status().ToString();
  EXPECT_EQ((*gang)->owner.kind, "JobSet");
  EXPECT_EQ((*gang)->min_sub_group, 1);
  EXPECT_EQ((*gang)->pod_sub_group, "w-replica-1");
  const kube::Object host = PodGroupToHost(**gang, "ml", "", NlpConfig());
  EXPECT_EQ(kube::GetInt(host, {"spec", "minSubGroup"}), 1);
  EXPECT_EQ(kube::Find(host, {"spec", "minMember"}), nullptr);
  EXPECT_EQ(kube::ToJson(*kube::Find(host, {"spec", "subGroups"})),
            R"([{"name":"w","minSubGroup":2},{"name":"w-replica-0","parent":"w","minMember":2},)"
            R"({"name":"w-replica-1","parent":"w","minMember":2}])");
  // The group is read by the rules the host scheduler reads it with.
  EXPECT_TRUE(kai::ReadPodGroupSpec(host).ok());

  kube::Object unlabelled = PodOwnedBy("batch/v1", "Job", "train-w-1");
  EXPECT_EQ(GangFor(unlabelled, lookup).status().code(), StatusCode::kInvalidArgument);
}

// A LeaderWorkerSet is one gang per replica group, as KAI's grouper makes
// it (kai/leader_worker_set_gang.h); a worker is owned through its leader
// pod, and the chain reaches the LeaderWorkerSet through it.
TEST(GangTest, ALeaderWorkerSetIsOneGangPerLeaderAndItsWorkers) {
  MapLookup lookup;
  lookup.Add(R"({"kind":"StatefulSet","metadata":{"name":"serve-1","uid":"w-sts",
      "ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"serve-1","uid":"leader",
                          "controller":true}]}})");
  lookup.Add(R"({"kind":"Pod","metadata":{"name":"serve-1","uid":"leader",
      "ownerReferences":[{"apiVersion":"apps/v1","kind":"StatefulSet","name":"serve",
                          "uid":"l-sts","controller":true}]}})");
  lookup.Add(R"({"kind":"StatefulSet","metadata":{"name":"serve","uid":"l-sts",
      "ownerReferences":[{"apiVersion":"leaderworkerset.x-k8s.io/v1","kind":"LeaderWorkerSet",
                          "name":"serve","uid":"lws","controller":true}]}})");
  lookup.Add(R"({"kind":"LeaderWorkerSet","metadata":{"name":"serve","uid":"lws"},
      "spec":{"replicas":2,"leaderWorkerTemplate":{"size":3}}})");
  kube::Object worker = PodOwnedBy("apps/v1", "StatefulSet", "serve-1");
  kube::SetString(worker, {"metadata", "labels"}, kai::kLwsGroupIndexLabel, "1");
  kube::SetString(worker, {"metadata", "labels"}, kai::kLwsWorkerIndexLabel, "2");
  kube::SetString(worker, {"metadata", "labels"}, kai::kSubGroupLabel, "leader");
  Result<std::optional<Gang>> gang = GangFor(worker, lookup);
  ASSERT_TRUE(gang.ok() && *gang) << gang.status().ToString();
  EXPECT_EQ((*gang)->owner.kind, "LeaderWorkerSet");
  EXPECT_EQ((*gang)->host_name, WorkloadPodGroupName("serve-group-1", "lws", "ml", "nlp"));
  EXPECT_EQ((*gang)->min_member, 3);
  EXPECT_FALSE((*gang)->min_sub_group.has_value());
  EXPECT_EQ((*gang)->pod_sub_group, "workers") << "whatever the virtual pod says";
  const kube::Object host = PodGroupToHost(**gang, "ml", "", NlpConfig());
  EXPECT_EQ(kube::GetInt(host, {"spec", "minMember"}), 3);
  EXPECT_EQ(kube::ToJson(*kube::Find(host, {"spec", "subGroups"})),
            R"([{"name":"leader","minMember":1},{"name":"workers","minMember":2}])");
  EXPECT_TRUE(kai::ReadPodGroupSpec(host).ok());

  // The leader of the same group joins the same host group.
  kube::Object leader = PodOwnedBy("apps/v1", "StatefulSet", "serve");
  kube::SetString(leader, {"metadata", "labels"}, kai::kLwsGroupIndexLabel, "1");
  kube::SetString(leader, {"metadata", "labels"}, kai::kLwsWorkerIndexLabel, "0");
  Result<std::optional<Gang>> leaders = GangFor(leader, lookup);
  ASSERT_TRUE(leaders.ok() && *leaders) << leaders.status().ToString();
  EXPECT_EQ((*leaders)->host_name, (*gang)->host_name);
  EXPECT_EQ((*leaders)->pod_sub_group, "leader");
}

// A Kubeflow Trainer TrainJob runs as a JobSet; its pods are the JobSet's
// gang, as KAI's grouper passes over the TrainJob.
TEST(GangTest, ATrainJobsPodsAreItsJobSetsGang) {
  MapLookup lookup;
  lookup.Add(R"({"kind":"Job","metadata":{"name":"t-node-0","uid":"j",
      "ownerReferences":[{"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","name":"t",
                          "uid":"js","controller":true}]}})");
  lookup.Add(R"({"kind":"JobSet","metadata":{"name":"t","uid":"js",
      "ownerReferences":[{"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
                          "name":"t","uid":"tj","controller":true}]},"spec":{
      "replicatedJobs":[{"name":"node","replicas":2}]}})");
  lookup.Add(R"({"kind":"TrainJob","metadata":{"name":"t","uid":"tj"}})");
  kube::Object pod = PodOwnedBy("batch/v1", "Job", "t-node-0");
  kube::SetString(pod, {"metadata", "labels"}, kai::kJobSetReplicatedJobLabel, "node");
  kube::SetString(pod, {"metadata", "labels"}, kai::kJobSetJobIndexLabel, "0");
  Result<std::optional<Gang>> gang = GangFor(pod, lookup);
  ASSERT_TRUE(gang.ok() && *gang) << gang.status().ToString();
  EXPECT_EQ((*gang)->owner.kind, "JobSet");
  EXPECT_EQ((*gang)->host_name, WorkloadPodGroupName("t", "js", "ml", "nlp"));
  EXPECT_EQ((*gang)->pod_sub_group, "node-replica-0");
}

// KAI passes over an Argo Workflow: each step's pod is a job of its own, as
// a bare pod is, not one gang of the whole workflow; a Run:ai workload's
// pods are the workload it runs as.
TEST(GangTest, AnArgoWorkflowsStepsAreJobsOfTheirOwn) {
  MapLookup lookup;
  lookup.Add(R"({"kind":"Workflow","metadata":{"name":"wf","uid":"wf-uid"}})");
  Result<std::optional<Gang>> step =
      GangFor(PodOwnedBy("argoproj.io/v1alpha1", "Workflow", "wf"), lookup);
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  EXPECT_FALSE(*step);

  lookup.Add(R"({"kind":"PyTorchJob","metadata":{"name":"train","uid":"train-uid",
      "ownerReferences":[{"apiVersion":"run.ai/v2alpha1","kind":"DistributedWorkload",
                          "name":"train","uid":"dw","controller":true}]},
      "spec":{"pytorchReplicaSpecs":{"Master":{"replicas":1},"Worker":{"replicas":3}}}})");
  lookup.Add(R"({"kind":"DistributedWorkload","metadata":{"name":"train","uid":"dw"}})");
  Result<std::optional<Gang>> gang =
      GangFor(PodOwnedBy("kubeflow.org/v1", "PyTorchJob", "train"), lookup);
  ASSERT_TRUE(gang.ok() && *gang) << gang.status().ToString();
  EXPECT_EQ((*gang)->owner.kind, "PyTorchJob");
  EXPECT_EQ((*gang)->min_member, 4);
}

// A KubeRay cluster is one gang of its head and worker groups, counted on
// the RayCluster (kai/ray_gang.h), and a RayJob's cluster is the RayJob's
// gang; its submitter pod, which no RayCluster owns, is its Job's
// (kai/top_owner.h).
TEST(GangTest, ARayJobsClusterIsOneGangAndItsSubmitterAnother) {
  MapLookup lookup;
  lookup.Add(R"({"kind":"RayCluster","metadata":{"name":"rc","uid":"rc-uid",
      "ownerReferences":[{"apiVersion":"ray.io/v1","kind":"RayJob","name":"rj","uid":"rj-uid",
                          "controller":true}]},
      "spec":{"workerGroupSpecs":[{"groupName":"gpu","replicas":2}]}})");
  lookup.Add(R"({"kind":"RayJob","metadata":{"name":"rj","uid":"rj-uid",
      "labels":{"ray.io/priority-class-name":"build"}},"status":{"rayClusterName":"rc"}})");
  lookup.Add(R"({"kind":"Job","metadata":{"name":"rj-submit","uid":"rj-submit-uid",
      "ownerReferences":[{"apiVersion":"ray.io/v1","kind":"RayJob","name":"rj","uid":"rj-uid",
                          "controller":true}]}})");
  kube::Object worker = PodOwnedBy("ray.io/v1", "RayCluster", "rc");
  kube::SetString(worker, {"metadata", "labels"}, kai::kRayGroupLabel, "gpu");
  Result<std::optional<Gang>> gang = GangFor(worker, lookup);
  ASSERT_TRUE(gang.ok() && *gang) << gang.status().ToString();
  EXPECT_EQ((*gang)->owner.kind, "RayJob");
  EXPECT_EQ((*gang)->host_name, WorkloadPodGroupName("rj", "rj-uid", "ml", "nlp"));
  EXPECT_EQ((*gang)->min_member, 3) << "the head and two workers";
  EXPECT_EQ((*gang)->pod_sub_group, "gpu");
  EXPECT_EQ((*gang)->priority_class, "build") << "KubeRay's label, a class the tenant may use";
  const kube::Object host = PodGroupToHost(**gang, "ml", "", NlpConfig());
  EXPECT_EQ(kube::ToJson(*kube::Find(host, {"spec", "subGroups"})),
            R"([{"name":"headgroup","minMember":1},{"name":"gpu","minMember":2}])");
  EXPECT_TRUE(kai::ReadPodGroupSpec(host).ok());

  Result<std::optional<Gang>> submitter =
      GangFor(PodOwnedBy("batch/v1", "Job", "rj-submit"), lookup);
  ASSERT_TRUE(submitter.ok() && *submitter) << submitter.status().ToString();
  EXPECT_EQ((*submitter)->owner.kind, "Job");
  EXPECT_EQ((*submitter)->min_member, 1);
  EXPECT_TRUE((*submitter)->sub_groups.empty());

  // A class the tenant may not use is not taken from the label.
  MapLookup vip;
  vip.Add(R"({"kind":"RayCluster","metadata":{"name":"rc","uid":"rc-uid",
      "labels":{"ray.io/priority-class-name":"system-node-critical"}},"spec":{}})");
  Result<std::optional<Gang>> alone = GangFor(PodOwnedBy("ray.io/v1", "RayCluster", "rc"), vip);
  ASSERT_TRUE(alone.ok() && *alone) << alone.status().ToString();
  EXPECT_EQ((*alone)->priority_class, "");
}

// A Grove PodCliqueSet's pods are one gang of the PodGang Grove wrote for
// them (kai/grove_gang.h): the chain reaches the PodCliqueSet through the
// pod's PodClique, and the PodGang, which owns none of them, is read by the
// pod's label.
TEST(GangTest, AGroveWorkloadIsTheGangOfItsPodGang) {
  MapLookup lookup;
  lookup.Add(R"({"kind":"PodClique","metadata":{"name":"serve-0-decode","uid":"pc",
      "ownerReferences":[{"apiVersion":"grove.io/v1alpha1","kind":"PodCliqueSet","name":"serve",
                          "uid":"pcs","controller":true}]}})");
  lookup.Add(R"({"kind":"PodCliqueSet","metadata":{"name":"serve","uid":"pcs",
      "labels":{"kai.scheduler/preemptibility":"non-preemptible"}}})");
  kube::Object pod = PodOwnedBy("grove.io/v1alpha1", "PodClique", "serve-0-decode");
  EXPECT_EQ(GangFor(pod, lookup).status().code(), StatusCode::kInvalidArgument)
      << "a Grove pod without its PodGang's label";
  kube::SetString(pod, {"metadata", "labels"}, "grove.io/podgang", "serve-0");
  kube::SetString(pod, {"metadata", "labels"}, kai::kSubGroupLabel, "serve-0-prefill");
  EXPECT_EQ(GangFor(pod, lookup).status().code(), StatusCode::kFailedPrecondition)
      << "the PodGang not written yet";

  lookup.Add(R"({"kind":"PodGang","metadata":{"name":"serve-0","uid":"pg","namespace":"ml"},
      "spec":{"priorityClassName":"inference","podgroups":[
      {"name":"serve-0-prefill","minReplicas":1,"podReferences":[{"namespace":"ml","name":"x"}]},
      {"name":"serve-0-decode","minReplicas":2,"podReferences":[{"namespace":"ml","name":"p"}]}]}})");
  Result<std::optional<Gang>> gang = GangFor(pod, lookup);
  ASSERT_TRUE(gang.ok() && *gang) << gang.status().ToString();
  EXPECT_EQ((*gang)->owner.kind, "PodGang");
  EXPECT_EQ((*gang)->host_name, WorkloadPodGroupName("serve-0", "pg", "ml", "nlp"));
  EXPECT_EQ((*gang)->min_member, 3);
  EXPECT_EQ((*gang)->pod_sub_group, "serve-0-decode") << "the PodGang's, whatever the pod says";
  EXPECT_EQ((*gang)->priority_class, "inference");
  EXPECT_EQ((*gang)->preemptibility, "non-preemptible");
  const kube::Object host = PodGroupToHost(**gang, "ml", "", NlpConfig());
  EXPECT_EQ(
      kube::ToJson(*kube::Find(host, {"spec", "subGroups"})),
      R"([{"name":"serve-0-prefill","minMember":1},{"name":"serve-0-decode","minMember":2}])");
  EXPECT_EQ(kube::GetString(host, {"spec", "queue"}), "nlp");
  EXPECT_TRUE(kai::ReadPodGroupSpec(host).ok());

  // A PodGang that names another namespace's pods is refused, not followed.
  MapLookup reaching;
  reaching.Add(R"({"kind":"PodCliqueSet","metadata":{"name":"serve","uid":"pcs"}})");
  reaching.Add(R"({"kind":"PodGang","metadata":{"name":"serve-0","uid":"pg","namespace":"ml"},
      "spec":{"podgroups":[{"name":"a","minReplicas":1,"podReferences":[
        {"namespace":"ml","name":"p"},{"namespace":"other","name":"theirs"}]}]}})");
  kube::Object direct = PodOwnedBy("grove.io/v1alpha1", "PodCliqueSet", "serve");
  kube::SetString(direct, {"metadata", "labels"}, "grove.io/podgang", "serve-0");
  EXPECT_EQ(GangFor(direct, reaching).status().code(), StatusCode::kInvalidArgument);

  // Where the PodGang names no class or topology, the PodCliqueSet's label
  // and annotations do, as the host's grouper reads them.
  MapLookup from_workload;
  from_workload.Add(R"({"kind":"PodCliqueSet","metadata":{"name":"serve","uid":"pcs",
      "labels":{"priorityClassName":"build"},
      "annotations":{"kai.scheduler/topology":"dc",
      "kai.scheduler/topology-required-placement":"topology.kubernetes.io/zone"}}})");
  from_workload.Add(R"({"kind":"PodGang","metadata":{"name":"serve-0","uid":"pg","namespace":"ml"},
      "spec":{"podgroups":[{"name":"a","minReplicas":1,"podReferences":[
        {"namespace":"ml","name":"p"}]}]}})");
  gang = GangFor(direct, from_workload);
  ASSERT_TRUE(gang.ok() && *gang) << gang.status().ToString();
  EXPECT_EQ((*gang)->priority_class, "build");
  EXPECT_EQ((*gang)->topology_constraint,
            R"({"topology":"dc","requiredTopologyLevel":"topology.kubernetes.io/zone"})");
}

// A workload's host group made before its kind had sub-groups keeps none;
// one made with them, and a virtual PodGroup's, keep theirs.
TEST(GangTest, AHostGroupMadeWithoutSubGroupsKeepsNone) {
  Gang gang;
  gang.min_member = 2;
  gang.sub_groups = R"([{"name":"master","minMember":1},{"name":"worker","minMember":1}])";
  gang.pod_sub_group = "worker";
  const kube::Object flat = Json(R"({"spec":{"minMember":2}})");
  const kube::Object split = Json(R"({"spec":{"minMember":2,"subGroups":[]}})");

  Gang kept = gang;
  KeepHostGroupShape(kept, nullptr);
  EXPECT_EQ(kept.pod_sub_group, "worker") << "no host group yet: it is made with them";
  KeepHostGroupShape(kept, &split);
  EXPECT_EQ(kept.pod_sub_group, "worker");

  Gang legacy = gang;
  KeepHostGroupShape(legacy, &flat);
  EXPECT_TRUE(legacy.sub_groups.empty());
  EXPECT_EQ(legacy.pod_sub_group, "");
  EXPECT_EQ(legacy.min_member, 2);

  Gang virtual_group = gang;
  virtual_group.owner = {kPodGroupApiVersion, kai::kPodGroupKind, "g", "uid"};
  KeepHostGroupShape(virtual_group, &flat);
  EXPECT_EQ(virtual_group.pod_sub_group, "worker") << "a virtual PodGroup's group follows it";
}

TEST(GangTest, AWorkloadsTopologyAnnotationsBecomeItsGroupsConstraint) {
  MapLookup lookup;
  lookup.Add(R"({"kind":"Job","metadata":{"name":"ring","uid":"ring-uid",
      "annotations":{"kai.scheduler/topology":"dc",
      "kai.scheduler/topology-required-placement":"topology.kubernetes.io/zone"}}})");
  lookup.Add(R"({"kind":"Job","metadata":{"name":"etl","uid":"etl-uid"}})");
  Result<std::optional<Gang>> gang = GangFor(PodOwnedBy("batch/v1", "Job", "ring"), lookup);
  ASSERT_TRUE(gang.ok() && *gang);
  EXPECT_EQ((*gang)->topology_constraint,
            R"({"topology":"dc","requiredTopologyLevel":"topology.kubernetes.io/zone"})");
  gang = GangFor(PodOwnedBy("batch/v1", "Job", "etl"), lookup);
  ASSERT_TRUE(gang.ok() && *gang);
  EXPECT_EQ((*gang)->topology_constraint, "");
}

TEST(GangTest, MalformedMinMemberIsRefused) {
  MapLookup lookup;
  lookup.Add(R"({"kind":"Job","metadata":{"name":"ddp","uid":"u",
      "annotations":{"kai.scheduler/batch-min-member":"four"}}})");
  Result<std::optional<Gang>> gang = GangFor(PodOwnedBy("batch/v1", "Job", "ddp"), lookup);
  EXPECT_EQ(gang.status().code(), StatusCode::kInvalidArgument);
}

TEST(GangTest, OwnerNotSeenYetWaitsInsteadOfGuessing) {
  MapLookup lookup;
  Result<std::optional<Gang>> gang = GangFor(PodOwnedBy("batch/v1", "Job", "ddp"), lookup);
  EXPECT_EQ(gang.status().code(), StatusCode::kFailedPrecondition);
  // An owner of a kind nobody caches is not waited for.
  Result<std::optional<Gang>> other = GangFor(PodOwnedBy("example.com/v1", "Mystery", "m"), lookup);
  ASSERT_TRUE(other.ok() && *other);
  EXPECT_EQ((*other)->min_member, 1);
}

TEST(GangTest, CronJobRunsGroupByJob) {
  MapLookup lookup;
  lookup.Add(R"({"kind":"CronJob","metadata":{"name":"nightly","uid":"c"}})");
  lookup.Add(R"({"kind":"Job","metadata":{"name":"nightly-1","uid":"j1",
      "ownerReferences":[{"apiVersion":"batch/v1","kind":"CronJob","name":"nightly","uid":"c",
                          "controller":true}]}})");
  kube::Object pod = PodOwnedBy("batch/v1", "Job", "nightly-1");
  std::vector<kube::OwnerReference> chain = OwnerChain(pod, lookup);
  ASSERT_EQ(chain.size(), 2u);
  EXPECT_EQ(chain[1].kind, "CronJob");
  Result<std::optional<Gang>> gang = GangOf(pod, chain, lookup, NlpConfig());
  ASSERT_TRUE(gang.ok() && *gang);
  EXPECT_EQ((*gang)->owner.name, "nightly-1");
}

TEST(GangTest, DeploymentPodsGroupByReplicaSet) {
  MapLookup lookup;
  lookup.Add(R"({"kind":"Deployment","metadata":{"name":"web","uid":"d"}})");
  lookup.Add(R"({"kind":"ReplicaSet","metadata":{"name":"web-5d","uid":"rs",
      "ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"d",
                          "controller":true}]}})");
  Result<std::optional<Gang>> gang = GangFor(PodOwnedBy("apps/v1", "ReplicaSet", "web-5d"), lookup);
  ASSERT_TRUE(gang.ok() && *gang);
  EXPECT_EQ((*gang)->owner.kind, "ReplicaSet");
  EXPECT_EQ((*gang)->min_member, 1);
}

// KAI groups a Knative Service's pods by Revision, minMember the
// Revision's min-scale (kai/knative.h).
TEST(GangTest, AKnativeServicesPodsAreTheirRevisionsGang) {
  MapLookup lookup;
  lookup.Add(R"({"kind":"Service","metadata":{"name":"llm","uid":"ksvc"}})");
  lookup.Add(R"({"kind":"Configuration","metadata":{"name":"llm","uid":"cfg",
      "ownerReferences":[{"apiVersion":"serving.knative.dev/v1","kind":"Service","name":"llm",
                          "uid":"ksvc","controller":true}]}})");
  lookup.Add(R"({"kind":"Revision","metadata":{"name":"llm-00002","uid":"rev",
      "annotations":{"autoscaling.knative.dev/min-scale":"2"},
      "ownerReferences":[{"apiVersion":"serving.knative.dev/v1","kind":"Configuration",
                          "name":"llm","uid":"cfg","controller":true}]}})");
  lookup.Add(R"({"kind":"Deployment","metadata":{"name":"llm-00002-deployment","uid":"d",
      "ownerReferences":[{"apiVersion":"serving.knative.dev/v1","kind":"Revision",
                          "name":"llm-00002","uid":"rev","controller":true}]}})");
  lookup.Add(R"({"kind":"ReplicaSet","metadata":{"name":"llm-00002-deployment-7f","uid":"rs",
      "ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment",
                          "name":"llm-00002-deployment","uid":"d","controller":true}]}})");
  Result<std::optional<Gang>> gang =
      GangFor(PodOwnedBy("apps/v1", "ReplicaSet", "llm-00002-deployment-7f"), lookup);
  ASSERT_TRUE(gang.ok() && *gang) << gang.status().ToString();
  EXPECT_EQ((*gang)->owner.kind, "Revision");
  EXPECT_EQ((*gang)->host_name, WorkloadPodGroupName("llm-00002", "rev", "ml", "nlp"));
  EXPECT_EQ((*gang)->min_member, 2);
}

TEST(GangTest, PyTorchJobIsAGangOfAllReplicas) {
  MapLookup lookup;
  lookup.Add(R"({"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob","metadata":{"name":"bert",
      "uid":"pt"},"spec":{"pytorchReplicaSpecs":{"Master":{"replicas":1},"Worker":{"replicas":3}}}})");
  Result<std::optional<Gang>> gang =
      GangFor(PodOwnedBy("kubeflow.org/v1", "PyTorchJob", "bert"), lookup);
  ASSERT_TRUE(gang.ok() && *gang);
  EXPECT_EQ((*gang)->min_member, 4);
}

TEST(GangTest, PyTorchJobSchedulingPolicyWins) {
  MapLookup lookup;
  lookup.Add(R"({"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob","metadata":{"name":"bert",
      "uid":"pt"},"spec":{"runPolicy":{"schedulingPolicy":{"minAvailable":2}},
      "pytorchReplicaSpecs":{"Worker":{"replicas":8}}}})");
  Result<std::optional<Gang>> gang =
      GangFor(PodOwnedBy("kubeflow.org/v1", "PyTorchJob", "bert"), lookup);
  ASSERT_TRUE(gang.ok() && *gang);
  EXPECT_EQ((*gang)->min_member, 2);
}

TEST(GangTest, UnknownKubeflowJobWaits) {
  MapLookup lookup;
  Result<std::optional<Gang>> gang =
      GangFor(PodOwnedBy("kubeflow.org/v1", "PyTorchJob", "bert"), lookup);
  EXPECT_EQ(gang.status().code(), StatusCode::kFailedPrecondition);
}

// A kubeflow.org kind KAI does not gang is an owner like any other: one the
// lookup does not know (as VirtualLookup knows none outside
// kai/kubeflow_job.h's list) is waited for by no one.
TEST(GangTest, AKubeflowKindThatIsNoTrainingJobIsAnOwnerLikeAnyOther) {
  MapLookup lookup;
  Result<std::optional<Gang>> gang =
      GangFor(PodOwnedBy("kubeflow.org/v1", "Mystery", "lab"), lookup);
  ASSERT_TRUE(gang.ok()) << gang.status().ToString();
  ASSERT_TRUE(*gang);
  EXPECT_EQ((*gang)->min_member, 1);
}

TEST(GangTest, VirtualPodGroupBecomesTheHostOne) {
  MapLookup lookup;
  kube::Object pod = Json(R"({"metadata":{"name":"p","namespace":"ml",
      "annotations":{"pod-group-name":"team-gang"}}})");
  Result<std::optional<Gang>> waiting = GangFor(pod, lookup);
  EXPECT_EQ(waiting.status().code(), StatusCode::kFailedPrecondition);
  lookup.Add(R"({"kind":"PodGroup","metadata":{"name":"team-gang","uid":"pg"},
      "spec":{"minMember":3}})");
  Result<std::optional<Gang>> gang = GangFor(pod, lookup);
  ASSERT_TRUE(gang.ok() && *gang);
  EXPECT_EQ((*gang)->min_member, 3);
  EXPECT_EQ((*gang)->host_name, "team-gang-x-ml-x-nlp");
}

TEST(GangTest, HostPodGroupIsInTheTenantsQueue) {
  Gang gang{"pg-ddp-x-ml-x-nlp", 4, {"batch/v1", "Job", "ddp", "ddp-uid"}};
  kube::Object pg = PodGroupToHost(gang, "ml", "train", NlpConfig());
  EXPECT_EQ(kube::GetString(pg, {"apiVersion"}), "scheduling.run.ai/v2alpha2");
  EXPECT_EQ(kube::Name(pg), "pg-ddp-x-ml-x-nlp");
  EXPECT_EQ(kube::Namespace(pg), "vtenant-nlp");
  EXPECT_EQ(kube::GetInt(pg, {"spec", "minMember"}), 4);
  EXPECT_EQ(kube::GetString(pg, {"spec", "queue"}), "nlp");
  EXPECT_EQ(kube::GetString(pg, {"spec", "priorityClassName"}), "train");
  EXPECT_EQ(kube::Label(pg, kTenantLabel), "nlp");
  EXPECT_FALSE(kube::Find(pg, {"metadata", "ownerReferences"}));
  kube::Object no_class = PodGroupToHost(gang, "ml", "", NlpConfig());
  EXPECT_FALSE(kube::Find(no_class, {"spec", "priorityClassName"}));
}

TEST(GangTest, SubGroupsOfAVirtualPodGroupCrossVerbatim) {
  MapLookup lookup;
  lookup.Add(R"({"kind":"PodGroup","metadata":{"name":"lws","uid":"pg"},
      "spec":{"minMember":1,"subGroups":[{"minMember":1,"name":"leader"},
      {"minMember":2,"name":"workers","parent":null}]}})");
  kube::Object pod = Json(R"({"metadata":{"name":"p","namespace":"ml",
      "annotations":{"pod-group-name":"lws"},"labels":{"kai.scheduler/subgroup-name":"workers"}}})");
  Result<std::optional<Gang>> gang = GangFor(pod, lookup);
  ASSERT_TRUE(gang.ok() && *gang) << gang.status().ToString();
  kube::Object pg = PodGroupToHost(**gang, "ml", "", NlpConfig());
  const rapidjson::Value* sub = kube::Find(pg, {"spec", "subGroups"});
  ASSERT_TRUE(sub != nullptr && sub->IsArray());
  ASSERT_EQ(sub->Size(), 2u);
  EXPECT_EQ(kube::GetString((*sub)[1], {"name"}), "workers");
  EXPECT_EQ(kube::GetInt((*sub)[1], {"minMember"}), 2);
  EXPECT_EQ(kube::GetInt(pg, {"spec", "minMember"}), 1);
  // A group without sub-groups gets none on the host.
  Gang plain{"pg-ddp-x-ml-x-nlp", 4, {"batch/v1", "Job", "ddp", "ddp-uid"}};
  EXPECT_FALSE(kube::Find(PodGroupToHost(plain, "ml", "", NlpConfig()), {"spec", "subGroups"}));
}

// KAI's PodGroup webhook on the host refuses a leaf without minMember; the
// syncer refuses it first, in the same words, where the team sees it.
TEST(GangTest, AVirtualPodGroupKaisWebhookRefusesIsRefused) {
  kube::Object pg = Json(R"({"kind":"PodGroup","metadata":{"name":"g","uid":"pg"},
      "spec":{"subGroups":[{"name":"workers"}]}})");
  Result<Gang> gang = GangOfPodGroup(pg, "ml", NlpConfig());
  EXPECT_EQ(gang.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(gang.status().message().find("subgroup workers: minMember is required"),
            std::string::npos)
      << gang.status().ToString();
}

TEST(GangTest, VirtualPodGroupPriorityClassMustBeTheHosts) {
  kube::Object pg = Json(R"({"kind":"PodGroup","metadata":{"name":"g","uid":"pg"},
      "spec":{"minMember":2,"priorityClassName":"train"}})");
  Result<Gang> gang = GangOfPodGroup(pg, "ml", NlpConfig());
  ASSERT_TRUE(gang.ok()) << gang.status().ToString();
  EXPECT_EQ(gang->priority_class, "train");
  // The group's class wins over its first pod's.
  EXPECT_EQ(kube::GetString(PodGroupToHost(*gang, "ml", "build", NlpConfig()),
                            {"spec", "priorityClassName"}),
            "train");
  kube::SetString(pg, {"spec"}, "priorityClassName", "system-cluster-critical");
  gang = GangOfPodGroup(pg, "ml", NlpConfig());
  ASSERT_TRUE(gang.ok());
  EXPECT_EQ(gang->priority_class, "");
  kube::SetString(pg, {"spec"}, "priorityClassName", "vip");
  gang = GangOfPodGroup(pg, "ml", NlpConfig());
  EXPECT_EQ(gang.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(gang.status().message().find("vip"), std::string::npos);
}

TEST(GangTest, PodGroupUpdateBringsTheHostGroupLevelAndKeepsTheRest) {
  kube::Object virtual_pg = Json(R"({"kind":"PodGroup","metadata":{"name":"g","uid":"pg"},
      "spec":{"minMember":2,"subGroups":[{"name":"workers","minMember":2}]}})");
  Result<Gang> gang = GangOfPodGroup(virtual_pg, "ml", NlpConfig());
  ASSERT_TRUE(gang.ok());
  kube::Object host = PodGroupToHost(*gang, "ml", "", NlpConfig());
  EXPECT_TRUE(StandsForVirtualPodGroup(host));
  kube::SetString(host, {"metadata"}, "resourceVersion", "12");
  kube::SetString(host, {"status"}, "phase", "Running");
  EXPECT_FALSE(PodGroupUpdate(host, *gang, NlpConfig()));

  virtual_pg["spec"]["minMember"].SetInt64(4);
  virtual_pg["spec"].RemoveMember("subGroups");
  kube::SetString(virtual_pg, {"spec"}, "priorityClassName", "inference");
  gang = GangOfPodGroup(virtual_pg, "ml", NlpConfig());
  ASSERT_TRUE(gang.ok());
  kube::SetString(host, {"spec"}, "queue", "vision");  // someone wrote another queue
  std::optional<kube::Object> update = PodGroupUpdate(host, *gang, NlpConfig());
  ASSERT_TRUE(update);
  EXPECT_EQ(kube::GetInt(*update, {"spec", "minMember"}), 4);
  EXPECT_FALSE(kube::Find(*update, {"spec", "subGroups"}));
  EXPECT_EQ(kube::GetString(*update, {"spec", "priorityClassName"}), "inference");
  EXPECT_EQ(kube::GetString(*update, {"spec", "queue"}), "nlp");
  EXPECT_EQ(kube::ResourceVersion(*update), "12");
  EXPECT_EQ(kube::GetString(*update, {"status", "phase"}), "Running");

  // A Job's group is not a virtual PodGroup's.
  Gang job{"pg-ddp-x-ml-x-nlp", 4, {"batch/v1", "Job", "ddp", "ddp-uid"}};
  EXPECT_FALSE(StandsForVirtualPodGroup(PodGroupToHost(job, "ml", "", NlpConfig())));
}

TEST(GangTest, HostGroupOfAVirtualPodGroupHasItsPriorityClassOrNone) {
  kube::Object virtual_pg = Json(R"({"kind":"PodGroup","metadata":{"name":"g","uid":"pg"},
      "spec":{"minMember":2,"priorityClassName":"train"}})");
  Result<Gang> gang = GangOfPodGroup(virtual_pg, "ml", NlpConfig());
  ASSERT_TRUE(gang.ok()) << gang.status().ToString();
  kube::Object host = PodGroupToHost(*gang, "ml", "build", NlpConfig());
  ASSERT_EQ(kube::GetString(host, {"spec", "priorityClassName"}), "train");

  // The team removes it: so does the host group, whatever its pods say.
  virtual_pg["spec"].RemoveMember("priorityClassName");
  gang = GangOfPodGroup(virtual_pg, "ml", NlpConfig());
  ASSERT_TRUE(gang.ok());
  std::optional<kube::Object> update = PodGroupUpdate(host, *gang, NlpConfig());
  ASSERT_TRUE(update);
  EXPECT_FALSE(kube::Find(*update, {"spec", "priorityClassName"}));
  EXPECT_FALSE(PodGroupUpdate(*update, *gang, NlpConfig()));
  // Made without one, it has none either (not its first pod's).
  EXPECT_FALSE(
      kube::Find(PodGroupToHost(*gang, "ml", "build", NlpConfig()), {"spec", "priorityClassName"}));

  // A Job's group keeps the class its first pod gave it.
  Gang job{"pg-ddp-x-ml-x-nlp", 4, {"batch/v1", "Job", "ddp", "ddp-uid"}};
  kube::Object job_host = PodGroupToHost(job, "ml", "train", NlpConfig());
  EXPECT_FALSE(PodGroupUpdate(job_host, job, NlpConfig()));
}

TEST(GangTest, PreemptibilityAndMarkUnschedulableOfAVirtualPodGroupAreMirrored) {
  kube::Object virtual_pg = Json(R"({"kind":"PodGroup","metadata":{"name":"g","uid":"pg"},
      "spec":{"minMember":2,"queue":"vision","preemptibility":"non-preemptible",
              "markUnschedulable":false}})");
  Result<Gang> gang = GangOfPodGroup(virtual_pg, "ml", NlpConfig());
  ASSERT_TRUE(gang.ok()) << gang.status().ToString();
  kube::Object host = PodGroupToHost(*gang, "ml", "", NlpConfig());
  EXPECT_EQ(kube::GetString(host, {"spec", "preemptibility"}), "non-preemptible");
  const rapidjson::Value* mark = kube::Find(host, {"spec", "markUnschedulable"});
  ASSERT_TRUE(mark != nullptr && mark->IsBool());
  EXPECT_FALSE(mark->GetBool());
  EXPECT_EQ(kube::GetString(host, {"spec", "queue"}), "nlp");

  // Changed, then removed: the host group follows.
  kube::SetString(virtual_pg, {"spec"}, "preemptibility", "preemptible");
  virtual_pg["spec"]["markUnschedulable"].SetBool(true);
  gang = GangOfPodGroup(virtual_pg, "ml", NlpConfig());
  ASSERT_TRUE(gang.ok());
  std::optional<kube::Object> update = PodGroupUpdate(host, *gang, NlpConfig());
  ASSERT_TRUE(update);
  EXPECT_EQ(kube::GetString(*update, {"spec", "preemptibility"}), "preemptible");
  EXPECT_TRUE((*update)["spec"]["markUnschedulable"].GetBool());
  virtual_pg["spec"].RemoveMember("preemptibility");
  virtual_pg["spec"].RemoveMember("markUnschedulable");
  gang = GangOfPodGroup(virtual_pg, "ml", NlpConfig());
  ASSERT_TRUE(gang.ok());
  update = PodGroupUpdate(*update, *gang, NlpConfig());
  ASSERT_TRUE(update);
  EXPECT_FALSE(kube::Find(*update, {"spec", "preemptibility"}));
  EXPECT_FALSE(kube::Find(*update, {"spec", "markUnschedulable"}));

  // Values KAI does not know are refused, naming the field.
  kube::SetString(virtual_pg, {"spec"}, "preemptibility", "Semi-Preemptible");
  gang = GangOfPodGroup(virtual_pg, "ml", NlpConfig());
  EXPECT_EQ(gang.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(gang.status().message().find("spec.preemptibility"), std::string::npos);
  virtual_pg["spec"].RemoveMember("preemptibility");
  kube::SetString(virtual_pg, {"spec"}, "markUnschedulable", "yes");
  gang = GangOfPodGroup(virtual_pg, "ml", NlpConfig());
  EXPECT_EQ(gang.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(gang.status().message().find("spec.markUnschedulable"), std::string::npos);
}

// spec.preemptionDelay and spec.stalenessGracePeriod cross as written,
// follow changes, and a value KAI would refuse is refused naming the field.
TEST(GangTest, TimingsOfAVirtualPodGroupAreMirrored) {
  kube::Object virtual_pg = Json(R"({"kind":"PodGroup","metadata":{"name":"g","uid":"pg"},
      "spec":{"minMember":2,"preemptionDelay":"30s","stalenessGracePeriod":"-1s"}})");
  Result<Gang> gang = GangOfPodGroup(virtual_pg, "ml", NlpConfig());
  ASSERT_TRUE(gang.ok()) << gang.status().ToString();
  EXPECT_TRUE(gang->dropped.empty()) << "both are known fields";
  kube::Object host = PodGroupToHost(*gang, "ml", "", NlpConfig());
  EXPECT_EQ(kube::GetString(host, {"spec", "preemptionDelay"}), "30s");
  EXPECT_EQ(kube::GetString(host, {"spec", "stalenessGracePeriod"}), "-1s");

  virtual_pg["spec"].RemoveMember("stalenessGracePeriod");
  kube::SetString(virtual_pg, {"spec"}, "preemptionDelay", "2m");
  gang = GangOfPodGroup(virtual_pg, "ml", NlpConfig());
  ASSERT_TRUE(gang.ok());
  std::optional<kube::Object> update = PodGroupUpdate(host, *gang, NlpConfig());
  ASSERT_TRUE(update);
  EXPECT_EQ(kube::GetString(*update, {"spec", "preemptionDelay"}), "2m");
  EXPECT_FALSE(kube::Find(*update, {"spec", "stalenessGracePeriod"}));

  kube::SetString(virtual_pg, {"spec"}, "preemptionDelay", "-5s");
  gang = GangOfPodGroup(virtual_pg, "ml", NlpConfig());
  EXPECT_EQ(gang.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(gang.status().message().find("spec.preemptionDelay"), std::string::npos);
}

// A workload's timings come from KAI's annotations, first valid one of the
// owners top first, then the pod's, as KAI's pod grouper reads them.
TEST(GangTest, WorkloadTimingsAreReadFromKaisAnnotations) {
  MapLookup lookup;
  lookup.Add(R"({"kind":"Job","metadata":{"name":"ddp","uid":"ddp-uid",
      "annotations":{"kai.scheduler/preemption-delay":"soon",
                     "kai.scheduler/staleness-grace-period":"5m"}}})");
  kube::Object pod = PodOwnedBy("batch/v1", "Job", "ddp",
                                R"({"kai.scheduler/preemption-delay":"45s",
                                    "kai.scheduler/staleness-grace-period":"1m"})");
  Result<std::optional<Gang>> gang = GangFor(pod, lookup);
  ASSERT_TRUE(gang.ok() && *gang) << gang.status().ToString();
  EXPECT_EQ((*gang)->preemption_delay, "45s") << "the Job's is no duration: the pod's counts";
  EXPECT_EQ((*gang)->staleness_grace_period, "5m") << "the Job's comes first";
  kube::Object host = PodGroupToHost(**gang, "ml", "", NlpConfig());
  EXPECT_EQ(kube::GetString(host, {"spec", "preemptionDelay"}), "45s");
  EXPECT_EQ(kube::GetString(host, {"spec", "stalenessGracePeriod"}), "5m");
}

TEST(GangTest, WorkloadPreemptibilityLabelIsReadAsKaisPodGrouperReadsIt) {
  MapLookup lookup;
  lookup.Add(R"({"kind":"Job","metadata":{"name":"ddp","uid":"ddp-uid",
      "labels":{"kai.scheduler/preemptibility":"non-preemptible"}}})");
  kube::Object pod = PodOwnedBy("batch/v1", "Job", "ddp");
  kube::SetString(pod, {"metadata", "labels"}, kPreemptibilityLabel, "preemptible");
  Result<std::optional<Gang>> gang = GangFor(pod, lookup);
  ASSERT_TRUE(gang.ok() && *gang) << gang.status().ToString();
  EXPECT_EQ((*gang)->preemptibility, "non-preemptible") << "the workload's label comes first";
  EXPECT_EQ(
      kube::GetString(PodGroupToHost(**gang, "ml", "", NlpConfig()), {"spec", "preemptibility"}),
      "non-preemptible");

  // An invalid value on the Job is passed over, as KAI does: the pod's.
  MapLookup invalid;
  invalid.Add(R"({"kind":"Job","metadata":{"name":"ddp","uid":"ddp-uid",
      "labels":{"kai.scheduler/preemptibility":"sometimes"}}})");
  gang = GangFor(pod, invalid);
  ASSERT_TRUE(gang.ok() && *gang);
  EXPECT_EQ((*gang)->preemptibility, "preemptible");

  // None anywhere: none on the host group.
  MapLookup plain;
  plain.Add(R"({"kind":"Job","metadata":{"name":"ddp","uid":"ddp-uid"}})");
  gang = GangFor(PodOwnedBy("batch/v1", "Job", "ddp"), plain);
  ASSERT_TRUE(gang.ok() && *gang);
  EXPECT_EQ((*gang)->preemptibility, "");
  EXPECT_FALSE(
      kube::Find(PodGroupToHost(**gang, "ml", "", NlpConfig()), {"spec", "preemptibility"}));
}

// A team writes kai.scheduler/preemptibility on whichever object it owns:
// the Deployment, the CronJob, the JobSet, the Job, the pod template. The
// gang takes the first valid one of the owners, top first, then the pod's.
// (KAI's pod grouper, pkg/podgrouper/podgrouper/plugins/defaultgrouper
// calcPodGroupPreemptibilityWithDefaults, reads the owners it is handed,
// then the pod, and passes an invalid value over.)
TEST(GangTest, PreemptibilityComesFromWhicheverOwnerCarriesItTopFirst) {
  struct Row {
    const char* name;
    std::vector<std::string> objects;  // the owners, as the lookup holds them
    std::string pod;
    const char* group_owner;  // the kind the host group stands for
    const char* want;
  };
  const std::string rs_of_web = R"({"kind":"ReplicaSet","metadata":{"name":"web-5d","uid":"rs",
      "ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"d",
                          "controller":true}]}})";
  const std::string job_of_nightly = R"({"kind":"Job","metadata":{"name":"nightly-1","uid":"j1",
      "ownerReferences":[{"apiVersion":"batch/v1","kind":"CronJob","name":"nightly","uid":"c",
                          "controller":true}]}})";
  const std::string job_of_jobset = R"({"kind":"Job","metadata":{"name":"train-w-0","uid":"j2",
      "labels":{"kai.scheduler/preemptibility":"preemptible"},
      "ownerReferences":[{"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","name":"train",
                          "uid":"js","controller":true}]}})";
  // A JobSet's pod, labelled by the JobSet controller with its replica.
  kube::Object of_jobset = PodOwnedBy("batch/v1", "Job", "train-w-0");
  kube::SetString(of_jobset, {"metadata", "labels"}, kai::kJobSetReplicatedJobLabel, "w");
  kube::SetString(of_jobset, {"metadata", "labels"}, kai::kJobSetJobIndexLabel, "0");
  kube::Object labelled = PodOwnedBy("apps/v1", "ReplicaSet", "web-5d");
  kube::SetString(labelled, {"metadata", "labels"}, kPreemptibilityLabel, "preemptible");
  const std::string labelled_pod = kube::ToJson(labelled);
  // One row a place the label can stand (listed above): alike in form on
  // purpose, each row's objects are its own.
  std::vector<Row> rows = {
      {"on the Deployment, over the pod template's",
       {rs_of_web, R"({"kind":"Deployment","metadata":{"name":"web","uid":"d",
           "labels":{"kai.scheduler/preemptibility":"non-preemptible"}}})"},
       labelled_pod,
       "ReplicaSet",
       "non-preemptible"},
      {"an invalid one on the Deployment is passed over",
       {rs_of_web, R"({"kind":"Deployment","metadata":{"name":"web","uid":"d",
           "labels":{"kai.scheduler/preemptibility":"never"}}})"},
       labelled_pod,
       "ReplicaSet",
       "preemptible"},
      {"on the CronJob",
       {job_of_nightly, R"({"kind":"CronJob","metadata":{"name":"nightly","uid":"c",
           "labels":{"kai.scheduler/preemptibility":"preemptible"}}})"},
       kube::ToJson(PodOwnedBy("batch/v1", "Job", "nightly-1")),
       "Job",
       "preemptible"},
      {"on the JobSet, over its Job's",
       {job_of_jobset, R"({"kind":"JobSet","metadata":{"name":"train","uid":"js",
           "labels":{"kai.scheduler/preemptibility":"non-preemptible"}},
           "spec":{"replicatedJobs":[{"name":"w"}]}})"},
       kube::ToJson(of_jobset),
       "JobSet",
       "non-preemptible"},
      {"on the Job when the JobSet has none",
       {job_of_jobset, R"({"kind":"JobSet","metadata":{"name":"train","uid":"js"},
           "spec":{"replicatedJobs":[{"name":"w"}]}})"},
       kube::ToJson(of_jobset),
       "JobSet",
       "preemptible"},
      {"nowhere",
       {rs_of_web, R"({"kind":"Deployment","metadata":{"name":"web","uid":"d"}})"},
       kube::ToJson(PodOwnedBy("apps/v1", "ReplicaSet", "web-5d")),
       "ReplicaSet",
       ""},
  };
  // The Deployment not seen yet: its label may be the one that counts, so
  // the pod waits for it rather than start its gang without it.
  MapLookup without_top;
  without_top.Add(rs_of_web);
  EXPECT_EQ(GangFor(labelled, without_top).status().code(), StatusCode::kFailedPrecondition);
  for (const Row& row : rows) {
    MapLookup lookup;
    for (const std::string& object : row.objects) lookup.Add(object);
    Result<std::optional<Gang>> gang = GangFor(Json(row.pod), lookup);
    ASSERT_TRUE(gang.ok() && *gang) << row.name << ": " << gang.status().ToString();
    EXPECT_EQ((*gang)->owner.kind, row.group_owner) << row.name;
    EXPECT_EQ((*gang)->preemptibility, row.want) << row.name;
  }
}

}  // namespace
}  // namespace vtenant::syncer
