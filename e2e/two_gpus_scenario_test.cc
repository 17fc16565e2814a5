// End to end, fractions on two GPUs: `vtenant up` with one node holding two
// L40S, queue lab-org (2 GPUs) and Tenant lab from the examples. Five
// half-GPU pods: four fill the two GPUs (two on each), the fifth stays
// Pending, and the queue shows 2 GPUs allocated and 2.5 requested. The team
// reads why the fifth waits with its own kubectl, in an Event and in the
// pod's PodScheduled condition.
#include <gtest/gtest.h>

#include <map>

#include "base/eventually.h"
#include "e2e/support/environment.h"
#include "kube/conditions.h"
#include "kube/object.h"

namespace vtenant::e2e {
namespace {

namespace res = kube::resources;
using std::chrono::seconds;

TEST(TwoGpusScenarioTest, FiveHalfGpuPodsFourRunOneWaits) {
  Result<std::unique_ptr<Environment>> up =
      Environment::Up(VTENANT_CLI, "two-gpus", "examples/nodes/two-l40s.yaml");
  ASSERT_TRUE(up.ok()) << up.status().ToString();
  Environment& env = **up;
  Result<std::string> applied = env.HostKubectl({"apply", "-k", Example("scenarios/two-gpus")});
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  Status ready = env.WaitForTeam("lab");
  ASSERT_TRUE(ready.ok()) << ready.ToString();
  Result<std::string> pods =
      env.TeamKubectl("lab", {"apply", "-k", Example("scenarios/two-gpus/fractions")});
  ASSERT_TRUE(pods.ok()) << pods.status().ToString();

  kube::ListOptions lab;
  lab.label_selector = "app=lab-half";
  std::map<std::string, int> running_per_gpu;
  int pending = 0;
  std::string waiting;  // the team's name of the pod that waits
  auto observe = [&] {
    running_per_gpu.clear();
    pending = 0;
    Result<kube::ObjectList> host = env.host().ListAll(res::kPods, "vtenant-lab", lab);
    if (!host.ok()) return false;
    for (const kube::Object& pod : host->items) {
      const std::string_view phase = kube::GetString(pod, {"status", "phase"});
      if (phase == "Running") {
        ++running_per_gpu[std::string(kube::Annotation(pod, "runai-gpu").value_or("?"))];
      } else if (phase == "Pending" && kube::GetString(pod, {"spec", "nodeName"}).empty()) {
        ++pending;
        waiting = kube::Annotation(pod, "vtenant.io/virtual-name").value_or("");
      }
    }
    return running_per_gpu.size() == 2 && running_per_gpu["0"] == 2 && running_per_gpu["1"] == 2 &&
           pending == 1;
  };
  EXPECT_TRUE(Eventually(observe, seconds(180), std::chrono::milliseconds(500)))
      << "want two running on each GPU and one pending; pending " << pending << ", GPUs seen "
      << running_per_gpu.size();

  // The scheduler says why the fifth waits, on its host pod.
  Result<std::string> events = env.HostKubectl(
      {"get", "events", "-n", "vtenant-lab", "--field-selector", "reason=Unschedulable"});
  EXPECT_TRUE(events.ok() && events->find("lab-half-") != std::string::npos)
      << (events.ok() ? *events : events.status().ToString());
  // And the team reads the same in its own cluster, on its own pod, in its
  // own names: the scheduler's words (what is missing), nothing of the host.
  std::string team_events;
  EXPECT_TRUE(Eventually(
      [&] {
        Result<std::string> got = env.TeamKubectl(
            "lab", {"get", "events", "-n", "default", "--field-selector",
                    "reason=Unschedulable,involvedObject.kind=Pod,involvedObject.name=" + waiting});
        team_events = got.ok() ? *got : got.status().ToString();
        // The waiting pod's reason once the four run: its queue is at its
        // limit (2 GPUs held, lab-org's whole quota), in the scheduler's words.
        return got.ok() && got->find("pod/" + waiting) != std::string::npos &&
               got->find(
                   "queue lab would exceed its gpu limit: 2000m allocated + 500m requested "
                   "> 2000m limit") != std::string::npos;
      },
      seconds(60), std::chrono::milliseconds(500)))
      << team_events;
  EXPECT_EQ(team_events.find("vtenant-"), std::string::npos) << team_events;
  EXPECT_EQ(team_events.find("-x-"), std::string::npos) << team_events;
  // The pod itself says so too, as kube-scheduler and KAI mark a pod that
  // waits: condition PodScheduled False, reason Unschedulable, the same
  // words, in the team's terms.
  std::string condition;
  EXPECT_TRUE(Eventually(
      [&] {
        condition.clear();
        Result<std::string> got =
            env.TeamKubectl("lab", {"get", "pod", waiting, "-n", "default", "-o", "json"});
        Result<kube::Object> pod =
            got.ok() ? kube::ParseJson(*got) : Result<kube::Object>(got.status());
        if (!pod.ok()) return false;
        if (std::optional<kube::Condition> c = kube::FindCondition(*pod, "PodScheduled"))
          condition = c->status + " " + c->reason + ": " + c->message;
        return condition.starts_with("False Unschedulable: ") &&
               condition.find("queue lab would exceed its gpu limit") != std::string::npos;
      },
      seconds(60), std::chrono::milliseconds(500)))
      << condition;
  EXPECT_EQ(condition.find("vtenant-"), std::string::npos) << condition;
  EXPECT_EQ(condition.find("-x-"), std::string::npos) << condition;

  // Queue status is written in batches (--status-period), so it follows the
  // pods a moment later.
  int64_t allocated = -1, requested = -1;
  EXPECT_TRUE(Eventually(
      [&] {
        Result<kube::Object> queue = env.host().Get(res::kQueues, "", "lab");
        if (!queue.ok()) return false;
        allocated = MilliGpus(kube::Find(*queue, {"status", "allocated", "nvidia.com/gpu"}));
        requested = MilliGpus(kube::Find(*queue, {"status", "requested", "nvidia.com/gpu"}));
        return allocated == 2000 && requested == 2500;
      },
      seconds(60), std::chrono::milliseconds(500)))
      << "queue lab: allocated " << allocated << "m, requested " << requested
      << "m; want 2000m and 2500m";

  std::vector<std::string> left = env.Down();
  EXPECT_TRUE(left.empty()) << "left behind: " << left[0];
}

}  // namespace
}  // namespace vtenant::e2e
