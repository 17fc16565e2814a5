#include "syncer/object_translators.h"

#include <gtest/gtest.h>

#include "syncer/names.h"
#include "syncer/node_translator.h"
#include "syncer/test_objects.h"

namespace vtenant::syncer {
namespace {

using testing::Json;
using testing::NlpConfig;

TEST(DataTranslatorTest, ConfigMapCopiesDataUnderTheHostName) {
  SyncerConfig config = NlpConfig();
  DataTranslator translator(config);
  kube::Object cm = Json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg",
      "namespace":"ml","uid":"u1","resourceVersion":"5","labels":{"a":"b"},
      "ownerReferences":[{"kind":"Deployment","name":"x"}]},"data":{"k":"v"}})");
  kube::Object host = translator.ToHost(cm);
  EXPECT_EQ(kube::Name(host), "cfg-x-ml-x-nlp");
  EXPECT_EQ(kube::Namespace(host), "vtenant-nlp");
  EXPECT_EQ(kube::GetString(host, {"data", "k"}), "v");
  EXPECT_EQ(kube::Label(host, "a"), "b");
  EXPECT_EQ(kube::Label(host, kTenantLabel), "nlp");
  EXPECT_EQ(kube::Annotation(host, kVirtualUidAnnotation), "u1");
  EXPECT_FALSE(kube::Find(host, {"metadata", "ownerReferences"}));
  EXPECT_FALSE(kube::Find(host, {"metadata", "resourceVersion"}));

  kube::SetString(host, {"metadata"}, "resourceVersion", "77");
  EXPECT_FALSE(translator.Update(cm, host));
  kube::SetString(cm, {"data"}, "k", "v2");
  std::optional<kube::Object> update = translator.Update(cm, host);
  ASSERT_TRUE(update);
  EXPECT_EQ(kube::GetString(*update, {"data", "k"}), "v2");
  EXPECT_EQ(kube::ResourceVersion(*update), "77");
}

TEST(DataTranslatorTest, SecretTypeChangeIsAReplacement) {
  SyncerConfig config = NlpConfig();
  DataTranslator translator(config);
  kube::Object secret = Json(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s",
      "namespace":"ml"},"type":"Opaque","data":{"k":"dg=="}})");
  kube::Object host = translator.ToHost(secret);
  EXPECT_FALSE(translator.NeedsReplace(secret, host));
  kube::SetString(secret, {}, "type", "kubernetes.io/dockerconfigjson");
  EXPECT_TRUE(translator.NeedsReplace(secret, host));
}

TEST(ServiceTranslatorTest, SelectorMatchesHostPodsOfTheSameNamespaceOnly) {
  SyncerConfig config = NlpConfig();
  ServiceTranslator translator(config);
  kube::Object svc = Json(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"api",
      "namespace":"ml"},"spec":{"type":"NodePort","clusterIP":"10.96.3.3","clusterIPs":["10.96.3.3"],
      "selector":{"app":"api"},"ports":[{"name":"http","port":80,"targetPort":8080,
      "protocol":"TCP","nodePort":30080}]}})");
  kube::Object host = translator.ToHost(svc);
  EXPECT_EQ(kube::Name(host), "api-x-ml-x-nlp");
  EXPECT_FALSE(kube::Find(host, {"spec", "clusterIP"}));
  EXPECT_FALSE(kube::Find(host, {"spec", "clusterIPs"}));
  EXPECT_FALSE(kube::Find(host["spec"]["ports"][0], {"nodePort"}));
  EXPECT_EQ(kube::GetString(host, {"spec", "selector", "app"}), "api");
  EXPECT_EQ(kube::GetString(host, {"spec", "selector", "vtenant.io/tenant"}), "nlp");
  EXPECT_EQ(kube::GetString(host, {"spec", "selector", "vtenant.io/virtual-namespace"}), "ml");

  // The host assigns a cluster IP and node port; that is not a difference.
  kube::SetString(host, {"spec"}, "clusterIP", "10.96.9.9");
  host["spec"]["ports"][0].AddMember("nodePort", 31000, host.GetAllocator());
  EXPECT_FALSE(translator.Update(svc, host));
  kube::SetString(svc, {"spec", "selector"}, "app", "api-v2");
  std::optional<kube::Object> update = translator.Update(svc, host);
  ASSERT_TRUE(update);
  EXPECT_EQ(kube::GetString(*update, {"spec", "selector", "app"}), "api-v2");
  EXPECT_EQ(kube::GetString(*update, {"spec", "clusterIP"}), "10.96.9.9");
}

TEST(ServiceTranslatorTest, HeadlessStaysHeadless) {
  SyncerConfig config = NlpConfig();
  ServiceTranslator translator(config);
  kube::Object svc = Json(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"workers",
      "namespace":"ml"},"spec":{"clusterIP":"None","selector":{"job":"ddp"},"ports":[{"port":29500}]}})");
  EXPECT_EQ(kube::GetString(translator.ToHost(svc), {"spec", "clusterIP"}), "None");
}

TEST(EndpointsTranslatorTest, AddressesKeptAndPodRefsPointAtHostPods) {
  SyncerConfig config = NlpConfig();
  EndpointsTranslator translator(config);
  kube::Object endpoints = Json(R"({"apiVersion":"v1","kind":"Endpoints","metadata":{
      "name":"db","namespace":"ml","uid":"e1"},"subsets":[{
      "addresses":[{"ip":"192.168.5.10","hostname":"db-0"},
                   {"ip":"10.244.1.4","targetRef":{"kind":"Pod","name":"db-1","uid":"p1"}}],
      "notReadyAddresses":[{"ip":"10.244.1.5",
                            "targetRef":{"kind":"Service","namespace":"ml","name":"x"}}],
      "ports":[{"name":"pg","port":5432,"protocol":"TCP"}]}]})");
  kube::Object host = translator.ToHost(endpoints);
  EXPECT_EQ(kube::Name(host), "db-x-ml-x-nlp");
  EXPECT_EQ(kube::Namespace(host), "vtenant-nlp");
  EXPECT_EQ(kube::Annotation(host, kVirtualUidAnnotation), "e1");
  const rapidjson::Value& subset = host["subsets"][0];
  EXPECT_EQ(kube::GetString(subset["addresses"][0], {"ip"}), "192.168.5.10");
  EXPECT_EQ(kube::GetString(subset["addresses"][0], {"hostname"}), "db-0");
  EXPECT_FALSE(kube::Find(subset["addresses"][0], {"targetRef"}));
  EXPECT_EQ(kube::GetString(subset["addresses"][1], {"targetRef", "name"}),
            HostName("db-1", "ml", "nlp"));
  EXPECT_EQ(kube::GetString(subset["addresses"][1], {"targetRef", "namespace"}), "vtenant-nlp");
  EXPECT_FALSE(kube::Find(subset["addresses"][1], {"targetRef", "uid"}));
  EXPECT_EQ(kube::GetString(subset["notReadyAddresses"][0], {"ip"}), "10.244.1.5");
  EXPECT_FALSE(kube::Find(subset["notReadyAddresses"][0], {"targetRef"}));
  EXPECT_EQ(kube::GetInt(subset["ports"][0], {"port"}), 5432);

  EXPECT_FALSE(translator.Update(endpoints, host));
  endpoints["subsets"][0]["addresses"][0]["ip"].SetString("192.168.5.11", endpoints.GetAllocator());
  std::optional<kube::Object> update = translator.Update(endpoints, host);
  ASSERT_TRUE(update);
  EXPECT_EQ(kube::GetString((*update)["subsets"][0]["addresses"][0], {"ip"}), "192.168.5.11");
}

TEST(ClaimTranslatorTest, HostBindsItsOwnVolume) {
  SyncerConfig config = NlpConfig();
  ClaimTranslator translator(config);
  kube::Object pvc = Json(R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{
      "name":"data","namespace":"ml"},"spec":{"volumeName":"pv-virtual","accessModes":["ReadWriteOnce"],
      "resources":{"requests":{"storage":"10Gi"}}}})");
  kube::Object host = translator.ToHost(pvc);
  EXPECT_FALSE(kube::Find(host, {"spec", "volumeName"}));
  EXPECT_EQ(kube::GetString(host, {"spec", "resources", "requests", "storage"}), "10Gi");
  EXPECT_FALSE(translator.Update(pvc, host));
  kube::SetString(pvc, {"spec", "resources", "requests"}, "storage", "20Gi");
  std::optional<kube::Object> update = translator.Update(pvc, host);
  ASSERT_TRUE(update);
  EXPECT_EQ(kube::GetString(*update, {"spec", "resources", "requests", "storage"}), "20Gi");
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

}  // namespace
}  // namespace vtenant::syncer
