// ReadRayClusterGang: the PodGroup KAI's pod grouper makes of a RayCluster,
// with a sub-group for the head and for each worker group.
#include "kai/ray_gang.h"

#include <gtest/gtest.h>

#include "kai/object_fields.h"
#include "kube/object.h"
#include "kube/testing/json.h"

namespace vtenant::kai {
namespace {

using kube::Json;

kube::Object Pod(const std::string& group) {
  return Json(R"({"metadata":{"name":"p","labels":{"ray.io/group":")" + group + R"("}}})");
}

TEST(ReadRayClusterGangTest, TheHeadAndEachWorkerGroupsMinimum) {
  const kube::Object cluster = Json(R"({"metadata":{"name":"rc"},"spec":{"workerGroupSpecs":[
      {"groupName":"cpu","replicas":3,"minReplicas":2},
      {"groupName":"gpu","replicas":2,"numOfHosts":2},
      {"groupName":"spare","replicas":4,"suspended":true},
      {"groupName":"none","replicas":0},
      {"replicas":1}]}})");
  Result<SubGroupGang> gang = ReadRayClusterGang(cluster, Pod("gpu"));
  ASSERT_TRUE(gang.ok()) << gang.status().ToString();
  EXPECT_EQ(gang->min_member, 1 + 2 + 4 + 1);
  EXPECT_FALSE(gang->min_sub_group.has_value());
  EXPECT_EQ(gang->sub_groups, (std::vector<GangSubGroup>{{"headgroup", "", 1, std::nullopt},
                                                         {"cpu", "", 2, std::nullopt},
                                                         {"gpu", "", 4, std::nullopt},
                                                         {"worker-group-4", "", 1, std::nullopt}}))
      << "a suspended group and one of no replicas are left out; a nameless one is numbered";
  EXPECT_EQ(gang->pod_sub_group, "gpu");
  EXPECT_EQ(ReadRayClusterGang(cluster, Pod("headgroup"))->pod_sub_group, "headgroup");
  EXPECT_EQ(ReadRayClusterGang(cluster, Pod("spare"))->pod_sub_group, "")
      << "a group the cluster does not run: the pod joins none";
  EXPECT_EQ(ReadRayClusterGang(cluster, Json(R"({"metadata":{"name":"p"}})"))->pod_sub_group, "");

  const kube::Object head_only = Json(R"({"metadata":{"name":"rc"},"spec":{}})");
  EXPECT_EQ(ReadRayClusterGang(head_only, Pod("headgroup"))->min_member, 1);
}

TEST(ReadRayClusterGangTest, RefusesMinReplicasAboveReplicas) {
  Result<SubGroupGang> gang =
      ReadRayClusterGang(Json(R"({"metadata":{"name":"rc"},"spec":{"workerGroupSpecs":[
          {"groupName":"gpu","replicas":1,"minReplicas":2}]}})"),
                         Pod("gpu"));
  ASSERT_FALSE(gang.ok());
  EXPECT_NE(gang.status().message().find("RayCluster rc: workerGroupSpecs[0] (gpu) has "
                                         "minReplicas 2 above replicas 1"),
            std::string::npos)
      << gang.status().message();
}

TEST(ReadRayClusterGangTest, EachGroupTakesItsTemplatesTopology) {
  const kube::Object cluster = Json(R"({"metadata":{"name":"rc"},"spec":{
      "headGroupSpec":{"template":{"metadata":{"annotations":{
          "kai.scheduler/topology":"dc","kai.scheduler/topology-preferred-placement":"rack"}}}},
      "workerGroupSpecs":[{"groupName":"gpu","replicas":2,"template":{"metadata":{"annotations":{
          "kai.scheduler/topology":"dc","kai.scheduler/topology-required-placement":"zone"}}}},
          {"groupName":"cpu","replicas":1}]}})");
  Result<SubGroupGang> gang = ReadRayClusterGang(cluster, Pod("gpu"));
  ASSERT_TRUE(gang.ok()) << gang.status().ToString();
  EXPECT_EQ(gang->sub_groups[0].topology, (TopologyConstraint{"dc", "", "rack"}));
  EXPECT_EQ(gang->sub_groups[1].topology, (TopologyConstraint{"dc", "zone", ""}));
  EXPECT_EQ(gang->sub_groups[2].topology, TopologyConstraint{});

  Result<SubGroupGang> unnamed =
      ReadRayClusterGang(Json(R"({"metadata":{"name":"rc"},"spec":{"workerGroupSpecs":[
          {"groupName":"gpu","replicas":1,"template":{"metadata":{"annotations":{
              "kai.scheduler/topology-required-placement":"zone"}}}}]}})"),
                         Pod("gpu"));
  ASSERT_FALSE(unnamed.ok());
  EXPECT_EQ(unnamed.status().message(),
            "RayCluster rc: workerGroupSpecs.gpu sets a topology placement annotation without "
            "kai.scheduler/topology naming its Topology");
}

TEST(IsRayWorkloadTest, RayClustersJobsAndServicesOfAnyVersion) {
  EXPECT_TRUE(IsRayWorkload("ray.io/v1", "RayCluster"));
  EXPECT_TRUE(IsRayWorkload("ray.io/v1alpha1", "RayJob"));
  EXPECT_TRUE(IsRayWorkload("ray.io/v1", "RayService"));
  EXPECT_FALSE(IsRayWorkload("ray.io/v1", "RayCronJob"));
  EXPECT_FALSE(IsRayWorkload("example.com/v1", "RayCluster"));
}

}  // namespace
}  // namespace vtenant::kai
