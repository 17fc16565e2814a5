// Unit tests of LeaderElector against FakeClient, with sub-second leases.
#include "kube/leader_election.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "base/eventually.h"
#include "kube/rest_client.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/fake_clock.h"
#include "kube/testing/fake_transport.h"
#include "kube/testing/lease_history.h"

namespace vtenant::kube {
namespace {

namespace res = resources;
using std::chrono::milliseconds;

struct Candidate {
  explicit Candidate(Client& client, const std::string& id, bool release_on_stop = true) {
    LeaderElectionConfig config{.lease_namespace = "kube-system",
                                .lease_name = "test-lock",
                                .identity = id,
                                .lease_duration = milliseconds(1000),
                                .renew_deadline = milliseconds(600),
                                .retry_period = milliseconds(100),
                                .release_on_stop = release_on_stop,
                                .callbacks = {.on_started_leading = [this] { ++started; },
                                              .on_stopped_leading = [this] { ++stopped; },
                                              .on_new_leader =
                                                  [this](const std::string& who) {
                                                    std::lock_guard lock(mu);
                                                    leaders.push_back(who);
                                                  }}};
    Result<std::unique_ptr<LeaderElector>> created = LeaderElector::Create(client, config);
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    elector = std::move(created).value();
  }
  std::vector<std::string> Leaders() {
    std::lock_guard lock(mu);
    return leaders;
  }

  std::atomic<int> started{0};
  std::atomic<int> stopped{0};
  std::mutex mu;
  std::vector<std::string> leaders;
  std::unique_ptr<LeaderElector> elector;
};

Object Lease(FakeClient& client) {
  Result<Object> lease = client.Get(res::kLeases, "kube-system", "test-lock");
  EXPECT_TRUE(lease.ok()) << lease.status().ToString();
  return lease.ok() ? std::move(lease).value() : Object(rapidjson::kObjectType);
}

std::string Holder(FakeClient& client) {
  Result<Object> lease = client.Get(res::kLeases, "kube-system", "test-lock");
  return lease.ok() ? std::string(GetString(*lease, {"spec", "holderIdentity"})) : "<none>";
}

TEST(LeaderElectorTest, CreateRejectsUnsafeTimings) {
  FakeClient client;
  auto make = [&](LeaderElectionConfig config) {
    return LeaderElector::Create(client, std::move(config)).status().code();
  };
  EXPECT_EQ(make({.identity = "a"}), StatusCode::kInvalidArgument) << "no lease name";
  EXPECT_EQ(make({.lease_name = "l"}), StatusCode::kInvalidArgument) << "no identity";
  EXPECT_EQ(make({.lease_name = "l",
                  .identity = "a",
                  .lease_duration = std::chrono::seconds(10),
                  .renew_deadline = std::chrono::seconds(10)}),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(make({.lease_name = "l",
                  .identity = "a",
                  .renew_deadline = std::chrono::seconds(2),
                  .retry_period = std::chrono::seconds(2)}),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(make({.lease_name = "l", .identity = "a", .retry_period = milliseconds(0)}),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(make({.lease_name = "l", .identity = "a"}), StatusCode::kOk) << "client-go defaults";
}

TEST(LeaderElectorTest, SoleCandidateCreatesTheLeaseAndKeepsRenewing) {
  FakeClient client;
  Candidate a(client, "a");
  EXPECT_FALSE(a.elector->IsLeader());
  ASSERT_TRUE(a.elector->Run().ok());
  EXPECT_EQ(a.elector->Run().code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(Eventually([&] { return a.elector->IsLeader(); }));
  EXPECT_EQ(a.started.load(), 1);
  EXPECT_EQ(a.Leaders(), std::vector<std::string>{"a"});
  EXPECT_EQ(a.elector->CurrentLeader(), "a");
  Object lease = Lease(client);
  EXPECT_EQ(GetString(lease, {"spec", "holderIdentity"}), "a");
  EXPECT_EQ(GetInt(lease, {"spec", "leaseDurationSeconds"}), 1);
  EXPECT_EQ(GetInt(lease, {"spec", "leaseTransitions"}), 0);
  const std::string first_renewal(GetString(lease, {"spec", "renewTime"}));
  ASSERT_TRUE(Eventually([&] {
    return GetString(Lease(client), {"spec", "renewTime"}) != first_renewal;
  }));
  EXPECT_EQ(GetString(Lease(client), {"spec", "acquireTime"}),
            GetString(lease, {"spec", "acquireTime"}))
      << "renewals keep the acquire time";
  EXPECT_EQ(a.stopped.load(), 0);
  a.elector->Stop();
  EXPECT_FALSE(a.elector->IsLeader());
  EXPECT_EQ(a.stopped.load(), 1);
  EXPECT_EQ(Holder(client), "") << "a graceful stop releases the lease";
}

TEST(LeaderElectorTest, GracefulStopHandsOverThroughARelease) {
  FakeClient client;
  LeaseHistory history(client, "kube-system", "test-lock");
  Candidate a(client, "a");
  Candidate b(client, "b");
  ASSERT_TRUE(a.elector->Run().ok());
  ASSERT_TRUE(Eventually([&] { return a.elector->IsLeader(); }));
  ASSERT_TRUE(b.elector->Run().ok());
  ASSERT_TRUE(Eventually([&] { return b.elector->CurrentLeader() == "a"; }));
  // b stays a candidate while a renews.
  for (int i = 0; i < 20; ++i) {
    EXPECT_FALSE(b.elector->IsLeader());
    std::this_thread::sleep_for(milliseconds(50));
  }
  EXPECT_EQ(b.started.load(), 0);

  a.elector->Stop();
  EXPECT_EQ(a.stopped.load(), 1);
  ASSERT_TRUE(Eventually([&] { return b.elector->IsLeader(); }));
  EXPECT_EQ(Holder(client), "b");
  EXPECT_EQ(GetInt(Lease(client), {"spec", "leaseTransitions"}), 1);
  EXPECT_EQ(b.Leaders(), (std::vector<std::string>{"a", "b"}));

  const std::vector<LeaseRecord> records = history.RecordsOnceHeldBy("b");
  // a, a, ..., "" (released), b: nobody took over from a live a.
  const size_t first_b = FirstHeldBy(records, "b");
  ASSERT_GT(first_b, 0u);
  ASSERT_LT(first_b, records.size());
  EXPECT_EQ(records[first_b - 1].holder, "");
  for (size_t i = 0; i + 1 < first_b; ++i) EXPECT_EQ(records[i].holder, "a");
}

TEST(LeaderElectorTest, CrashedLeaderIsReplacedOnlyAfterItsLeaseExpires) {
  FakeClient client;
  LeaseHistory history(client, "kube-system", "test-lock");
  Candidate a(client, "a", /*release_on_stop=*/false);
  Candidate b(client, "b");
  ASSERT_TRUE(a.elector->Run().ok());
  ASSERT_TRUE(Eventually([&] { return a.elector->IsLeader(); }));
  ASSERT_TRUE(b.elector->Run().ok());
  ASSERT_TRUE(Eventually([&] { return b.elector->CurrentLeader() == "a"; }));
  a.elector->Stop();  // no release: like a crash
  ASSERT_TRUE(Eventually([&] { return b.elector->IsLeader(); }));

  const std::vector<LeaseRecord> records = history.RecordsOnceHeldBy("b");
  const size_t first_b = FirstHeldBy(records, "b");
  ASSERT_GT(first_b, 0u);
  ASSERT_LT(first_b, records.size());
  EXPECT_EQ(records[first_b - 1].holder, "a") << "no release in between";
  // b waited a whole lease duration after a's last renewal.
  EXPECT_GE(MicroTimeMicros(records[first_b].acquire_time) -
                MicroTimeMicros(records[first_b - 1].renew_time),
            1000000);
}

TEST(LeaderElectorTest, StepsDownWhenRenewalsFailPastTheDeadlineAndComesBack) {
  FakeClient client;
  Candidate a(client, "a");
  ASSERT_TRUE(a.elector->Run().ok());
  ASSERT_TRUE(Eventually([&] { return a.elector->IsLeader(); }));
  client.InjectError("update", "leases", Unavailable("connection refused"), -1);
  ASSERT_TRUE(Eventually([&] { return a.stopped.load() == 1; }));
  EXPECT_FALSE(a.elector->IsLeader());
  client.ClearErrors();
  ASSERT_TRUE(Eventually([&] { return a.elector->IsLeader(); }));
  EXPECT_EQ(a.started.load(), 2);
}

TEST(LeaderElectorTest, StepsDownAtOnceWhenAnotherHolderAppears) {
  FakeClient client;
  Candidate a(client, "a");
  ASSERT_TRUE(a.elector->Run().ok());
  ASSERT_TRUE(Eventually([&] { return a.elector->IsLeader(); }));
  Result<Object> taken =
      client.UpdateWithRetry(res::kLeases, "kube-system", "test-lock", [](Object& lease) {
        SetString(lease, {"spec"}, "holderIdentity", "intruder");
        return Status::Ok();
      });
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  ASSERT_TRUE(Eventually([&] { return a.stopped.load() == 1; }));
  EXPECT_FALSE(a.elector->IsLeader());
  EXPECT_EQ(a.elector->CurrentLeader(), "intruder");
  // The intruder never renews, so a takes the lease back once it expires.
  ASSERT_TRUE(Eventually([&] { return a.elector->IsLeader(); }));
  EXPECT_EQ(GetInt(Lease(client), {"spec", "leaseTransitions"}), 1);
  EXPECT_EQ(a.Leaders(), (std::vector<std::string>{"a", "intruder", "a"}));
}

TEST(LeaderElectorTest, ManyCandidatesNeverLeadTogether) {
  FakeClient client;
  std::vector<std::unique_ptr<Candidate>> candidates;
  for (int i = 0; i < 4; ++i) {
    candidates.push_back(std::make_unique<Candidate>(client, "c" + std::to_string(i)));
    ASSERT_TRUE(candidates.back()->elector->Run().ok());
  }
  auto leaders = [&] {
    int n = 0;
    for (auto& c : candidates) n += c->elector->IsLeader() ? 1 : 0;
    return n;
  };
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(Eventually([&] { return leaders() == 1; }));
    for (int i = 0; i < 20; ++i) {
      EXPECT_LE(leaders(), 1);
      std::this_thread::sleep_for(milliseconds(10));
    }
    for (auto& c : candidates) {
      if (c->elector->IsLeader()) {
        c->elector->Stop();
        break;
      }
    }
  }
  ASSERT_TRUE(Eventually([&] { return leaders() == 1; }));
  int started = 0;
  for (auto& c : candidates) started += c->started.load();
  EXPECT_EQ(started, 4) << "three handovers plus the first";
}

// One Lease served over FakeTransport: enough of the API server for an
// elector on a RestClient (GET, POST, PUT with compare-and-swap).
class LeaseServer {
 public:
  Result<HttpResponse> Handle(const RecordedRequest& request) {
    std::lock_guard lock(mu_);
    if (request.method == "GET") {
      if (lease_.empty()) {
        return Answer(404, R"({"kind":"Status","reason":"NotFound","code":404,"message":"no"})");
      }
      return Answer(200, lease_);
    }
    Result<Object> body = ParseJson(request.body);
    if (!body.ok()) return Answer(400, "{}");
    if (request.method == "PUT" && ResourceVersion(*body) != std::to_string(version_)) {
      return Answer(409, R"({"kind":"Status","reason":"Conflict","code":409,"message":"stale"})");
    }
    SetString(*body, {"metadata"}, "resourceVersion", std::to_string(++version_));
    lease_ = ToJson(*body);
    return Answer(request.method == "POST" ? 201 : 200, lease_);
  }

 private:
  std::mutex mu_;
  std::string lease_;
  int64_t version_ = 0;
};

struct HungServerFixture {
  HungServerFixture() {
    auto owned = std::make_unique<FakeTransport>(&clock);
    transport = owned.get();
    transport->SetHandler([this](const RecordedRequest& r) { return server.Handle(r); });
    client = std::make_unique<RestClient>(std::move(owned), RetryPolicy{.clock = &clock});
    Result<std::unique_ptr<LeaderElector>> created =
        LeaderElector::Create(*client, {.lease_namespace = "kube-system",
                                        .lease_name = "test-lock",
                                        .identity = "a",
                                        .lease_duration = milliseconds(1000),
                                        .renew_deadline = milliseconds(600),
                                        .retry_period = milliseconds(100),
                                        .callbacks = {.on_started_leading = [this] { ++started; },
                                                      .on_stopped_leading =
                                                          [this] {
                                                            stopped_at = clock.Now();
                                                            ++stopped;
                                                          }},
                                        .clock = &clock});
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    elector = std::move(created).value();
  }

  // Leads, then the server stops answering: the first renewal, due at
  // +100 ms, hangs. Returns when it does; the time is then +100 ms.
  void LeadThenHang() {
    start = clock.Now();
    ASSERT_TRUE(elector->Run().ok());
    ASSERT_TRUE(Eventually([&] { return started.load() == 1; }));
    transport->Hang(true);
    ASSERT_TRUE(Eventually([&] { return clock.Waiters() == 1; }));  // asleep until the renewal
    clock.Advance(milliseconds(100));
    ASSERT_TRUE(Eventually([&] { return transport->Hanging() == 1; }));
  }

  FakeClock clock;
  LeaseServer server;
  FakeTransport* transport = nullptr;
  std::unique_ptr<RestClient> client;
  std::unique_ptr<LeaderElector> elector;
  Clock::TimePoint start;
  std::atomic<int> started{0};
  std::atomic<int> stopped{0};
  std::atomic<Clock::TimePoint> stopped_at{};
};

TEST(LeaderElectorTest, StopsLeadingAtTheRenewDeadlineWhileTheServerHangs) {
  HungServerFixture f;
  f.LeadThenHang();
  EXPECT_TRUE(f.elector->IsLeader());
  EXPECT_EQ(f.stopped.load(), 0);
  // The renewal was sent with the deadline at which leadership ends.
  const std::optional<Clock::TimePoint> deadline = f.transport->Requests().back().deadline;
  ASSERT_TRUE(deadline.has_value());
  EXPECT_EQ(*deadline, f.start + milliseconds(600));

  f.clock.Advance(milliseconds(499));
  EXPECT_EQ(f.transport->Hanging(), 1) << "still within the deadline";
  EXPECT_TRUE(f.elector->IsLeader());
  // Time now stands at exactly the renew deadline and moves no further: the
  // elector must give up with no answer from the server.
  f.clock.Advance(milliseconds(1));
  ASSERT_TRUE(Eventually([&] { return f.stopped.load() == 1; }));
  EXPECT_EQ(f.stopped_at.load() - f.start, milliseconds(600));
  EXPECT_FALSE(f.elector->IsLeader());
  EXPECT_EQ(f.transport->Requests().back().method, "GET") << "nothing sent after the deadline";
  // Stop cancels the candidate's hanging attempt to take the lease back.
  f.elector->Stop();
  EXPECT_EQ(f.stopped.load(), 1) << "on_stopped_leading ran once";
}

TEST(LeaderElectorTest, StopWhileTheServerHangsCancelsTheRenewalAndBoundsTheRelease) {
  HungServerFixture f;
  f.LeadThenHang();
  std::atomic<bool> stop_returned = false;
  std::thread stopper([&] {
    f.elector->Stop();
    stop_returned = true;
  });
  // The hung renewal is cancelled, on_stopped_leading runs, and the release
  // hangs in turn, until its own deadline.
  ASSERT_TRUE(Eventually([&] { return f.stopped.load() == 1; }));
  ASSERT_TRUE(Eventually([&] {
    std::vector<RecordedRequest> requests = f.transport->Requests();
    return f.transport->Hanging() == 1 && requests.size() >= 2;
  }));
  EXPECT_FALSE(stop_returned);
  const std::optional<Clock::TimePoint> release_deadline = f.transport->Requests().back().deadline;
  ASSERT_TRUE(release_deadline.has_value());
  EXPECT_EQ(*release_deadline - f.clock.Now(), milliseconds(600));
  f.clock.Advance(milliseconds(600));
  stopper.join();
  EXPECT_TRUE(stop_returned);
  EXPECT_FALSE(f.elector->IsLeader());
}

}  // namespace
}  // namespace vtenant::kube
