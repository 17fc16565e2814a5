// Unit tests of SharedInformer and Cache against FakeClient.
#include "kube/informer.h"

#include <gtest/gtest.h>

#include <map>
#include <thread>

#include "base/eventually.h"
#include "kube/json_builder.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/fake_clock.h"
#include "kube/testing/json.h"
#include "kube/testing/log_capture.h"

namespace vtenant::kube {
namespace {

namespace res = resources;

Object Pod(const std::string& name, const std::string& node) {
  return BuildJson(JsonObject{{"metadata", JsonObject{{"name", name}}},
                              {"spec", JsonObject{{"nodeName", node}}}});
}

// Records what handlers were told, as "add ns/a", "update ns/a 5->7", "delete ns/a".
class Recorder {
 public:
  EventHandler Handler() {
    return {.on_add = [this](const ObjectPtr& o) { Record("add " + KeyOf(*o)); },
            .on_update =
                [this](const ObjectPtr& old, const ObjectPtr& now) {
                  Record("update " + KeyOf(*now) + " " + std::string(ResourceVersion(*old)) + "->" +
                         std::string(ResourceVersion(*now)));
                },
            .on_delete = [this](const ObjectPtr& o) { Record("delete " + KeyOf(*o)); },
            .on_deletion =
                [this](const Deletion& d) {
                  std::lock_guard lock(mu_);
                  deletions_.push_back(KeyOf(*d.object) +
                                       (d.final_state_unknown ? " unknown" : " seen"));
                }};
  }
  // Each delete's key and how it was learned: "ns/a seen" or "ns/a unknown".
  std::vector<std::string> Deletions() const {
    std::lock_guard lock(mu_);
    return deletions_;
  }
  std::vector<std::string> Events() const {
    std::lock_guard lock(mu_);
    return events_;
  }
  size_t Size() const {
    std::lock_guard lock(mu_);
    return events_.size();
  }
  bool WaitForSize(size_t n) {
    return Eventually([&] { return Size() >= n; });
  }

 private:
  void Record(std::string e) {
    std::lock_guard lock(mu_);
    events_.push_back(std::move(e));
  }
  mutable std::mutex mu_;
  std::vector<std::string> events_;
  std::vector<std::string> deletions_;
};

// Each test sets up its client, informer and recorders in the same few
// lines, on purpose: a test reads on its own.
InformerOptions FastOptions() {
  return {.initial_backoff = std::chrono::milliseconds(5),
          .max_backoff = std::chrono::milliseconds(50)};
}

std::string Rv(FakeClient& client, const std::string& ns, const std::string& name) {
  Result<Object> o = client.Get(res::kPods, ns, name);
  return o.ok() ? std::string(ResourceVersion(*o)) : "";
}

class CacheTest : public testing::TestWithParam<CacheStorage> {};

INSTANTIATE_TEST_SUITE_P(Storage, CacheTest,
                         testing::Values(CacheStorage::kDocuments, CacheStorage::kJsonText,
                                         CacheStorage::kCompressedJsonText),
                         [](const testing::TestParamInfo<CacheStorage>& info) {
                           switch (info.param) {
                             case CacheStorage::kDocuments:
                               return "Documents";
                             case CacheStorage::kJsonText:
                               return "JsonText";
                             case CacheStorage::kCompressedJsonText:
                               return "CompressedJsonText";
                           }
                           return "Unknown";
                         });

// The index the tests add: a pod's spec.nodeName.
std::vector<std::string> ByNodeName(const Object& o) {
  return {std::string(GetString(o, {"spec", "nodeName"}))};
}

TEST_P(CacheTest, IndexesFollowUpsertsAndRemovals) {
  Cache cache(GetParam());
  ASSERT_TRUE(cache.AddIndexer("node", ByNodeName).ok());
  EXPECT_EQ(
      cache.AddIndexer("node", [](const Object&) { return std::vector<std::string>{}; }).code(),
      StatusCode::kAlreadyExists);
  auto pod = [](const std::string& name, const std::string& node) {
    Object o = Pod(name, node);
    SetString(o, {"metadata"}, "namespace", "ns");
    return std::make_shared<const Object>(std::move(o));
  };
  EXPECT_EQ(cache.Upsert(pod("a", "n1")), nullptr);
  EXPECT_EQ(cache.Upsert(pod("b", "n1")), nullptr);
  EXPECT_EQ(cache.ByIndex("node", "n1")->size(), 2u);
  EXPECT_EQ(*cache.CountByIndex("node", "n1"), 2u);
  EXPECT_EQ(*cache.CountByIndex("node", "n9"), 0u);
  EXPECT_EQ(cache.CountByIndex("zone", "n1").status().code(), StatusCode::kNotFound);
  ObjectPtr replaced = cache.Upsert(pod("a", "n2"));
  ASSERT_NE(replaced, nullptr);
  EXPECT_EQ(GetString(*replaced, {"spec", "nodeName"}), "n1");
  Result<std::vector<ObjectPtr>> n1 = cache.ByIndex("node", "n1");
  ASSERT_EQ(n1->size(), 1u);
  EXPECT_EQ(Name(*n1->front()), "b");
  EXPECT_EQ(cache.ByIndex("node", "n2")->size(), 1u);
  EXPECT_EQ(*cache.CountByIndex("node", "n1"), 1u);
  EXPECT_EQ(*cache.IndexValues("node"), (std::vector<std::string>{"n1", "n2"}));
  EXPECT_NE(cache.Remove("ns/b"), nullptr);
  EXPECT_EQ(cache.Remove("ns/b"), nullptr);
  EXPECT_TRUE(cache.ByIndex("node", "n1")->empty());
  EXPECT_EQ(*cache.IndexValues("node"), (std::vector<std::string>{"n2"}));
  EXPECT_EQ(cache.ByIndex("zone", "x").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(cache.ListKeys(), (std::vector<std::string>{"ns/a"}));
  EXPECT_EQ(Name(*cache.Get("ns/a")), "a");
  EXPECT_EQ(cache.Get("ns/b"), nullptr);

  // An index added later covers what is already cached.
  ASSERT_TRUE(cache
                  .AddIndexer("name",
                              [](const Object& o) {
                                return std::vector<std::string>{std::string(Name(o))};
                              })
                  .ok());
  EXPECT_EQ(cache.ByIndex("name", "a")->size(), 1u);
}

TEST_P(CacheTest, ReadsBackEveryFieldAsStored) {
  Cache cache(GetParam());
  const std::string json =
      R"({"metadata":{"name":"a","namespace":"ns","labels":{"team":"nlp\u00e9"}},)"
      R"("spec":{"priority":-7,"weight":0.25,"big":12345678901234,"on":true,"none":null,)"
      R"("containers":[{"name":"main","args":["a","b"]}],"empty":{}}})";
  cache.Upsert(std::make_shared<const Object>(Json(json)));
  ObjectPtr first = cache.Get("ns/a");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(*first, Json(json));
  EXPECT_EQ(*cache.List().front(), Json(json));
  ObjectPtr removed = cache.Remove("ns/a");
  ASSERT_NE(removed, nullptr);
  EXPECT_EQ(*removed, Json(json));
  // A reader's copy outlives the entry.
  EXPECT_EQ(GetString(*first, {"metadata", "labels", "team"}), "nlp\u00e9");
}

TEST(SharedInformerTest, TextCacheFollowsListAndWatch) {
  FakeClient client;
  ASSERT_TRUE(client.Create(res::kPods, "ns", Pod("a", "n1")).ok());
  InformerOptions options = FastOptions();
  options.cache_storage = CacheStorage::kJsonText;
  SharedInformer informer(client, res::kPods, options);
  ASSERT_TRUE(informer.AddIndexer("node", ByNodeName).ok());
  Recorder recorder;
  informer.AddEventHandler(recorder.Handler());
  ASSERT_TRUE(informer.Run().ok());
  ASSERT_TRUE(informer.WaitForSynced(std::chrono::seconds(10)));
  const std::string old_rv = Rv(client, "ns", "a");
  ASSERT_TRUE(
      client.Patch(res::kPods, "ns", "a", PatchType::kMerge, R"({"spec":{"nodeName":"n2"}})").ok());
  ASSERT_TRUE(recorder.WaitForSize(2));
  EXPECT_EQ(recorder.Events(),
            (std::vector<std::string>{"add ns/a",
                                      "update ns/a " + old_rv + "->" + Rv(client, "ns", "a")}));
  EXPECT_EQ(GetString(*informer.cache().Get("ns/a"), {"spec", "nodeName"}), "n2");
  EXPECT_EQ(*informer.cache().CountByIndex("node", "n2"), 1u);
  EXPECT_EQ(*informer.cache().CountByIndex("node", "n1"), 0u);
  informer.Stop();
}

TEST(SharedInformerTest, ListsThenDeliversWatchEventsInOrder) {
  FakeClient client;
  for (const char* name : {"a", "b", "c"}) {
    ASSERT_TRUE(client.Create(res::kPods, "ns", Pod(name, "n1")).ok());
  }
  ASSERT_TRUE(client.Create(res::kPods, "other", Pod("x", "n1")).ok());
  SharedInformer informer(client, res::kPods, {.ns = "ns", .page_size = 2});
  Recorder recorder;
  informer.AddEventHandler(recorder.Handler());
  EXPECT_FALSE(informer.HasSynced());
  ASSERT_TRUE(informer.Run().ok());
  EXPECT_EQ(informer.Run().code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(informer.WaitForSynced(std::chrono::seconds(20)));
  // Synced means the handler has already seen the whole first list.
  EXPECT_EQ(recorder.Events(), (std::vector<std::string>{"add ns/a", "add ns/b", "add ns/c"}));
  EXPECT_EQ(informer.cache().ListKeys(), (std::vector<std::string>{"ns/a", "ns/b", "ns/c"}));
  EXPECT_EQ(client.Calls("list"), 2) << "page_size 2 over 3 pods";

  const std::string old_b = Rv(client, "ns", "b");
  ASSERT_TRUE(client.Patch(res::kPods, "ns", "b", PatchType::kMerge, R"({"spec":{"x":1}})").ok());
  const std::string new_b = Rv(client, "ns", "b");
  ASSERT_TRUE(client.Create(res::kPods, "ns", Pod("d", "n2")).ok());
  ASSERT_TRUE(client.Delete(res::kPods, "ns", "a").ok());
  ASSERT_TRUE(client.Create(res::kPods, "other", Pod("y", "n1")).ok());
  ASSERT_TRUE(recorder.WaitForSize(6));
  EXPECT_EQ(recorder.Events(), (std::vector<std::string>{"add ns/a", "add ns/b", "add ns/c",
                                                         "update ns/b " + old_b + "->" + new_b,
                                                         "add ns/d", "delete ns/a"}));
  EXPECT_EQ(informer.cache().ListKeys(), (std::vector<std::string>{"ns/b", "ns/c", "ns/d"}));
  EXPECT_EQ(ResourceVersion(*informer.cache().Get("ns/b")), new_b);
  informer.Stop();
  EXPECT_EQ(client.OpenWatches(), 0);
}

TEST(SharedInformerTest, CustomIndexFollowsTheServer) {
  FakeClient client;
  ASSERT_TRUE(client.Create(res::kPods, "ns", Pod("a", "n1")).ok());
  SharedInformer informer(client, res::kPods, FastOptions());
  ASSERT_TRUE(informer.AddIndexer("node", ByNodeName).ok());
  ASSERT_TRUE(informer.Run().ok());
  ASSERT_TRUE(informer.WaitForSynced(std::chrono::seconds(20)));
  EXPECT_EQ(informer.cache().ByIndex("node", "n1")->size(), 1u);
  ASSERT_TRUE(
      client.Patch(res::kPods, "ns", "a", PatchType::kMerge, R"({"spec":{"nodeName":"n2"}})").ok());
  EXPECT_TRUE(Eventually([&] { return informer.cache().ByIndex("node", "n2")->size() == 1; }));
  EXPECT_TRUE(informer.cache().ByIndex("node", "n1")->empty());
}

TEST(SharedInformerTest, RelistAfterGoneDeliversWhatWasMissed) {
  FakeClient client;
  for (const char* name : {"keep", "change", "remove"}) {
    ASSERT_TRUE(client.Create(res::kPods, "ns", Pod(name, "n1")).ok());
  }
  SharedInformer informer(client, res::kPods, FastOptions());
  Recorder recorder;
  informer.AddEventHandler(recorder.Handler());
  ASSERT_TRUE(informer.Run().ok());
  ASSERT_TRUE(informer.WaitForSynced(std::chrono::seconds(20)));
  ASSERT_TRUE(Eventually([&] { return client.OpenWatches() == 1; }));

  // The informer misses these events, and history is compacted before it
  // can resume: its next watch is answered with Gone.
  client.HoldWatches(true);
  const std::string old_change = Rv(client, "ns", "change");
  ASSERT_TRUE(
      client.Patch(res::kPods, "ns", "change", PatchType::kMerge, R"({"spec":{"x":1}})").ok());
  ASSERT_TRUE(client.Delete(res::kPods, "ns", "remove").ok());
  ASSERT_TRUE(client.Create(res::kPods, "ns", Pod("new", "n1")).ok());
  client.Compact();
  client.EndWatches();
  client.HoldWatches(false);

  ASSERT_TRUE(recorder.WaitForSize(6)) << testing::PrintToString(recorder.Events());
  std::vector<std::string> events = recorder.Events();
  std::vector<std::string> missed(events.begin() + 3, events.end());
  std::sort(missed.begin(), missed.end());
  EXPECT_EQ(missed, (std::vector<std::string>{
                        "add ns/new", "delete ns/remove",
                        "update ns/change " + old_change + "->" + Rv(client, "ns", "change")}));
  EXPECT_EQ(informer.cache().ListKeys(),
            (std::vector<std::string>{"ns/change", "ns/keep", "ns/new"}));
  EXPECT_EQ(client.Calls("list"), 2);
  EXPECT_EQ(recorder.Deletions(), std::vector<std::string>{"ns/remove unknown"})
      << "the relist, not a watch event, found it gone";
  EXPECT_EQ(informer.LastSyncResourceVersion(), std::to_string(client.CurrentResourceVersion()));

  // And it watches again afterwards.
  ASSERT_TRUE(client.Create(res::kPods, "ns", Pod("later", "n1")).ok());
  ASSERT_TRUE(recorder.WaitForSize(7));
  EXPECT_EQ(recorder.Events().back(), "add ns/later");
}

TEST(SharedInformerTest, RetriesFailingListsAndWatchesUntilTheyWork) {
  FakeClient client;
  ASSERT_TRUE(client.Create(res::kPods, "ns", Pod("a", "n1")).ok());
  client.InjectError("list", "pods", Unavailable("connection refused"), 3);
  SharedInformer informer(client, res::kPods, FastOptions());
  Recorder recorder;
  informer.AddEventHandler(recorder.Handler());
  ASSERT_TRUE(informer.Run().ok());
  ASSERT_TRUE(informer.WaitForSynced(std::chrono::seconds(20)));
  EXPECT_EQ(client.Calls("list"), 4);

  // A watch that fails is retried from the last resourceVersion, without a
  // relist, and the changes made meanwhile arrive from the watch.
  ASSERT_TRUE(Eventually([&] { return client.OpenWatches() == 1; }));
  client.InjectError("watch", "pods", Unavailable("connection refused"), 2);
  client.HoldWatches(true);
  ASSERT_TRUE(client.Create(res::kPods, "ns", Pod("b", "n1")).ok());
  client.EndWatches();
  client.HoldWatches(false);
  ASSERT_TRUE(recorder.WaitForSize(2));
  EXPECT_EQ(recorder.Events(), (std::vector<std::string>{"add ns/a", "add ns/b"}));
  EXPECT_TRUE(Eventually([&] { return client.Calls("watch") >= 4 && client.OpenWatches() == 1; }));
  EXPECT_EQ(client.Calls("list"), 4) << "no relist after a watch error";
}

TEST(SharedInformerTest, NeverSyncsWhileListsFailAndStopsPromptly) {
  FakeClient client;
  client.InjectError("list", "", Unavailable("connection refused"), -1);
  SharedInformer informer(client, res::kPods, FastOptions());
  ASSERT_TRUE(informer.Run().ok());
  EXPECT_FALSE(informer.WaitForSynced(std::chrono::milliseconds(200)));
  EXPECT_GE(client.Calls("list"), 2);
  informer.Stop();
  EXPECT_FALSE(informer.HasSynced());
}

TEST(SharedInformerTest, AKindNotServedIsLookedForUntilItIsButSaidOnce) {
  // A CRD the team never installed: every list is a 404.
  FakeClient client;
  ASSERT_TRUE(client.Create(res::kPods, "ns", Pod("a", "n1")).ok());
  client.InjectError("list", "pods", Status(StatusCode::kNotFound, "404 page not found"), 6);
  LogCapture log;
  SharedInformer informer(client, res::kPods, FastOptions());
  ASSERT_TRUE(informer.Run().ok());
  // Installed at last: the informer lists it without being told.
  ASSERT_TRUE(informer.WaitForSynced(std::chrono::seconds(20)));
  EXPECT_EQ(client.Calls("list"), 7);
  EXPECT_EQ(log.Count(google::GLOG_WARNING, "list of pods failed"), 1)
      << "six failures, one warning";
  // Said once the list is in, so just after WaitForSynced may return.
  EXPECT_TRUE(Eventually([&] { return log.Count(google::GLOG_INFO, "pods are served now") == 1; }));

  // Any other failure is said each time.
  informer.Stop();
  client.InjectError("list", "pods", Unavailable("connection refused"), 2);
  SharedInformer again(client, res::kPods, FastOptions());
  ASSERT_TRUE(again.Run().ok());
  ASSERT_TRUE(again.WaitForSynced(std::chrono::seconds(20)));
  EXPECT_EQ(log.Count(google::GLOG_WARNING, "list of pods failed"), 3);
}

TEST(SharedInformerTest, BookmarksMoveTheResumePoint) {
  FakeClient client;
  SharedInformer informer(client, res::kPods, FastOptions());
  ASSERT_TRUE(informer.Run().ok());
  ASSERT_TRUE(informer.WaitForSynced(std::chrono::seconds(20)));
  ASSERT_TRUE(Eventually([&] { return client.OpenWatches() == 1; }));
  // Writes to another type move the global version; only a bookmark tells
  // this informer about it.
  ASSERT_TRUE(client.Create(res::kConfigMaps, "ns", Json(R"({"metadata":{"name":"c"}})")).ok());
  const std::string current = std::to_string(client.CurrentResourceVersion());
  EXPECT_NE(informer.LastSyncResourceVersion(), current);
  client.SendBookmarks();
  EXPECT_TRUE(Eventually([&] { return informer.LastSyncResourceVersion() == current; }));
  // Resuming from the bookmark survives a compaction without a relist.
  client.Compact();
  client.EndWatches();
  ASSERT_TRUE(Eventually([&] { return client.Calls("watch") == 2 && client.OpenWatches() == 1; }));
  EXPECT_EQ(client.Calls("list"), 1);
}

TEST(SharedInformerTest, ResyncRedeliversEveryObjectOnTheClock) {
  FakeClient client;
  FakeClock clock;
  ASSERT_TRUE(client.Create(res::kPods, "ns", Pod("a", "n1")).ok());
  ASSERT_TRUE(client.Create(res::kPods, "ns", Pod("b", "n1")).ok());
  InformerOptions options = FastOptions();
  options.resync_period = std::chrono::minutes(1);
  options.clock = &clock;
  SharedInformer informer(client, res::kPods, options);
  Recorder recorder;
  informer.AddEventHandler(recorder.Handler());
  ASSERT_TRUE(informer.Run().ok());
  ASSERT_TRUE(informer.WaitForSynced(std::chrono::seconds(20)));
  clock.Advance(std::chrono::seconds(59));
  // Not due yet: a real event is the next thing handlers see.
  ASSERT_TRUE(client.Create(res::kPods, "ns", Pod("c", "n1")).ok());
  ASSERT_TRUE(recorder.WaitForSize(3));
  clock.Advance(std::chrono::seconds(1));
  ASSERT_TRUE(recorder.WaitForSize(6));
  std::vector<std::string> events = recorder.Events();
  const std::string a = Rv(client, "ns", "a"), b = Rv(client, "ns", "b"), c = Rv(client, "ns", "c");
  EXPECT_EQ(events, (std::vector<std::string>{
                        "add ns/a", "add ns/b", "add ns/c", "update ns/a " + a + "->" + a,
                        "update ns/b " + b + "->" + b, "update ns/c " + c + "->" + c}));
  clock.Advance(std::chrono::minutes(1));
  EXPECT_TRUE(recorder.WaitForSize(9));
}

TEST(SharedInformerTest, LateHandlerCatchesUpWithoutDuplicates) {
  FakeClient client;
  ASSERT_TRUE(client.Create(res::kPods, "ns", Pod("a", "n1")).ok());
  SharedInformer informer(client, res::kPods, FastOptions());
  Recorder early;
  informer.AddEventHandler(early.Handler());
  ASSERT_TRUE(informer.Run().ok());
  ASSERT_TRUE(informer.WaitForSynced(std::chrono::seconds(20)));
  ASSERT_TRUE(client.Create(res::kPods, "ns", Pod("b", "n1")).ok());
  ASSERT_TRUE(early.WaitForSize(2));

  Recorder late;
  informer.AddEventHandler(late.Handler());
  ASSERT_TRUE(late.WaitForSize(2));
  ASSERT_TRUE(client.Delete(res::kPods, "ns", "a").ok());
  ASSERT_TRUE(late.WaitForSize(3));
  ASSERT_TRUE(early.WaitForSize(3));
  EXPECT_EQ(late.Events(), (std::vector<std::string>{"add ns/a", "add ns/b", "delete ns/a"}));
  EXPECT_EQ(early.Events(), late.Events());
}

TEST(SharedInformerTest, SlowHandlerDoesNotHoldUpTheCache) {
  FakeClient client;
  std::mutex gate;
  std::atomic<int> adds{0};
  SharedInformer informer(client, res::kPods, FastOptions());
  // Declared after the informer so a failing test opens the gate before
  // the informer's destructor waits for the handler.
  std::unique_lock<std::mutex> closed(gate);
  informer.AddEventHandler({.on_add = [&](const ObjectPtr&) {
    std::lock_guard wait_for_gate(gate);
    ++adds;
  }});
  ASSERT_TRUE(informer.Run().ok());
  ASSERT_TRUE(informer.WaitForSynced(std::chrono::seconds(20)));
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(client.Create(res::kPods, "ns", Pod("p" + std::to_string(i), "n1")).ok());
  }
  // The handler is blocked on the first add, yet the cache keeps up.
  EXPECT_TRUE(Eventually([&] { return informer.cache().Size() == 20; }));
  EXPECT_EQ(adds.load(), 0);
  closed.unlock();
  EXPECT_TRUE(Eventually([&] { return adds.load() == 20; }));
}

TEST(SharedInformerTest, StopEndsTheWatchAndIsIdempotent) {
  FakeClient client;
  SharedInformer informer(client, res::kPods, FastOptions());
  ASSERT_TRUE(informer.Run().ok());
  ASSERT_TRUE(Eventually([&] { return client.OpenWatches() == 1; }));
  informer.Stop();
  EXPECT_EQ(client.OpenWatches(), 0);
  informer.Stop();
  EXPECT_EQ(informer.Run().code(), StatusCode::kFailedPrecondition);
}

TEST(SharedInformerTest, AWatchedDeleteIsSeenNotUnknown) {
  FakeClient client;
  ASSERT_TRUE(client.Create(res::kPods, "ns", Pod("a", "n1")).ok());
  SharedInformer informer(client, res::kPods, FastOptions());
  Recorder recorder;
  informer.AddEventHandler(recorder.Handler());
  ASSERT_TRUE(informer.Run().ok());
  ASSERT_TRUE(informer.WaitForSynced(std::chrono::seconds(20)));
  ASSERT_TRUE(client.Delete(res::kPods, "ns", "a").ok());
  ASSERT_TRUE(recorder.WaitForSize(2));
  EXPECT_EQ(recorder.Deletions(), std::vector<std::string>{"ns/a seen"});
}

TEST(SharedInformerTest, ErrorsRewatchingCannotCureMakeItRelist) {
  FakeClient client;
  SharedInformer informer(client, res::kPods, FastOptions());
  ASSERT_TRUE(informer.Run().ok());
  ASSERT_TRUE(informer.WaitForSynced(std::chrono::seconds(20)));
  ASSERT_TRUE(Eventually([&] { return client.OpenWatches() == 1; }));
  client.InjectError("watch", "pods", Status(StatusCode::kForbidden, "RBAC changed"), 1);
  client.EndWatches();
  ASSERT_TRUE(Eventually([&] { return client.Calls("list") == 2 && client.OpenWatches() == 1; }));
}

TEST(SharedInformerTest, ConnectedFollowsTheWatchEvenWhenNothingChanges) {
  FakeClient client;
  SharedInformer informer(client, res::kPods, FastOptions());
  ASSERT_TRUE(informer.Run().ok());
  ASSERT_TRUE(informer.WaitForSynced(std::chrono::seconds(20)));
  ASSERT_TRUE(Eventually([&] { return informer.Connected(); }));
  client.InjectError("watch", "pods", Unavailable("connection refused"), -1);
  client.EndWatches();
  ASSERT_TRUE(Eventually([&] { return !informer.Connected(); }));
  // The server is back but nothing changes: the watch being accepted is
  // enough to be connected again, with no relist.
  client.ClearErrors();
  ASSERT_TRUE(Eventually([&] { return informer.Connected(); }));
  EXPECT_EQ(client.Calls("list"), 1);
}

TEST(SharedInformerTest, ABacklogAtItsBoundHoldsTheWatchAndIsMeasured) {
  FakeClient client;
  Registry registry;
  InformerOptions options = FastOptions();
  options.max_backlog = 3;
  options.registry = &registry;
  std::mutex gate;
  std::atomic<int> adds{0};
  std::atomic<int> entered{0};
  SharedInformer informer(client, res::kPods, options);
  std::unique_lock<std::mutex> closed(gate);  // after the informer: opened first
  informer.AddEventHandler({.on_add = [&](const ObjectPtr&) {
    ++entered;
    std::lock_guard wait_for_gate(gate);
    ++adds;
  }});
  Result<Family<Gauge>*> family =
      registry.AddGauge("vtenant_informer_backlog",
                        "Informer notifications waiting for event handlers.", {"resource"});
  ASSERT_TRUE(family.ok()) << family.status().ToString();
  Gauge& backlog = (*family)->WithLabelValues({"pods"});
  ASSERT_TRUE(informer.Run().ok());
  ASSERT_TRUE(informer.WaitForSynced(std::chrono::seconds(20)));
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(client.Create(res::kPods, "ns", Pod("p" + std::to_string(i), "n1")).ok());
  }
  // One add is in the blocked handler, three wait: the fifth event waits
  // before it reaches the cache.
  ASSERT_TRUE(Eventually([&] { return entered.load() == 1 && backlog.Value() == 3; }));
  EXPECT_EQ(informer.cache().Size(), 4u);
  EXPECT_EQ(adds.load(), 0);
  closed.unlock();
  ASSERT_TRUE(Eventually([&] { return adds.load() == 10; }));
  EXPECT_EQ(informer.cache().Size(), 10u) << "nothing dropped";
  EXPECT_EQ(backlog.Value(), 0);
}

TEST(SharedInformerTest, TheTransformShapesWhatIsCachedAndHandedOut) {
  FakeClient client;
  auto with_managed_fields = [](const std::string& name) {
    Object pod = Pod(name, "n1");
    pod["metadata"].AddMember("managedFields", rapidjson::Value(rapidjson::kArrayType),
                              pod.GetAllocator());
    pod["metadata"]["managedFields"].PushBack(rapidjson::Value(rapidjson::kObjectType),
                                              pod.GetAllocator());
    return pod;
  };
  ASSERT_TRUE(client.Create(res::kPods, "ns", with_managed_fields("listed")).ok());
  InformerOptions options = FastOptions();
  options.transform = [](Object& o) {
    DropManagedFields(o);
    SetString(o, {"metadata", "labels"}, "transformed", "yes");
  };
  SharedInformer informer(client, res::kPods, options);
  std::mutex mu;
  std::vector<std::string> seen;  // "name transformed managedFields?"
  informer.AddEventHandler({.on_add = [&](const ObjectPtr& o) {
    std::lock_guard lock(mu);
    seen.push_back(std::string(Name(*o)) + " " +
                   std::string(Label(*o, "transformed").value_or("no")) +
                   (Find(*o, {"metadata", "managedFields"}) ? " managedFields" : " -"));
  }});
  ASSERT_TRUE(informer.Run().ok());
  ASSERT_TRUE(informer.WaitForSynced(std::chrono::seconds(20)));
  ASSERT_TRUE(client.Create(res::kPods, "ns", with_managed_fields("watched")).ok());
  ASSERT_TRUE(Eventually([&] {
    std::lock_guard lock(mu);
    return seen.size() >= 2;
  }));
  {
    std::lock_guard lock(mu);
    EXPECT_EQ(seen, (std::vector<std::string>{"listed yes -", "watched yes -"}));
  }
  for (const char* key : {"ns/listed", "ns/watched"}) {
    ObjectPtr cached = informer.cache().Get(key);
    ASSERT_NE(cached, nullptr) << key;
    EXPECT_EQ(Find(*cached, {"metadata", "managedFields"}), nullptr) << key;
    EXPECT_EQ(Label(*cached, "transformed"), "yes") << key;
    EXPECT_EQ(GetString(*cached, {"spec", "nodeName"}), "n1") << key;
  }
  // The server's copy keeps what only the cache dropped.
  Result<Object> stored = client.Get(res::kPods, "ns", "watched");
  ASSERT_TRUE(stored.ok());
  EXPECT_NE(Find(*stored, {"metadata", "managedFields"}), nullptr);
}

}  // namespace
}  // namespace vtenant::kube
