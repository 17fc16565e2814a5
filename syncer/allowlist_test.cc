#include "syncer/allowlist.h"

#include <gtest/gtest.h>

#include "syncer/reserved_keys.h"
#include "syncer/sync_metrics.h"
#include "syncer/testing/test_objects.h"

namespace vtenant::syncer {
namespace {

using testing::Json;

// A small kind: a spec with copied scalars, a nested object, an array of
// objects and a member the translator handles itself.
const Schema& PortSchema() {
  static const Schema kPort = Schema().Copy({"name", "containerPort"});
  return kPort;
}
const Schema& LimitsSchema() {
  static const Schema kLimits = Schema().Copy({"limits"});
  return kLimits;
}
const Schema& ItemSchema() {
  static const Schema kItem = Schema()
                                  .Copy({"name", "image"})
                                  .Object("resources", &LimitsSchema())
                                  .ArrayOf("ports", &PortSchema())
                                  .Custom({"env"});
  return kItem;
}
const Schema& SpecSchema() {
  static const Schema kSpec = Schema().Copy({"mode"}).ArrayOf("items", &ItemSchema());
  return kSpec;
}

struct Walked {
  kube::Object out;
  DroppedFields dropped;
};

Walked Walk(const Schema& schema, const std::string& json) {
  Walked w{kube::Object(rapidjson::kObjectType), {}};
  kube::Object in = Json(json);
  schema.Apply(in, w.out, w.out.GetAllocator(), "spec", &w.dropped);
  return w;
}

TEST(AllowlistTest, CopiesWhatTheSchemaNamesAndReportsTheRest) {
  Walked w = Walk(SpecSchema(), R"({
    "mode": "fast", "hostile": true,
    "items": [
      {"name": "a", "image": "i", "resources": {"limits": {"cpu": "1"}, "claims": [{"name": "x"}]},
       "ports": [{"name": "p", "containerPort": 80, "hostPort": 80}], "env": [{"name": "E"}],
       "privileged": true},
      {"name": "b", "ports": [{"containerPort": 81, "hostPort": 81}]}
    ]})");
  EXPECT_EQ(kube::ToJson(w.out),
            R"({"mode":"fast","items":[{"name":"a","image":"i","resources":{"limits":{"cpu":"1"}},)"
            R"("ports":[{"name":"p","containerPort":80}]},)"
            R"({"name":"b","ports":[{"containerPort":81}]}]})");
  // Array indices collapse, so a field dropped in every item has one name.
  EXPECT_EQ(w.dropped, (DroppedFields{"spec.hostile", "spec.items[].resources.claims",
                                      "spec.items[].ports[].hostPort", "spec.items[].privileged",
                                      "spec.items[].ports[].hostPort"}));
}

TEST(AllowlistTest, CustomMembersAreNeitherCopiedNorReported) {
  Walked w = Walk(ItemSchema(), R"({"name": "a", "env": [{"name": "SECRET"}]})");
  EXPECT_EQ(kube::ToJson(w.out), R"({"name":"a"})");
  EXPECT_TRUE(w.dropped.empty());
}

TEST(AllowlistTest, WrongTypesWhereASchemaIsExpectedAreDropped) {
  Walked w = Walk(SpecSchema(), R"({"items": [{"resources": "lots", "ports": 80}, "text"]})");
  EXPECT_EQ(kube::ToJson(w.out), R"({"items":[{}]})");
  EXPECT_EQ(w.dropped,
            (DroppedFields{"spec.items[].resources", "spec.items[].ports", "spec.items[]"}));
  Walked not_array = Walk(SpecSchema(), R"({"items": {"name": "a"}})");
  EXPECT_EQ(kube::ToJson(not_array.out), "{}");
  EXPECT_EQ(not_array.dropped, DroppedFields{"spec.items"});
}

TEST(AllowlistTest, NullsAreLeftOutQuietly) {
  Walked w = Walk(ItemSchema(), R"({"name": "a", "resources": null, "ports": null})");
  EXPECT_EQ(kube::ToJson(w.out), R"({"name":"a"})");
  EXPECT_TRUE(w.dropped.empty());
}

TEST(AllowlistTest, WithoutADroppedListNothingIsReported) {
  kube::Object in = Json(R"({"mode": "fast", "extra": 1})");
  kube::Object out(rapidjson::kObjectType);
  SpecSchema().Apply(in, out, out.GetAllocator(), "spec", nullptr);
  EXPECT_EQ(kube::ToJson(out), R"({"mode":"fast"})");
}

TEST(AllowlistTest, KnowsItsMembers) {
  EXPECT_TRUE(ItemSchema().Knows("env"));
  EXPECT_TRUE(ItemSchema().Knows("ports"));
  EXPECT_FALSE(ItemSchema().Knows("privileged"));
}

TEST(AllowlistTest, NamingAMemberTwiceIsAProgrammingError) {
  EXPECT_DEATH(Schema().Copy({"a"}).Custom({"a"}), "twice");
}

// One row per rule of reserved_keys.h.
TEST(ReservedKeysTest, Table) {
  const KeyExceptions pods{.keys = {"statefulset.kubernetes.io/pod-name",
                                    "vtenant.dev/run-duration", "vtenant.io/virtual-uid"},
                           .prefixes = {"app.kubernetes.io/", "vtenant.dev/", "vtenant.io/"}};
  struct Row {
    std::string_view key;
    bool reserved;
    bool reserved_with_exceptions;
  } rows[] = {
      // vtenant's own keys, every form, whatever the exceptions.
      {"vtenant.io/tenant", true, true},
      {"vtenant.io/virtual-namespace", true, true},
      {"vtenant.io/virtual-uid", true, true},  // no exception lifts vtenant.io
      {"gpu.vtenant.io/index", true, true},
      // vtenant.dev: the local environment's, lifted by an exact key only.
      {"vtenant.dev/simulated-node", true, true},
      {"vtenant.dev/run-duration", true, false},
      {"a.b.vtenant.dev/x", true, true},
      {"notvtenant.io/x", false, false},  // another domain, not a subdomain
      {"vtenant.iox/x", false, false},
      // KAI's and the binder's.
      {"kai.scheduler/queue", true, true},
      {"pod-group-name", true, true},
      {"runai-gpu", true, true},
      {"runai-gpu-group", true, true},
      {"runai/shared-gpu-configmap", true, true},
      {"run.ai/reserve_for_gpu_index", true, true},
      {"runai/queue", true, true},
      {"runai-anything", true, true},
      {"runai-gpu-group/gpu-1a2b", true, true},
      {"kai.scheduler/stale-podgroup-timestamp", true, true},
      {"kai.scheduler/last-eviction-timestamp", true, true},
      // The tenant's own KAI keys and GPU requests.
      {"kai.scheduler/subgroup-name", false, false},
      {"kai.scheduler/preemptibility", false, false},
      {"gpu-fraction", false, false},
      {"gpu-memory", false, false},
      {"pod-group-name-x", false, false},
      // kubernetes.io and k8s.io: reserved unless excepted.
      {"kubernetes.io/metadata.name", true, true},
      {"node-role.kubernetes.io/control-plane", true, true},
      {"pod-security.kubernetes.io/enforce", true, true},
      {"batch.kubernetes.io/controller-uid", true, true},
      {"kubectl.kubernetes.io/last-applied-configuration", true, true},
      {"k8s.io/x", true, true},
      {"cluster-autoscaler.k8s.io/safe-to-evict", true, true},
      {"statefulset.kubernetes.io/pod-name", true, false},
      {"app.kubernetes.io/name", true, false},
      {"app.kubernetes.io/instance", true, false},
      {"mykubernetes.io/x", false, false},
      // Everything else is the tenant's.
      {"app", false, false},
      {"team", false, false},
      {"example.com/owner", false, false},
  };
  for (const Row& row : rows) {
    EXPECT_EQ(IsReservedKey(row.key), row.reserved) << row.key;
    EXPECT_EQ(IsReservedKey(row.key, pods), row.reserved_with_exceptions) << row.key;
  }
}

TEST(ReservedKeysTest, CopyTenantKeysDropsAndReportsReservedOnes) {
  kube::Object labels = Json(R"({"app": "web", "vtenant.io/tenant": "other",
      "kai.scheduler/queue": "other-team", "app.kubernetes.io/name": "web"})");
  kube::Object out(rapidjson::kObjectType);
  DroppedFields dropped;
  CopyTenantKeys(&labels, out, out.GetAllocator(), {.prefixes = {"app.kubernetes.io/"}},
                 "metadata.labels", &dropped);
  EXPECT_EQ(kube::ToJson(out), R"({"app":"web","app.kubernetes.io/name":"web"})");
  EXPECT_EQ(dropped, (DroppedFields{"metadata.labels['vtenant.io/tenant']",
                                    "metadata.labels['kai.scheduler/queue']"}));
  CopyTenantKeys(nullptr, out, out.GetAllocator(), {}, "metadata.labels", &dropped);
  EXPECT_EQ(dropped.size(), 2u);
}

TEST(SyncMetricsTest, DroppedFieldsAreCountedPerKindAndField) {
  kube::Registry registry;
  SyncMetrics metrics(registry);
  metrics.Dropped("Pod", {"spec.x", "spec.x", "spec.items[].y"});
  metrics.Dropped("Service", {"spec.x"});
  metrics.Dropped("Pod", {});
  const std::string text = registry.Render();
  EXPECT_NE(text.find(R"(vtenant_syncer_dropped_fields_total{kind="Pod",field="spec.x"} 2)"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find(R"(vtenant_syncer_dropped_fields_total{kind="Pod",field="spec.items[].y"} 1)"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(vtenant_syncer_dropped_fields_total{kind="Service",field="spec.x"} 1)"),
            std::string::npos)
      << text;
}

TEST(SyncMetricsTest, FieldNamesFromTenantInputAreCapped) {
  kube::Registry registry;
  SyncMetrics metrics(registry);
  DroppedFields many;
  for (size_t i = 0; i < SyncMetrics::kMaxDroppedFieldsPerKind + 10; ++i) {
    many.push_back("spec.f" + std::to_string(i));
  }
  metrics.Dropped("PodGroup", many);
  const std::string text = registry.Render();
  EXPECT_NE(text.find(R"(vtenant_syncer_dropped_fields_total{kind="PodGroup",field="other"} 10)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("spec.f" + std::to_string(SyncMetrics::kMaxDroppedFieldsPerKind) + "\""),
            std::string::npos);
}

}  // namespace
}  // namespace vtenant::syncer
