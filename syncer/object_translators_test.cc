#include "syncer/object_translators.h"

#include <gtest/gtest.h>

#include "kube/json_builder.h"
#include "syncer/names.h"
#include "syncer/node_translator.h"
#include "syncer/testing/test_objects.h"

namespace vtenant::syncer {
namespace {

using testing::Json;
using testing::NlpConfig;
using testing::WithMembers;

// One row per decision on a virtual object's metadata, for every kind but
// pods (whose translator has its own) and Services (whose annotations come
// from an allowlist: service_translator_test.cc).
TEST(HostObjectBaseTest, MetadataTable) {
  const SyncerConfig config = NlpConfig();
  struct Row {
    const char* decision;
    std::string metadata;     // members added to {"name":"cfg","namespace":"ml","uid":"u1"}
    std::string labels;       // the host copy's labels, exactly
    std::string annotations;  // its annotations besides the virtual name, namespace and uid
    DroppedFields dropped;
  } rows[] = {
      {"plain labels and annotations travel",
       R"({"labels":{"app":"web"},"annotations":{"a":"b"}})",
       R"({"app":"web"})",
       R"({"a":"b"})",
       {}},
      {"recommended app.kubernetes.io/ labels travel",
       R"({"labels":{"app.kubernetes.io/name":"web"},
          "annotations":{"app.kubernetes.io/part-of":"shop"}})",
       R"({"app.kubernetes.io/name":"web"})",
       R"({"app.kubernetes.io/part-of":"shop"})",
       {}},
      {"hostile: vtenant's own keys are the syncer's, never the tenant's",
       R"({"labels":{"vtenant.io/tenant":"vision","vtenant.io/managed-by":"x"},
          "annotations":{"vtenant.io/virtual-uid":"forged"}})",
       "{}",
       "{}",
       {"metadata.labels['vtenant.io/tenant']", "metadata.labels['vtenant.io/managed-by']",
        "metadata.annotations['vtenant.io/virtual-uid']"}},
      {"hostile: KAI's and the binder's keys",
       R"({"labels":{"kai.scheduler/queue":"vision"},
          "annotations":{"pod-group-name":"pg","runai/shared-gpu-configmap":"x"}})",
       "{}",
       "{}",
       {"metadata.labels['kai.scheduler/queue']", "metadata.annotations['pod-group-name']",
        "metadata.annotations['runai/shared-gpu-configmap']"}},
      {"hostile: keys the host's controllers act on",
       R"({"labels":{"endpointslice.kubernetes.io/skip-mirror":"true"},
          "annotations":{"kubernetes.io/service-account.name":"vtenant-syncer",
                         "volume.kubernetes.io/selected-node":"l40s-0"}})",
       "{}",
       "{}",
       {"metadata.labels['endpointslice.kubernetes.io/skip-mirror']",
        "metadata.annotations['kubernetes.io/service-account.name']",
        "metadata.annotations['volume.kubernetes.io/selected-node']"}},
      {"a description for people travels",
       R"({"annotations":{"kubernetes.io/description":"the cluster's CA"}})",
       "{}",
       R"({"kubernetes.io/description":"the cluster's CA"})",
       {}},
      {"kubectl's last-applied record stays behind without a word",
       R"({"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}})",
       "{}",
       "{}",
       {}},
      {"ownerReferences, finalizers and the server's bookkeeping never travel",
       R"({"ownerReferences":[{"kind":"Deployment","name":"x","uid":"o"}],
          "finalizers":["example.com/keep"],"resourceVersion":"5","generation":2,
          "creationTimestamp":"2026-01-01T00:00:00Z","managedFields":[],"generateName":"cfg-"})",
       "{}",
       "{}",
       {}},
      {"a metadata member no translator knows is left out and reported",
       R"({"shiny":true})",
       "{}",
       "{}",
       {"metadata.shiny"}},
  };
  for (const Row& row : rows) {
    kube::Object virt = kube::BuildJson(kube::JsonObject{
        {"apiVersion", "v1"},
        {"kind", "ConfigMap"},
        {"metadata",
         WithMembers({{"name", "cfg"}, {"namespace", "ml"}, {"uid", "u1"}}, row.metadata)}});
    TranslationNotes notes;
    kube::Object host = HostObjectBase(virt, config, DefaultMetadataRules(), &notes);
    EXPECT_EQ(kube::Name(host), "cfg-x-ml-x-nlp") << row.decision;
    EXPECT_EQ(kube::Namespace(host), "vtenant-nlp") << row.decision;
    kube::Object labels = Json(row.labels);
    kube::SetString(labels, {}, kTenantLabel, "nlp");
    kube::SetString(labels, {}, kVirtualNamespaceLabel, "ml");
    kube::SetString(labels, {}, kManagedByLabel, kManagedByValue);
    EXPECT_EQ(host["metadata"]["labels"], labels)
        << row.decision << ": " << kube::ToJson(host["metadata"]["labels"]);
    kube::Object annotations = Json(row.annotations);
    kube::SetString(annotations, {}, kVirtualNameAnnotation, "cfg");
    kube::SetString(annotations, {}, kVirtualNamespaceAnnotation, "ml");
    kube::SetString(annotations, {}, kVirtualUidAnnotation, "u1");
    EXPECT_EQ(host["metadata"]["annotations"], annotations)
        << row.decision << ": " << kube::ToJson(host["metadata"]["annotations"]);
    EXPECT_EQ(host["metadata"].MemberCount(), 4u) << row.decision;  // name, namespace, both maps
    EXPECT_EQ(notes.dropped, row.dropped) << row.decision;
    EXPECT_FALSE(notes.refusal) << row.decision;
  }
}

TEST(HostObjectBaseTest, AnAllowlistKeepsOnlyTheAnnotationsItNames) {
  const SyncerConfig config = NlpConfig();
  const std::set<std::string, std::less<>> allowlist = {"service.kubernetes.io/topology-mode"};
  MetadataRules rules = DefaultMetadataRules();
  rules.annotation_allowlist = &allowlist;
  kube::Object virt = Json(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"api",
      "namespace":"ml","labels":{"app":"api"},"annotations":{
      "service.kubernetes.io/topology-mode":"Auto","metallb.universe.tf/loadBalancerIPs":"10.0.0.9",
      "kubectl.kubernetes.io/last-applied-configuration":"{}"}}})");
  TranslationNotes notes;
  kube::Object host = HostObjectBase(virt, config, rules, &notes);
  EXPECT_EQ(kube::Annotation(host, "service.kubernetes.io/topology-mode"), "Auto");
  EXPECT_FALSE(kube::Annotation(host, "metallb.universe.tf/loadBalancerIPs"));
  EXPECT_EQ(kube::Label(host, "app"), "api");
  EXPECT_EQ(notes.dropped,
            DroppedFields{"metadata.annotations['metallb.universe.tf/loadBalancerIPs']"});
}

TEST(WithFieldsTest, TakesTheDesiredMapsAndFieldsAndKeepsWhatTheHostFilledIn) {
  kube::Object desired = Json(R"({"metadata":{"name":"c","labels":{"a":"2"}},"data":{"k":"v2"}})");
  kube::Object host = Json(R"({"metadata":{"name":"c","resourceVersion":"7","labels":{"a":"1"},
      "annotations":{"x":"y"}},"data":{"k":"v"},"binaryData":{"b":"AA=="}})");
  std::optional<kube::Object> update = WithFields(desired, host, {"data", "binaryData"});
  ASSERT_TRUE(update);
  EXPECT_EQ(*update, Json(R"({"metadata":{"name":"c","resourceVersion":"7","labels":{"a":"2"}},
      "data":{"k":"v2"}})"));
  EXPECT_FALSE(WithFields(*update, *update, {"data", "binaryData"}));
}

TEST(NodeTranslatorTest, VirtualNodeMirrorsLabelsAndGpuCapacity) {
  NodeTranslator translator;
  kube::Object node = Json(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"l40s-0",
      "uid":"host-uid","labels":{"nvidia.com/gpu.product":"NVIDIA-L40S","nvidia.com/gpu.memory":"46068"}},
      "spec":{"taints":[{"key":"nvidia.com/gpu","effect":"NoSchedule"}],"podCIDR":"10.244.0.0/24"},
      "status":{"capacity":{"nvidia.com/gpu":"1","cpu":"32"},"allocatable":{"nvidia.com/gpu":"1"},
      "conditions":[{"type":"Ready","status":"True"}]}})");
  kube::Object virt = translator.FromHost(node);
  EXPECT_EQ(kube::Name(virt), "l40s-0");
  EXPECT_TRUE(IsManagedNode(virt));
  EXPECT_EQ(kube::Label(virt, "nvidia.com/gpu.memory"), "46068");
  EXPECT_EQ(kube::GetString(virt, {"status", "capacity", "nvidia.com/gpu"}), "1");
  EXPECT_FALSE(kube::Find(virt, {"metadata", "uid"}));
  EXPECT_FALSE(kube::Find(virt, {"spec", "podCIDR"}));
  EXPECT_FALSE(translator.Update(node, virt));
  EXPECT_FALSE(translator.StatusUpdate(node, virt));
  kube::SetString(node, {"metadata", "labels"}, "zone", "a");
  kube::SetString(node, {"status", "capacity"}, "nvidia.com/gpu", "2");
  ASSERT_TRUE(translator.Update(node, virt));
  std::optional<kube::Object> status = translator.StatusUpdate(node, virt);
  ASSERT_TRUE(status);
  EXPECT_EQ(kube::GetString(*status, {"status", "capacity", "nvidia.com/gpu"}), "2");
}

TEST(NodeTranslatorTest, WithAKubeletEndpointTheVirtualNodeAddressesOnlyThat) {
  NodeTranslator translator("127.0.0.1", 40123);
  kube::Object node = Json(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"gpu-0"},
      "status":{"addresses":[{"type":"InternalIP","address":"10.0.3.7"},
      {"type":"Hostname","address":"gpu-0.dc1.internal"}],
      "daemonEndpoints":{"kubeletEndpoint":{"Port":10250}},"capacity":{"cpu":"8"}}})");
  kube::Object virt = translator.FromHost(node);
  EXPECT_EQ(kube::ToJson(virt["status"]["addresses"]),
            R"([{"type":"InternalIP","address":"127.0.0.1"}])");
  EXPECT_EQ(kube::ToJson(virt["status"]["daemonEndpoints"]),
            R"({"kubeletEndpoint":{"Port":40123}})");
  EXPECT_EQ(kube::GetString(virt, {"status", "capacity", "cpu"}), "8");
  EXPECT_FALSE(translator.StatusUpdate(node, virt));
  // A team that points its Node elsewhere (it is cluster-admin there) gets
  // it pointed back.
  kube::Object edited = kube::Clone(virt);
  edited["status"]["addresses"][0]["address"].SetString("10.9.9.9", edited.GetAllocator());
  edited["status"]["daemonEndpoints"]["kubeletEndpoint"]["Port"].SetInt(40999);
  std::optional<kube::Object> back = translator.StatusUpdate(node, edited);
  ASSERT_TRUE(back);
  EXPECT_EQ((*back)["status"]["daemonEndpoints"]["kubeletEndpoint"]["Port"].GetInt(), 40123);
}

}  // namespace
}  // namespace vtenant::syncer
