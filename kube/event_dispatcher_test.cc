// Unit tests of informers sharing one EventDispatcher, against FakeClient.
#include "kube/event_dispatcher.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/eventually.h"
#include "kube/informer.h"
#include "kube/json_builder.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/fake_clock.h"

namespace vtenant::kube {
namespace {

namespace res = resources;

Object Named(const std::string& name) {
  return BuildJson(JsonObject{{"metadata", JsonObject{{"name", name}}}});
}

// Records "add ns/a", "update ns/a", "delete ns/a" and the threads that
// delivered them.
class Recorder {
 public:
  EventHandler Handler() {
    return {.on_add = [this](const ObjectPtr& o) { Record("add " + KeyOf(*o)); },
            .on_update = [this](const ObjectPtr&,
                                const ObjectPtr& now) { Record("update " + KeyOf(*now)); },
            .on_delete = [this](const ObjectPtr& o) { Record("delete " + KeyOf(*o)); }};
  }
  std::vector<std::string> Events() const {
    std::lock_guard lock(mu_);
    return events_;
  }
  std::set<std::thread::id> Threads() const {
    std::lock_guard lock(mu_);
    return threads_;
  }
  bool WaitForSize(size_t n) const {
    return Eventually([&] {
      std::lock_guard lock(mu_);
      return events_.size() >= n;
    });
  }

 private:
  void Record(std::string e) {
    std::lock_guard lock(mu_);
    events_.push_back(std::move(e));
    threads_.insert(std::this_thread::get_id());
  }
  mutable std::mutex mu_;
  std::vector<std::string> events_;
  std::set<std::thread::id> threads_;
};

// Starts both informers, each with its recorder as handler, and waits
// until both have synced: both run before either is waited for, so their
// lists go through the shared dispatcher side by side.
void StartBoth(SharedInformer& a, Recorder& a_events, SharedInformer& b, Recorder& b_events) {
  a.AddEventHandler(a_events.Handler());
  b.AddEventHandler(b_events.Handler());
  ASSERT_TRUE(a.Run().ok());
  ASSERT_TRUE(b.Run().ok());
  ASSERT_TRUE(a.WaitForSynced(std::chrono::seconds(20)));
  ASSERT_TRUE(b.WaitForSynced(std::chrono::seconds(20)));
}

InformerOptions SharedOptions(EventDispatcher& dispatcher) {
  return {.initial_backoff = std::chrono::milliseconds(5),
          .max_backoff = std::chrono::milliseconds(50),
          .dispatcher = &dispatcher};
}

// "o007": names that sort (lists come in key order) as they count.
std::string Numbered(int i) {
  std::string digits = std::to_string(i);
  return "o" + std::string(3 - std::min<size_t>(3, digits.size()), '0') + digits;
}

std::vector<std::string> Adds(const std::string& ns, int n) {
  std::vector<std::string> adds;
  for (int i = 0; i < n; ++i) adds.push_back("add " + ns + "/" + Numbered(i));
  return adds;
}

TEST(EventDispatcherTest, InformersShareOneThreadAndKeepTheirOwnOrder) {
  FakeClient client;
  // More objects than one turn delivers, through a queue of one, so both
  // informers' lists need many turns and back-pressure on each.
  constexpr int kObjects = 150;
  for (int i = 0; i < kObjects; ++i) {
    ASSERT_TRUE(client.Create(res::kPods, "p", Named(Numbered(i))).ok());
    ASSERT_TRUE(client.Create(res::kConfigMaps, "c", Named(Numbered(i))).ok());
  }
  EventDispatcher dispatcher;
  InformerOptions options = SharedOptions(dispatcher);
  options.max_backlog = 1;
  SharedInformer pods(client, res::kPods, options);
  SharedInformer config_maps(client, res::kConfigMaps, options);
  Recorder pod_events, config_map_events;
  ASSERT_NO_FATAL_FAILURE(StartBoth(pods, pod_events, config_maps, config_map_events));
  EXPECT_EQ(pod_events.Events(), Adds("p", kObjects));
  EXPECT_EQ(config_map_events.Events(), Adds("c", kObjects));

  ASSERT_TRUE(client.Delete(res::kPods, "p", "o000").ok());
  ASSERT_TRUE(client.Create(res::kConfigMaps, "c", Named("late")).ok());
  ASSERT_TRUE(pod_events.WaitForSize(kObjects + 1));
  ASSERT_TRUE(config_map_events.WaitForSize(kObjects + 1));
  EXPECT_EQ(pod_events.Events().back(), "delete p/o000");
  EXPECT_EQ(config_map_events.Events().back(), "add c/late");

  std::set<std::thread::id> threads = pod_events.Threads();
  threads.merge(config_map_events.Threads());
  EXPECT_EQ(threads.size(), 1u) << "both informers' handlers ran on the dispatcher's thread";
  pods.Stop();
  config_maps.Stop();
  EXPECT_EQ(client.OpenWatches(), 0);
}

TEST(EventDispatcherTest, ResyncsEachInformerOnItsOwnPeriod) {
  FakeClient client;
  FakeClock clock;
  ASSERT_TRUE(client.Create(res::kPods, "ns", Named("a")).ok());
  ASSERT_TRUE(client.Create(res::kConfigMaps, "ns", Named("b")).ok());
  EventDispatcher dispatcher(&clock);
  InformerOptions options = SharedOptions(dispatcher);
  options.clock = &clock;
  options.resync_period = std::chrono::minutes(1);
  SharedInformer pods(client, res::kPods, options);
  options.resync_period = std::chrono::minutes(2);
  SharedInformer config_maps(client, res::kConfigMaps, options);
  Recorder pod_events, config_map_events;
  ASSERT_NO_FATAL_FAILURE(StartBoth(pods, pod_events, config_maps, config_map_events));

  clock.Advance(std::chrono::minutes(1));
  ASSERT_TRUE(pod_events.WaitForSize(2));
  EXPECT_EQ(pod_events.Events(), (std::vector<std::string>{"add ns/a", "update ns/a"}));
  clock.Advance(std::chrono::minutes(1));
  ASSERT_TRUE(pod_events.WaitForSize(3));
  ASSERT_TRUE(config_map_events.WaitForSize(2));
  EXPECT_EQ(config_map_events.Events(), (std::vector<std::string>{"add ns/b", "update ns/b"}));
  EXPECT_EQ(pod_events.Events().size(), 3u);
}

TEST(EventDispatcherTest, LateHandlerCatchesUpOnTheSharedThread) {
  FakeClient client;
  ASSERT_TRUE(client.Create(res::kPods, "ns", Named("a")).ok());
  EventDispatcher dispatcher;
  SharedInformer pods(client, res::kPods, SharedOptions(dispatcher));
  ASSERT_TRUE(pods.Run().ok());
  ASSERT_TRUE(pods.WaitForSynced(std::chrono::seconds(20)));
  Recorder late;
  pods.AddEventHandler(late.Handler());
  ASSERT_TRUE(late.WaitForSize(1));
  ASSERT_TRUE(client.Create(res::kPods, "ns", Named("b")).ok());
  ASSERT_TRUE(late.WaitForSize(2));
  EXPECT_EQ(late.Events(), (std::vector<std::string>{"add ns/a", "add ns/b"}));
}

TEST(EventDispatcherTest, StoppingOneInformerLeavesTheOthersServed) {
  FakeClient client;
  EventDispatcher dispatcher;
  SharedInformer pods(client, res::kPods, SharedOptions(dispatcher));
  SharedInformer config_maps(client, res::kConfigMaps, SharedOptions(dispatcher));
  Recorder config_map_events;
  config_maps.AddEventHandler(config_map_events.Handler());
  ASSERT_TRUE(pods.Run().ok());
  ASSERT_TRUE(config_maps.Run().ok());
  ASSERT_TRUE(config_maps.WaitForSynced(std::chrono::seconds(20)));
  pods.Stop();
  pods.Stop();
  ASSERT_TRUE(client.Create(res::kConfigMaps, "ns", Named("c")).ok());
  ASSERT_TRUE(config_map_events.WaitForSize(1));
  EXPECT_EQ(config_map_events.Events(), (std::vector<std::string>{"add ns/c"}));
}

TEST(EventDispatcherTest, AnInformerOnAnotherClockIsRefused) {
  FakeClient client;
  FakeClock clock;
  EventDispatcher dispatcher;  // the real clock
  InformerOptions options = SharedOptions(dispatcher);
  options.clock = &clock;
  SharedInformer pods(client, res::kPods, options);
  EXPECT_EQ(pods.Run().code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace vtenant::kube
