// Unit tests of Manager and InformerFactory against FakeClient.
#include "kube/manager.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "base/eventually.h"
#include "kube/json_builder.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/recording_reconciler.h"

namespace vtenant::kube {
namespace {

namespace res = resources;

void CreatePod(FakeClient& client, const std::string& ns, const std::string& name) {
  ASSERT_TRUE(
      client.Create(res::kPods, ns, BuildJson(JsonObject{{"metadata", JsonObject{{"name", name}}}}))
          .ok());
}

// Each test builds its own client, registry and Manager from these options
// in the same few lines, on purpose: a test reads on its own.
ManagerOptions TestOptions(std::string name, Registry& registry) {
  return {.name = std::move(name),
          .handle_signals = false,
          .informer_defaults = {.initial_backoff = std::chrono::milliseconds(10),
                                .max_backoff = std::chrono::milliseconds(50)},
          .registry = &registry};
}

LeaderElectionConfig FastLease(std::string identity) {
  return {.lease_namespace = "kube-system",
          .lease_name = "test-manager",
          .identity = std::move(identity),
          .lease_duration = std::chrono::milliseconds(600),
          .renew_deadline = std::chrono::milliseconds(400),
          .retry_period = std::chrono::milliseconds(100)};
}

// A manager that leads alone on a fast Lease and, losing it, competes again.
std::unique_ptr<Manager> CompetingAgainManager(FakeClient& client, std::string name,
                                               Registry& registry) {
  ManagerOptions options = TestOptions(std::move(name), registry);
  options.leader_election = FastLease("one");
  options.compete_again_after_lost_lease = true;
  auto manager = Manager::Create(client, std::move(options));
  EXPECT_TRUE(manager.ok()) << manager.status().ToString();
  return manager.ok() ? std::move(*manager) : nullptr;
}

// Runs the manager on a thread and hands back its result.
class Running {
 public:
  explicit Running(Manager& manager)
      : thread_([&manager, this] {
          Status s = manager.Run();
          std::lock_guard lock(mu_);
          status_ = s;
          done_ = true;
        }) {}
  ~Running() {
    if (thread_.joinable()) thread_.join();
  }
  bool Done() {
    std::lock_guard lock(mu_);
    return done_;
  }
  Status Wait() {
    thread_.join();
    return status_;
  }

 private:
  std::mutex mu_;
  bool done_ = false;
  Status status_;
  std::thread thread_;
};

TEST(InformerFactoryTest, SameTypeNamespaceAndSelectorShareOneInformer) {
  FakeClient client;
  InformerFactory factory(client);
  SharedInformer& a = factory.Get(res::kPods, {.ns = "team-a"});
  SharedInformer& b = factory.Get(res::kPods, {.ns = "team-a"});
  SharedInformer& other_ns = factory.Get(res::kPods, {.ns = "team-b"});
  SharedInformer& selected = factory.Get(res::kPods, {.ns = "team-a", .label_selector = "x=y"});
  SharedInformer& nodes = factory.Get(res::kNodes);
  EXPECT_EQ(&a, &b);
  EXPECT_NE(&a, &other_ns);
  EXPECT_NE(&a, &selected);
  EXPECT_NE(&a, &nodes);
  EXPECT_EQ(factory.size(), 4u);
}

TEST(InformerFactoryTest, InformerAskedForAfterStartRunsAtOnce) {
  FakeClient client;
  CreatePod(client, "ns", "p");
  InformerFactory factory(client);
  ASSERT_TRUE(factory.Start().ok());
  SharedInformer& pods = factory.Get(res::kPods, {.ns = "ns"});
  EXPECT_TRUE(factory.WaitForSynced(std::chrono::seconds(30)));
  EXPECT_NE(pods.cache().Get("ns/p"), nullptr);
  EXPECT_TRUE(factory.Healthy().ok());
}

TEST(InformerFactoryTest, OptionalInformerHoldsBackNeitherSyncNorHealth) {
  FakeClient client;
  InformerFactory factory(client, {.initial_backoff = std::chrono::milliseconds(10),
                                   .max_backoff = std::chrono::milliseconds(20)});
  factory.Get(res::kPods, {.ns = "ns"});
  // A CRD not installed (yet): its list fails.
  SharedInformer& groups = factory.GetOptional(res::kPodGroups, {.ns = "ns"});
  client.InjectError("list", "podgroups", NotFound("the server could not find the resource"), -1);
  ASSERT_TRUE(factory.Start().ok());
  EXPECT_TRUE(factory.WaitForSynced(std::chrono::seconds(30)));
  EXPECT_TRUE(factory.Healthy().ok());
  EXPECT_FALSE(groups.HasSynced());
  // Installed: it lists on its own.
  client.ClearErrors();
  EXPECT_TRUE(groups.WaitForSynced(std::chrono::seconds(30)));
  // Asked for as required, it counts from then on.
  EXPECT_EQ(&factory.Get(res::kPodGroups, {.ns = "ns"}), &groups);
  client.InjectError("watch", "podgroups", Unavailable("away"), -1);
  client.InjectError("list", "podgroups", Unavailable("away"), -1);
  client.EndWatches();
  EXPECT_TRUE(Eventually([&] { return !factory.Healthy().ok(); }));
}

TEST(InformerFactoryTest, HealthyNamesInformersThatLostTheServer) {
  FakeClient client;
  InformerFactory factory(client, {.initial_backoff = std::chrono::milliseconds(10),
                                   .max_backoff = std::chrono::milliseconds(20)});
  factory.Get(res::kPods, {.ns = "ns"});
  client.InjectError("list", "pods", Unavailable("server away"), -1);
  ASSERT_TRUE(factory.Start().ok());
  Status status = factory.Healthy();
  EXPECT_EQ(status.code(), StatusCode::kUnavailable);
  EXPECT_NE(status.message().find("pods in ns"), std::string::npos) << status.ToString();
  client.ClearErrors();
  EXPECT_TRUE(Eventually([&] { return factory.Healthy().ok(); }));
}

TEST(ManagerTest, TwoControllersShareOneInformerAndBothReconcileEverything) {
  FakeClient client;
  CreatePod(client, "ns", "a");
  CreatePod(client, "ns", "b");
  Registry registry;
  auto manager = Manager::Create(client, TestOptions("two", registry));
  ASSERT_TRUE(manager.ok()) << manager.status().ToString();
  Manager& m = **manager;
  RecordingReconciler first, second;
  m.AddController({.name = "first"}, first)
      .Watch(m.cluster().informers().Get(res::kPods, {.ns = "ns"}));
  m.AddController({.name = "second"}, second)
      .Watch(m.cluster().informers().Get(res::kPods, {.ns = "ns"}));
  EXPECT_EQ(m.cluster().informers().size(), 1u);
  Running running(m);
  std::set<std::string> want = {"ns/a", "ns/b"};
  EXPECT_TRUE(Eventually([&] { return first.Keys() == want && second.Keys() == want; }));
  CreatePod(client, "ns", "c");
  EXPECT_TRUE(
      Eventually([&] { return first.Keys().count("ns/c") && second.Keys().count("ns/c"); }));
  EXPECT_TRUE(m.IsLeader());
  m.Stop();
  EXPECT_TRUE(running.Wait().ok());
}

// /metrics tells what each cluster's caches hold and the process's own
// figures; a manager gone takes its collector with it.
TEST(ManagerTest, MetricsTellTheCachedObjectsOfEachCluster) {
  FakeClient host, tenant;
  CreatePod(host, "ns", "a");
  CreatePod(host, "ns", "b");
  CreatePod(tenant, "ns", "c");
  Registry registry;
  auto manager = Manager::Create(host, TestOptions("metrics", registry));
  ASSERT_TRUE(manager.ok()) << manager.status().ToString();
  Manager& m = **manager;
  ClusterHandle& virtual_cluster = m.AddCluster("virtual", tenant);
  RecordingReconciler reconciler;
  Controller& controller = m.AddController({.name = "pods"}, reconciler);
  controller.Watch(m.cluster().informers().Get(res::kPods, {.ns = "ns"}));
  controller.Watch(virtual_cluster.informers().Get(res::kPods, {.ns = "ns"}));
  Running running(m);
  EXPECT_TRUE(Eventually([&] {
    const std::string page = registry.Render();
    return page.find("vtenant_informer_objects{cluster=\"primary\",resource=\"pods\"} 2\n") !=
               std::string::npos &&
           page.find("vtenant_informer_objects{cluster=\"virtual\",resource=\"pods\"} 1\n") !=
               std::string::npos;
  })) << registry.Render();
  EXPECT_NE(registry.Render().find("\nprocess_resident_memory_bytes "), std::string::npos);
  m.Stop();
  EXPECT_TRUE(running.Wait().ok());
  manager->reset();
  CreatePod(host, "ns", "d");
  EXPECT_NE(registry.Render().find("resource=\"pods\"} 2\n"), std::string::npos);
}

TEST(ManagerTest, NotReadyUntilCachesSyncAndWhileTheServerIsAway) {
  FakeClient client;
  Registry registry;
  auto manager = Manager::Create(client, TestOptions("ready", registry));
  ASSERT_TRUE(manager.ok());
  RecordingReconciler reconciler;
  (*manager)
      ->AddController({.name = "c"}, reconciler)
      .Watch((*manager)->cluster().informers().Get(res::kPods));
  client.InjectError("list", "pods", Unavailable("down"), -1);
  Running running(**manager);
  // No cache, no controller: it would act on an empty world.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE((*manager)->CachesHealthy().ok());
  CreatePod(client, "ns", "a");
  EXPECT_EQ(reconciler.Started(), 0);
  client.ClearErrors();
  EXPECT_TRUE(Eventually([&] { return (*manager)->CachesHealthy().ok(); }));
  EXPECT_TRUE(Eventually([&] { return reconciler.Keys().count("ns/a") == 1; }));
  // The server goes away: the next watch and lists fail.
  client.InjectError("watch", "pods", Unavailable("down"), -1);
  client.InjectError("list", "pods", Unavailable("down"), -1);
  client.EndWatches();
  EXPECT_TRUE(Eventually([&] { return !(*manager)->CachesHealthy().ok(); }));
  client.ClearErrors();
  EXPECT_TRUE(Eventually([&] { return (*manager)->CachesHealthy().ok(); }));
  (*manager)->Stop();
  EXPECT_TRUE(running.Wait().ok());
}

TEST(ManagerTest, StopLetsTheReconcileInFlightFinishThenReleasesTheLease) {
  FakeClient client;
  CreatePod(client, "ns", "slow");
  Registry registry;
  ManagerOptions options = TestOptions("graceful", registry);
  options.leader_election = FastLease("one");
  auto manager = Manager::Create(client, std::move(options));
  ASSERT_TRUE(manager.ok()) << manager.status().ToString();
  RecordingReconciler reconciler;
  reconciler.Block();
  (*manager)
      ->AddController({.name = "c"}, reconciler)
      .Watch((*manager)->cluster().informers().Get(res::kPods));
  Running running(**manager);
  ASSERT_TRUE(Eventually([&] { return reconciler.Started() == 1; }));
  (*manager)->Stop();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(running.Done()) << "Run returned while a reconcile was still running";
  Result<Object> held = client.Get(res::kLeases, "kube-system", "test-manager");
  ASSERT_TRUE(held.ok());
  EXPECT_EQ(GetString(*held, {"spec", "holderIdentity"}), "one");
  reconciler.Release();
  EXPECT_TRUE(running.Wait().ok());
  EXPECT_EQ(reconciler.Finished(), 1);
  Result<Object> released = client.Get(res::kLeases, "kube-system", "test-manager");
  ASSERT_TRUE(released.ok());
  EXPECT_EQ(GetString(*released, {"spec", "holderIdentity"}), "");
}

TEST(ManagerTest, OnlyTheLeaderRunsControllersAndTheOtherTakesOver) {
  FakeClient client;
  CreatePod(client, "ns", "a");
  Registry registry_one, registry_two;
  ManagerOptions one_options = TestOptions("one", registry_one);
  one_options.leader_election = FastLease("one");
  ManagerOptions two_options = TestOptions("two", registry_two);
  two_options.leader_election = FastLease("two");
  auto one = Manager::Create(client, std::move(one_options));
  auto two = Manager::Create(client, std::move(two_options));
  ASSERT_TRUE(one.ok() && two.ok());
  RecordingReconciler r1, r2;
  (*one)->AddController({.name = "c"}, r1).Watch((*one)->cluster().informers().Get(res::kPods));
  (*two)->AddController({.name = "c"}, r2).Watch((*two)->cluster().informers().Get(res::kPods));
  auto running_one = std::make_unique<Running>(**one);
  ASSERT_TRUE(Eventually([&] { return (*one)->IsLeader(); }));
  ASSERT_TRUE(Eventually([&] { return r1.Keys().count("ns/a") == 1; }));
  Running running_two(**two);
  ASSERT_TRUE(Eventually([&] { return (*two)->CachesHealthy().ok(); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE((*two)->IsLeader());
  EXPECT_EQ(r2.Started(), 0);
  (*one)->Stop();
  EXPECT_TRUE(running_one->Wait().ok());
  EXPECT_TRUE(Eventually([&] { return (*two)->IsLeader(); }));
  EXPECT_TRUE(Eventually([&] { return r2.Keys().count("ns/a") == 1; }));
  (*two)->Stop();
  EXPECT_TRUE(running_two.Wait().ok());
}

// Every call on Leases fails until ClearErrors: the leader
// loses the Lease as it would to an API server outage, while the pods stay
// readable.
void BreakLeases(FakeClient& client) {
  client.InjectError("get", "leases", Unavailable("server away"), -1);
  client.InjectError("update", "leases", Unavailable("server away"), -1);
  client.InjectError("create", "leases", Unavailable("server away"), -1);
}

TEST(ManagerTest, LostLeaseEndsRunByDefault) {
  FakeClient client;
  Registry registry;
  ManagerOptions options = TestOptions("exits", registry);
  options.leader_election = FastLease("one");
  auto manager = Manager::Create(client, std::move(options));
  ASSERT_TRUE(manager.ok());
  RecordingReconciler reconciler;
  (*manager)
      ->AddController({.name = "c"}, reconciler)
      .Watch((*manager)->cluster().informers().Get(res::kPods));
  Running running(**manager);
  ASSERT_TRUE(Eventually([&] { return (*manager)->IsLeader(); }));
  BreakLeases(client);
  EXPECT_EQ(running.Wait().code(), StatusCode::kUnavailable);
}

TEST(ManagerTest, LostLeaseKeepsCachesAndWonBackRunsControllersAgain) {
  FakeClient client;
  CreatePod(client, "ns", "a");
  Registry registry;
  std::unique_ptr<Manager> manager = CompetingAgainManager(client, "recompete", registry);
  ASSERT_NE(manager, nullptr);
  Manager& m = *manager;
  RecordingReconciler reconciler;
  SharedInformer& pods = m.cluster().informers().Get(res::kPods);
  m.AddController({.name = "c"}, reconciler).Watch(pods);
  std::atomic<int> leader_runs{0};
  m.AddRunnable("leader-only", [&](Cancellation& stop) {
    ++leader_runs;
    while (!stop.WaitFor(std::chrono::seconds(10))) {
    }
  });
  Running running(m);
  ASSERT_TRUE(Eventually([&] { return reconciler.Keys().count("ns/a") == 1; }));
  EXPECT_TRUE(Eventually([&] { return m.health_server().Ready().ok(); }));
  const int lists = client.Calls("list");

  BreakLeases(client);
  ASSERT_TRUE(Eventually([&] { return !m.IsLeader() && !m.LeaseHealthy().ok(); }));
  Status ready = m.health_server().Ready();
  EXPECT_FALSE(ready.ok());
  EXPECT_NE(ready.message().find("leader"), std::string::npos) << ready.ToString();
  EXPECT_FALSE(running.Done()) << "Run ended on a lost lease";
  // While not leading the cache follows the server, and nothing reconciles.
  const int started = reconciler.Started();
  CreatePod(client, "ns", "b");
  ASSERT_TRUE(Eventually([&] { return pods.cache().Get("ns/b") != nullptr; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(reconciler.Started(), started);
  EXPECT_EQ(reconciler.Keys().count("ns/b"), 0u);

  client.ClearErrors();
  ASSERT_TRUE(Eventually([&] { return m.IsLeader(); }));
  // Replayed from the cache: the pod made while away, and the one before.
  EXPECT_TRUE(Eventually([&] { return reconciler.Keys().count("ns/b") == 1; }));
  EXPECT_TRUE(Eventually([&] { return leader_runs == 2; }));
  EXPECT_TRUE(Eventually([&] { return m.health_server().Ready().ok(); }));
  EXPECT_EQ(client.Calls("list"), lists) << "the caches were listed again";
  m.Stop();
  EXPECT_TRUE(running.Wait().ok());
}

TEST(ManagerTest, LostLeaseLetsTheReconcileInFlightFinishFirst) {
  FakeClient client;
  CreatePod(client, "ns", "slow");
  Registry registry;
  std::unique_ptr<Manager> manager = CompetingAgainManager(client, "drains", registry);
  ASSERT_NE(manager, nullptr);
  Manager& m = *manager;
  RecordingReconciler reconciler;
  reconciler.Block();
  m.AddController({.name = "c"}, reconciler).Watch(m.cluster().informers().Get(res::kPods));
  Running running(m);
  ASSERT_TRUE(Eventually([&] { return reconciler.Started() == 1; }));
  BreakLeases(client);
  ASSERT_TRUE(Eventually([&] { return !m.IsLeader(); }));
  client.ClearErrors();
  // Competing again waits for this term's reconcile.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_FALSE(m.IsLeader());
  EXPECT_EQ(reconciler.Finished(), 0);
  reconciler.Release();
  EXPECT_TRUE(Eventually([&] { return m.IsLeader(); }));
  EXPECT_TRUE(Eventually([&] { return reconciler.Finished() >= 1; }));
  m.Stop();
  EXPECT_TRUE(running.Wait().ok());
}

TEST(ManagerTest, SharedDispatcherDeliversEveryClustersEvents) {
  FakeClient primary, other;
  CreatePod(primary, "ns", "a");
  CreatePod(other, "ns", "b");
  Registry registry;
  ManagerOptions options = TestOptions("dispatcher", registry);
  options.shared_event_dispatcher = true;
  auto manager = Manager::Create(primary, std::move(options));
  ASSERT_TRUE(manager.ok());
  Manager& m = **manager;
  ClusterHandle& second = m.AddCluster("other", other);
  RecordingReconciler reconciler;
  Controller& c = m.AddController({.name = "c"}, reconciler);
  c.Watch(m.cluster().informers().Get(res::kPods));
  c.Watch(second.informers().Get(res::kPods));
  Running running(m);
  EXPECT_TRUE(Eventually([&] {
    return reconciler.Keys() == std::set<std::string>{"ns/a", "ns/b"};
  }));
  m.Stop();
  EXPECT_TRUE(running.Wait().ok());
}

TEST(ManagerTest, RunnablesRunAndStopOnCancel) {
  FakeClient client;
  Registry registry;
  auto manager = Manager::Create(client, TestOptions("runnables", registry));
  ASSERT_TRUE(manager.ok());
  std::atomic<int> running_count{0};
  auto body = [&](Cancellation& stop) {
    ++running_count;
    while (!stop.WaitFor(std::chrono::seconds(10))) {
    }
    --running_count;
  };
  (*manager)->AddRunnable("everywhere", body, /*needs_leader=*/false);
  (*manager)->AddRunnable("leader", body, /*needs_leader=*/true);
  Running running(**manager);
  EXPECT_TRUE(Eventually([&] { return running_count == 2; }));
  (*manager)->Stop();
  EXPECT_TRUE(running.Wait().ok());
  EXPECT_EQ(running_count, 0);
}

TEST(ManagerTest, WorkThatOutlastsTheShutdownTimeoutIsReported) {
  FakeClient client;
  Registry registry;
  ManagerOptions options = TestOptions("stuck", registry);
  options.shutdown_timeout = std::chrono::milliseconds(100);
  auto manager = Manager::Create(client, std::move(options));
  ASSERT_TRUE(manager.ok());
  auto release = std::make_shared<Cancellation>();
  (*manager)->AddRunnable("stuck",
                          [release](Cancellation&) { release->WaitFor(std::chrono::seconds(30)); });
  Running running(**manager);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  (*manager)->Stop();
  Status status = running.Wait();
  EXPECT_EQ(status.code(), StatusCode::kTimeout) << status.ToString();
  release->Cancel();
}

TEST(ManagerTest, BadOptionsAreRefused) {
  FakeClient client;
  Registry registry;
  EXPECT_EQ(Manager::Create(client, TestOptions("", registry)).status().code(),
            StatusCode::kInvalidArgument);
  ManagerOptions bad_address = TestOptions("x", registry);
  bad_address.health_address = "localhost";
  EXPECT_EQ(Manager::Create(client, bad_address).status().code(), StatusCode::kInvalidArgument);
  bad_address.health_address = "127.0.0.1:99999";
  EXPECT_EQ(Manager::Create(client, bad_address).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace vtenant::kube
