// KAI's Queue webhook, restated: a Queue needs spec.resources, and a
// parent cannot be deleted while it has children; with quota validation on,
// a child is held against its parent and a parent against its children.
#include "kai/queue_admission.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "kai/object_fields.h"
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

// The Queues of a cluster, for the quota validation.
class Queues {
 public:
  void Add(const std::string& json) {
    auto queue = std::make_shared<rapidjson::Document>(Json(json));
    queues_[StringAt(*queue, {"metadata", "name"})] = std::move(queue);
  }
  QueueLookup lookup() const {
    return [this](const std::string& name) -> std::shared_ptr<const rapidjson::Value> {
      auto it = queues_.find(name);
      return it == queues_.end() ? nullptr : it->second;
    };
  }

 private:
  std::map<std::string, std::shared_ptr<const rapidjson::Document>> queues_;
};

std::string QueueJson(const std::string& name, const std::string& parent, double gpu,
                      double cpu = -1, const std::string& children = "[]") {
  return R"({"metadata":{"name":")" + name + R"("},"spec":{"parentQueue":")" + parent +
         R"(","resources":{"gpu":{"quota":)" + std::to_string(gpu) + R"(},"cpu":{"quota":)" +
         std::to_string(cpu) + R"(},"memory":{"quota":-1}}},"status":{"childQueues":)" + children +
         "}}";
}

TEST(QueueAdmissionTest, QuotaValidationIsOffUnlessAsked) {
  const Verdict off = ReviewQueue("CREATE", Json(QueueJson("nlp", "nowhere", 5)));
  EXPECT_TRUE(off.errors.empty());
  EXPECT_TRUE(off.warnings.empty());
  const QueueLookup none;
  EXPECT_TRUE(
      ReviewQueue("CREATE", Json(QueueJson("nlp", "nowhere", 5)), nullptr, &none).errors.empty());
}

TEST(QueueAdmissionTest, AChildIsRefusedWithoutAParentWithResources) {
  Queues cluster;
  cluster.Add(R"({"metadata":{"name":"bare"},"spec":{}})");
  const QueueLookup lookup = cluster.lookup();
  EXPECT_EQ(
      ReviewQueue("CREATE", Json(QueueJson("nlp", "ml-org", 1)), nullptr, &lookup).errors,
      std::vector<std::string>{
          R"(failed to get parent queue ml-org: queues.scheduling.run.ai "ml-org" not found)"});
  EXPECT_EQ(ReviewQueue("UPDATE", Json(QueueJson("nlp", "bare", 1)), nullptr, &lookup).errors,
            std::vector<std::string>{"parent queue bare has no resources defined"});
  EXPECT_TRUE(ReviewQueue("CREATE", Json(QueueJson("top", "", 1)), nullptr, &lookup).errors.empty())
      << "a Queue without a parent";
}

// The reference scenario's parent holds one GPU for three teams of 330m:
// a fourth team, or one asking for more than the parent, is warned about,
// in KAI's words, and still admitted.
TEST(QueueAdmissionTest, AChildBeyondItsParentIsWarnedAbout) {
  Queues cluster;
  cluster.Add(QueueJson("ml-org", "", 1, 8000, R"(["nlp","vision","recommender"])"));
  for (const char* team : {"nlp", "vision", "recommender"})
    cluster.Add(QueueJson(team, "ml-org", 0.33, 1000));
  const QueueLookup lookup = cluster.lookup();

  const Verdict resized =
      ReviewQueue("UPDATE", Json(QueueJson("nlp", "ml-org", 0.34, 1000)), nullptr, &lookup);
  EXPECT_TRUE(resized.errors.empty());
  EXPECT_TRUE(resized.warnings.empty())
      << "itself counted once, at its new quota: 0.34 + 0.33 + 0.33 is the parent's 1";

  const Verdict fourth =
      ReviewQueue("CREATE", Json(QueueJson("speech", "ml-org", 1.5, -1)), nullptr, &lookup);
  EXPECT_TRUE(fourth.errors.empty());
  EXPECT_EQ(fourth.warnings,
            (std::vector<std::string>{
                "child queue CPU quota (unlimited) exceeds parent queue ml-org CPU quota (8000)",
                "total children CPU quota (unlimited) exceeds parent queue ml-org CPU quota (8000)",
                "child queue GPU quota (1.50) exceeds parent queue ml-org GPU quota (1.00)",
                "total children GPU quota (2.49) exceeds parent queue ml-org GPU quota (1.00)"}));

  // Decimal quotas that add up to the parent's are not more than it.
  cluster.Add(QueueJson("small", "", 0.3, -1, R"(["a"])"));
  cluster.Add(QueueJson("a", "small", 0.1));
  EXPECT_TRUE(
      ReviewQueue("CREATE", Json(QueueJson("b", "small", 0.2)), nullptr, &lookup).warnings.empty());

  // An unlimited parent is never exceeded (memory, above, throughout).
  cluster.Add(QueueJson("open", "", -1, -1));
  EXPECT_TRUE(ReviewQueue("CREATE", Json(QueueJson("any", "open", 64, 99999)), nullptr, &lookup)
                  .warnings.empty());
}

TEST(QueueAdmissionTest, AParentShrunkBelowItsChildrenIsWarnedAbout) {
  Queues cluster;
  for (const char* team : {"nlp", "vision"}) cluster.Add(QueueJson(team, "ml-org", 0.5, 2000));
  const QueueLookup lookup = cluster.lookup();
  const kube::Object before = Json(QueueJson("ml-org", "", 1, 8000, R"(["nlp","vision","gone"])"));
  const Verdict shrunk =
      ReviewQueue("UPDATE", Json(QueueJson("ml-org", "", 0.5, 3000)), &before, &lookup);
  EXPECT_TRUE(shrunk.errors.empty());
  EXPECT_EQ(
      shrunk.warnings,
      (std::vector<std::string>{"total children CPU quota (4000) exceeds parent CPU quota (3000)",
                                "total children GPU quota (1.00) exceeds parent GPU quota (0.50)"}))
      << "a child queue that is gone is passed over";
  const Verdict one =
      ReviewQueue("UPDATE", Json(QueueJson("ml-org", "", 0.4, 8000)), &before, &lookup);
  EXPECT_EQ(one.warnings, (std::vector<std::string>{
                              "child queue nlp GPU quota (0.50) exceeds parent GPU quota (0.40)",
                              "child queue vision GPU quota (0.50) exceeds parent GPU quota (0.40)",
                              "total children GPU quota (1.00) exceeds parent GPU quota (0.40)"}));
}

}  // namespace
}  // namespace vtenant::kai
