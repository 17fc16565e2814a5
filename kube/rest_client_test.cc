// Integration: RestClient against a real etcd + kube-apiserver on loopback.
#include "kube/rest_client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "base/eventually.h"
#include "kube/json_builder.h"
#include "localenv/testing/cluster_test.h"

namespace vtenant::kube {
namespace {

using localenv::ParseTestJson;

namespace res = resources;
using localenv::LocalCluster;

const ResourceType kWidgets{"example.vtenant.dev", "v1", "widgets", "Widget", true};

constexpr char kWidgetCrd[] = R"({
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "widgets.example.vtenant.dev"},
  "spec": {
    "group": "example.vtenant.dev", "scope": "Namespaced",
    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
    "versions": [{
      "name": "v1", "served": true, "storage": true,
      "subresources": {"status": {}},
      "schema": {"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
        "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}}}}}]}})";

Object ConfigMap(const std::string& name,
                 const std::map<std::string, std::string>& data = {{"k", "v"}}) {
  return BuildJson(JsonObject{{"apiVersion", "v1"},
                              {"kind", "ConfigMap"},
                              {"metadata", JsonObject{{"name", name}}},
                              {"data", StringMap(data)}});
}

class RestClientTest : public localenv::ClusterTest {
 protected:
  static void SetUpTestSuite() {
    StartCluster("rest-client", {.controller_manager = false, .node_agent = false},
                 {"crud", "patch", "race", "watch", "paging"});
  }
  static void TearDownTestSuite() { StopCluster(); }

  // A client of its own, without the client-side rate limit so the bulk
  // tests measure the server, not the limiter.
  static std::unique_ptr<Client> NewClient() {
    RestConfig config = cluster().api_server().admin_config();
    config.qps = 0;
    Result<std::unique_ptr<RestClient>> client = RestClient::Create(config);
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? std::move(client).value() : nullptr;
  }
};

TEST_F(RestClientTest, PodCrudKeepsStatusBehindItsSubresource) {
  Object pod = ParseTestJson(R"({"apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"trainer","labels":{"app":"demo"}},
    "spec":{"containers":[{"name":"main","image":"busybox"}]}})");
  Result<Object> created = client().Create(res::kPods, "crud", pod);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_FALSE(Uid(*created).empty());
  EXPECT_EQ(client().Create(res::kPods, "crud", pod).status().code(), StatusCode::kAlreadyExists);

  Result<Object> got = client().Get(res::kPods, "crud", "trainer");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(Uid(*got), Uid(*created));
  EXPECT_EQ(client().List(res::kPods, "crud", {.label_selector = "app=demo"})->items.size(), 1u);
  EXPECT_EQ(client().List(res::kPods, "crud", {.label_selector = "app=other"})->items.size(), 0u);
  EXPECT_EQ(
      client().List(res::kPods, "", {.field_selector = "metadata.name=trainer"})->items.size(), 1u);

  Object relabelled = Clone(*got);
  SetString(relabelled, {"metadata", "labels"}, "tier", "gpu");
  SetString(relabelled, {"status"}, "message", "ignored on the main resource");
  Result<Object> updated = client().Update(res::kPods, "crud", relabelled);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(Label(*updated, "tier").value_or(""), "gpu");
  EXPECT_EQ(GetString(*updated, {"status", "message"}), "");
  EXPECT_NE(ResourceVersion(*updated), ResourceVersion(*got));
  // `got` is stale now.
  EXPECT_EQ(client().Update(res::kPods, "crud", *got).status().code(), StatusCode::kConflict);

  Object status = Clone(*updated);
  SetString(status, {"status"}, "message", "written through status");
  Result<Object> with_status = client().Update(res::kPods, "crud", status, "status");
  ASSERT_TRUE(with_status.ok()) << with_status.status().ToString();
  EXPECT_EQ(GetString(*with_status, {"status", "message"}), "written through status");

  ASSERT_TRUE(client().Delete(res::kPods, "crud", "trainer", {.grace_period_seconds = 0}).ok());
  EXPECT_TRUE(Eventually([&] {
    return client().Get(res::kPods, "crud", "trainer").status().code() == StatusCode::kNotFound;
  }));
  EXPECT_EQ(client().Delete(res::kPods, "crud", "trainer").code(), StatusCode::kNotFound);
}

TEST_F(RestClientTest, ConfigMapCrudAndTypedErrors) {
  Result<Object> created = client().Create(res::kConfigMaps, "crud", ConfigMap("settings"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Object changed = Clone(*created);
  SetString(changed, {"data"}, "gpu", "l40s");
  Result<Object> updated = client().Update(res::kConfigMaps, "crud", changed);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(GetString(*client().Get(res::kConfigMaps, "crud", "settings"), {"data", "gpu"}),
            "l40s");
  Result<ObjectList> list = client().List(res::kConfigMaps, "crud");
  ASSERT_TRUE(list.ok());
  bool found = false;
  for (const Object& item : list->items) {
    found |= Name(item) == "settings";
    EXPECT_EQ(GetString(item, {"kind"}), "ConfigMap") << "list items stand alone";
  }
  EXPECT_TRUE(found);

  Status invalid =
      client().Create(res::kConfigMaps, "crud", ConfigMap("Not_A_Valid_Name")).status();
  EXPECT_EQ(invalid.code(), StatusCode::kInvalid) << invalid.ToString();
  EXPECT_EQ(client().Update(res::kConfigMaps, "crud", ConfigMap("missing")).status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(client().Get(res::kConfigMaps, "no-such-namespace", "x").status().code(),
            StatusCode::kNotFound);

  ASSERT_TRUE(client().Delete(res::kConfigMaps, "crud", "settings").ok());
  EXPECT_EQ(client().Get(res::kConfigMaps, "crud", "settings").status().code(),
            StatusCode::kNotFound);
}

TEST_F(RestClientTest, CustomResourceCrudOnceTheCrdIsEstablished) {
  Result<Object> crd =
      client().Create(res::kCustomResourceDefinitions, "", ParseTestJson(kWidgetCrd));
  ASSERT_TRUE(crd.ok()) << crd.status().ToString();
  ASSERT_TRUE(Eventually([&] {
    Result<Object> c =
        client().Get(res::kCustomResourceDefinitions, "", "widgets.example.vtenant.dev");
    const rapidjson::Value* conditions = c.ok() ? Find(*c, {"status", "conditions"}) : nullptr;
    if (conditions == nullptr || !conditions->IsArray()) return false;
    for (const auto& condition : conditions->GetArray()) {
      if (GetString(condition, {"type"}) == "Established") {
        return GetString(condition, {"status"}) == "True";
      }
    }
    return false;
  })) << "CRD never became Established";

  Object widget = ParseTestJson(R"({"apiVersion":"example.vtenant.dev/v1","kind":"Widget",
                            "metadata":{"name":"w1"},"spec":{"size":3}})");
  // Serving a new type can lag Established by a moment.
  Result<Object> created = Status(StatusCode::kNotFound, "not tried");
  ASSERT_TRUE(Eventually([&] {
    created = client().Create(kWidgets, "crud", widget);
    return created.status().code() != StatusCode::kNotFound;
  }));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(Generation(*created), 1);

  Result<Object> resized = client().UpdateWithRetry(kWidgets, "crud", "w1", [](Object& w) {
    w["spec"]["size"].SetInt64(5);
    return Status::Ok();
  });
  ASSERT_TRUE(resized.ok()) << resized.status().ToString();
  EXPECT_EQ(GetInt(*resized, {"spec", "size"}), 5);
  EXPECT_EQ(Generation(*resized), 2);

  Result<Object> ready = client().UpdateWithRetry(
      kWidgets, "crud", "w1",
      [](Object& w) {
        EnsurePath(w, {"status"}).AddMember("ready", true, w.GetAllocator());
        return Status::Ok();
      },
      "status");
  ASSERT_TRUE(ready.ok()) << ready.status().ToString();
  EXPECT_TRUE(Find(*ready, {"status", "ready"})->GetBool());
  EXPECT_EQ(Generation(*ready), 2) << "status writes leave the generation alone";

  Result<ObjectList> widgets = client().List(kWidgets, "crud");
  ASSERT_TRUE(widgets.ok());
  ASSERT_EQ(widgets->items.size(), 1u);
  EXPECT_EQ(GetString(widgets->items[0], {"kind"}), "Widget");

  EXPECT_EQ(client()
                .Create(kWidgets, "crud",
                        ParseTestJson(R"({"apiVersion":"example.vtenant.dev/v1","kind":"Widget",
                                  "metadata":{"name":"w2"},"spec":{"size":"big"}})"))
                .status()
                .code(),
            StatusCode::kInvalid)
      << "the CRD's schema is enforced";
  ASSERT_TRUE(client().Delete(kWidgets, "crud", "w1").ok());
  EXPECT_EQ(client().Get(kWidgets, "crud", "w1").status().code(), StatusCode::kNotFound);
}

TEST_F(RestClientTest, MergeJsonStrategicAndServerSidePatches) {
  ASSERT_TRUE(client()
                  .Create(res::kConfigMaps, "patch",
                          ParseTestJson(R"({"metadata":{"name":"p","labels":{"a":"1","b":"2"}},
                                    "data":{"k":"v"}})"))
                  .ok());
  Result<Object> merged = client().Patch(res::kConfigMaps, "patch", "p", PatchType::kMerge,
                                         R"({"metadata":{"labels":{"a":null,"c":"3"}}})");
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_FALSE(Label(*merged, "a").has_value());
  EXPECT_EQ(Label(*merged, "b").value_or(""), "2");
  EXPECT_EQ(Label(*merged, "c").value_or(""), "3");

  Result<Object> json = client().Patch(res::kConfigMaps, "patch", "p", PatchType::kJson,
                                       R"([{"op":"test","path":"/data/k","value":"v"},
                                           {"op":"replace","path":"/data/k","value":"w"},
                                           {"op":"add","path":"/data/n","value":"1"}])");
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  EXPECT_EQ(GetString(*json, {"data", "k"}), "w");
  EXPECT_EQ(GetString(*json, {"data", "n"}), "1");
  Result<Object> failed_test = client().Patch(res::kConfigMaps, "patch", "p", PatchType::kJson,
                                              R"([{"op":"test","path":"/data/k","value":"v"},
                                                  {"op":"remove","path":"/data/n"}])");
  EXPECT_FALSE(failed_test.ok());
  EXPECT_EQ(GetString(*client().Get(res::kConfigMaps, "patch", "p"), {"data", "n"}), "1")
      << "a failed test operation applies nothing";

  // Strategic merge merges lists of containers by name; a merge patch would
  // replace the whole list.
  ASSERT_TRUE(client()
                  .Create(res::kPods, "patch", ParseTestJson(R"({"metadata":{"name":"two"},
                    "spec":{"containers":[{"name":"main","image":"busybox:1"},
                                          {"name":"side","image":"busybox:1"}]}})"))
                  .ok());
  Result<Object> strategic =
      client().Patch(res::kPods, "patch", "two", PatchType::kStrategicMerge,
                     R"({"spec":{"containers":[{"name":"main","image":"busybox:2"}]}})");
  ASSERT_TRUE(strategic.ok()) << strategic.status().ToString();
  const rapidjson::Value& containers = *Find(*strategic, {"spec", "containers"});
  ASSERT_EQ(containers.Size(), 2u);
  EXPECT_EQ(GetString(containers[0], {"image"}), "busybox:2");
  EXPECT_EQ(GetString(containers[1], {"image"}), "busybox:1");

  // Server-side apply: creates, records ownership, and refuses to let a
  // second manager take a field without force.
  const std::string applied = R"({"apiVersion":"v1","kind":"ConfigMap",
                                  "metadata":{"name":"applied"},"data":{"owner":"alpha"}})";
  Result<Object> first = client().Patch(res::kConfigMaps, "patch", "applied", PatchType::kApply,
                                        applied, {.field_manager = "alpha"});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(GetString(*first, {"data", "owner"}), "alpha");
  const std::string takeover = R"({"apiVersion":"v1","kind":"ConfigMap",
                                   "metadata":{"name":"applied"},"data":{"owner":"beta"}})";
  Result<Object> refused = client().Patch(res::kConfigMaps, "patch", "applied", PatchType::kApply,
                                          takeover, {.field_manager = "beta"});
  EXPECT_EQ(refused.status().code(), StatusCode::kConflict) << refused.status().ToString();
  Result<Object> forced = client().Patch(res::kConfigMaps, "patch", "applied", PatchType::kApply,
                                         takeover, {.field_manager = "beta", .force = true});
  ASSERT_TRUE(forced.ok()) << forced.status().ToString();
  EXPECT_EQ(GetString(*forced, {"data", "owner"}), "beta");
  std::set<std::string> managers;
  for (const auto& entry : Find(*forced, {"metadata", "managedFields"})->GetArray()) {
    managers.insert(std::string(GetString(entry, {"manager"})));
  }
  EXPECT_TRUE(managers.count("beta")) << ToJson(*Find(*forced, {"metadata", "managedFields"}));
}

TEST_F(RestClientTest, DeleteHonoursPreconditions) {
  Result<Object> cm = client().Create(res::kConfigMaps, "crud", ConfigMap("guarded"));
  ASSERT_TRUE(cm.ok());
  EXPECT_EQ(client()
                .Delete(res::kConfigMaps, "crud", "guarded",
                        {.precondition_uid = "00000000-0000-0000-0000-000000000000"})
                .code(),
            StatusCode::kConflict);
  EXPECT_EQ(client()
                .Delete(res::kConfigMaps, "crud", "guarded", {.precondition_resource_version = "1"})
                .code(),
            StatusCode::kConflict);
  EXPECT_TRUE(client().Get(res::kConfigMaps, "crud", "guarded").ok());
  Status deleted =
      client().Delete(res::kConfigMaps, "crud", "guarded",
                      {.precondition_uid = std::string(Uid(*cm)),
                       .precondition_resource_version = std::string(ResourceVersion(*cm)),
                       .propagation_policy = "Background"});
  ASSERT_TRUE(deleted.ok()) << deleted.ToString();
  EXPECT_EQ(client().Get(res::kConfigMaps, "crud", "guarded").status().code(),
            StatusCode::kNotFound);
}

TEST_F(RestClientTest, UpdateWithRetryRereadsOnConflict) {
  ASSERT_TRUE(client().Create(res::kConfigMaps, "race", ConfigMap("shared", {})).ok());
  // Deterministic: another writer changes the object between our read and
  // our write, so the first write gets a 409 and must be redone on a fresh
  // read that keeps the other writer's change.
  std::unique_ptr<Client> other = NewClient();
  int calls = 0;
  Result<Object> result =
      client().UpdateWithRetry(res::kConfigMaps, "race", "shared", [&](Object& cm) {
        if (++calls == 1) {
          Result<Object> sneaky = other->Patch(res::kConfigMaps, "race", "shared",
                                               PatchType::kMerge, R"({"data":{"other":"yes"}})");
          EXPECT_TRUE(sneaky.ok()) << sneaky.status().ToString();
        }
        SetString(cm, {"data"}, "mine", "yes");
        return Status::Ok();
      });
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(GetString(*result, {"data", "mine"}), "yes");
  EXPECT_EQ(GetString(*result, {"data", "other"}), "yes");

  // Racing: two writers with clients of their own increment one counter;
  // every increment survives.
  ASSERT_TRUE(client().Create(res::kConfigMaps, "race", ConfigMap("counter", {{"n", "0"}})).ok());
  constexpr int kIncrements = 25;
  std::atomic<int> attempts{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < 2; ++w) {
    writers.emplace_back([&] {
      std::unique_ptr<Client> mine = NewClient();
      for (int i = 0; i < kIncrements; ++i) {
        Result<Object> r = mine->UpdateWithRetry(
            res::kConfigMaps, "race", "counter",
            [&](Object& cm) {
              ++attempts;
              int n = std::stoi(std::string(GetString(cm, {"data", "n"})));
              SetString(cm, {"data"}, "n", std::to_string(n + 1));
              return Status::Ok();
            },
            {}, 100);
        EXPECT_TRUE(r.ok()) << r.status().ToString();
      }
    });
  }
  for (auto& t : writers) t.join();
  EXPECT_EQ(GetString(*client().Get(res::kConfigMaps, "race", "counter"), {"data", "n"}),
            std::to_string(2 * kIncrements));
  RecordProperty("counter_attempts", attempts.load());
}

// Events of a watch, handed from its thread to the test.
class EventLog {
 public:
  bool Handle(WatchEvent& e) {
    if (e.type == WatchEvent::Type::kBookmark) return true;
    std::lock_guard lock(mu_);
    events_.push_back(std::string(WatchEventTypeName(e.type)) + " " + std::string(Name(e.object)));
    versions_.push_back(std::stoll(std::string(ResourceVersion(e.object))));
    cv_.notify_all();
    return true;
  }
  // Waits (at most a minute) until `event` has arrived.
  bool WaitFor(const std::string& event) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(60), [&] {
      return std::find(events_.begin(), events_.end(), event) != events_.end();
    });
  }
  std::vector<std::string> Events() {
    std::lock_guard lock(mu_);
    return events_;
  }
  std::vector<int64_t> Versions() {
    std::lock_guard lock(mu_);
    return versions_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> events_;
  std::vector<int64_t> versions_;
};

TEST_F(RestClientTest, WatchDeliversEachEventAsItHappensInOrder) {
  Result<ObjectList> start = client().List(res::kConfigMaps, "watch");
  ASSERT_TRUE(start.ok());
  std::unique_ptr<Client> watcher = NewClient();
  EventLog log;
  Cancellation cancel;
  Status watch_result;
  std::thread watch([&] {
    watch_result = watcher->Watch(
        res::kConfigMaps, "watch", {.resource_version = start->resource_version},
        [&](WatchEvent& e) { return log.Handle(e); }, &cancel);
  });
  // Ends the watch however the test leaves this scope.
  struct Joiner {
    Cancellation& cancel;
    std::thread& thread;
    ~Joiner() {
      cancel.Cancel();
      if (thread.joinable()) thread.join();
    }
  } joiner{cancel, watch};
  // Each step waits for its own event before the next change is made: the
  // events must arrive while the stream is open, not when it ends.
  for (const char* name : {"w-0", "w-1", "w-2"}) {
    ASSERT_TRUE(client().Create(res::kConfigMaps, "watch", ConfigMap(name)).ok());
    ASSERT_TRUE(log.WaitFor(std::string("ADDED ") + name)) << testing::PrintToString(log.Events());
  }
  ASSERT_TRUE(
      client()
          .Patch(res::kConfigMaps, "watch", "w-0", PatchType::kMerge, R"({"data":{"k":"changed"}})")
          .ok());
  ASSERT_TRUE(log.WaitFor("MODIFIED w-0"));
  ASSERT_TRUE(client().Delete(res::kConfigMaps, "watch", "w-1").ok());
  ASSERT_TRUE(log.WaitFor("DELETED w-1"));

  cancel.Cancel();
  watch.join();
  EXPECT_EQ(watch_result.code(), StatusCode::kCancelled) << watch_result.ToString();
  EXPECT_EQ(log.Events(), (std::vector<std::string>{"ADDED w-0", "ADDED w-1", "ADDED w-2",
                                                    "MODIFIED w-0", "DELETED w-1"}));
  std::vector<int64_t> versions = log.Versions();
  EXPECT_TRUE(std::is_sorted(versions.begin(), versions.end()));
  EXPECT_EQ(std::set<int64_t>(versions.begin(), versions.end()).size(), versions.size());

  // Once etcd has compacted that history, resuming from an old version is
  // Gone and the caller must relist. The API server's watch cache answers
  // old versions from its own memory, so ask a second API server on the same
  // etcd without one.
  Result<std::unique_ptr<HttpTransport>> etcd = NewHttpTransport(
      localenv::EtcdClientConfig(cluster().etcd().client_url(), cluster().etcd().client_tls()));
  ASSERT_TRUE(etcd.ok()) << etcd.status().ToString();
  Result<HttpResponse> compacted = (*etcd)->Send(
      "POST", "/v3/kv/compaction",
      ToJson(
          BuildJson(JsonObject{{"revision", std::to_string(versions.back())}, {"physical", true}})),
      "application/json");
  ASSERT_TRUE(compacted.ok()) << compacted.status().ToString();
  ASSERT_EQ(compacted->status_code, 200) << compacted->body;
  localenv::ApiServerOptions uncached_options = SecondApiServerOptions("uncached");
  uncached_options.extra_args = {"--watch-cache=false"};
  Result<std::unique_ptr<localenv::ApiServer>> uncached =
      localenv::ApiServer::Start(uncached_options);
  ASSERT_TRUE(uncached.ok()) << uncached.status().ToString();
  Result<std::unique_ptr<RestClient>> direct = RestClient::Create((*uncached)->admin_config());
  ASSERT_TRUE(direct.ok());
  // A handler that stops at the first event keeps a wrong answer from
  // hanging here.
  Status stale = (*direct)->Watch(
      res::kConfigMaps, "watch", {.resource_version = start->resource_version},
      [](WatchEvent&) { return false; }, nullptr);
  EXPECT_EQ(stale.code(), StatusCode::kGone) << stale.ToString();
  Status current = (*direct)->Watch(
      res::kConfigMaps, "watch",
      {.resource_version = std::to_string(versions.back()), .timeout_seconds = 1},
      [](WatchEvent&) { return false; }, nullptr);
  EXPECT_TRUE(current.ok()) << current.ToString();
}

TEST_F(RestClientTest, PaginatesTwoThousandConfigMapsInFourPages) {
  constexpr int kCount = 2000;
  constexpr int kWriters = 8;
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      std::unique_ptr<Client> mine = NewClient();
      for (int i = w; i < kCount; i += kWriters) {
        if (!mine->Create(res::kConfigMaps, "paging", ConfigMap("cm-" + std::to_string(i))).ok()) {
          ++failures;
        }
      }
    });
  }
  for (auto& t : writers) t.join();
  ASSERT_EQ(failures.load(), 0);

  std::set<std::string> names;
  ListOptions options{.limit = 500};
  std::vector<size_t> page_sizes;
  std::string list_version;
  do {
    Result<ObjectList> page = client().List(res::kConfigMaps, "paging", options);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    page_sizes.push_back(page->items.size());
    for (const Object& item : page->items) {
      EXPECT_TRUE(names.insert(std::string(Name(item))).second) << "duplicate " << Name(item);
    }
    if (list_version.empty()) list_version = page->resource_version;
    EXPECT_EQ(page->resource_version, list_version) << "pages come from one snapshot";
    options.continue_token = page->continue_token;
  } while (!options.continue_token.empty() && page_sizes.size() < 10);
  EXPECT_EQ(page_sizes, (std::vector<size_t>{500, 500, 500, 500}));
  std::set<std::string> expected;
  for (int i = 0; i < kCount; ++i) expected.insert("cm-" + std::to_string(i));
  // The namespace also holds the kube-root-ca.crt ConfigMap only when the
  // controller manager runs; it does not here.
  EXPECT_EQ(names, expected);

  Result<ObjectList> all = client().ListAll(res::kConfigMaps, "paging", {.limit = 500});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->items.size(), static_cast<size_t>(kCount));
}

}  // namespace
}  // namespace vtenant::kube
