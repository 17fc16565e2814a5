#include "syncer/event_translator.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "kube/json_builder.h"
#include "syncer/names.h"
#include "syncer/testing/test_objects.h"

namespace vtenant::syncer {
namespace {

using testing::Json;
using testing::NlpConfig;

constexpr char kUid[] = "0f6b2d6e-1c3a-4f1e-9a57-5b2c7d8e9f01";

// This tenant's host objects the syncer knows: pod ml/trainer and the
// group of Job ml/ddp.
HostNameLookup Known() {
  static const std::map<std::string, std::string, std::less<>> names = {
      {HostName("trainer", "ml", "nlp"), "ml/trainer"},
      {WorkloadPodGroupName("ddp", "ddp-uid", "ml", "nlp"), "ml/ddp"},
  };
  return [](std::string_view host_name) -> std::optional<std::string> {
    auto it = names.find(host_name);
    if (it == names.end()) return std::nullopt;
    return it->second;
  };
}

TEST(EventTranslatorTest, MessagesNameOnlyWhatTheTeamMaySee) {
  const EventTranslator translator(NlpConfig());
  const std::string trainer = HostName("trainer", "ml", "nlp");
  const std::string ddp_group = WorkloadPodGroupName("ddp", "ddp-uid", "ml", "nlp");
  struct Row {
    std::string host, team;
  };
  const std::vector<Row> rows = {
      // The scheduler's words about this tenant's own queue stay.
      {"0/1 nodes fit: 1 not enough shared GPU room (needs 500m of one device); no reclaim: "
       "queue nlp is not below its fair share (gpu 2 allocated of 2)",
       "0/1 nodes fit: 1 not enough shared GPU room (needs 500m of one device); no reclaim: "
       "queue nlp is not below its fair share (gpu 2 allocated of 2)"},
      {"non-preemptible job would exceed queue nlp's gpu quota",
       "non-preemptible job would exceed queue nlp's gpu quota"},
      // Another team's job and queue are not named.
      {"reclaimed for job vtenant-vision/pg-vision-train-x-default-x-vision-" + std::string(kUid) +
           " of queue vision: queue nlp was above its fair share",
       "reclaimed for job (hidden) of another queue: queue nlp was above its fair share"},
      {"Queue ml-org would exceed its gpu limit", "Another queue would exceed its gpu limit"},
      // This tenant's own objects, by host name, key or the host grouper's
      // group of a bare pod, in the team's names.
      {"binding to node l40s-0: pods \"" + trainer + "\" not found",
       "binding to node l40s-0: pods \"ml/trainer\" not found"},
      {"preempted in queue nlp by job vtenant-nlp/" + ddp_group + " of higher priority (100 > 50)",
       "preempted in queue nlp by job ml/ddp of higher priority (100 > 50)"},
      {"moved to make room for job vtenant-nlp/pg-" + trainer + "-" + kUid,
       "moved to make room for job ml/trainer"},
      {"gang vtenant-nlp/" + ddp_group + " ran below minMember 4 for 60s",
       "gang ml/ddp ran below minMember 4 for 60s"},
      // A full stop ends the sentence, not the name.
      {"Evicted pod " + trainer + ".", "Evicted pod ml/trainer."},
      // The host namespace alone is the object's own namespace.
      {"in namespace vtenant-nlp.", "in namespace ml."},
      // This tenant's name of an object of the same namespace reads back
      // even when the syncer made nothing of it (a ConfigMap not made yet).
      {"pod vtenant-nlp/other-x-ml-x-nlp is in the way", "pod ml/other is in the way"},
      {"Missing required configmaps: [settings-x-ml-x-nlp]",
       "Missing required configmaps: [ml/settings]"},
      // What the syncer cannot read back is hidden: another namespace's,
      // one that only looks like this tenant's, another tenant's.
      {"Missing required configmaps: [settings-x-dev-x-nlp]",
       "Missing required configmaps: [(hidden)]"},
      {"pod a-x-ml-x-x-nlp is in the way", "pod (hidden) is in the way"},
      {"pod a-x-b-x-ml-x-nlp is in the way", "pod (hidden) is in the way"},
      {"pod settings-x-ml-x-vision is in the way", "pod (hidden) is in the way"},
      {"vtenant-system/gpu-reservation-l40s-0-0 holds the device", "(hidden) holds the device"},
      {"Started container work", "Started container work"},
  };
  for (const Row& row : rows) {
    EXPECT_EQ(translator.TranslateText(row.host, "ml", Known()), row.team) << row.host;
  }
}

TEST(EventTranslatorTest, HostEventBecomesTheTeamsEventOnTheVirtualObject) {
  const EventTranslator translator(NlpConfig());
  const std::string trainer = HostName("trainer", "ml", "nlp");
  kube::Object host = Json(R"({"apiVersion":"v1","kind":"Event",
      "metadata":{"namespace":"vtenant-nlp","labels":{"x":"y"},"annotations":{"a":"b"}},
      "involvedObject":{"apiVersion":"v1","kind":"Pod","namespace":"vtenant-nlp",
        "uid":"host-pod-uid","fieldPath":"spec.containers{work}"},
      "type":"Warning","reason":"Reclaimed",
      "message":"reclaimed for job vtenant-vision/j of queue vision: queue nlp was above its fair share",
      "count":3,"firstTimestamp":"2026-12-02T11:00:00Z","lastTimestamp":"2026-12-02T11:05:00Z",
      "source":{"component":"vtenant-scheduler","host":"l40s-0"},
      "reportingInstance":"vtenant-scheduler-7d9c-x2","action":"Evict",
      "related":{"kind":"Pod","namespace":"vtenant-vision","name":"j"}})");
  // The names the host gave: the Event's after its pod's host name, as the
  // host's event recorder names it.
  kube::SetString(host, {"metadata"}, "name", trainer + ".18a2");
  kube::SetString(host, {"metadata"}, "uid", kUid);
  kube::SetString(host, {"involvedObject"}, "name", trainer);
  const VirtualTarget pod{"v1", "Pod", "ml", "trainer", "virtual-pod-uid"};
  kube::Object event = translator.FromHost(host, pod, Known());

  EXPECT_EQ(kube::Namespace(event), "ml");
  EXPECT_EQ(kube::Name(event), EventTranslator::VirtualEventName("trainer", kUid));
  EXPECT_TRUE(kube::Name(event).starts_with("trainer."));
  EXPECT_EQ(kube::Label(event, kManagedByLabel), kManagedByValue);
  EXPECT_FALSE(kube::Label(event, "x"));
  EXPECT_FALSE(kube::Find(event, {"metadata", "annotations"}));
  EXPECT_EQ(kube::GetString(event, {"involvedObject", "kind"}), "Pod");
  EXPECT_EQ(kube::GetString(event, {"involvedObject", "namespace"}), "ml");
  EXPECT_EQ(kube::GetString(event, {"involvedObject", "name"}), "trainer");
  EXPECT_EQ(kube::GetString(event, {"involvedObject", "uid"}), "virtual-pod-uid");
  EXPECT_EQ(kube::GetString(event, {"involvedObject", "fieldPath"}), "spec.containers{work}");
  EXPECT_EQ(kube::GetString(event, {"type"}), "Warning");
  EXPECT_EQ(kube::GetString(event, {"reason"}), "Reclaimed");
  EXPECT_EQ(kube::GetString(event, {"message"}),
            "reclaimed for job (hidden) of another queue: queue nlp was above its fair share");
  EXPECT_EQ(kube::GetInt(event, {"count"}), 3);
  EXPECT_EQ(kube::GetString(event, {"firstTimestamp"}), "2026-12-02T11:00:00Z");
  EXPECT_EQ(kube::GetString(event, {"lastTimestamp"}), "2026-12-02T11:05:00Z");
  EXPECT_EQ(kube::GetString(event, {"source", "component"}), "vtenant-scheduler");
  EXPECT_FALSE(kube::Find(event, {"source", "host"}));
  for (const char* left_out : {"related", "reportingInstance", "action", "eventTime", "series"}) {
    EXPECT_FALSE(event.HasMember(left_out)) << left_out;
  }
  // Nothing of the host's names is left anywhere in it.
  const std::string text = kube::ToJson(event);
  EXPECT_EQ(text.find("vtenant-nlp"), std::string::npos) << text;
  EXPECT_EQ(text.find(trainer), std::string::npos) << text;
  EXPECT_EQ(text.find("vision"), std::string::npos) << text;

  // The same host Event again writes nothing; a repeat updates it in place.
  EXPECT_FALSE(translator.Update(event, translator.FromHost(host, pod, Known())));
  host["count"].SetInt64(4);
  host["lastTimestamp"].SetString("2026-12-02T11:10:00Z", host.GetAllocator());
  std::optional<kube::Object> update =
      translator.Update(event, translator.FromHost(host, pod, Known()));
  ASSERT_TRUE(update);
  EXPECT_EQ(kube::Name(*update), kube::Name(event));
  EXPECT_EQ(kube::GetInt(*update, {"count"}), 4);
  EXPECT_EQ(kube::GetString(*update, {"lastTimestamp"}), "2026-12-02T11:10:00Z");
  EXPECT_EQ(kube::GetString(*update, {"firstTimestamp"}), "2026-12-02T11:00:00Z");
}

// The message is cut at 1024 bytes, never inside a character: "é" is two
// bytes, and one at bytes 1023-1024 goes whole.
TEST(EventTranslatorTest, ALongMessageIsCutBetweenCharacters) {
  const EventTranslator translator(NlpConfig());
  const std::string trainer = HostName("trainer", "ml", "nlp");
  const std::string message = std::string(1023, 'a') + "\xc3\xa9" + "tail";
  kube::Object host = kube::BuildJson(kube::JsonObject{
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata",
       kube::JsonObject{{"name", trainer + ".1"}, {"namespace", "vtenant-nlp"}, {"uid", kUid}}},
      {"involvedObject", kube::JsonObject{{"kind", "Pod"}, {"name", trainer}}},
      {"type", "Warning"},
      {"reason", "Long"},
      {"message", message}});
  const VirtualTarget pod{"v1", "Pod", "ml", "trainer", "virtual-pod-uid"};
  kube::Object event = translator.FromHost(host, pod, Known());
  EXPECT_EQ(kube::GetString(event, {"message"}), std::string(1023, 'a'));
}

TEST(EventTranslatorTest, EventsApiSeriesGiveCountAndTimes) {
  const EventTranslator translator(NlpConfig());
  kube::Object host = Json(R"({"metadata":{"name":"e","namespace":"vtenant-nlp","uid":"u"},
      "involvedObject":{"kind":"PodGroup","namespace":"vtenant-nlp","name":"g"},
      "type":"Surprising","reason":"NotEnoughResources","message":"gang of 4 needs 2 more",
      "eventTime":"2026-12-02T11:00:00.123456Z","reportingComponent":"kai-scheduler",
      "series":{"count":7,"lastObservedTime":"2026-12-02T11:30:00.654321Z"}})");
  kube::Object event =
      translator.FromHost(host, {"batch/v1", "Job", "ml", "ddp", "job-uid"}, Known());
  EXPECT_EQ(kube::GetString(event, {"involvedObject", "kind"}), "Job");
  EXPECT_EQ(kube::GetString(event, {"involvedObject", "apiVersion"}), "batch/v1");
  EXPECT_EQ(kube::GetString(event, {"type"}), "Normal");
  EXPECT_EQ(kube::GetInt(event, {"count"}), 7);
  EXPECT_EQ(kube::GetString(event, {"firstTimestamp"}), "2026-12-02T11:00:00Z");
  EXPECT_EQ(kube::GetString(event, {"lastTimestamp"}), "2026-12-02T11:30:00Z");
  EXPECT_EQ(kube::GetString(event, {"source", "component"}), "kai-scheduler");
}

TEST(EventTranslatorTest, VirtualEventNamesAreValidAndOnePerHostEvent) {
  EXPECT_NE(EventTranslator::VirtualEventName("p", "uid-1"),
            EventTranslator::VirtualEventName("p", "uid-2"));
  EXPECT_EQ(EventTranslator::VirtualEventName("p", "uid-1"),
            EventTranslator::VirtualEventName("p", "uid-1"));
  // A pod name of 253 characters leaves room for the hash, and the cut
  // leaves no '.' or '-' before it.
  std::string long_name(240, 'a');
  long_name += "-b.c-" + std::string(8, 'd');
  std::string name = EventTranslator::VirtualEventName(long_name, "uid-1");
  EXPECT_LE(name.size(), 253u);
  EXPECT_EQ(name.find("-."), std::string::npos);
  EXPECT_EQ(name.find(".."), std::string::npos);
}

}  // namespace
}  // namespace vtenant::syncer
