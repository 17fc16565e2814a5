// StatusWriter against an in-memory API server: unchanged status costs no
// write, and a Queue or PodGroup that lost its status (re-created, cleared)
// gets it again, while a write the informer has not brought back yet is not
// repeated.
#include "scheduler/status_writer.h"

#include <gtest/gtest.h>

#include "scheduler/kai_names.h"
#include "scheduler/testing/fake_cluster.h"

namespace vtenant::scheduler {
namespace {

namespace res = kube::resources;

constexpr char kQueue[] = R"({"metadata":{"name":"nlp"},"spec":{}})";
constexpr char kGroup[] =
    R"({"metadata":{"name":"train","namespace":"ns"},"spec":{"minMember":2}})";

QueueStatus Nlp(sched::Milli gpu) {
  QueueStatus s;
  s.allocated[sched::kGpu] = gpu;
  s.requested[sched::kGpu] = gpu;
  s.gpu_fair_share = 330;
  return s;
}

class StatusWriterTest : public ::testing::Test, protected testing::FakeCluster {
 protected:
  StatusWriterTest()
      : writer_(
            client_, [this](const std::string& key) { return LiveQueue(key); },
            [this](const std::string& key) { return Live(res::kPodGroups, key); }, &registry_) {
    Add(res::kQueues, "", kQueue);
  }

  // The Queue as the informer has it: the server's copy, or a frozen one.
  kube::ObjectPtr LiveQueue(const std::string& key) {
    return frozen_ ? frozen_ : Live(res::kQueues, key);
  }

  std::string Allocated(const std::string& queue) {
    kube::ObjectPtr q = Live(res::kQueues, queue);
    if (q == nullptr) return "<gone>";
    return std::string(kube::GetString(*q, {"status", "allocated", kGpuResource}));
  }

  kube::ObjectPtr frozen_;
  StatusWriter writer_;
};

// As KAI's queue controller writes it: a parent lists its children by
// name; a queue without children shows none.
TEST_F(StatusWriterTest, AParentListsItsChildQueues) {
  QueueStatus parent = Nlp(330);
  parent.child_queues = {"nlp-a", "nlp-b"};
  writer_.SetQueue("nlp", parent);
  EXPECT_EQ(writer_.Flush(), 1);
  kube::ObjectPtr q = Live(res::kQueues, "nlp");
  EXPECT_EQ(kube::ToJson(*kube::Find(*q, {"status", "childQueues"})), R"(["nlp-a","nlp-b"])");
  EXPECT_EQ(writer_.Flush(), 0);
  writer_.SetQueue("nlp", Nlp(330));
  EXPECT_EQ(writer_.Flush(), 1) << "the children went";
  q = Live(res::kQueues, "nlp");
  EXPECT_EQ(kube::Find(*q, {"status", "childQueues"}), nullptr);
  EXPECT_EQ(writer_.Flush(), 0);
}

TEST_F(StatusWriterTest, WritesWhatChangedAndNothingWhenTheQueueShowsIt) {
  writer_.SetQueue("nlp", Nlp(330));
  EXPECT_EQ(writer_.Flush(), 1);
  EXPECT_EQ(Allocated("nlp"), "330m");
  kube::ObjectPtr q = Live(res::kQueues, "nlp");
  EXPECT_EQ(kube::Annotation(*q, kFairShareAnnotation).value_or(""), "330m");
  EXPECT_TRUE(QueueShows(*q, Nlp(330)));
  EXPECT_EQ(writer_.Flush(), 0) << "unchanged status is not written again";
  writer_.SetQueue("nlp", Nlp(330));
  EXPECT_EQ(writer_.Flush(), 0);
  writer_.SetQueue("nlp", Nlp(660));
  EXPECT_EQ(writer_.Flush(), 1);
  EXPECT_EQ(Allocated("nlp"), "660m");
}

TEST_F(StatusWriterTest, AReCreatedQueueGetsItsStatusBack) {
  writer_.SetQueue("nlp", Nlp(330));
  EXPECT_EQ(writer_.Flush(), 1);
  ASSERT_TRUE(client_.Delete(res::kQueues, "", "nlp").ok());
  EXPECT_EQ(Allocated("nlp"), "<gone>");
  Add(res::kQueues, "", kQueue);
  EXPECT_EQ(Allocated("nlp"), "");
  // Nothing changed in what the cycle says; the live Queue lacks it.
  writer_.SetQueue("nlp", Nlp(330));
  EXPECT_EQ(writer_.Flush(), 1);
  EXPECT_EQ(Allocated("nlp"), "330m");
}

TEST_F(StatusWriterTest, ClearedStatusIsWrittenAgain) {
  writer_.SetQueue("nlp", Nlp(330));
  EXPECT_EQ(writer_.Flush(), 1);
  kube::PatchOptions status;
  status.subresource = "status";
  ASSERT_TRUE(client_
                  .Patch(res::kQueues, "", "nlp", kube::PatchType::kMerge,
                         R"({"status":{"allocated":null}})", status)
                  .ok());
  EXPECT_EQ(writer_.Flush(), 1);
  EXPECT_EQ(Allocated("nlp"), "330m");
}

TEST_F(StatusWriterTest, AWriteTheInformerHasNotDeliveredIsNotRepeated) {
  frozen_ = Live(res::kQueues, "nlp");  // the informer lags behind every write
  writer_.SetQueue("nlp", Nlp(330));
  EXPECT_EQ(writer_.Flush(), 1);
  EXPECT_EQ(writer_.Flush(), 0);
  writer_.SetQueue("nlp", Nlp(660));
  EXPECT_EQ(writer_.Flush(), 1) << "a new status is written even so";
  EXPECT_EQ(Allocated("nlp"), "660m");
}

TEST_F(StatusWriterTest, AFailedWriteIsRetried) {
  client_.InjectError("patch", "queues", Status(StatusCode::kUnavailable, "server down"), 1);
  writer_.SetQueue("nlp", Nlp(330));
  EXPECT_EQ(writer_.Flush(), 1);
  EXPECT_EQ(Allocated("nlp"), "");
  EXPECT_EQ(writer_.Flush(), 1);
  EXPECT_EQ(Allocated("nlp"), "330m");
}

// KAI's PodGroup CRD has no status.phase, running or pending: the API
// server drops them, and the rest must still settle the write.
TEST_F(StatusWriterTest, APodGroupOfKaisSchemaShowsItsStatusWithoutTheCounts) {
  Add(res::kPodGroups, "ns", kGroup);
  const PodGroupStatus pending{"Pending", "2 pods do not fit", 0, 2, "PodSchedulingErrors"};
  writer_.SetPodGroup("ns/train", pending);
  EXPECT_EQ(writer_.Flush(), 1);
  kube::Object as_kai_keeps_it = kube::Clone(*Live(res::kPodGroups, "ns/train"));
  for (const char* field : {"phase", "running", "pending"})
    kube::RemoveMember(as_kai_keeps_it, {"status"}, field);
  EXPECT_TRUE(PodGroupShows(as_kai_keeps_it, pending));
  PodGroupStatus other_reason = pending;
  other_reason.reason = "3 pods do not fit";
  EXPECT_FALSE(PodGroupShows(as_kai_keeps_it, other_reason));
  // A group never written has no resourcesStatus either: it is not shown.
  EXPECT_FALSE(PodGroupShows(*kube::ParseShared(kGroup).value(), pending));
}

TEST_F(StatusWriterTest, PodGroupsGetPhaseAndReasonAndAreForgottenWhenGone) {
  Add(res::kPodGroups, "ns", kGroup);
  const PodGroupStatus pending{"Pending", "2 pods do not fit", 0, 2, "PodSchedulingErrors"};
  writer_.SetPodGroup("ns/train", pending);
  EXPECT_EQ(writer_.Flush(), 1);
  kube::ObjectPtr pg = Live(res::kPodGroups, "ns/train");
  EXPECT_EQ(kube::GetString(*pg, {"status", "phase"}), "Pending");
  // As KAI writes it: the message, and the reason's kind under reasons.
  const rapidjson::Value& condition = (*pg)["status"]["schedulingConditions"][0];
  EXPECT_EQ(kube::GetString(condition, {"type"}), "UnschedulableOnNodePool");
  EXPECT_EQ(kube::GetString(condition, {"message"}), "2 pods do not fit");
  EXPECT_EQ(kube::ToJson(condition["reasons"]),
            R"([{"reason":"PodSchedulingErrors","message":"2 pods do not fit"}])");
  EXPECT_TRUE(PodGroupShows(*pg, pending));
  EXPECT_FALSE(PodGroupShows(*pg, {"Running", "", 2, 0}));
  // What its pods hold and ask for, as KAI's resourcesStatus.
  PodGroupStatus holding = pending;
  holding.allocated = sched::MakeResources(500, 2000, int64_t{1} << 30);
  holding.requested = sched::MakeResources(1000, 4000, int64_t{2} << 30);
  EXPECT_FALSE(PodGroupShows(*pg, holding));
  writer_.SetPodGroup("ns/train", holding);
  EXPECT_EQ(writer_.Flush(), 1);
  pg = Live(res::kPodGroups, "ns/train");
  EXPECT_EQ(kube::ToJson((*pg)["status"]["resourcesStatus"]),
            R"({"allocated":{"nvidia.com/gpu":"500m","cpu":"2","memory":"1Gi"},)"
            R"("allocatedNonPreemptible":{"nvidia.com/gpu":"0","cpu":"0","memory":"0"},)"
            R"("requested":{"nvidia.com/gpu":"1","cpu":"4","memory":"2Gi"}})");
  EXPECT_TRUE(PodGroupShows(*pg, holding));
  writer_.SetPodGroup("ns/train", pending);
  EXPECT_EQ(writer_.Flush(), 1);
  EXPECT_FALSE(PodGroupShows(*pg, {"Pending", "2 pods do not fit", 0, 2, "OverLimit"}));
  EXPECT_EQ(writer_.Flush(), 0);
  ASSERT_TRUE(client_.Delete(res::kPodGroups, "ns", "train").ok());
  EXPECT_EQ(writer_.Flush(), 0) << "no write for a PodGroup that is gone";
  Add(res::kPodGroups, "ns", kGroup);
  EXPECT_EQ(writer_.Flush(), 0) << "forgotten until a cycle names it again";
  writer_.SetPodGroup("ns/train", pending);
  EXPECT_EQ(writer_.Flush(), 1);
}

// As KAI's status updater keeps them: since when the group runs below its
// minimum, its last eviction and its last start, as RFC 3339 annotations; the first goes
// when the group is whole again, and a status that leaves them unset
// leaves them alone.
TEST_F(StatusWriterTest, AStaleGangsTimestampsAreAnnotationsThatComeAndGo) {
  Add(res::kPodGroups, "ns", kGroup);
  PodGroupStatus stale{"Pending", "", 1, 1};
  stale.stale_since = 1796508000;  // 2026-12-05T22:00:00Z
  stale.last_eviction = 1796507940;
  stale.last_start = 1796507880;
  writer_.SetPodGroup("ns/train", stale);
  EXPECT_EQ(writer_.Flush(), 1);
  kube::ObjectPtr pg = Live(res::kPodGroups, "ns/train");
  EXPECT_EQ(kube::Annotation(*pg, kStalePodGroupTimestampAnnotation), "2026-12-05T22:00:00Z");
  EXPECT_EQ(kube::Annotation(*pg, kLastEvictionTimestampAnnotation), "2026-12-05T21:59:00Z");
  EXPECT_EQ(kube::Annotation(*pg, kLastStartTimestampAnnotation), "2026-12-05T21:58:00Z");
  EXPECT_TRUE(PodGroupShows(*pg, stale));
  EXPECT_EQ(writer_.Flush(), 0);

  PodGroupStatus whole = stale;
  whole.stale_since = -1;
  EXPECT_FALSE(PodGroupShows(*pg, whole));
  writer_.SetPodGroup("ns/train", whole);
  EXPECT_EQ(writer_.Flush(), 1);
  pg = Live(res::kPodGroups, "ns/train");
  EXPECT_FALSE(kube::Annotation(*pg, kStalePodGroupTimestampAnnotation));
  EXPECT_EQ(kube::Annotation(*pg, kLastEvictionTimestampAnnotation), "2026-12-05T21:59:00Z");

  PodGroupStatus unsaid = whole;
  unsaid.stale_since.reset();
  unsaid.last_eviction = 0;
  unsaid.last_start = 0;
  EXPECT_TRUE(PodGroupShows(*pg, unsaid)) << "nothing to say about them: nothing written";
}

}  // namespace
}  // namespace vtenant::scheduler
