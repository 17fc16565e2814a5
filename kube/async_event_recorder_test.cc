// AsyncEventRecorder: Events leave the caller at once, are sent in order,
// and are dropped and counted when the queue is full or stopped.
#include "kube/async_event_recorder.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "base/eventually.h"
#include "kube/testing/fake_client.h"

namespace vtenant::kube {
namespace {

Object Pod(const std::string& name) {
  return std::move(ParseJson(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                             R"(","namespace":"team","uid":"u-)" + name +
                             R"(","labels":{"app":"x"}},"spec":{"nodeName":"n"}})"))
      .value();
}

std::vector<std::string> Reasons(FakeClient& client) {
  std::vector<std::string> out;
  Result<ObjectList> events = client.ListAll(resources::kEvents, "team");
  if (events.ok())
    for (const Object& e : events->items)
      out.push_back(std::string(GetString(e, {"involvedObject", "name"})) + ":" +
                    std::string(GetString(e, {"reason"})));
  std::sort(out.begin(), out.end());
  return out;
}

// An in-memory API server, the recorder on it and a queue of `capacity`
// in front.
class AsyncEventRecorderTest : public ::testing::Test {
 protected:
  explicit AsyncEventRecorderTest(size_t capacity = 8) : async(recorder, capacity, &dropped) {}
  FakeClient client;
  EventRecorder recorder{client, "vtenant-scheduler"};
  Counter dropped;
  AsyncEventRecorder async;
};

class AsyncEventRecorderOfTwoTest : public AsyncEventRecorderTest {
 protected:
  AsyncEventRecorderOfTwoTest() : AsyncEventRecorderTest(2) {}
};

TEST_F(AsyncEventRecorderTest, EventsAreSentOffTheCallersThread) {
  async.Normal(Pod("a"), "Scheduled", "Successfully assigned pod team/a to node n");
  async.Record(Pod("b"), "Warning", "FailedBinding", "no");
  async.Flush();
  EXPECT_EQ(Reasons(client), (std::vector<std::string>{"a:Scheduled", "b:FailedBinding"}));
  Result<ObjectList> events = client.ListAll(resources::kEvents, "team");
  ASSERT_TRUE(events.ok());
  for (const Object& e : events->items) {
    EXPECT_EQ(GetString(e, {"involvedObject", "kind"}), "Pod");
    EXPECT_FALSE(GetString(e, {"involvedObject", "uid"}).empty());
  }
  EXPECT_EQ(dropped.Value(), 0);
}

// A hung API server holds the sender, never the caller: past the queue's
// capacity Events are dropped and counted.
TEST_F(AsyncEventRecorderOfTwoTest, AFullQueueDropsAndCounts) {
  client.HoldCalls(true);
  async.Normal(Pod("sent"), "Scheduled", "1");
  ASSERT_TRUE(Eventually([&] { return client.HeldCalls() == 1; })) << "the sender waits";
  for (const char* name : {"q1", "q2", "over1", "over2"}) async.Normal(Pod(name), "Scheduled", "2");
  EXPECT_EQ(dropped.Value(), 2);
  client.HoldCalls(false);
  async.Flush();
  EXPECT_EQ(Reasons(client),
            (std::vector<std::string>{"q1:Scheduled", "q2:Scheduled", "sent:Scheduled"}));
}

TEST_F(AsyncEventRecorderTest, AfterStopNothingIsSent) {
  async.Normal(Pod("a"), "Scheduled", "1");
  async.Flush();
  async.Stop();
  async.Normal(Pod("b"), "Scheduled", "1");
  async.Flush();  // returns: stopped
  async.Stop();   // again: nothing to do
  EXPECT_EQ(Reasons(client), (std::vector<std::string>{"a:Scheduled"}));
  EXPECT_EQ(dropped.Value(), 1);
}

}  // namespace
}  // namespace vtenant::kube
