// Manager against a real API server: caches of two controllers converge
// across an API server restart while /readyz follows, and SIGTERM during a
// slow reconcile lets it finish and releases the Lease.
#include <cpprest/http_client.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <set>

#include "base/eventually.h"
#include "kube/json_builder.h"
#include "kube/manager.h"
#include "kube/rest_client.h"
#include "kube/testing/recording_reconciler.h"
#include "localenv/testing/cluster_test.h"
#include "localenv/tools.h"

namespace vtenant::kube {
namespace {

namespace res = resources;
using localenv::ParseTestJson;

int ReadyzCode(const std::string& address) {
  try {
    web::http::client::http_client client("http://" + address);
    return client.request(web::http::methods::GET, "/readyz").get().status_code();
  } catch (const std::exception&) {
    return 0;
  }
}

class ManagerIntegrationTest : public localenv::ClusterTest {
 protected:
  static void SetUpTestSuite() {
    StartCluster("manager", {.controller_manager = false, .node_agent = false}, {"mgr", "sig"});
  }
  static void TearDownTestSuite() { StopCluster(); }

  static std::string FreeAddress() {
    Result<int> port = localenv::PickFreeLoopbackPort();
    EXPECT_TRUE(port.ok());
    return "127.0.0.1:" + std::to_string(port.ok() ? *port : 0);
  }

  void CreateConfigMap(Client& c, const std::string& ns, const std::string& name) {
    ASSERT_TRUE(c.Create(res::kConfigMaps, ns,
                         BuildJson(JsonObject{{"metadata", JsonObject{{"name", name}}}}))
                    .ok());
  }
};

TEST_F(ManagerIntegrationTest, CachesConvergeAcrossAnApiServerRestartAndReadyzFollows) {
  Result<std::unique_ptr<RestClient>> own =
      RestClient::Create(cluster().api_server().admin_config());
  ASSERT_TRUE(own.ok());
  Registry registry;
  const std::string address = FreeAddress();
  auto manager = Manager::Create(
      **own, {.name = "restart-test",
              .health_address = address,
              .handle_signals = false,
              .informer_defaults = {.initial_backoff = std::chrono::milliseconds(100),
                                    .max_backoff = std::chrono::seconds(1)},
              .registry = &registry});
  ASSERT_TRUE(manager.ok()) << manager.status().ToString();
  Manager& m = **manager;
  RecordingReconciler configmaps, secrets;
  m.AddController({.name = "configmaps"}, configmaps)
      .Watch(m.cluster().informers().Get(res::kConfigMaps, {.ns = "mgr"}));
  m.AddController({.name = "secrets"}, secrets)
      .Watch(m.cluster().informers().Get(res::kSecrets, {.ns = "mgr"}));
  CreateConfigMap(client(), "mgr", "before");
  Status run_status;
  std::thread runner([&] { run_status = m.Run(); });

  EXPECT_TRUE(Eventually([&] { return ReadyzCode(address) == 200; }));
  EXPECT_TRUE(Eventually([&] { return configmaps.Saw("mgr/before"); }));

  // A second API server on the same etcd keeps the cluster writable while the
  // manager's is down.
  Result<std::unique_ptr<localenv::ApiServer>> other =
      localenv::ApiServer::Start(SecondApiServerOptions("other"));
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  Result<std::unique_ptr<RestClient>> writer = RestClient::Create((*other)->admin_config());
  ASSERT_TRUE(writer.ok());

  cluster().api_server().Kill();
  EXPECT_TRUE(Eventually([&] { return ReadyzCode(address) == 503; }))
      << "readyz stayed " << ReadyzCode(address) << " with the API server down";
  CreateConfigMap(**writer, "mgr", "while-down");
  Client& writer_client = **writer;
  ASSERT_TRUE(writer_client
                  .Create(res::kSecrets, "mgr",
                          ParseTestJson(R"({"metadata":{"name":"secret-while-down"}})"))
                  .ok());

  ASSERT_TRUE(cluster().api_server().Restart().ok());
  EXPECT_TRUE(Eventually([&] { return ReadyzCode(address) == 200; }));
  EXPECT_TRUE(Eventually([&] { return configmaps.Saw("mgr/while-down"); }));
  EXPECT_TRUE(Eventually([&] { return secrets.Saw("mgr/secret-while-down"); }));
  SharedInformer& cms = m.cluster().informers().Get(res::kConfigMaps, {.ns = "mgr"});
  EXPECT_NE(cms.cache().Get("mgr/while-down"), nullptr);

  m.Stop();
  runner.join();
  EXPECT_TRUE(run_status.ok()) << run_status.ToString();
}

TEST_F(ManagerIntegrationTest, SigtermLetsASlowReconcileFinishAndReleasesTheLease) {
  Result<std::unique_ptr<RestClient>> own =
      RestClient::Create(cluster().api_server().admin_config());
  ASSERT_TRUE(own.ok());
  Registry registry;
  auto manager =
      Manager::Create(**own, {.name = "sigterm-test",
                              .leader_election = LeaderElectionConfig{.lease_namespace = "sig",
                                                                      .identity = "only-replica"},
                              .handle_signals = true,
                              .registry = &registry});
  ASSERT_TRUE(manager.ok()) << manager.status().ToString();
  RecordingReconciler slow;
  slow.Block();
  (*manager)
      ->AddController({.name = "slow"}, slow)
      .Watch((*manager)->cluster().informers().Get(res::kConfigMaps, {.ns = "sig"}));
  CreateConfigMap(client(), "sig", "work");
  Status run_status = Internal("not returned");
  std::atomic<bool> returned{false};
  std::thread runner([&] {
    run_status = (*manager)->Run();
    returned = true;
  });
  ASSERT_TRUE(Eventually([&] { return slow.Started() >= 1; }));
  Result<Object> lease = client().Get(res::kLeases, "sig", "sigterm-test");
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  EXPECT_EQ(GetString(*lease, {"spec", "holderIdentity"}), "only-replica");

  ASSERT_EQ(kill(getpid(), SIGTERM), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_FALSE(returned) << "Run returned with a reconcile still running";
  slow.Release();
  runner.join();
  EXPECT_TRUE(run_status.ok()) << run_status.ToString();
  EXPECT_TRUE(slow.Saw("sig/work")) << "the reconcile in flight did not finish";
  lease = client().Get(res::kLeases, "sig", "sigterm-test");
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ(GetString(*lease, {"spec", "holderIdentity"}), "") << "the Lease was not released";
}

}  // namespace
}  // namespace vtenant::kube
