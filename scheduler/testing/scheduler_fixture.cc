#include "scheduler/testing/scheduler_fixture.h"

#include "base/eventually.h"
#include "kube/json_builder.h"
#include "localenv/testing/source_tree.h"
#include "localenv/tools.h"
#include "scheduler/kai_names.h"

namespace vtenant::scheduler::testing {
std::vector<std::string> KaiCrdManifests() {
  return {localenv::CrdManifest("scheduling.run.ai_queues.yaml"),
          localenv::CrdManifest("scheduling.run.ai_podgroups.yaml"),
          localenv::CrdManifest("kai.scheduler_topologies.yaml")};
}

kube::Object QueueManifest(const std::string& name, const std::string& parent, double quota,
                           double limit, double weight) {
  auto unlimited = [] {
    return kube::JsonObject{{"quota", -1}, {"limit", -1}, {"overQuotaWeight", 1}};
  };
  kube::JsonObject spec{
      {"resources", kube::JsonObject{{"gpu", kube::JsonObject{{"quota", quota},
                                                              {"limit", limit},
                                                              {"overQuotaWeight", weight}}},
                                     {"cpu", unlimited()},
                                     {"memory", unlimited()}}}};
  if (!parent.empty()) spec.Set("parentQueue", parent);
  return kube::BuildJson(kube::JsonObject{{"apiVersion", "scheduling.run.ai/v2"},
                                          {"kind", "Queue"},
                                          {"metadata", kube::JsonObject{{"name", name}}},
                                          {"spec", std::move(spec)}});
}

kube::Object PodManifest(const std::string& ns, const std::string& name, const PodOptions& o) {
  kube::JsonObject labels;
  if (!o.queue.empty()) labels.Set(kQueueLabel, o.queue);
  kube::JsonObject resources{{"requests", kube::JsonObject{{"cpu", "100m"}, {"memory", "64Mi"}}}};
  if (o.whole_gpus > 0) {
    resources.Set("limits", kube::JsonObject{{"nvidia.com/gpu", std::to_string(o.whole_gpus)}});
  }
  kube::JsonObject spec{{"schedulerName", o.scheduler_name}};
  if (!o.priority_class.empty()) spec.Set("priorityClassName", o.priority_class);
  spec.Set("terminationGracePeriodSeconds", 0);
  spec.Set("containers", kube::JsonArray{kube::JsonObject{
                             {"name", "main"}, {"image", "busybox"}, {"resources", resources}}});
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", kube::JsonObject{{"name", name},
                                    {"namespace", ns},
                                    {"labels", std::move(labels)},
                                    {"annotations", kube::StringMap(o.annotations)}}},
      {"spec", std::move(spec)}});
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

std::string NodeOnceRunning(kube::Client& client, const std::string& ns, const std::string& name) {
  std::string node;
  Eventually([&] {
    Result<kube::Object> p = client.Get(kube::resources::kPods, ns, name);
    if (!p.ok() || kube::GetString(*p, {"status", "phase"}) != "Running") return false;
    node = std::string(kube::GetString(*p, {"spec", "nodeName"}));
    return true;
  });
  return node;
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
