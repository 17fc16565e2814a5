#include "scheduler/testing/scheduler_fixture.h"

#include <sstream>

#include "localenv/testing/source_tree.h"
#include "localenv/tools.h"
#include "scheduler/kai_names.h"

namespace vtenant::scheduler::testing {
namespace {

std::string Quote(const std::string& s) { return "\"" + s + "\""; }

}  // namespace

std::vector<std::string> KaiCrdManifests() {
  return {localenv::CrdManifest("scheduling.run.ai_queues.yaml"),
          localenv::CrdManifest("scheduling.run.ai_podgroups.yaml")};
}

kube::Object QueueManifest(const std::string& name, const std::string& parent, double quota,
                           double limit, double weight) {
  auto num = [](double v) {
    std::ostringstream o;
    o << v;
    return o.str();
  };
  std::string json =
      R"({"apiVersion":"scheduling.run.ai/v2","kind":"Queue","metadata":{"name":)" + Quote(name) +
      R"(},"spec":{)" + (parent.empty() ? "" : R"("parentQueue":)" + Quote(parent) + ",") +
      R"("resources":{"gpu":{"quota":)" + num(quota) + R"(,"limit":)" + num(limit) +
      R"(,"overQuotaWeight":)" + num(weight) +
      R"(},"cpu":{"quota":-1,"limit":-1,"overQuotaWeight":1},"memory":{"quota":-1,"limit":-1,"overQuotaWeight":1}}}})";
  return kube::ParseJson(json).value();
}

kube::Object PodManifest(const std::string& ns, const std::string& name, const PodOptions& o) {
  std::string annotations;
  for (const auto& [k, v] : o.annotations)
    annotations += (annotations.empty() ? "" : ",") + Quote(k) + ":" + Quote(v);
  std::string labels = o.queue.empty() ? "" : Quote(kQueueLabel) + ":" + Quote(o.queue);
  std::string resources = R"({"requests":{"cpu":"100m","memory":"64Mi"})";
  if (o.whole_gpus > 0)
    resources += R"(,"limits":{"nvidia.com/gpu":")" + std::to_string(o.whole_gpus) + R"("})";
  resources += "}";
  std::string json =
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":)" + Quote(name) + R"(,"namespace":)" +
      Quote(ns) + R"(,"labels":{)" + labels + R"(},"annotations":{)" + annotations +
      R"(}},"spec":{"schedulerName":)" + Quote(o.scheduler_name) +
      (o.priority_class.empty() ? "" : R"(,"priorityClassName":)" + Quote(o.priority_class)) +
      R"(,"terminationGracePeriodSeconds":0,"containers":[{"name":"main","image":"busybox","resources":)" +
      resources + "}]}}";
  return kube::ParseJson(json).value();
}

Result<std::unique_ptr<SchedulerApp>> StartScheduler(kube::Client& client, SchedulerFlags flags,
                                                     const std::string& identity) {
  if (flags.webhook_address.empty()) {
    VT_ASSIGN_OR_RETURN(int port, localenv::PickFreeLoopbackPort());
    flags.webhook_address = "127.0.0.1:" + std::to_string(port);
  }
  flags.health_address = flags.health_address == "127.0.0.1:8081" ? "" : flags.health_address;
  flags.cycle_period = std::chrono::milliseconds(200);
  flags.status_period = std::chrono::milliseconds(200);
  VT_ASSIGN_OR_RETURN(
      std::unique_ptr<SchedulerApp> app,
      SchedulerApp::Create(client, flags, {.handle_signals = false, .leader_identity = identity}));
  VT_RETURN_IF_ERROR(app->Start());
  return app;
}

int CountPods(kube::Client& client, const std::string& ns, const std::string& phase) {
  Result<kube::ObjectList> list = client.ListAll(kube::resources::kPods, ns);
  if (!list.ok()) return -1;
  int n = 0;
  for (const kube::Object& p : list->items) n += kube::GetString(p, {"status", "phase"}) == phase;
  return n;
}

std::vector<std::string> EventMessages(kube::Client& client, const std::string& ns,
                                       const std::string& name, const std::string& reason) {
  kube::ListOptions o;
  o.field_selector = "involvedObject.name=" + name + ",reason=" + reason;
  Result<kube::ObjectList> list = client.ListAll(kube::resources::kEvents, ns, o);
  std::vector<std::string> out;
  if (!list.ok()) return out;
  for (const kube::Object& e : list->items) out.emplace_back(kube::GetString(e, {"message"}));
  return out;
}

}  // namespace vtenant::scheduler::testing
