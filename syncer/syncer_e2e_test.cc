// End to end: the vtenant-syncer program between a real host API server
// and a real virtual one, killed and restarted in the middle of bursts, and
// both API servers restarted under it, and the host away long enough to
// cost the Lease. The rule under test: never a duplicate, never a lost pod,
// no orphans (docs/architecture.md, "Syncer rules", rule 5).
// syncer_integration_test.cc sets up alike clusters but runs the Syncer in
// the test's process, to look inside it; this suite needs a program to kill.
#include <cpprest/http_client.h>
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "base/eventually.h"
#include "base/file.h"
#include "kube/json_builder.h"
#include "localenv/process.h"
#include "localenv/testing/cluster_test.h"
#include "localenv/testing/source_tree.h"
#include "localenv/testing/virtual_cluster.h"
#include "localenv/tools.h"
#include "syncer/names.h"

namespace vtenant::syncer {
namespace {

using kube::resources::kPods;
using localenv::ParseTestJson;

constexpr char kHostNs[] = "vtenant-nlp";

class SyncerEndToEndTest : public localenv::ClusterTest {
 protected:
  static void SetUpTestSuite() {
    StartCluster("syncer-e2e",
                 {.controller_manager = false,
                  .node_agent = false,
                  .manifests = {localenv::CrdManifest("scheduling.run.ai_podgroups.yaml")}},
                 {kHostNs});
    localenv::VirtualClusterOptions options = VirtualClusterOptionsFor("nlp");
    options.controller_manager = false;
    Result<std::unique_ptr<localenv::VirtualCluster>> vc = localenv::VirtualCluster::Start(options);
    ASSERT_TRUE(vc.ok()) << vc.status().ToString();
    virtual_cluster_ = vc->release();
    ASSERT_TRUE(virtual_cluster_->client()
                    .Create(kube::resources::kNamespaces, "",
                            ParseTestJson(R"({"apiVersion":"v1","kind":"Namespace",
                                "metadata":{"name":"burst"}})"))
                    .ok());
  }
  static void TearDownTestSuite() {
    delete virtual_cluster_;
    StopCluster();
  }

  void TearDown() override { syncer_.Stop(); }

  void StartSyncer() {
    Result<int> port = localenv::PickFreeLoopbackPort();
    ASSERT_TRUE(port.ok());
    Result<localenv::Process> process = localenv::Process::Start(
        {.argv = {VTENANT_SYNCER, "--tenant=nlp",
                  "--virtual-kubeconfig=" + virtual_cluster_->kubeconfig_path(),
                  "--host-kubeconfig=" + cluster().api_server().kubeconfig_path(),
                  "--health-address=127.0.0.1:" + std::to_string(*port), "--leader-elect"},
         .log_path = cluster().dir() + "/syncer.log"});
    ASSERT_TRUE(process.ok()) << process.status().ToString();
    syncer_ = std::move(*process);
    health_address_ = "127.0.0.1:" + std::to_string(*port);
  }

  // The syncer's /readyz status code; 0 while it does not answer.
  int ReadyzCode() const {
    try {
      web::http::client::http_client client("http://" + health_address_);
      return client.request(web::http::methods::GET, "/readyz").get().status_code();
    } catch (const std::exception&) {
      return 0;
    }
  }

  // Creates pods burst-<from> .. burst-<to - 1> from 4 threads.
  static void CreatePods(int from, int to) {
    std::vector<std::thread> threads;
    std::atomic<int> next{from};
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        for (int i = next++; i < to; i = next++) {
          const kube::Object pod = kube::BuildJson(kube::JsonObject{
              {"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               kube::JsonObject{{"name", "burst-" + std::to_string(i)}, {"namespace", "burst"}}},
              {"spec", kube::JsonObject{{"schedulerName", "kai-scheduler"},
                                        {"containers", kube::JsonArray{kube::JsonObject{
                                                           {"name", "c"}, {"image", "i"}}}}}}});
          while (!virtual_cluster_->client().Create(kPods, "burst", pod).ok()) {
            // An API server restarting under us: try again.
            if (virtual_cluster_->client().Get(kPods, "burst", kube::Name(pod)).ok()) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
          }
        }
      });
    }
    for (std::thread& t : threads) t.join();
  }

  // Host pods, checked against the virtual ones: each stands for a virtual
  // pod of the same UID. Returns how many there are, or -1 on an orphan.
  static int HostPodsMatchingVirtual() {
    Result<kube::ObjectList> host = client().ListAll(kPods, kHostNs);
    Result<kube::ObjectList> virt = virtual_cluster_->client().ListAll(kPods, "burst");
    if (!host.ok() || !virt.ok()) return -2;
    std::map<std::string, std::string> uid_by_name;
    for (const kube::Object& p : virt->items) {
      uid_by_name[std::string(kube::Name(p))] = std::string(kube::Uid(p));
    }
    int matching = 0;
    for (const kube::Object& p : host->items) {
      std::string name(kube::Annotation(p, kVirtualNameAnnotation).value_or(""));
      auto it = uid_by_name.find(name);
      if (it == uid_by_name.end() || kube::Annotation(p, kVirtualUidAnnotation) != it->second) {
        return -1;
      }
      ++matching;
    }
    return matching;
  }

  static inline localenv::VirtualCluster* virtual_cluster_ = nullptr;
  localenv::Process syncer_;
  std::string health_address_;
};

TEST_F(SyncerEndToEndTest, KilledMidBurstItNeitherDuplicatesNorLoses) {
  StartSyncer();
  std::thread burst([] { CreatePods(0, 500); });
  // Kill it once it is well into the burst.
  ASSERT_TRUE(Eventually(
      [] {
        Result<kube::ObjectList> host = client().List(kPods, kHostNs, {.limit = 100});
        return host.ok() && (host->items.size() >= 100 || !host->continue_token.empty());
      },
      std::chrono::seconds(180)));
  syncer_.Stop(std::chrono::milliseconds(0));  // SIGKILL: no goodbye
  Result<kube::ObjectList> at_kill = virtual_cluster_->client().ListAll(kPods, "burst");
  Result<kube::ObjectList> synced_at_kill = client().ListAll(kPods, kHostNs);
  ASSERT_TRUE(at_kill.ok() && synced_at_kill.ok());
  RecordProperty("virtual_pods_at_kill", static_cast<int>(at_kill->items.size()));
  RecordProperty("host_pods_at_kill", static_cast<int>(synced_at_kill->items.size()));
  // Killed mid-burst: pods were still waiting to be synced.
  EXPECT_LT(synced_at_kill->items.size(), 500u);
  StartSyncer();
  burst.join();
  EXPECT_TRUE(
      Eventually([] { return HostPodsMatchingVirtual() == 500; }, std::chrono::seconds(300)));
  EXPECT_EQ(HostPodsMatchingVirtual(), 500);

  // Both API servers restart under a second burst: host first, then virtual.
  std::thread second([] { CreatePods(500, 700); });
  ASSERT_TRUE(cluster().api_server().Restart().ok());
  ASSERT_TRUE(virtual_cluster_->RestartApiServer().ok());
  second.join();
  EXPECT_TRUE(
      Eventually([] { return HostPodsMatchingVirtual() == 700; }, std::chrono::seconds(300)));
  EXPECT_EQ(HostPodsMatchingVirtual(), 700);

  // Deleted while it is down, its host pods go when it comes back.
  EXPECT_EQ(syncer_.Stop(), "exited 0");  // SIGTERM: a graceful stop
  for (int i = 0; i < 700; i += 7) {
    ASSERT_TRUE(
        virtual_cluster_->client().Delete(kPods, "burst", "burst-" + std::to_string(i)).ok());
  }
  StartSyncer();
  EXPECT_TRUE(
      Eventually([] { return HostPodsMatchingVirtual() == 600; }, std::chrono::seconds(300)));
}

// The program's own Lease: the host API server away longer than the renew
// deadline (10 s) costs it, and the syncer rides it out in the same process.
TEST_F(SyncerEndToEndTest, HostAwayPastTheLeaseCostsNoRestartAndNoPod) {
  StartSyncer();
  const pid_t pid = syncer_.pid();
  CreatePods(1000, 1020);
  auto synced = [](int from, int to) {
    for (int i = from; i < to; ++i) {
      if (!client()
               .Get(kPods, kHostNs, HostName("burst-" + std::to_string(i), "burst", "nlp"))
               .ok())
        return false;
    }
    return true;
  };
  ASSERT_TRUE(Eventually([&] { return synced(1000, 1020); }, std::chrono::seconds(120)));
  ASSERT_TRUE(Eventually([&] { return ReadyzCode() == 200; }));
  const int before = HostPodsMatchingVirtual();
  ASSERT_GE(before, 20);

  // The log is shared with the earlier runs of the suite: only what follows counts.
  const std::string log_path = cluster().dir() + "/syncer.log";
  const size_t log_start = ReadFileOrEmpty(log_path).size();
  cluster().api_server().Stop();
  EXPECT_TRUE(Eventually([&] { return ReadyzCode() == 503; }));
  // Past the renew deadline: the Lease is gone; the process is not.
  EXPECT_TRUE(Eventually(
      [&] {
        return ReadFileOrEmpty(log_path).find("lost the leader lease; stopping controllers",
                                              log_start) != std::string::npos;
      },
      std::chrono::seconds(60)));
  EXPECT_TRUE(syncer_.Running());
  EXPECT_EQ(ReadyzCode(), 503);
  CreatePods(1020, 1040);
  ASSERT_TRUE(cluster().api_server().Restart().ok());

  EXPECT_TRUE(Eventually([&] { return ReadyzCode() == 200; }, std::chrono::seconds(120)));
  EXPECT_TRUE(Eventually([&] { return synced(1020, 1040); }, std::chrono::seconds(120)));
  EXPECT_EQ(HostPodsMatchingVirtual(), before + 20);
  EXPECT_EQ(syncer_.pid(), pid);
  EXPECT_TRUE(syncer_.Running());
}

}  // namespace
}  // namespace vtenant::syncer
