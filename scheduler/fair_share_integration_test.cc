// Integration: the reference scenario on a real API server. Queues ml-org
// (1 GPU) -> nlp, vision, recsys (quota 0.33, limit 1) share one L40S; each
// team's 0.33 pod gets 330m; nlp bursts into idle capacity, reclaim gives it
// back when vision asks, and a non-preemptible pod beyond quota waits with a
// reason.
#include <cpprest/http_client.h>
#include <gtest/gtest.h>

#include <cmath>

#include "base/eventually.h"
#include "localenv/testing/cluster_test.h"
#include "localenv/tools.h"
#include "scheduler/kai_names.h"
#include "scheduler/testing/scheduler_cluster_test.h"
#include "scheduler/testing/scheduler_fixture.h"

namespace vtenant::scheduler {
namespace {

using namespace testing;

class FairShareTest : public SchedulerClusterTest {
 protected:
  static void SetUpTestSuite() {
    // This suite's own nodes; every scheduler suite starts its cluster alike
    // (testing/scheduler_cluster_test.h).
    StartWithNodes("sched-fair", R"(
nodes:
- {name: l40s, count: 1, cpu: 32, memory: 256Gi, gpus: 1, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068}
)",
                   {"ml"});
    if (HasFatalFailure()) return;
    ASSERT_TRUE(client().Create(res::kQueues, "", QueueManifest("ml-org", "", 1, 1)).ok());
    for (const char* team : {"nlp", "vision", "recsys"})
      ASSERT_TRUE(
          client().Create(res::kQueues, "", QueueManifest(team, "ml-org", 0.33, 1, 1)).ok());
    // KAI's "build" class: priority 100, so non-preemptible.
    ASSERT_TRUE(client()
                    .Create(res::kPriorityClasses, "",
                            ParseTestJson(R"({"apiVersion":"scheduling.k8s.io/v1",
        "kind":"PriorityClass","metadata":{"name":"build"},"value":100})"))
                    .ok());
    Result<int> port = localenv::PickFreeLoopbackPort();
    ASSERT_TRUE(port.ok());
    metrics_url_ = "http://127.0.0.1:" + std::to_string(*port);
    SchedulerFlags flags;
    flags.health_address = "127.0.0.1:" + std::to_string(*port);
    StartSuiteScheduler(flags);
  }

  static Status Run(const std::string& name, const std::string& queue,
                    const std::string& priority_class = "", const std::string& fraction = "0.33") {
    return client()
        .Create(res::kPods, "ml",
                PodManifest("ml", name,
                            {.queue = queue,
                             .annotations = {{"gpu-fraction", fraction}},
                             .priority_class = priority_class}))
        .status();
  }
  static bool Running(const std::string& name) {
    Result<Object> p = client().Get(res::kPods, "ml", name);
    return p.ok() && kube::GetString(*p, {"status", "phase"}) == "Running";
  }
  static std::string Allocated(const std::string& queue) {
    Result<Object> q = client().Get(res::kQueues, "", queue);
    if (!q.ok()) return "?";
    const rapidjson::Value* a = kube::Find(*q, {"status", "allocated"});
    if (a == nullptr || !a->HasMember(kGpuResource) || !(*a)[kGpuResource].IsString()) return "";
    return (*a)[kGpuResource].GetString();
  }

  // The value of the sample `series` (name and labels as rendered) on
  // /metrics; -1 when it is not there.
  static double Sample(const std::string& series) {
    web::http::client::http_client http(metrics_url_);
    web::http::http_response r = http.request(web::http::methods::GET, "/metrics").get();
    const std::string body = r.extract_utf8string(true).get();
    for (size_t at = 0; (at = body.find(series + " ", at)) != std::string::npos; ++at)
      if (at == 0 || body[at - 1] == '\n')
        return std::stod(body.substr(at + series.size() + 1, body.find('\n', at) - at));
    return -1;
  }
  static inline std::string metrics_url_;
};

TEST_F(FairShareTest, ReferenceScenario) {
  // Every team gets its 330m, and every Queue says so.
  for (const char* team : {"nlp", "vision", "recsys"})
    ASSERT_TRUE(Run(std::string(team) + "-0", team).ok());
  for (const char* team : {"nlp", "vision", "recsys"}) {
    EXPECT_TRUE(Eventually([&] { return Running(std::string(team) + "-0"); })) << team;
    EXPECT_TRUE(Eventually([&] { return Allocated(team) == "330m"; }))
        << team << ": " << Allocated(team);
  }
  EXPECT_TRUE(Eventually([&] { return Allocated("ml-org") == "990m"; })) << Allocated("ml-org");
  Result<Object> nlp = client().Get(res::kQueues, "", "nlp");
  ASSERT_TRUE(nlp.ok());
  EXPECT_TRUE(kube::Annotation(*nlp, kFairShareAnnotation).has_value());

  // vision and recsys finish; nlp alone bursts into the idle capacity.
  ASSERT_TRUE(client().Delete(res::kPods, "ml", "vision-0").ok());
  ASSERT_TRUE(client().Delete(res::kPods, "ml", "recsys-0").ok());
  ASSERT_TRUE(Run("nlp-1", "nlp").ok());
  ASSERT_TRUE(Run("nlp-2", "nlp").ok());
  ASSERT_TRUE(Eventually([&] { return Running("nlp-1") && Running("nlp-2"); }));
  EXPECT_TRUE(Eventually([&] { return Allocated("nlp") == "990m"; })) << Allocated("nlp");

  // vision asks again: reclaim evicts one of nlp's over-quota pods.
  ASSERT_TRUE(Run("vision-1", "vision").ok());
  ASSERT_TRUE(Eventually([&] { return Running("vision-1"); }));
  int nlp_left = 0;
  std::string victim;
  for (const char* p : {"nlp-0", "nlp-1", "nlp-2"}) {
    if (client().Get(res::kPods, "ml", p).ok())
      ++nlp_left;
    else
      victim = p;
  }
  EXPECT_EQ(nlp_left, 2);
  ASSERT_FALSE(victim.empty());
  std::vector<std::string> events;
  EXPECT_TRUE(Eventually([&] {
    events = EventMessages(client(), "ml", victim, "Reclaimed");
    return !events.empty();
  })) << "no Reclaimed event on "
      << victim;

  // A non-preemptible nlp pod within nlp's quota runs, preempting one of
  // nlp's own preemptible pods; a second one would take nlp's
  // non-preemptible use beyond its quota, so it waits and says why.
  ASSERT_TRUE(Run("nlp-np1", "nlp", "build").ok());
  ASSERT_TRUE(Eventually([&] { return Running("nlp-np1"); }));
  ASSERT_TRUE(Run("nlp-np2", "nlp", "build").ok());
  std::vector<std::string> why;
  ASSERT_TRUE(Eventually([&] {
    why = EventMessages(client(), "ml", "nlp-np2", "Unschedulable");
    return !why.empty();
  }));
  EXPECT_NE(why[0].find("quota"), std::string::npos) << why[0];
  EXPECT_FALSE(Running("nlp-np2"));
  EXPECT_TRUE(Running("vision-1")) << "vision keeps its quota";
}

// Runs after the reference scenario, on what it did: /metrics has each core
// action's time, every queue's pending pods, GPUs and fair share, bind
// latency and the reclaim's eviction.
TEST_F(FairShareTest, MetricsSayWhatTheSchedulerDid) {
  for (const char* action : {"allocate", "consolidate", "reclaim", "preempt", "stale_gang"})
    EXPECT_GT(Sample(std::string("vtenant_scheduler_action_duration_seconds_count{action=\"") +
                     action + "\"}"),
              0)
        << action;
  EXPECT_TRUE(Eventually([&] {
    return std::abs(Sample(R"(vtenant_scheduler_queue_gpu_allocated{queue="vision"})") - 0.33) <
           1e-9;
  })) << Sample(R"(vtenant_scheduler_queue_gpu_allocated{queue="vision"})");
  EXPECT_GT(Sample(R"(vtenant_scheduler_queue_gpu_fair_share{queue="nlp"})"), 0);
  EXPECT_TRUE(Eventually([&] {
    return Sample(R"(vtenant_scheduler_pending_pods{queue="nlp"})") == 1;
  })) << "nlp-np2 waits: "
      << Sample(R"(vtenant_scheduler_pending_pods{queue="nlp"})");
  EXPECT_EQ(Sample(R"(vtenant_scheduler_pending_pods{queue="recsys"})"), 0);
  EXPECT_GE(Sample(R"(vtenant_scheduler_evictions_total{reason="Reclaim",result="ok"})"), 1);
  EXPECT_GE(Sample(R"(vtenant_scheduler_bind_duration_seconds_count{kind="shared"})"), 5);
}

}  // namespace
}  // namespace vtenant::scheduler
