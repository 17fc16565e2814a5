// The PodGroup planned for a pod, by the kind of its top owner, as KAI's
// pod-grouper plugins plan it.
#include "scheduler/grouping_rules.h"

#include <gtest/gtest.h>

#include "kube/json_builder.h"
#include "scheduler/testing/fake_cluster.h"

namespace vtenant::scheduler {
namespace {

using testing::Json;

constexpr char kPod[] = R"({"metadata":{"name":"w-0","namespace":"ns","uid":"pod-uid",
    "labels":{"kai.scheduler/queue":"pod-queue"}},"spec":{}})";

// An owner "top" of kind `kind`, as JSON text; `spec`, `labels` and
// `annotations` are JSON objects.
std::string Owner(const std::string& api, const std::string& kind, const std::string& spec,
                  const std::string& labels = "{}", const std::string& annotations = "{}") {
  return kube::ToJson(kube::BuildJson(kube::JsonObject{
      {"apiVersion", api},
      {"kind", kind},
      {"metadata", kube::JsonObject{{"name", "top"},
                                    {"namespace", "ns"},
                                    {"uid", "top-uid"},
                                    {"labels", kube::JsonValue(Json(labels))},
                                    {"annotations", kube::JsonValue(Json(annotations))}}},
      {"spec", kube::JsonValue(Json(spec))}}));
}

struct Case {
  std::string what;
  std::vector<std::string> owners;  // nearest first
  std::string name;                 // expected PodGroup name
  int32_t min_member = 1;
  std::string owner_kind;
  std::string priority_class = "train";
  bool launcher_exists = false;
};

// A JobSet: one PodGroup with a parent sub-group per replicatedJob and a
// leaf per replica (kai/jobset_gang.h), minSubGroup in place of minMember.
TEST(GroupingRulesTest, AJobSetIsOneGroupOfReplicaSubGroups) {
  const kube::Object pod = Json(R"({"metadata":{"name":"w-0","namespace":"ns","uid":"pod-uid",
      "labels":{"jobset.sigs.k8s.io/replicatedjob-name":"workers",
                "jobset.sigs.k8s.io/job-index":"1"}},"spec":{}})");
  const kube::Object job = Json(Owner("batch/v1", "Job", R"({"parallelism":2})"));
  const kube::Object jobset = Json(Owner("jobset.x-k8s.io/v1alpha2", "JobSet",
                                         R"({"replicatedJobs":[{"name":"workers","replicas":2,
                                             "template":{"spec":{"parallelism":2}}}]})"));
  Result<GroupPlan> plan = PlanPodGroup({.pod = &pod, .owners = {&job, &jobset}});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->name, "pg-top-top-uid");
  EXPECT_EQ(plan->owner.kind, "JobSet");
  ASSERT_TRUE(plan->gang.has_value());
  EXPECT_EQ(plan->gang->min_sub_group, 1);
  EXPECT_EQ(plan->gang->pod_sub_group, "workers-replica-1");
  EXPECT_EQ(plan->gang->sub_groups.size(), 3u);

  const kube::Object unlabelled = Json(kPod);
  EXPECT_FALSE(PlanPodGroup({.pod = &unlabelled, .owners = {&job, &jobset}}).ok())
      << "a pod the JobSet controller did not label belongs to no replica";
}

// A LeaderWorkerSet: one PodGroup per replica group, named with its group
// index, whose worker pods are owned through their leader pod
// (kai/leader_worker_set_gang.h).
TEST(GroupingRulesTest, ALeaderWorkerSetIsOneGroupPerLeaderAndItsWorkers) {
  const kube::Object worker = Json(R"({"metadata":{"name":"serve-1-2","namespace":"ns",
      "uid":"pod-uid","labels":{"leaderworkerset.sigs.k8s.io/group-index":"1",
                                "leaderworkerset.sigs.k8s.io/worker-index":"2"}},"spec":{}})");
  const kube::Object workers_sts = Json(Owner("apps/v1", "StatefulSet", R"({"replicas":3})"));
  const kube::Object leader = Json(Owner("v1", "Pod", "{}"));
  const kube::Object leaders_sts = Json(Owner("apps/v1", "StatefulSet", R"({"replicas":2})"));
  const kube::Object lws = Json(Owner("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet",
                                      R"({"replicas":2,"leaderWorkerTemplate":{"size":4}})"));
  Result<GroupPlan> plan =
      PlanPodGroup({.pod = &worker, .owners = {&workers_sts, &leader, &leaders_sts, &lws}});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->name, "pg-top-top-uid-group-1");
  EXPECT_EQ(plan->owner.kind, "LeaderWorkerSet");
  EXPECT_EQ(plan->min_member, 4);
  ASSERT_TRUE(plan->gang.has_value());
  EXPECT_FALSE(plan->gang->min_sub_group.has_value()) << "minMember, never both";
  EXPECT_EQ(plan->gang->pod_sub_group, "workers");
  EXPECT_EQ(plan->gang->sub_groups.size(), 2u);
}

// A Kubeflow Trainer TrainJob runs as a JobSet; KAI's grouper passes over
// it, so its pods are the JobSet's gang, with the TrainJob's labels where
// the JobSet has none of its own.
TEST(GroupingRulesTest, ATrainJobIsGroupedAsItsJobSet) {
  std::vector<kube::Object> owners;
  owners.push_back(Json(Owner("batch/v1", "Job", R"({"parallelism":1})")));
  owners.push_back(
      Json(Owner("jobset.x-k8s.io/v1alpha2", "JobSet",
                 R"({"replicatedJobs":[{"name":"node","replicas":2}]})", R"({"team":"jobset"})")));
  owners.push_back(Json(Owner("trainer.kubeflow.org/v1alpha1", "TrainJob", "{}",
                              R"({"kai.scheduler/queue":"research","team":"trainjob"})")));
  const kube::Object pod = Json(R"({"metadata":{"name":"node-0","namespace":"ns","uid":"u",
      "labels":{"jobset.sigs.k8s.io/replicatedjob-name":"node",
                "jobset.sigs.k8s.io/job-index":"0"}},"spec":{}})");
  kube::Object lone;
  EXPECT_EQ(&PassOverTopOwner(owners, pod, lone), &pod);
  ASSERT_EQ(owners.size(), 2u);
  Result<GroupPlan> plan = PlanPodGroup({.pod = &pod, .owners = {&owners[0], &owners[1]}});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->owner.kind, "JobSet");
  EXPECT_EQ(plan->queue, "research") << "the TrainJob's queue label";
  EXPECT_EQ(plan->labels["team"], "jobset") << "the JobSet's own label wins";
  ASSERT_TRUE(plan->gang.has_value());
  EXPECT_EQ(plan->gang->pod_sub_group, "node-replica-0");
}

// An Argo Workflow owns its steps' pods; KAI's grouper passes over it, so
// each step is a job of its own (as a bare pod's), with the Workflow's
// labels and annotations where the pod has none of its own.
TEST(GroupingRulesTest, EachStepOfAnArgoWorkflowIsAJobOfItsOwn) {
  std::vector<kube::Object> owners;
  owners.push_back(Json(Owner("argoproj.io/v1alpha1", "Workflow", "{}",
                              R"({"kai.scheduler/queue":"research","priorityClassName":"build"})",
                              R"({"kai.scheduler/topology":"dc",
                                  "kai.scheduler/topology-required-placement":"rack"})")));
  const kube::Object pod =
      Json(R"({"metadata":{"name":"w-0","namespace":"ns","uid":"pod-uid"},"spec":{}})");
  kube::Object lone;
  const rapidjson::Value& step = PassOverTopOwner(owners, pod, lone);
  EXPECT_TRUE(owners.empty());
  ASSERT_EQ(&step, &lone);
  Result<GroupPlan> plan = PlanPodGroup({.pod = &step});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->name, "pg-w-0-pod-uid");
  EXPECT_EQ(plan->owner.kind, "Pod");
  EXPECT_EQ(plan->min_member, 1);
  EXPECT_EQ(plan->queue, "research") << "the Workflow's queue label";
  EXPECT_EQ(plan->priority_class, "build");
  EXPECT_EQ(plan->topology, (kai::TopologyConstraint{"dc", "rack", ""}));
  EXPECT_EQ(kube::Label(pod, "kai.scheduler/queue"), std::nullopt) << "the pod itself is untouched";
}

// KAI groups a Knative Service's pods by Revision: its name, labels and
// min-scale, and the inference class by default (kai/knative.h).
TEST(GroupingRulesTest, AKnativeServicesPodsAreTheirRevisionsGroup) {
  std::vector<kube::Object> owners;
  owners.push_back(Json(R"({"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{
      "name":"rs","namespace":"ns","uid":"rs-uid"}})"));
  owners.push_back(Json(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{
      "name":"d","namespace":"ns","uid":"d-uid"}})"));
  owners.push_back(Json(R"({"apiVersion":"serving.knative.dev/v1","kind":"Revision","metadata":{
      "name":"llm-00002","namespace":"ns","uid":"rev-uid","labels":{"kai.scheduler/queue":"serve"},
      "annotations":{"autoscaling.knative.dev/min-scale":"3"}}})"));
  owners.push_back(Json(R"({"apiVersion":"serving.knative.dev/v1","kind":"Configuration",
      "metadata":{"name":"llm","namespace":"ns","uid":"cfg-uid"}})"));
  owners.push_back(Json(Owner("serving.knative.dev/v1", "Service", "{}",
                              R"({"kai.scheduler/queue":"ignored","team":"ksvc"})")));
  const kube::Object pod =
      Json(R"({"metadata":{"name":"p","namespace":"ns","uid":"pod-uid"},"spec":{}})");
  kube::Object lone;
  EXPECT_EQ(&PassOverTopOwner(owners, pod, lone), &pod);
  ASSERT_EQ(owners.size(), 3u) << "the owners above the Revision go";
  Result<GroupPlan> plan =
      PlanPodGroup({.pod = &pod, .owners = {&owners[0], &owners[1], &owners[2]}});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->name, "pg-llm-00002-rev-uid");
  EXPECT_EQ(plan->owner.kind, "Revision");
  EXPECT_EQ(plan->min_member, 3);
  EXPECT_EQ(plan->queue, "serve") << "the Revision's own label; the Service gives nothing";
  EXPECT_EQ(plan->priority_class, "inference");
  EXPECT_FALSE(plan->labels.contains("team"));

  // A Service no Revision of which owns the pod: KAI cannot group it.
  const kube::Object service = Json(Owner("serving.knative.dev/v1", "Service", "{}"));
  EXPECT_FALSE(PlanPodGroup({.pod = &pod, .owners = {&service}}).ok());
}

// A RayCluster's pods are one group with a sub-group for the head and one
// per worker group (kai/ray_gang.h); a RayJob's submitter, owned by no
// RayCluster, is its Job's (kai/top_owner.h).
TEST(GroupingRulesTest, ARayJobsClusterIsOneGroupAndItsSubmitterAnother) {
  const kube::Object cluster = Json(R"({"apiVersion":"ray.io/v1","kind":"RayCluster",
      "metadata":{"name":"rc","namespace":"ns","uid":"rc-uid"},
      "spec":{"workerGroupSpecs":[{"groupName":"gpu","replicas":2}]}})");
  const kube::Object job = Json(Owner("ray.io/v1", "RayJob", "{}"));
  const kube::Object worker = Json(R"({"metadata":{"name":"w","namespace":"ns","uid":"u",
      "labels":{"ray.io/group":"gpu"}},"spec":{}})");
  Result<GroupPlan> plan = PlanPodGroup({.pod = &worker, .owners = {&cluster, &job}});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->name, "pg-top-top-uid");
  EXPECT_EQ(plan->min_member, 3);
  ASSERT_TRUE(plan->gang.has_value());
  EXPECT_EQ(plan->gang->pod_sub_group, "gpu");
  EXPECT_EQ(plan->gang->sub_groups.size(), 2u);

  // The submitter, which no RayCluster owns: its Job's group, not the
  // cluster's, where it would belong to no sub-group.
  std::vector<kube::Object> owners;
  owners.push_back(Json(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"submit",
      "namespace":"ns","uid":"submit-uid"}})"));
  owners.push_back(Json(Owner("ray.io/v1", "RayJob", "{}", R"({"kai.scheduler/queue":"q"})")));
  const kube::Object submitter = Json(kPod);
  kube::Object lone;
  PassOverTopOwner(owners, submitter, lone);
  ASSERT_EQ(owners.size(), 1u);
  Result<GroupPlan> own = PlanPodGroup({.pod = &submitter, .owners = {&owners[0]}});
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  EXPECT_EQ(own->name, "pg-submit-submit-uid");
  EXPECT_EQ(own->queue, "q") << "the RayJob's queue label";
  EXPECT_FALSE(own->gang.has_value());
}

TEST(GroupingRulesTest, MinMemberNameAndOwnerByTopOwnerKind) {
  const std::string rs = R"({"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"rs",
      "namespace":"ns","uid":"rs-uid"},"spec":{"replicas":3}})";
  const std::string ray_cluster = R"({"apiVersion":"ray.io/v1","kind":"RayCluster","metadata":{
      "name":"rc","namespace":"ns","uid":"rc-uid"},"spec":{"workerGroupSpecs":[
      {"groupName":"a","replicas":3,"minReplicas":2},
      {"groupName":"b","replicas":2,"numOfHosts":2},
      {"groupName":"c","replicas":4,"suspended":true}]}})";
  const std::string mpi =
      R"({"launcherCreationPolicy":"WaitForWorkersReady","mpiReplicaSpecs":{"Launcher":{"replicas":1},"Worker":{"replicas":4}}})";
  for (
      const Case& c : std::vector<Case>{
          {"a bare pod", {}, "pg-w-0-pod-uid", 1, "Pod"},
          {"a Job: one group, its pods start as they fit",
           {Owner("batch/v1", "Job", R"({"parallelism":4})")},
           "pg-top-top-uid",
           1,
           "Job"},
          {"a Job that asks for a gang of 3",
           {Owner("batch/v1", "Job", R"({"parallelism":4})", "{}",
                  R"({"kai.scheduler/batch-min-member":"3"})")},
           "pg-top-top-uid",
           3,
           "Job"},
          {"a bare ReplicaSet", {rs}, "pg-rs-rs-uid", 1, "ReplicaSet"},
          {"a Deployment: one group per pod, owned by it",
           {rs, Owner("apps/v1", "Deployment", R"({"replicas":3})")},
           "pg-w-0-pod-uid",
           1,
           "Pod",
           "inference"},
          {"a StatefulSet",
           {Owner("apps/v1", "StatefulSet", R"({"replicas":3})")},
           "pg-top-top-uid",
           1,
           "StatefulSet"},
          {"a Kubeflow Notebook: interactive, class build",
           {Owner("kubeflow.org/v1", "Notebook", "{}")},
           "pg-top-top-uid",
           1,
           "Notebook",
           "build"},
          {"a SPOTRequest: class inference",
           {Owner("egx.nvidia.io/v1", "SPOTRequest", "{}")},
           "pg-top-top-uid",
           1,
           "SPOTRequest",
           "inference"},
          {"a PyTorchJob: master and workers",
           {Owner("kubeflow.org/v1", "PyTorchJob",
                  R"({"pytorchReplicaSpecs":{"Master":{"replicas":1},"Worker":{"replicas":3}}})")},
           "pg-top-top-uid",
           4,
           "PyTorchJob"},
          {"a PyTorchJob with elastic minReplicas",
           {Owner(
               "kubeflow.org/v1", "PyTorchJob",
               R"({"elasticPolicy":{"minReplicas":2},"pytorchReplicaSpecs":{"Worker":{"replicas":5}}})")},
           "pg-top-top-uid",
           2,
           "PyTorchJob"},
          {"a PyTorchJob with schedulingPolicy.minAvailable",
           {Owner(
               "kubeflow.org/v1", "PyTorchJob",
               R"({"runPolicy":{"schedulingPolicy":{"minAvailable":3}},"elasticPolicy":{"minReplicas":2},
                "pytorchReplicaSpecs":{"Worker":{"replicas":5}}})")},
           "pg-top-top-uid",
           3,
           "PyTorchJob"},
          {"a TFJob",
           {Owner(
               "kubeflow.org/v1", "TFJob",
               R"({"tfReplicaSpecs":{"Chief":{"replicas":1},"PS":{"replicas":2},"Worker":{"replicas":2}}})")},
           "pg-top-top-uid",
           5,
           "TFJob"},
          {"an XGBoostJob",
           {Owner("kubeflow.org/v1", "XGBoostJob",
                  R"({"xgbReplicaSpecs":{"Master":{"replicas":1},"Worker":{"replicas":2}}})")},
           "pg-top-top-uid",
           3,
           "XGBoostJob"},
          {"a JAXJob",
           {Owner("kubeflow.org/v1", "JAXJob", R"({"jaxReplicaSpecs":{"Worker":{"replicas":4}}})")},
           "pg-top-top-uid",
           4,
           "JAXJob"},
          {"an MPIJob whose launcher waits for the workers",
           {Owner("kubeflow.org/v2beta1", "MPIJob", mpi)},
           "pg-top-top-uid",
           4,
           "MPIJob"},
          {"an MPIJob whose launcher exists",
           {Owner("kubeflow.org/v2beta1", "MPIJob", mpi)},
           "pg-top-top-uid",
           5,
           "MPIJob",
           "train",
           true},
          {"a RayCluster: head + 2 + 2x2, suspended group left out",
           {ray_cluster},
           "pg-rc-rc-uid",
           7,
           "RayCluster"},
          {"a RayJob: counted on its RayCluster, priority from ray's label",
           {ray_cluster,
            Owner("ray.io/v1", "RayJob", "{}", R"({"ray.io/priority-class-name":"build"})")},
           "pg-top-top-uid",
           7,
           "RayJob",
           "build"},
      }) {
    SCOPED_TRACE(c.what);
    kube::Object pod = Json(kPod);
    std::vector<kube::Object> owners;
    for (const std::string& o : c.owners) owners.push_back(Json(o));
    GroupInputs in{.pod = &pod, .mpi_launcher_exists = c.launcher_exists};
    for (const kube::Object& o : owners) in.owners.push_back(&o);
    Result<GroupPlan> plan = PlanPodGroup(in);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    EXPECT_EQ(plan->name, c.name);
    EXPECT_EQ(plan->min_member, c.min_member);
    EXPECT_EQ(plan->owner.kind, c.owner_kind);
    EXPECT_EQ(plan->priority_class, c.priority_class);
    EXPECT_EQ(plan->queue, "pod-queue");
  }
}

TEST(GroupingRulesTest, QueueAndPriorityClassAsKaiPicksThem) {
  kube::Object pod =
      Json(R"({"metadata":{"name":"p","uid":"u","labels":{"kai.scheduler/queue":"q-pod",
      "priorityClassName":"from-pod-label"}},"spec":{}})");
  kube::Object job =
      Json(Owner("batch/v1", "Job", "{}",
                 R"({"kai.scheduler/queue":"q-top","priorityClassName":"from-top"})"));
  GroupInputs in{.pod = &pod, .owners = {&job}};
  Result<GroupPlan> plan = PlanPodGroup(in);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->queue, "q-top") << "the top owner's label comes first";
  EXPECT_EQ(plan->priority_class, "from-top");
  in.owners.clear();
  plan = PlanPodGroup(in);
  EXPECT_EQ(plan->queue, "q-pod");
  EXPECT_EQ(plan->priority_class, "from-pod-label");
  kube::SetString(pod, {"spec"}, "priorityClassName", "own");
  EXPECT_EQ(PlanPodGroup(in)->priority_class, "own") << "the pod's own class wins";
  kube::Object bare = Json(R"({"metadata":{"name":"p","uid":"u"},"spec":{}})");
  EXPECT_EQ(PlanPodGroup({.pod = &bare})->queue, "default-queue");
}

// KAI's topology annotations on the top owner become the group's
// topologyConstraint; a bare pod is its own top owner.
TEST(GroupingRulesTest, TopologyFromTheTopOwnersAnnotations) {
  const kube::Object pod = Json(kPod);
  const kube::Object job = Json(Owner("batch/v1", "Job", "{}", "{}",
                                      R"({"kai.scheduler/topology":"dc",)"
                                      R"("kai.scheduler/topology-required-placement":"rack",)"
                                      R"("kai.scheduler/topology-preferred-placement":"host"})"));
  Result<GroupPlan> plan = PlanPodGroup({.pod = &pod, .owners = {&job}});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->topology.topology, "dc");
  EXPECT_EQ(plan->topology.required_level, "rack");
  EXPECT_EQ(plan->topology.preferred_level, "host");
  const kube::Object bare = Json(R"({"metadata":{"name":"p","namespace":"ns","uid":"u",
      "annotations":{"kai.scheduler/topology-required-placement":"zone"}},"spec":{}})");
  plan = PlanPodGroup({.pod = &bare});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->topology.required_level, "zone");
  EXPECT_EQ(plan->topology.topology, "");
}

TEST(GroupingRulesTest, OnlyAPodWithNoControllerOwnerIsInTheGroupNamedAtItsBind) {
  EXPECT_TRUE(IsOwnGroupNamedAtBind("pg-w-0-u1", "w-0", "u1", false));
  EXPECT_FALSE(IsOwnGroupNamedAtBind("pg-w-0-u1", "w-0", "u1", true))
      << "a controller's pod is grouped with its owner, never named at bind";
  EXPECT_FALSE(IsOwnGroupNamedAtBind("pg-w-0-u2", "w-0", "u1", false))
      << "another pod's group, or one the author named alike";
  EXPECT_FALSE(IsOwnGroupNamedAtBind("team-gang", "w-0", "u1", false));
}

TEST(GroupingRulesTest, PreemptibilityFromTheFirstValidLabelTopOwnerFirst) {
  kube::Object pod = Json(R"({"metadata":{"name":"p","uid":"u",
      "labels":{"kai.scheduler/preemptibility":"preemptible"}},"spec":{}})");
  kube::Object rs = Json(Owner("apps/v1", "ReplicaSet", "{}",
                               R"({"kai.scheduler/preemptibility":"non-preemptible"})"));
  kube::Object top = Json(
      Owner("example.com/v1", "Trainer", "{}", R"({"kai.scheduler/preemptibility":"sometimes"})"));
  GroupInputs in{.pod = &pod, .owners = {&rs, &top}};
  EXPECT_EQ(PlanPodGroup(in)->preemptibility, "non-preemptible")
      << "an invalid value on the top owner is passed over; the next owner's wins over the pod's";
  in.owners = {&top};
  EXPECT_EQ(PlanPodGroup(in)->preemptibility, "preemptible") << "then the pod's own label";
  kube::Object plain = Json(R"({"metadata":{"name":"p","uid":"u"},"spec":{}})");
  EXPECT_EQ(PlanPodGroup({.pod = &plain})->preemptibility, "")
      << "no label: left to the priority, as KAI leaves it";
}

TEST(GroupingRulesTest, TimingsFromTheFirstValidAnnotationTopOwnerFirst) {
  kube::Object pod = Json(R"({"metadata":{"name":"p","uid":"u","annotations":{
      "kai.scheduler/preemption-delay":"10s","kai.scheduler/staleness-grace-period":"2m"}},
      "spec":{}})");
  kube::Object top = Json(Owner("batch/v1", "Job", "{}", "{}",
                                R"({"kai.scheduler/preemption-delay":"-30s",
                                    "kai.scheduler/staleness-grace-period":"-1s"})"));
  GroupInputs in{.pod = &pod, .owners = {&top}};
  const kai::WorkloadTimings timings = PlanPodGroup(in)->timings;
  EXPECT_EQ(timings.preemption_delay, "10s") << "a negative delay is passed over: the pod's";
  EXPECT_EQ(timings.staleness_grace_period, "-1s") << "a negative grace is valid: never";
  kube::Object plain = Json(R"({"metadata":{"name":"p","uid":"u"},"spec":{}})");
  EXPECT_EQ(PlanPodGroup({.pod = &plain})->timings, kai::WorkloadTimings{});
}

TEST(GroupingRulesTest, OwnersThatGiveNoMinMemberSayWhatToFix) {
  kube::Object pod = Json(kPod);
  struct Bad {
    std::string owner, says;
  };
  for (const Bad& b : std::vector<Bad>{
           {Owner("kubeflow.org/v1", "PyTorchJob", R"({"pytorchReplicaSpecs":{"Worker":{}}})"),
            "Worker.replicas"},
           {Owner("kubeflow.org/v1", "TFJob", "{}"), "spec.tfReplicaSpecs is missing"},
           {Owner("kubeflow.org/v2beta1", "MPIJob",
                  R"({"mpiReplicaSpecs":{"Worker":{"replicas":2}}})"),
            "Launcher is required"},
           {Owner("ray.io/v1", "RayJob", "{}"), "no RayCluster"},
           {Owner("batch/v1", "Job", "{}", "{}", R"({"kai.scheduler/batch-min-member":"two"})"),
            "Job top: annotation kai.scheduler/batch-min-member \"two\" must be"},
           {Owner("batch/v1", "Job", "{}", "{}", R"({"kai.scheduler/batch-min-member":"0"})"),
            "must be a whole number from 1"},
           {Owner("ray.io/v1", "RayCluster",
                  R"({"workerGroupSpecs":[{"replicas":1,"minReplicas":2}]})"),
            "minReplicas 2 above replicas 1"},
       }) {
    kube::Object owner = Json(b.owner);
    Result<GroupPlan> plan = PlanPodGroup({.pod = &pod, .owners = {&owner}});
    ASSERT_FALSE(plan.ok()) << b.owner;
    EXPECT_EQ(plan.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(plan.status().message().find(b.says), std::string::npos) << plan.status().ToString();
  }
}

}  // namespace
}  // namespace vtenant::scheduler
