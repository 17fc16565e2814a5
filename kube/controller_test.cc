#include "kube/controller.h"

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <thread>

#include "base/eventually.h"
#include "kube/testing/fake_client.h"

namespace vtenant::kube {
namespace {

// Records keys; fails a key a set number of times first; may ask for requeues.
class RecordingReconciler : public Reconciler {
 public:
  Result<ReconcileResult> Reconcile(const std::string& key) override {
    std::lock_guard lock(mu_);
    ++calls_[key];
    if (failures_left_[key] > 0) {
      --failures_left_[key];
      return Status(StatusCode::kUnavailable, "transient");
    }
    ReconcileResult result;
    if (requeues_left_[key] > 0) {
      --requeues_left_[key];
      result.requeue_after = std::chrono::milliseconds(10);
    }
    return result;
  }
  int Calls(const std::string& key) {
    std::lock_guard lock(mu_);
    return calls_[key];
  }
  void FailTimes(const std::string& key, int n) {
    std::lock_guard lock(mu_);
    failures_left_[key] = n;
  }
  void RequeueTimes(const std::string& key, int n) {
    std::lock_guard lock(mu_);
    requeues_left_[key] = n;
  }

 private:
  std::mutex mu_;
  std::map<std::string, int> calls_, failures_left_, requeues_left_;
};

Object ConfigMap(const std::string& name) {
  return std::move(ParseJson(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" +
                             name + R"(","namespace":"ns"}})"))
      .value();
}

TEST(ControllerTest, ReconcilesInformerObjectsRetriesErrorsAndHonoursRequeues) {
  FakeClient client;
  Registry registry;
  RecordingReconciler reconciler;
  reconciler.FailTimes("ns/flaky", 2);
  reconciler.RequeueTimes("ns/waiting", 3);
  ASSERT_TRUE(client.Create(resources::kConfigMaps, "ns", ConfigMap("steady")).ok());

  SharedInformer informer(client, resources::kConfigMaps);
  Controller controller({.name = "test", .workers = 2, .registry = &registry}, reconciler);
  controller.Watch(informer);
  ASSERT_TRUE(informer.Run().ok());
  std::thread runner([&] { controller.Run(); });

  ASSERT_TRUE(client.Create(resources::kConfigMaps, "ns", ConfigMap("flaky")).ok());
  ASSERT_TRUE(client.Create(resources::kConfigMaps, "ns", ConfigMap("waiting")).ok());
  EXPECT_TRUE(Eventually([&] { return reconciler.Calls("ns/steady") >= 1; }));
  // Two failures, then success: at least three calls, retried by backoff alone.
  EXPECT_TRUE(Eventually([&] { return reconciler.Calls("ns/flaky") >= 3; }));
  // Three requeues without any event: four calls.
  EXPECT_TRUE(Eventually([&] { return reconciler.Calls("ns/waiting") >= 4; }));

  controller.Stop();
  runner.join();
  informer.Stop();
  const std::string metrics = registry.Render();
  EXPECT_NE(metrics.find(R"(vtenant_reconcile_total{controller="test",result="error"} 2)"),
            std::string::npos)
      << metrics;
}

TEST(ControllerTest, MapperRoutesObjectsToOtherKeys) {
  FakeClient client;
  Registry registry;
  RecordingReconciler reconciler;
  SharedInformer informer(client, resources::kConfigMaps);
  Controller controller({.name = "mapped", .registry = &registry}, reconciler);
  controller.Watch(informer, [](const Object& o) {
    return std::vector<std::string>{"owner-of-" + std::string(Name(o))};
  });
  ASSERT_TRUE(informer.Run().ok());
  std::thread runner([&] { controller.Run(); });
  ASSERT_TRUE(client.Create(resources::kConfigMaps, "ns", ConfigMap("a")).ok());
  EXPECT_TRUE(Eventually([&] { return reconciler.Calls("owner-of-a") >= 1; }));
  EXPECT_EQ(reconciler.Calls("ns/a"), 0);
  controller.Stop();
  runner.join();
  informer.Stop();
}

}  // namespace
}  // namespace vtenant::kube
