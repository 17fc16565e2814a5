// Integration: leader handover between two electors over a real Lease.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "base/eventually.h"
#include "kube/leader_election.h"
#include "kube/testing/lease_history.h"
#include "localenv/testing/cluster_test.h"

namespace vtenant::kube {
namespace {

using localenv::ParseTestJson;

namespace res = resources;
using localenv::LocalCluster;
using std::chrono::milliseconds;

constexpr int kLeaseSeconds = 2;

class LeaderElectionIntegrationTest : public localenv::ClusterTest {
 protected:
  static void SetUpTestSuite() {
    StartCluster("leader", {.controller_manager = false, .node_agent = false});
  }
  static void TearDownTestSuite() { StopCluster(); }

  // A candidate as a separate replica would be: its own client and elector.
  struct Candidate {
    std::unique_ptr<Client> client;
    std::unique_ptr<LeaderElector> elector;
    std::atomic<int> started{0};
    std::atomic<int> stopped{0};
  };

  static std::unique_ptr<Candidate> NewCandidate(const std::string& lease, const std::string& id,
                                                 bool release_on_stop = true) {
    auto candidate = std::make_unique<Candidate>();
    Result<std::unique_ptr<RestClient>> client =
        RestClient::Create(cluster().api_server().admin_config());
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    candidate->client = std::move(client).value();
    Candidate* c = candidate.get();
    Result<std::unique_ptr<LeaderElector>> elector = LeaderElector::Create(
        *candidate->client, {.lease_namespace = "default",
                             .lease_name = lease,
                             .identity = id,
                             .lease_duration = std::chrono::seconds(kLeaseSeconds),
                             .renew_deadline = milliseconds(1500),
                             .retry_period = milliseconds(250),
                             .release_on_stop = release_on_stop,
                             .callbacks = {.on_started_leading = [c] { ++c->started; },
                                           .on_stopped_leading = [c] { ++c->stopped; }}});
    EXPECT_TRUE(elector.ok()) << elector.status().ToString();
    candidate->elector = std::move(elector).value();
    return candidate;
  }

  Object Lease(const std::string& name) {
    Result<Object> lease = cluster().client().Get(res::kLeases, "default", name);
    EXPECT_TRUE(lease.ok()) << lease.status().ToString();
    return lease.ok() ? std::move(lease).value() : Object(rapidjson::kObjectType);
  }
};

TEST_F(LeaderElectionIntegrationTest, GracefulStopHandsOverWithoutWaitingForExpiry) {
  LeaseHistory history(cluster().client(), "default", "graceful");
  std::unique_ptr<Candidate> a = NewCandidate("graceful", "replica-a");
  std::unique_ptr<Candidate> b = NewCandidate("graceful", "replica-b");
  ASSERT_TRUE(a->elector->Run().ok());
  ASSERT_TRUE(Eventually([&] { return a->elector->IsLeader(); }));
  ASSERT_TRUE(b->elector->Run().ok());
  ASSERT_TRUE(Eventually([&] { return b->elector->CurrentLeader() == "replica-a"; }));
  // While a renews, b stays a candidate through several of its retries.
  const std::string renewed(GetString(Lease("graceful"), {"spec", "renewTime"}));
  ASSERT_TRUE(Eventually([&] {
    return GetString(Lease("graceful"), {"spec", "renewTime"}) != renewed;
  }));
  EXPECT_FALSE(b->elector->IsLeader());
  EXPECT_EQ(b->started.load(), 0);

  a->elector->Stop();
  EXPECT_EQ(a->stopped.load(), 1);
  EXPECT_FALSE(a->elector->IsLeader());
  ASSERT_TRUE(Eventually([&] { return b->elector->IsLeader(); }));
  EXPECT_EQ(GetString(Lease("graceful"), {"spec", "holderIdentity"}), "replica-b");
  EXPECT_EQ(GetInt(Lease("graceful"), {"spec", "leaseTransitions"}), 1);

  const std::vector<LeaseRecord> records = history.RecordsOnceHeldBy("replica-b");
  const size_t first_b = FirstHeldBy(records, "replica-b");
  ASSERT_LT(first_b, records.size());
  ASSERT_GE(first_b, 2u);
  EXPECT_EQ(records[first_b - 1].holder, "") << "a released the lease before b took it";
  for (size_t i = 0; i + 1 < first_b; ++i) EXPECT_EQ(records[i].holder, "replica-a");
  b->elector->Stop();
}

TEST_F(LeaderElectionIntegrationTest, CrashedLeaderIsReplacedAfterItsLeaseExpires) {
  LeaseHistory history(cluster().client(), "default", "crash");
  std::unique_ptr<Candidate> a = NewCandidate("crash", "replica-a", /*release_on_stop=*/false);
  std::unique_ptr<Candidate> b = NewCandidate("crash", "replica-b");
  ASSERT_TRUE(a->elector->Run().ok());
  ASSERT_TRUE(Eventually([&] { return a->elector->IsLeader(); }));
  ASSERT_TRUE(b->elector->Run().ok());
  ASSERT_TRUE(Eventually([&] { return b->elector->CurrentLeader() == "replica-a"; }));
  a->elector->Stop();  // stops renewing and leaves the lease held: a crash
  ASSERT_TRUE(Eventually([&] { return b->elector->IsLeader(); }));
  EXPECT_EQ(GetInt(Lease("crash"), {"spec", "leaseTransitions"}), 1);

  const std::vector<LeaseRecord> records = history.RecordsOnceHeldBy("replica-b");
  const size_t first_b = FirstHeldBy(records, "replica-b");
  ASSERT_LT(first_b, records.size());
  ASSERT_GE(first_b, 1u);
  const auto& last_a = records[first_b - 1];
  EXPECT_EQ(last_a.holder, "replica-a") << "nobody released it";
  // b took over no sooner than a whole lease after a's last renewal.
  EXPECT_GE(MicroTimeMicros(records[first_b].acquire_time) - MicroTimeMicros(last_a.renew_time),
            int64_t{kLeaseSeconds} * 1000000);
  b->elector->Stop();
}

TEST_F(LeaderElectionIntegrationTest, TwoElectorsNeverLeadAtOnce) {
  std::unique_ptr<Candidate> a = NewCandidate("exclusive", "replica-a");
  std::unique_ptr<Candidate> b = NewCandidate("exclusive", "replica-b");
  // Started together, they race to create the Lease; one create wins.
  ASSERT_TRUE(a->elector->Run().ok());
  ASSERT_TRUE(b->elector->Run().ok());
  ASSERT_TRUE(Eventually([&] { return a->elector->IsLeader() || b->elector->IsLeader(); }));
  for (int i = 0; i < 50; ++i) {
    EXPECT_FALSE(a->elector->IsLeader() && b->elector->IsLeader());
    std::this_thread::sleep_for(milliseconds(20));
  }
  EXPECT_EQ(a->started.load() + b->started.load(), 1);
}

}  // namespace
}  // namespace vtenant::kube
