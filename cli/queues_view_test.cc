// Unit: `vtenant queues` over an in-memory API server.
#include "cli/queues_view.h"

#include <gtest/gtest.h>

#include <sstream>

#include "cli/testing/view_output.h"
#include "kube/json_builder.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/json.h"

namespace vtenant::cli {
namespace {

namespace res = kube::resources;

void CreateQueue(kube::FakeClient& client, const kube::Object& queue) {
  ASSERT_TRUE(client.Create(res::kQueues, "", queue).ok());
}

void CreateQueue(kube::FakeClient& client, const std::string& json) {
  CreateQueue(client, kube::Json(json));
}

// A team's queue under `parent`: a third of a GPU, all of it allocated.
kube::Object TeamQueue(const std::string& name, const std::string& parent) {
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "scheduling.run.ai/v2"},
      {"kind", "Queue"},
      {"metadata",
       kube::JsonObject{{"name", name},
                        {"annotations", kube::JsonObject{{"vtenant.io/gpu-fair-share", "330m"}}}}},
      {"spec",
       kube::JsonObject{
           {"parentQueue", parent},
           {"resources", kube::JsonObject{{"gpu", kube::JsonObject{{"quota", 0.33},
                                                                   {"limit", 1},
                                                                   {"overQuotaWeight", 1}}}}}}},
      {"status",
       kube::JsonObject{{"allocated", kube::JsonObject{{"nvidia.com/gpu", "330m"}, {"cpu", "0"}}},
                        {"requested", kube::JsonObject{{"nvidia.com/gpu", "0.33"}}}}}});
}

TEST(QueuesViewTest, TheReferenceTreeShowsEachTeamAt330m) {
  kube::FakeClient client;
  CreateQueue(client, R"({"apiVersion":"scheduling.run.ai/v2","kind":"Queue",
    "metadata":{"name":"ml-org","annotations":{"vtenant.io/gpu-fair-share":"1"}},
    "spec":{"resources":{"gpu":{"quota":1,"limit":1,"overQuotaWeight":1}}},
    "status":{"allocated":{"nvidia.com/gpu":"990m"},"requested":{"nvidia.com/gpu":"990m"}}})");
  for (const char* team : {"vision", "nlp", "recsys"})
    CreateQueue(client, TeamQueue(team, "ml-org"));
  EXPECT_EQ(Printed(PrintQueues, client),
            "QUEUE       GPU-QUOTA   LIMIT   WEIGHT   FAIR-SHARE   ALLOCATED   REQUESTED\n"
            "ml-org      1           1       1        1            990m        990m\n"
            "├─ nlp      330m        1       1        330m         330m        330m\n"
            "├─ recsys   330m        1       1        330m         330m        330m\n"
            "└─ vision   330m        1       1        330m         330m        330m\n");
}

TEST(QueuesViewTest, DeeperTreesDrawTheirBranches) {
  kube::FakeClient client;
  CreateQueue(client, R"({"apiVersion":"scheduling.run.ai/v2","kind":"Queue",
    "metadata":{"name":"root"},"spec":{"resources":{"gpu":{"quota":-1,"limit":-1}}}})");
  CreateQueue(client, TeamQueue("a", "root"));
  CreateQueue(client, TeamQueue("b", "root"));
  CreateQueue(client, TeamQueue("a1", "a"));
  const std::string out = Printed(PrintQueues, client);
  for (const char* line_part :
       {"root       unlimited   unlimited   -        -", "\n├─ a ", "\n│  └─ a1 ", "\n└─ b "}) {
    EXPECT_NE(out.find(line_part), std::string::npos) << out;
  }
}

TEST(QueuesViewTest, UnreportedValuesAreDashesAndMissingParentsAreNamed) {
  kube::FakeClient client;
  CreateQueue(client, R"({"apiVersion":"scheduling.run.ai/v2","kind":"Queue",
    "metadata":{"name":"lonely"},"spec":{"parentQueue":"gone",
    "resources":{"gpu":{"quota":0.5,"limit":1,"overQuotaWeight":2}}}})");
  EXPECT_EQ(Printed(PrintQueues, client),
            "QUEUE                          GPU-QUOTA   LIMIT   WEIGHT   FAIR-SHARE   ALLOCATED   "
            "REQUESTED\n"
            "lonely (parent gone missing)   500m        1       2        -            -           "
            "-\n");
}

TEST(QueuesViewTest, ACycleShowsEveryQueueOnce) {
  kube::FakeClient client;
  CreateQueue(client, TeamQueue("x", "y"));
  CreateQueue(client, TeamQueue("y", "x"));
  const std::string out = Printed(PrintQueues, client);
  EXPECT_NE(out.find("x (in a parentQueue cycle)"), std::string::npos) << out;
  EXPECT_EQ(out.find("y (in a parentQueue cycle)"), std::string::npos) << out;
  EXPECT_NE(out.find("└─ y "), std::string::npos) << out;
}

}  // namespace
}  // namespace vtenant::cli
