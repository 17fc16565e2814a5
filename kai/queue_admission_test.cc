// KAI's Queue webhook, restated: a Queue needs spec.resources, and a
// parent cannot be deleted while it has children.
#include "kai/queue_admission.h"

#include <gtest/gtest.h>

#include "kube/testing/json.h"

namespace vtenant::kai {
namespace {

using kube::Json;

TEST(QueueAdmissionTest, AQueueWithoutResourcesIsRefused) {
  for (const char* op : {"CREATE", "UPDATE"}) {
    const Verdict none = ReviewQueue(op, Json(R"({"metadata":{"name":"q"},"spec":{}})"));
    EXPECT_EQ(none.errors, std::vector<std::string>{"resources must be specified"}) << op;
    EXPECT_EQ(none.warnings, std::vector<std::string>{"resources must be specified"}) << op;
    EXPECT_FALSE(ReviewQueue(op, Json(R"({"metadata":{"name":"q"},"spec":{"resources":null}})"))
                     .errors.empty());
    EXPECT_TRUE(ReviewQueue(op, Json(R"({"metadata":{"name":"q"},"spec":{"resources":{
        "gpu":{"quota":1,"limit":-1,"overQuotaWeight":1}}}})"))
                    .errors.empty())
        << op;
  }
}

TEST(QueueAdmissionTest, AParentWithChildrenCannotBeDeleted) {
  const Verdict parent = ReviewQueue(
      "DELETE",
      Json(R"({"metadata":{"name":"ml-org"},"status":{"childQueues":["nlp","vision"]}})"));
  EXPECT_EQ(parent.errors, std::vector<std::string>{
                               "cannot delete queue ml-org: it has child queues [nlp vision]"});
  EXPECT_TRUE(
      ReviewQueue("DELETE", Json(R"({"metadata":{"name":"nlp"},"status":{}})")).errors.empty());
  EXPECT_TRUE(
      ReviewQueue("DELETE", Json(R"({"metadata":{"name":"nlp"},"spec":{}})")).errors.empty())
      << "a leaf, whose status says nothing of children, and no resources: deleting is fine";
}

}  // namespace
}  // namespace vtenant::kai
