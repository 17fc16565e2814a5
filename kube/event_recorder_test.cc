#include "kube/event_recorder.h"

#include <gtest/gtest.h>

#include <thread>

#include "base/eventually.h"
#include "base/rfc3339.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/fake_clock.h"

namespace vtenant::kube {
namespace {

Object MustParse(const char* json) { return std::move(ParseJson(json)).value(); }

std::chrono::system_clock::time_point At(int64_t seconds) {
  return std::chrono::system_clock::time_point(std::chrono::seconds(seconds));
}

TEST(EventRecorderTest, RepeatsUpdateCountInsteadOfMakingNewEvents) {
  FakeClient client;
  int64_t now = 1'800'000'000;
  EventRecorder recorder(client, "vtenant-operator", [&] { return At(now); });
  Object pod = MustParse(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"team","uid":"u1"}})");

  recorder.Warning(pod, "Refused", "hostPath volumes are not allowed for tenant nlp");
  now += 5;
  recorder.Warning(pod, "Refused", "hostPath volumes are not allowed for tenant nlp");
  recorder.Normal(pod, "Synced", "created on the host");

  Result<ObjectList> events = client.ListAll(resources::kEvents, "team");
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->items.size(), 2u);
  const Object* refused = nullptr;
  for (const auto& e : events->items) {
    if (GetString(e, {"reason"}) == "Refused") refused = &e;
  }
  ASSERT_NE(refused, nullptr);
  EXPECT_EQ(GetInt(*refused, {"count"}), 2);
  EXPECT_EQ(GetString(*refused, {"type"}), "Warning");
  EXPECT_EQ(GetString(*refused, {"involvedObject", "uid"}), "u1");
  EXPECT_EQ(GetString(*refused, {"source", "component"}), "vtenant-operator");
  EXPECT_EQ(GetString(*refused, {"firstTimestamp"}), FormatRfc3339(At(1'800'000'000)));
  EXPECT_EQ(GetString(*refused, {"lastTimestamp"}), FormatRfc3339(At(1'800'000'005)));
}

TEST(EventRecorderTest, ClusterScopedObjectsReportInDefaultAndExpiredEventsAreRecreated) {
  FakeClient client;
  EventRecorder recorder(client, "vtenant-operator");
  Object tenant = MustParse(
      R"({"apiVersion":"vtenant.dev/v1alpha1","kind":"Tenant","metadata":{"name":"nlp","uid":"t1"}})");
  recorder.Warning(tenant, "InvalidQuota", "gpu quota 1.5 exceeds limit 1");
  Result<ObjectList> events = client.ListAll(resources::kEvents, "default");
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->items.size(), 1u);
  EXPECT_EQ(GetString(events->items[0], {"involvedObject", "kind"}), "Tenant");

  // Events expire on the server; a repeat after that makes a fresh one.
  ASSERT_TRUE(client.Delete(resources::kEvents, "default", Name(events->items[0])).ok());
  recorder.Warning(tenant, "InvalidQuota", "gpu quota 1.5 exceeds limit 1");
  events = client.ListAll(resources::kEvents, "default");
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->items.size(), 1u);
  EXPECT_EQ(GetInt(events->items[0], {"count"}), 1);
}

TEST(EventRecorderTest, AFailedWriteIsNotFatal) {
  FakeClient client;
  client.InjectError("create", "events", Status(StatusCode::kForbidden, "no"), -1);
  EventRecorder recorder(client, "vtenant-operator");
  Object pod = MustParse(R"({"kind":"Pod","metadata":{"name":"p","namespace":"n","uid":"u"}})");
  recorder.Normal(pod, "Synced", "ok");  // must simply not crash or throw
  client.ClearErrors();
  Result<ObjectList> events = client.ListAll(resources::kEvents, "n");
  ASSERT_TRUE(events.ok());
  EXPECT_TRUE(events->items.empty());
}

TEST(WallTimeTest, FormatsRfc3339) {
  EXPECT_EQ(FormatRfc3339(At(0)), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatRfc3339Micro(At(86400) + std::chrono::microseconds(1500)),
            "1970-01-02T00:00:00.001500Z");
}

TEST(EventRecorderTest, AHungServerHoldsARecordOnlyFiveSeconds) {
  FakeClock clock;
  FakeClient client(&clock);
  EventRecorder recorder(client, "vtenant-operator", [] { return At(1'800'000'000); });
  Object pod = MustParse(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"team","uid":"u1"}})");
  client.HoldCalls(true);
  std::atomic<bool> returned = false;
  std::thread record([&] {
    recorder.Normal(pod, "Synced", "created on the host");
    returned = true;
  });
  ASSERT_TRUE(Eventually([&] { return client.HeldCalls() == 1; }));
  clock.Advance(std::chrono::milliseconds(4999));
  EXPECT_FALSE(returned) << "still within its deadline";
  clock.Advance(std::chrono::milliseconds(1));
  record.join();
  EXPECT_TRUE(returned);
}

}  // namespace
}  // namespace vtenant::kube
