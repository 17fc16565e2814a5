#include "kube/testing/fake_client.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>

#include "base/eventually.h"
#include "kube/json_builder.h"
#include "kube/testing/fake_clock.h"
#include "kube/testing/json.h"

namespace vtenant::kube {
namespace {

namespace res = resources;

Object ConfigMap(const std::string& name, const std::map<std::string, std::string>& labels = {}) {
  return BuildJson(
      JsonObject{{"metadata", JsonObject{{"name", name}, {"labels", StringMap(labels)}}},
                 {"data", JsonObject{{"k", "v"}}}});
}

TEST(FakeClientTest, CreateAssignsIdentityAndVersionsGrow) {
  FakeClient client;
  Result<Object> a = client.Create(res::kConfigMaps, "ns", ConfigMap("a"));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  Result<Object> b = client.Create(res::kConfigMaps, "ns", ConfigMap("b"));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(Namespace(*a), "ns");
  EXPECT_EQ(GetString(*a, {"kind"}), "ConfigMap");
  EXPECT_EQ(GetString(*a, {"apiVersion"}), "v1");
  EXPECT_FALSE(Uid(*a).empty());
  EXPECT_NE(Uid(*a), Uid(*b));
  EXPECT_LT(std::stoll(std::string(ResourceVersion(*a))),
            std::stoll(std::string(ResourceVersion(*b))));
  EXPECT_EQ(Generation(*a), 1);

  EXPECT_EQ(client.Create(res::kConfigMaps, "ns", ConfigMap("a")).status().code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(client.Get(res::kConfigMaps, "ns", "missing").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(client.Get(res::kConfigMaps, "other", "a").status().code(), StatusCode::kNotFound);
  Result<Object> got = client.Get(res::kConfigMaps, "ns", "a");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(ToJson(*got), ToJson(*a));
}

TEST(FakeClientTest, CreateChecksNamespaceAndName) {
  FakeClient client;
  Object wrong_ns = Json(R"({"metadata":{"name":"x","namespace":"b"}})");
  EXPECT_EQ(client.Create(res::kConfigMaps, "a", wrong_ns).status().code(),
            StatusCode::kBadRequest);
  EXPECT_EQ(
      client.Create(res::kConfigMaps, "", Json(R"({"metadata":{"name":"x"}})")).status().code(),
      StatusCode::kBadRequest);
  EXPECT_EQ(client.Create(res::kConfigMaps, "a", Json(R"({"metadata":{}})")).status().code(),
            StatusCode::kInvalid);
  Result<Object> generated =
      client.Create(res::kConfigMaps, "a", Json(R"({"metadata":{"generateName":"job-"}})"));
  ASSERT_TRUE(generated.ok());
  EXPECT_EQ(Name(*generated).rfind("job-", 0), 0u);
  EXPECT_GT(Name(*generated).size(), 4u);
  // Cluster-scoped objects carry no namespace even if asked.
  Result<Object> node = client.Create(res::kNodes, "", Json(R"({"metadata":{"name":"n1"}})"));
  ASSERT_TRUE(node.ok());
  EXPECT_EQ(Namespace(*node), "");
  EXPECT_TRUE(client.Get(res::kNodes, "", "n1").ok());
}

TEST(FakeClientTest, UpdateIsConflictAwareAndKeepsServerFields) {
  FakeClient client;
  Result<Object> created = client.Create(res::kConfigMaps, "ns", ConfigMap("a"));
  ASSERT_TRUE(created.ok());
  Object first = Clone(*created);
  Object second = Clone(*created);

  SetString(first, {"data"}, "k", "one");
  Result<Object> updated = client.Update(res::kConfigMaps, "ns", first);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_NE(ResourceVersion(*updated), ResourceVersion(*created));
  EXPECT_EQ(Uid(*updated), Uid(*created));
  EXPECT_EQ(Generation(*updated), 2);

  // `second` still carries the old resourceVersion.
  SetString(second, {"data"}, "k", "two");
  Result<Object> stale = client.Update(res::kConfigMaps, "ns", second);
  EXPECT_EQ(stale.status().code(), StatusCode::kConflict);
  EXPECT_EQ(GetString(*client.Get(res::kConfigMaps, "ns", "a"), {"data", "k"}), "one");

  // An update that changes nothing makes no new version.
  Result<Object> same = client.Update(res::kConfigMaps, "ns", *updated);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(ResourceVersion(*same), ResourceVersion(*updated));

  Object tampered = Clone(*updated);
  SetString(tampered, {"metadata"}, "uid", "forged");
  Result<Object> kept = client.Update(res::kConfigMaps, "ns", tampered);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(Uid(*kept), Uid(*created));

  EXPECT_EQ(client.Update(res::kConfigMaps, "ns", ConfigMap("missing")).status().code(),
            StatusCode::kNotFound);
}

TEST(FakeClientTest, StatusChangesOnlyThroughTheSubresource) {
  FakeClient client;
  ASSERT_TRUE(client
                  .Create(res::kPods, "ns", Json(R"({"metadata":{"name":"p"},"spec":{"x":1},
                                    "status":{"phase":"Pending"}})"))
                  .ok());
  Object pod = client.Get(res::kPods, "ns", "p").value();
  SetString(pod, {"status"}, "phase", "Running");
  SetString(pod, {"metadata", "labels"}, "l", "v");
  Result<Object> main = client.Update(res::kPods, "ns", pod);
  ASSERT_TRUE(main.ok());
  EXPECT_EQ(GetString(*main, {"status", "phase"}), "Pending");
  EXPECT_EQ(Label(*main, "l").value_or(""), "v");
  EXPECT_EQ(Generation(*main), 1) << "metadata changes do not bump the generation";

  Object status = Clone(*main);
  SetString(status, {"status"}, "phase", "Running");
  SetString(status, {"metadata", "labels"}, "l", "ignored");
  Result<Object> written = client.Update(res::kPods, "ns", status, "status");
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(GetString(*written, {"status", "phase"}), "Running");
  EXPECT_EQ(Label(*written, "l").value_or(""), "v");
}

TEST(FakeClientTest, UpdateWithRetrySurvivesRacingWriters) {
  FakeClient client;
  ASSERT_TRUE(client
                  .Create(res::kConfigMaps, "ns", Json(R"({"metadata":{"name":"counter"},
                                                            "data":{"n":"0"}})"))
                  .ok());
  constexpr int kWriters = 4;
  constexpr int kIncrements = 50;
  std::atomic<int> attempts{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&] {
      for (int i = 0; i < kIncrements; ++i) {
        Result<Object> r = client.UpdateWithRetry(
            res::kConfigMaps, "ns", "counter",
            [&](Object& cm) {
              ++attempts;
              int n = std::stoi(std::string(GetString(cm, {"data", "n"})));
              std::this_thread::yield();  // widen the read-write window
              SetString(cm, {"data"}, "n", std::to_string(n + 1));
              return Status::Ok();
            },
            {}, 1000);
        EXPECT_TRUE(r.ok()) << r.status().ToString();
      }
    });
  }
  for (auto& t : writers) t.join();
  EXPECT_EQ(GetString(*client.Get(res::kConfigMaps, "ns", "counter"), {"data", "n"}),
            std::to_string(kWriters * kIncrements));
  EXPECT_GE(attempts.load(), kWriters * kIncrements);
}

TEST(FakeClientTest, MergePatchRemovesNullsAndChecksResourceVersion) {
  FakeClient client;
  ASSERT_TRUE(client.Create(res::kConfigMaps, "ns", ConfigMap("a", {{"x", "1"}, {"y", "2"}})).ok());
  Result<Object> patched = client.Patch(res::kConfigMaps, "ns", "a", PatchType::kMerge,
                                        R"({"metadata":{"labels":{"x":null,"z":"3"}}})");
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
  EXPECT_FALSE(Label(*patched, "x").has_value());
  EXPECT_EQ(Label(*patched, "y").value_or(""), "2");
  EXPECT_EQ(Label(*patched, "z").value_or(""), "3");
  EXPECT_EQ(GetString(*patched, {"data", "k"}), "v");
  EXPECT_EQ(client
                .Patch(res::kConfigMaps, "ns", "a", PatchType::kMerge,
                       R"({"metadata":{"resourceVersion":"1"},"data":{"k":"w"}})")
                .status()
                .code(),
            StatusCode::kConflict);
  EXPECT_EQ(
      client.Patch(res::kConfigMaps, "ns", "missing", PatchType::kMerge, "{}").status().code(),
      StatusCode::kNotFound);
}

TEST(FakeClientTest, JsonPatchAppliesAllOrNothing) {
  FakeClient client;
  ASSERT_TRUE(client
                  .Create(res::kConfigMaps, "ns", Json(R"({"metadata":{"name":"a"},"data":{"k":"v"},
                                    "list":["a","c"]})"))
                  .ok());
  Result<Object> patched = client.Patch(res::kConfigMaps, "ns", "a", PatchType::kJson, R"([
      {"op":"test","path":"/data/k","value":"v"},
      {"op":"replace","path":"/data/k","value":"w"},
      {"op":"add","path":"/list/1","value":"b"},
      {"op":"add","path":"/list/-","value":"d"},
      {"op":"copy","from":"/data/k","path":"/data/copy"},
      {"op":"move","from":"/data/copy","path":"/data/moved"},
      {"op":"add","path":"/data/a~1b","value":"slash"}])");
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
  EXPECT_EQ(GetString(*patched, {"data", "k"}), "w");
  EXPECT_EQ(GetString(*patched, {"data", "moved"}), "w");
  EXPECT_EQ(Find(*patched, {"data", "copy"}), nullptr);
  EXPECT_EQ(GetString(*patched, {"data", "a/b"}), "slash");
  EXPECT_EQ(ToJson(*Find(*patched, {"list"})), R"(["a","b","c","d"])");

  const std::string before = std::string(ResourceVersion(*patched));
  Result<Object> failed = client.Patch(res::kConfigMaps, "ns", "a", PatchType::kJson, R"([
      {"op":"replace","path":"/data/k","value":"changed"},
      {"op":"test","path":"/data/k","value":"v"}])");
  EXPECT_EQ(failed.status().code(), StatusCode::kInvalid);
  Result<Object> after = client.Get(res::kConfigMaps, "ns", "a");
  EXPECT_EQ(GetString(*after, {"data", "k"}), "w");
  EXPECT_EQ(ResourceVersion(*after), before);
  EXPECT_EQ(client
                .Patch(res::kConfigMaps, "ns", "a", PatchType::kJson,
                       R"([{"op":"remove","path":"/data/nothing"}])")
                .status()
                .code(),
            StatusCode::kInvalid);
  EXPECT_EQ(client.Patch(res::kConfigMaps, "ns", "a", PatchType::kJson, R"({"op":"add"})")
                .status()
                .code(),
            StatusCode::kBadRequest);
}

TEST(FakeClientTest, ApplyCreatesThenMerges) {
  FakeClient client;
  Result<Object> created = client.Patch(res::kConfigMaps, "ns", "applied", PatchType::kApply,
                                        R"({"apiVersion":"v1","kind":"ConfigMap",
                                            "data":{"a":"1"}})");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(Name(*created), "applied");
  Result<Object> merged =
      client.Patch(res::kConfigMaps, "ns", "applied", PatchType::kApply, R"({"data":{"b":"2"}})");
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(GetString(*merged, {"data", "a"}), "1");
  EXPECT_EQ(GetString(*merged, {"data", "b"}), "2");
}

TEST(FakeClientTest, DeleteHonoursPreconditionsAndFinalizers) {
  FakeClient client;
  Result<Object> a = client.Create(res::kConfigMaps, "ns", ConfigMap("a"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(client.Delete(res::kConfigMaps, "ns", "a", {.precondition_uid = "other"}).code(),
            StatusCode::kConflict);
  EXPECT_EQ(
      client.Delete(res::kConfigMaps, "ns", "a", {.precondition_resource_version = "999"}).code(),
      StatusCode::kConflict);
  EXPECT_TRUE(client.Get(res::kConfigMaps, "ns", "a").ok());
  EXPECT_TRUE(client
                  .Delete(res::kConfigMaps, "ns", "a",
                          {.precondition_uid = std::string(Uid(*a)),
                           .precondition_resource_version = std::string(ResourceVersion(*a))})
                  .ok());
  EXPECT_EQ(client.Get(res::kConfigMaps, "ns", "a").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(client.Delete(res::kConfigMaps, "ns", "a").code(), StatusCode::kNotFound);

  ASSERT_TRUE(client
                  .Create(res::kConfigMaps, "ns",
                          Json(R"({"metadata":{"name":"f","finalizers":["vtenant.dev/x"]}})"))
                  .ok());
  ASSERT_TRUE(client.Delete(res::kConfigMaps, "ns", "f").ok());
  Result<Object> marked = client.Get(res::kConfigMaps, "ns", "f");
  ASSERT_TRUE(marked.ok());
  EXPECT_TRUE(IsBeingDeleted(*marked));
  Result<Object> released = client.Patch(res::kConfigMaps, "ns", "f", PatchType::kMerge,
                                         R"({"metadata":{"finalizers":null}})");
  ASSERT_TRUE(released.ok()) << released.status().ToString();
  EXPECT_EQ(client.Get(res::kConfigMaps, "ns", "f").status().code(), StatusCode::kNotFound);
}

TEST(FakeClientTest, ListPagesAndSelects) {
  FakeClient client;
  std::set<std::string> expected;
  for (int i = 0; i < 25; ++i) {
    std::string name = "cm-" + std::to_string(i);
    const bool even = i % 2 == 0;
    ASSERT_TRUE(
        client.Create(res::kConfigMaps, "ns", ConfigMap(name, {{"parity", even ? "even" : "odd"}}))
            .ok());
    expected.insert(name);
  }
  ASSERT_TRUE(client.Create(res::kConfigMaps, "elsewhere", ConfigMap("x")).ok());

  std::set<std::string> seen;
  ListOptions options{.limit = 10};
  int pages = 0;
  do {
    Result<ObjectList> page = client.List(res::kConfigMaps, "ns", options);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    ++pages;
    EXPECT_LE(page->items.size(), 10u);
    for (const Object& item : page->items) EXPECT_TRUE(seen.insert(std::string(Name(item))).second);
    options.continue_token = page->continue_token;
  } while (!options.continue_token.empty());
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(seen, expected);

  EXPECT_EQ(client.List(res::kConfigMaps, "").value().items.size(), 26u);
  EXPECT_EQ(
      client.List(res::kConfigMaps, "ns", {.label_selector = "parity=even"}).value().items.size(),
      13u);
  EXPECT_EQ(
      client.List(res::kConfigMaps, "ns", {.label_selector = "parity!=even"}).value().items.size(),
      12u);
  EXPECT_EQ(client.List(res::kConfigMaps, "", {.label_selector = "!parity"}).value().items.size(),
            1u);
  EXPECT_EQ(client.List(res::kConfigMaps, "", {.field_selector = "metadata.name=cm-3"})
                .value()
                .items.size(),
            1u);
  EXPECT_EQ(
      client.List(res::kConfigMaps, "", {.label_selector = "parity in (odd)"}).status().code(),
      StatusCode::kBadRequest);
}

TEST(FakeClientTest, BindingAndEvictionActOnPods) {
  FakeClient client;
  ASSERT_TRUE(client.Create(res::kPods, "ns", Json(R"({"metadata":{"name":"p"},"spec":{}})")).ok());
  ASSERT_TRUE(client.Bind("ns", "p", "node-1").ok());
  EXPECT_EQ(GetString(*client.Get(res::kPods, "ns", "p"), {"spec", "nodeName"}), "node-1");
  EXPECT_EQ(client.Bind("ns", "p", "node-2").code(), StatusCode::kConflict);
  ASSERT_TRUE(client.Evict("ns", "p").ok());
  EXPECT_EQ(client.Get(res::kPods, "ns", "p").status().code(), StatusCode::kNotFound);
}

TEST(FakeClientTest, InjectedErrorsComeFirstAndRunOut) {
  FakeClient client;
  client.InjectError("create", "configmaps", Status(StatusCode::kTooManyRequests, "slow down"), 2);
  EXPECT_EQ(client.Create(res::kConfigMaps, "ns", ConfigMap("a")).status().code(),
            StatusCode::kTooManyRequests);
  EXPECT_TRUE(client.Create(res::kSecrets, "ns", ConfigMap("a")).ok()) << "other resource";
  EXPECT_EQ(client.Create(res::kConfigMaps, "ns", ConfigMap("a")).status().code(),
            StatusCode::kTooManyRequests);
  EXPECT_TRUE(client.Create(res::kConfigMaps, "ns", ConfigMap("a")).ok());
  EXPECT_EQ(client.Calls("create"), 4);
  client.InjectError("get", "", Unavailable("down"), -1);
  EXPECT_FALSE(client.Get(res::kConfigMaps, "ns", "a").ok());
  EXPECT_FALSE(client.Get(res::kConfigMaps, "ns", "a").ok());
  client.ClearErrors();
  EXPECT_TRUE(client.Get(res::kConfigMaps, "ns", "a").ok());
}

// Collects watch events on a thread until told to stop.
class Watcher {
 public:
  Watcher(FakeClient& client, ListOptions options, std::string ns = "ns")
      : thread_([this, &client, options, ns] {
          Status s = client.Watch(
              res::kConfigMaps, ns, options,
              [this](WatchEvent& e) {
                std::lock_guard lock(mu_);
                events_.push_back(std::string(WatchEventTypeName(e.type)) + " " +
                                  std::string(Name(e.object)) + " " +
                                  std::string(ResourceVersion(e.object)));
                return true;
              },
              &cancel_);
          std::lock_guard lock(mu_);
          result_ = s;
          done_ = true;
        }) {}
  ~Watcher() {
    cancel_.Cancel();
    thread_.join();
  }

  // Waits (bounded) until `n` events arrived or the watch ended.
  std::vector<std::string> WaitFor(size_t n) {
    for (int i = 0; i < 500; ++i) {
      {
        std::lock_guard lock(mu_);
        if (events_.size() >= n || done_) return events_;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::lock_guard lock(mu_);
    return events_;
  }
  std::optional<Status> WaitForEnd() {
    for (int i = 0; i < 500; ++i) {
      {
        std::lock_guard lock(mu_);
        if (done_) return result_;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return std::nullopt;
  }
  void Cancel() { cancel_.Cancel(); }

 private:
  Cancellation cancel_;
  std::mutex mu_;
  std::vector<std::string> events_;
  Status result_;
  bool done_ = false;
  std::thread thread_;
};

std::string Version(FakeClient& client) { return std::to_string(client.CurrentResourceVersion()); }

TEST(FakeClientTest, WatchStartsWithCurrentStateThenFollows) {
  FakeClient client;
  ASSERT_TRUE(client.Create(res::kConfigMaps, "ns", ConfigMap("a")).ok());
  ASSERT_TRUE(client.Create(res::kConfigMaps, "other", ConfigMap("b")).ok());
  Watcher watcher(client, {});
  std::vector<std::string> events = watcher.WaitFor(1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].substr(0, 8), "ADDED a ");
  ASSERT_TRUE(
      client.Patch(res::kConfigMaps, "ns", "a", PatchType::kMerge, R"({"data":{"k":"w"}})").ok());
  const std::string modified = Version(client);
  ASSERT_TRUE(client.Create(res::kConfigMaps, "other", ConfigMap("c")).ok());
  ASSERT_TRUE(client.Delete(res::kConfigMaps, "ns", "a").ok());
  events = watcher.WaitFor(3);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[1], "MODIFIED a " + modified);
  EXPECT_EQ(events[2], "DELETED a " + Version(client));
  watcher.Cancel();
  std::optional<Status> end = watcher.WaitForEnd();
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->code(), StatusCode::kCancelled);
}

TEST(FakeClientTest, WatchResumesFromVersionAndAnswersGoneAfterCompaction) {
  FakeClient client;
  ASSERT_TRUE(client.Create(res::kConfigMaps, "ns", ConfigMap("a")).ok());
  const std::string after_a = Version(client);
  ASSERT_TRUE(client.Create(res::kConfigMaps, "ns", ConfigMap("b")).ok());
  ASSERT_TRUE(client.Create(res::kConfigMaps, "ns", ConfigMap("c")).ok());
  {
    Watcher watcher(client, {.resource_version = after_a});
    std::vector<std::string> events = watcher.WaitFor(2);
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].substr(0, 8), "ADDED b ");
    EXPECT_EQ(events[1].substr(0, 8), "ADDED c ");
    client.SendBookmarks();
    events = watcher.WaitFor(3);
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(events[2], "BOOKMARK  " + Version(client));
    client.EndWatches();
    std::optional<Status> end = watcher.WaitForEnd();
    ASSERT_TRUE(end.has_value());
    EXPECT_TRUE(end->ok()) << end->ToString();
  }
  client.Compact();
  Watcher stale(client, {.resource_version = after_a});
  std::optional<Status> end = stale.WaitForEnd();
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->code(), StatusCode::kGone);
  Watcher current(client, {.resource_version = Version(client)});
  ASSERT_TRUE(client.Create(res::kConfigMaps, "ns", ConfigMap("d")).ok());
  std::vector<std::string> events = current.WaitFor(1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].substr(0, 8), "ADDED d ");
}

TEST(FakeClientTest, HeldWatchesDeliverOnRelease) {
  FakeClient client;
  Watcher watcher(client, {.resource_version = Version(client)});
  for (int i = 0; i < 100 && client.OpenWatches() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(client.OpenWatches(), 1);
  client.HoldWatches(true);
  ASSERT_TRUE(client.Create(res::kConfigMaps, "ns", ConfigMap("a")).ok());
  client.HoldWatches(false);
  std::vector<std::string> events = watcher.WaitFor(1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].substr(0, 8), "ADDED a ");
}

TEST(FakeClientTest, WatchTimeoutEndsTheStream) {
  FakeClient client;
  Watcher watcher(client, {.resource_version = "0", .timeout_seconds = 1});
  std::optional<Status> end = watcher.WaitForEnd();
  ASSERT_TRUE(end.has_value());
  EXPECT_TRUE(end->ok());
}

TEST(FakeClientTest, HeldCallsEndAtTheirDeadlineOnItsClock) {
  FakeClock clock;
  FakeClient client(&clock);
  client.HoldCalls(true);
  Status result;
  std::thread call([&] {
    result =
        client.Get(res::kConfigMaps, "default", "x", {.timeout = std::chrono::seconds(5)}).status();
  });
  ASSERT_TRUE(Eventually([&] { return client.HeldCalls() == 1; }));
  clock.Advance(std::chrono::seconds(4));
  EXPECT_EQ(client.HeldCalls(), 1) << "still before its deadline";
  clock.Advance(std::chrono::seconds(1));
  call.join();
  EXPECT_EQ(result.code(), StatusCode::kTimeout) << result.ToString();
  EXPECT_EQ(client.Calls("get"), 0) << "it never reached the server";
}

TEST(FakeClientTest, HeldCallsEndOnCancelOrRunOnRelease) {
  FakeClient client;
  client.HoldCalls(true);
  Cancellation cancel;
  Status cancelled;
  Status released;
  std::thread first([&] {
    cancelled = client.Delete(res::kConfigMaps, "default", "x", {}, {.cancel = &cancel});
  });
  std::thread second([&] { released = client.Get(res::kConfigMaps, "default", "x").status(); });
  ASSERT_TRUE(Eventually([&] { return client.HeldCalls() == 2; }));
  cancel.Cancel();
  first.join();
  EXPECT_EQ(cancelled.code(), StatusCode::kCancelled) << cancelled.ToString();
  client.HoldCalls(false);
  second.join();
  EXPECT_EQ(released.code(), StatusCode::kNotFound) << "released, it ran: " << released.ToString();

  Cancellation already;
  already.Cancel();
  EXPECT_EQ(client.Get(res::kConfigMaps, "default", "x", {.cancel = &already}).status().code(),
            StatusCode::kCancelled);
}

}  // namespace
}  // namespace vtenant::kube
