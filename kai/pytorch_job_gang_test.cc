// ReadPyTorchJobGang: the PodGroup KAI's pod grouper makes of a PyTorchJob,
// its minimum split between the master and the workers. The segment cases
// restate KAI's own grouper tests.
#include "kai/pytorch_job_gang.h"

#include <gtest/gtest.h>

#include "kai/object_fields.h"
#include "kube/object.h"
#include "kube/testing/json.h"

namespace vtenant::kai {
namespace {

using kube::Json;

// A PyTorchJob with `masters` and `workers` replicas; `more` is more of its
// spec, `worker_annotations` its Worker template's.
kube::Object Job(int masters, int workers, const std::string& more = "",
                 const std::string& worker_annotations = "{}") {
  std::string specs;
  if (masters >= 0) specs += R"("Master":{"replicas":)" + std::to_string(masters) + "}";
  if (workers >= 0) {
    specs += std::string(specs.empty() ? "" : ",") + R"("Worker":{"replicas":)" +
             std::to_string(workers) + R"(,"template":{"metadata":{"annotations":)" +
             worker_annotations + "}}}";
  }
  return Json(R"({"kind":"PyTorchJob","metadata":{"name":"ddp"},"spec":{)" + more +
              (more.empty() ? "" : ",") + R"("pytorchReplicaSpecs":{)" + specs + "}}}");
}

kube::Object Pod(const std::string& role, const std::string& index = "0") {
  return Json(R"({"metadata":{"name":"p","labels":{"training.kubeflow.org/replica-type":")" + role +
              R"(","training.kubeflow.org/replica-index":")" + index + R"("}}})");
}

GangSubGroup Leaf(const char* name, int32_t min, const char* parent = "") {
  return {name, parent, min, std::nullopt};
}

TEST(ReadPyTorchJobGangTest, TheMasterAndTheWorkers) {
  Result<SubGroupGang> gang = ReadPyTorchJobGang(Job(1, 3), Pod("worker", "2"));
  ASSERT_TRUE(gang.ok()) << gang.status().ToString();
  EXPECT_EQ(gang->min_member, 4);
  EXPECT_EQ(gang->sub_groups, (std::vector<GangSubGroup>{Leaf("master", 1), Leaf("worker", 3)}));
  EXPECT_EQ(gang->pod_sub_group, "worker");
  EXPECT_EQ(ReadPyTorchJobGang(Job(1, 3), Pod("master"))->pod_sub_group, "master");
  EXPECT_EQ(ReadPyTorchJobGang(Job(-1, 2), Pod("worker"))->sub_groups,
            (std::vector<GangSubGroup>{Leaf("worker", 2)}))
      << "no Master role: the workers alone";
}

// An elastic job may start with fewer pods; the master is one of them.
TEST(ReadPyTorchJobGangTest, AnElasticJobStartsWithItsMaster) {
  Result<SubGroupGang> two = ReadPyTorchJobGang(
      Job(1, 4, R"("elasticPolicy":{"minReplicas":2,"maxReplicas":5})"), Pod("master"));
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_EQ(two->min_member, 2);
  EXPECT_EQ(two->sub_groups, (std::vector<GangSubGroup>{Leaf("master", 1), Leaf("worker", 1)}));
  Result<SubGroupGang> one = ReadPyTorchJobGang(
      Job(1, 4, R"("runPolicy":{"schedulingPolicy":{"minAvailable":1}})"), Pod("master"));
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->sub_groups, (std::vector<GangSubGroup>{Leaf("master", 1), Leaf("worker", 0)}))
      << "the workers hold nothing back";
}

// Five workers in segments of two: worker-0 and worker-1 of two, worker-2
// of one; with 3 of the workers needed, the first two segments are.
TEST(ReadPyTorchJobGangTest, WorkersInSegments) {
  const kube::Object job = Job(1, 5, R"("runPolicy":{"schedulingPolicy":{"minAvailable":4}})",
                               R"({"kai.scheduler/segment-size":"2"})");
  Result<SubGroupGang> gang = ReadPyTorchJobGang(job, Pod("worker", "4"));
  ASSERT_TRUE(gang.ok()) << gang.status().ToString();
  EXPECT_EQ(gang->sub_groups, (std::vector<GangSubGroup>{Leaf("master", 1),
                                                         {"worker", "", std::nullopt, 3},
                                                         Leaf("worker-0", 2, "worker"),
                                                         Leaf("worker-1", 2, "worker"),
                                                         Leaf("worker-2", 0, "worker")}));
  EXPECT_EQ(gang->pod_sub_group, "worker-2");
  EXPECT_EQ(ReadPyTorchJobGang(job, Pod("worker", "1"))->pod_sub_group, "worker-0");
  // Every worker needed: the last segment holds the one left.
  const kube::Object workers_only = Job(-1, 5, "", R"({"kai.scheduler/segment-size":"2"})");
  Result<SubGroupGang> all = ReadPyTorchJobGang(workers_only, Pod("worker"));
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->sub_groups.back(), Leaf("worker-2", 1, "worker"));
  // The pod's own annotation wins over the template's.
  kube::Object annotated = Pod("worker", "3");
  kube::SetString(annotated, {"metadata", "annotations"}, "kai.scheduler/segment-size", "4");
  EXPECT_EQ(ReadPyTorchJobGang(workers_only, annotated)->pod_sub_group, "worker-0");
}

TEST(ReadPyTorchJobGangTest, EachSegmentTakesTheSegmentTopology) {
  const kube::Object job = Job(1, 4, "",
                               R"({"kai.scheduler/segment-size":"2",
                                   "kai.scheduler/topology":"dc",
                                   "kai.scheduler/segment-topology-required-placement":"rack"})");
  Result<SubGroupGang> gang = ReadPyTorchJobGang(job, Pod("worker", "3"));
  ASSERT_TRUE(gang.ok()) << gang.status().ToString();
  const TopologyConstraint rack{"dc", "rack", ""};
  ASSERT_EQ(gang->sub_groups.size(), 4u);
  EXPECT_EQ(gang->sub_groups[0].topology, TopologyConstraint{}) << "the master";
  EXPECT_EQ(gang->sub_groups[1].topology, TopologyConstraint{}) << "the workers' parent";
  EXPECT_EQ(gang->sub_groups[2].topology, rack);
  EXPECT_EQ(gang->sub_groups[3].topology, rack);
  // No Topology named anywhere: no constraint.
  const kube::Object unnamed = Job(
      1, 4, "",
      R"({"kai.scheduler/segment-size":"2","kai.scheduler/segment-topology-required-placement":"rack"})");
  EXPECT_EQ(ReadPyTorchJobGang(unnamed, Pod("worker"))->sub_groups[2].topology,
            TopologyConstraint{});
}

TEST(ReadPyTorchJobGangTest, RefusesWhatCannotBeAGang) {
  struct Case {
    kube::Object job;
    kube::Object pod;
    const char* says;
  };
  const Case cases[] = {
      {Json(R"({"kind":"PyTorchJob","metadata":{"name":"ddp"},"spec":{}})"), Pod("worker"),
       "pytorchReplicaSpecs is missing"},
      {Job(1, 2, "", R"({"kai.scheduler/segment-size":"0"})"), Pod("worker"),
       "\"0\" is not a whole number of at least 1"},
      {Job(1, 2, "", R"({"kai.scheduler/segment-size":"two"})"), Pod("worker"),
       "\"two\" is not a whole number"},
      {Job(1, 2, "", R"({"kai.scheduler/segment-size":"1"})"), Pod("worker", "7"),
       "names no worker of the job"},
      {Job(1, 2, "", R"({"kai.scheduler/segment-size":"1"})"),
       Json(R"({"metadata":{"labels":{"training.kubeflow.org/replica-type":"worker"}}})"),
       "names no worker of the job"},
  };
  for (const Case& c : cases) {
    Result<SubGroupGang> gang = ReadPyTorchJobGang(c.job, c.pod);
    ASSERT_FALSE(gang.ok()) << c.says;
    EXPECT_NE(gang.status().message().find(c.says), std::string::npos) << gang.status().message();
  }
}

}  // namespace
}  // namespace vtenant::kai
