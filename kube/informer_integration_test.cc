// Integration: SharedInformer against a real etcd + kube-apiserver, including
// an API server that is killed and restarted under it.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <thread>

#include "base/eventually.h"
#include "kube/informer.h"
#include "kube/json_builder.h"
#include "localenv/testing/cluster_test.h"

namespace vtenant::kube {
namespace {

namespace res = resources;
using localenv::ApiServer;
using localenv::LocalCluster;

Object ConfigMap(const std::string& name, const std::string& team = "a") {
  return BuildJson(
      JsonObject{{"metadata", JsonObject{{"name", name}, {"labels", JsonObject{{"team", team}}}}},
                 {"data", JsonObject{{"k", "v"}}}});
}

// What handlers were told, folded into key -> resourceVersion: equal to the
// server's state once the handlers have converged.
class HandlerView {
 public:
  EventHandler Handler() {
    return {.on_add = [this](const ObjectPtr& o) { Set(*o); },
            .on_update = [this](const ObjectPtr&, const ObjectPtr& o) { Set(*o); },
            .on_delete =
                [this](const ObjectPtr& o) {
                  std::lock_guard lock(mu_);
                  versions_.erase(KeyOf(*o));
                }};
  }
  std::map<std::string, std::string> Versions() const {
    std::lock_guard lock(mu_);
    return versions_;
  }

 private:
  void Set(const Object& o) {
    std::lock_guard lock(mu_);
    versions_[KeyOf(o)] = std::string(ResourceVersion(o));
  }
  mutable std::mutex mu_;
  std::map<std::string, std::string> versions_;
};

std::map<std::string, std::string> ServerVersions(Client& client, const std::string& ns) {
  std::map<std::string, std::string> out;
  Result<ObjectList> list = client.ListAll(res::kConfigMaps, ns);
  if (!list.ok()) return {{"<error>", list.status().ToString()}};
  for (const Object& item : list->items) out[KeyOf(item)] = std::string(ResourceVersion(item));
  return out;
}

std::map<std::string, std::string> CacheVersions(const SharedInformer& informer) {
  std::map<std::string, std::string> out;
  for (const ObjectPtr& o : informer.cache().List()) {
    out[KeyOf(*o)] = std::string(ResourceVersion(*o));
  }
  return out;
}

class InformerIntegrationTest : public localenv::ClusterTest {
 protected:
  static void SetUpTestSuite() {
    StartCluster("informer", {.controller_manager = false, .node_agent = false},
                 {"live", "restart"});
  }
  static void TearDownTestSuite() { StopCluster(); }

  static std::unique_ptr<Client> NewClient(const RestConfig& config) {
    Result<std::unique_ptr<RestClient>> client = RestClient::Create(config);
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? std::move(client).value() : nullptr;
  }
};

TEST_F(InformerIntegrationTest, CacheIndexAndHandlersFollowTheServer) {
  ASSERT_TRUE(client().Create(res::kConfigMaps, "live", ConfigMap("before", "a")).ok());
  std::unique_ptr<Client> watcher = NewClient(cluster().api_server().admin_config());
  SharedInformer informer(*watcher, res::kConfigMaps, {.ns = "live"});
  ASSERT_TRUE(informer
                  .AddIndexer("team",
                              [](const Object& o) {
                                std::optional<std::string_view> team = Label(o, "team");
                                return team ? std::vector<std::string>{std::string(*team)}
                                            : std::vector<std::string>{};
                              })
                  .ok());
  HandlerView view;
  informer.AddEventHandler(view.Handler());
  ASSERT_TRUE(informer.Run().ok());
  ASSERT_TRUE(informer.WaitForSynced(std::chrono::seconds(60)));
  EXPECT_EQ(view.Versions(), ServerVersions(client(), "live"));

  ASSERT_TRUE(client().Create(res::kConfigMaps, "live", ConfigMap("after", "b")).ok());
  ASSERT_TRUE(client()
                  .Patch(res::kConfigMaps, "live", "before", PatchType::kMerge,
                         R"({"metadata":{"labels":{"team":"b"}}})")
                  .ok());
  EXPECT_TRUE(Eventually([&] {
    Result<std::vector<ObjectPtr>> b = informer.cache().ByIndex("team", "b");
    return b.ok() && b->size() == 2 && informer.cache().ByIndex("team", "a")->empty();
  }));
  ASSERT_TRUE(client().Delete(res::kConfigMaps, "live", "after").ok());
  EXPECT_TRUE(Eventually([&] {
    return view.Versions() == ServerVersions(client(), "live") &&
           CacheVersions(informer) == view.Versions();
  })) << testing::PrintToString(view.Versions());
  EXPECT_EQ(informer.cache().ByIndex("team", "b")->size(), 1u);
  EXPECT_EQ(informer.LastSyncResourceVersion().empty(), false);
}

TEST_F(InformerIntegrationTest, ConvergesAfterTheApiServerIsKilledAndRestarted) {
  for (const char* name : {"keep", "change", "remove"}) {
    ASSERT_TRUE(client().Create(res::kConfigMaps, "restart", ConfigMap(name)).ok());
  }
  std::unique_ptr<Client> watcher = NewClient(cluster().api_server().admin_config());
  SharedInformer informer(*watcher, res::kConfigMaps,
                          {.ns = "restart",
                           .initial_backoff = std::chrono::milliseconds(100),
                           .max_backoff = std::chrono::seconds(1)});
  HandlerView view;
  informer.AddEventHandler(view.Handler());
  ASSERT_TRUE(informer.Run().ok());
  ASSERT_TRUE(informer.WaitForSynced(std::chrono::seconds(60)));
  ASSERT_EQ(view.Versions().size(), 3u);

  // A second API server on the same etcd keeps the cluster writable while the
  // one the informer talks to is down.
  Result<std::unique_ptr<ApiServer>> other = ApiServer::Start(SecondApiServerOptions("other"));
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  std::unique_ptr<Client> writer = NewClient((*other)->admin_config());

  cluster().api_server().Kill();
  ASSERT_TRUE(writer->Create(res::kConfigMaps, "restart", ConfigMap("created-while-down")).ok());
  ASSERT_TRUE(writer
                  ->Patch(res::kConfigMaps, "restart", "change", PatchType::kMerge,
                          R"({"data":{"k":"changed-while-down"}})", {})
                  .ok());
  ASSERT_TRUE(writer->Delete(res::kConfigMaps, "restart", "remove", {}).ok());
  const std::map<std::string, std::string> expected = ServerVersions(*writer, "restart");
  ASSERT_EQ(expected.size(), 3u);
  ASSERT_EQ(expected.count("restart/remove"), 0u);
  EXPECT_NE(CacheVersions(informer), expected) << "the informer cannot know yet";

  Status restarted = cluster().api_server().Restart();
  ASSERT_TRUE(restarted.ok()) << restarted.ToString();
  EXPECT_TRUE(Eventually([&] { return CacheVersions(informer) == expected; }))
      << "cache " << testing::PrintToString(CacheVersions(informer)) << " server "
      << testing::PrintToString(expected);
  EXPECT_TRUE(Eventually([&] { return view.Versions() == expected; }))
      << "handlers " << testing::PrintToString(view.Versions());
  EXPECT_TRUE(informer.HasSynced());

  // And it is watching again: a change through the restarted server arrives.
  Status after = client().Create(res::kConfigMaps, "restart", ConfigMap("after-restart")).status();
  ASSERT_TRUE(after.ok()) << after.ToString();
  EXPECT_TRUE(Eventually([&] { return view.Versions().count("restart/after-restart") == 1; }));
  EXPECT_EQ(view.Versions(), ServerVersions(client(), "restart"));
  informer.Stop();
}

}  // namespace
}  // namespace vtenant::kube
