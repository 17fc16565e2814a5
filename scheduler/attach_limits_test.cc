// A node's CSI attach limits as core resources, and a pod's volumes as
// requests of them.
#include "scheduler/attach_limits.h"

#include <gtest/gtest.h>

#include "kube/testing/json.h"

namespace vtenant::scheduler {
namespace {

using kube::Json;

const std::string kEbs = "ebs.csi.aws.com";
const std::string kEfs = "efs.csi.aws.com";

kube::Object CsiNode(const std::string& node, const std::string& drivers) {
  return Json(R"({"metadata":{"name":")" + node + R"("},"spec":{"drivers":)" + drivers + "}}");
}

TEST(AttachLimitsTest, ALimitedDriverIsAResourceOfEveryNode) {
  AttachLimits limits;
  EXPECT_TRUE(limits.Empty());
  EXPECT_FALSE(limits.Upsert(CsiNode("a", R"([{"name":"efs.csi.aws.com","nodeID":"a"}])")))
      << "a driver without a count limits nothing";
  EXPECT_TRUE(limits.Empty());
  EXPECT_TRUE(limits.Upsert(CsiNode("b", R"([{"name":"ebs.csi.aws.com","nodeID":"b",
      "allocatable":{"count":25}},{"name":"efs.csi.aws.com","nodeID":"b"}])")));
  const uint64_t version = limits.version();
  EXPECT_FALSE(limits.Upsert(CsiNode("b", R"([{"name":"ebs.csi.aws.com","nodeID":"b",
      "allocatable":{"count":25}}])")))
      << "the same counts: nothing changed";
  EXPECT_EQ(limits.version(), version);

  sched::NodeSpec a, b, c;
  limits.Apply("a", &a);
  limits.Apply("b", &b);
  limits.Apply("c", &c);
  EXPECT_EQ(b.other_resources, (std::map<std::string, int64_t>{{AttachResource(kEbs), 25000}}));
  EXPECT_EQ(a.other_resources,
            (std::map<std::string, int64_t>{{AttachResource(kEbs), kUnlimitedAttachments}}))
      << "the driver not limited there";
  EXPECT_EQ(c.other_resources, a.other_resources) << "no CSINode";

  std::map<std::string, int64_t> requests;
  limits.AddRequests({kEbs, kEfs, "", kEbs}, &requests);
  EXPECT_EQ(requests, (std::map<std::string, int64_t>{{AttachResource(kEbs), 2000}}))
      << "one a claim, of limited drivers only";

  EXPECT_TRUE(limits.Delete(CsiNode("b", "[]")));
  EXPECT_GT(limits.version(), version);
  EXPECT_TRUE(limits.Empty());
  sched::NodeSpec after;
  limits.Apply("b", &after);
  EXPECT_TRUE(after.other_resources.empty());
}

TEST(AttachLimitsTest, InlineCsiVolumesAreReadByDriver) {
  EXPECT_EQ(InlineCsiDrivers(Json(R"({"spec":{"volumes":[
      {"name":"a","csi":{"driver":"ebs.csi.aws.com"}},
      {"name":"b","persistentVolumeClaim":{"claimName":"c"}},
      {"name":"d","csi":{"driver":"secrets-store.csi.k8s.io"}}]}})")),
            (std::vector<std::string>{kEbs, "secrets-store.csi.k8s.io"}));
  EXPECT_TRUE(InlineCsiDrivers(Json(R"({"spec":{}})")).empty());
}

TEST(AttachLimitsTest, ADriverStaysLimitedWhileOneNodeLimitsIt) {
  AttachLimits limits;
  limits.Upsert(CsiNode("a", R"([{"name":"ebs.csi.aws.com","allocatable":{"count":2}}])"));
  limits.Upsert(CsiNode("b", R"([{"name":"ebs.csi.aws.com","allocatable":{"count":3}}])"));
  EXPECT_TRUE(limits.Upsert(CsiNode("a", "[]")));
  sched::NodeSpec a;
  limits.Apply("a", &a);
  EXPECT_EQ(a.other_resources.at(AttachResource(kEbs)), kUnlimitedAttachments);
  EXPECT_TRUE(
      limits.Upsert(CsiNode("b", R"([{"name":"ebs.csi.aws.com","allocatable":{"count":0}}])")));
  sched::NodeSpec b;
  limits.Apply("b", &b);
  EXPECT_EQ(b.other_resources.at(AttachResource(kEbs)), 0) << "a node that attaches none";
}

}  // namespace
}  // namespace vtenant::scheduler
