#include "syncer/service_translator.h"

#include <gtest/gtest.h>

#include "kube/json_builder.h"
#include "syncer/names.h"
#include "syncer/testing/test_objects.h"

namespace vtenant::syncer {
namespace {

using testing::Json;
using testing::NlpConfig;

using Types = std::set<std::string, std::less<>>;

// Service ml/api of `spec`, with `annotations`.
kube::Object Service(const rapidjson::Value& spec, const kube::JsonObject& annotations = {}) {
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "v1"},
      {"kind", "Service"},
      {"metadata",
       kube::JsonObject{
           {"name", "api"}, {"namespace", "ml"}, {"uid", "s1"}, {"annotations", annotations}}},
      {"spec", kube::JsonValue(spec)}});
}

// The same, its spec written as JSON.
kube::Object Service(const std::string& spec, const kube::JsonObject& annotations = {}) {
  return Service(Json(spec), annotations);
}

std::vector<std::string> Reasons(const std::vector<Refusal>& warnings) {
  std::vector<std::string> out;
  for (const Refusal& w : warnings) out.push_back(w.reason);
  return out;
}

// One row per decision on a Service's spec, under the Tenant's allowed types.
TEST(ServiceTranslatorTest, Table) {
  struct Row {
    const char* decision;
    Types allowed;
    std::string spec;       // the virtual spec
    std::string host_spec;  // the host spec, exactly; unused when refused
    std::vector<std::string> warnings;
    std::string refusal;  // reason, or ""
    DroppedFields dropped;
  } rows[] = {
      {"a ClusterIP Service as the API server returns it: selector narrowed to the tenant's "
       "pods of its namespace, addresses left to the host",
       {"ClusterIP"},
       R"({"type":"ClusterIP","selector":{"app":"api"},"clusterIP":"10.96.3.3",
           "clusterIPs":["10.96.3.3"],"ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack",
           "sessionAffinity":"None","internalTrafficPolicy":"Cluster",
           "ports":[{"name":"http","protocol":"TCP","port":80,"targetPort":8080}]})",
       R"({"type":"ClusterIP",)"
       R"("selector":{"app":"api","vtenant.io/tenant":"nlp","vtenant.io/virtual-namespace":"ml"},)"
       R"("ipFamilyPolicy":"SingleStack",
           "sessionAffinity":"None","internalTrafficPolicy":"Cluster",
           "ports":[{"name":"http","protocol":"TCP","port":80,"targetPort":8080}]})",
       {},
       "",
       {}},
      {"headless stays headless",
       {"ClusterIP"},
       R"({"type":"ClusterIP","clusterIP":"None","selector":{"app":"api"},"ports":[{"port":29500}]})",
       R"({"type":"ClusterIP","clusterIP":"None",)"
       R"("selector":{"app":"api","vtenant.io/tenant":"nlp","vtenant.io/virtual-namespace":"ml"},)"
       R"("ports":[{"port":29500}]})",
       {},
       "",
       {}},
      {"routing choices for the Service's own endpoints travel",
       {"ClusterIP"},
       R"({"type":"ClusterIP","sessionAffinity":"ClientIP",
           "sessionAffinityConfig":{"clientIP":{"timeoutSeconds":60}},
           "publishNotReadyAddresses":true,"trafficDistribution":"PreferClose",
           "ports":[{"port":80,"appProtocol":"http"}]})",
       R"({"type":"ClusterIP","sessionAffinity":"ClientIP",
           "sessionAffinityConfig":{"clientIP":{"timeoutSeconds":60}},
           "publishNotReadyAddresses":true,"trafficDistribution":"PreferClose",
           "ports":[{"port":80,"appProtocol":"http"}]})",
       {},
       "",
       {}},
      {"hostile: NodePort where only ClusterIP is allowed is a ClusterIP, said so; its node port "
       "stays behind",
       {"ClusterIP"},
       R"({"type":"NodePort","externalTrafficPolicy":"Cluster",
           "ports":[{"port":80,"nodePort":30080}]})",
       R"({"type":"ClusterIP","ports":[{"port":80}]})",
       {"ServiceTypeNotAllowed"},
       "",
       {}},
      {"NodePort where allowed: the host picks the node port",
       {"ClusterIP", "NodePort"},
       R"({"type":"NodePort","externalTrafficPolicy":"Local","ports":[{"port":80,"nodePort":30080}]})",
       R"({"type":"NodePort","externalTrafficPolicy":"Local","ports":[{"port":80}]})",
       {},
       "",
       {}},
      {"hostile: LoadBalancer where only ClusterIP is allowed is a ClusterIP, without its "
       "load-balancer fields",
       {"ClusterIP"},
       R"({"type":"LoadBalancer","externalTrafficPolicy":"Local","healthCheckNodePort":32000,
           "loadBalancerSourceRanges":["0.0.0.0/0"],"allocateLoadBalancerNodePorts":true,
           "loadBalancerIP":"203.0.113.7","ports":[{"port":80,"nodePort":30080}]})",
       R"({"type":"ClusterIP","ports":[{"port":80}]})",
       {"ServiceTypeNotAllowed"},
       "",
       {}},
      {"LoadBalancer where only NodePort is allowed is a NodePort",
       {"ClusterIP", "NodePort"},
       R"({"type":"LoadBalancer","externalTrafficPolicy":"Cluster","ports":[{"port":80}]})",
       R"({"type":"NodePort","externalTrafficPolicy":"Cluster","ports":[{"port":80}]})",
       {"ServiceTypeNotAllowed"},
       "",
       {}},
      {"LoadBalancer where allowed, with what narrows it",
       {"ClusterIP", "LoadBalancer"},
       R"({"type":"LoadBalancer","externalTrafficPolicy":"Local","healthCheckNodePort":32000,
           "loadBalancerSourceRanges":["10.0.0.0/8"],"allocateLoadBalancerNodePorts":false,
           "ports":[{"port":80,"nodePort":30080}]})",
       R"({"type":"LoadBalancer","externalTrafficPolicy":"Local",
           "loadBalancerSourceRanges":["10.0.0.0/8"],"allocateLoadBalancerNodePorts":false,
           "ports":[{"port":80}]})",
       {},
       "",
       {}},
      {"hostile: a load balancer's address or implementation chosen by the tenant is not carried",
       {"ClusterIP", "LoadBalancer"},
       R"({"type":"LoadBalancer","loadBalancerIP":"203.0.113.7",
           "loadBalancerClass":"platform.example.com/internal","ports":[{"port":80}]})",
       R"({"type":"LoadBalancer","ports":[{"port":80}]})",
       {"ServiceFieldNotAllowed", "ServiceFieldNotAllowed"},
       "",
       {}},
      {"hostile: externalIPs never, whatever the types allowed",
       {"ClusterIP", "NodePort", "LoadBalancer"},
       R"({"type":"ClusterIP","externalIPs":["10.243.0.1"],"ports":[{"port":443}]})",
       R"({"type":"ClusterIP","ports":[{"port":443}]})",
       {"ServiceFieldNotAllowed"},
       "",
       {}},
      {"hostile: ExternalName is refused, whatever the types allowed",
       {"ClusterIP", "NodePort", "LoadBalancer"},
       R"({"type":"ExternalName","externalName":"kubernetes.default.svc.cluster.local"})",
       "",
       {},
       "ServiceTypeNotAllowed",
       {}},
      {"members no translator knows are left out and reported",
       {"ClusterIP"},
       R"({"type":"ClusterIP","topologyKeys":["*"],"ports":[{"port":80,"shiny":1}]})",
       R"({"type":"ClusterIP","ports":[{"port":80}]})",
       {},
       "",
       {"spec.topologyKeys", "spec.ports[].shiny"}},
  };
  for (const Row& row : rows) {
    SyncerConfig config = NlpConfig();
    config.allowed_service_types = row.allowed;
    ServiceTranslator translator(config);
    TranslationNotes notes;
    kube::Object host = translator.ToHost(Service(row.spec), &notes);
    EXPECT_EQ(kube::Name(host), HostName("api", "ml", "nlp")) << row.decision;
    EXPECT_EQ(Reasons(notes.warnings), row.warnings) << row.decision;
    EXPECT_EQ(notes.dropped, row.dropped) << row.decision;
    if (!row.refusal.empty()) {
      ASSERT_TRUE(notes.refusal) << row.decision;
      EXPECT_EQ(notes.refusal->reason, row.refusal) << row.decision;
      EXPECT_TRUE(translator.Check(Service(row.spec))) << row.decision;
      continue;
    }
    EXPECT_FALSE(notes.refusal) << row.decision;
    EXPECT_EQ(host["spec"], Json(row.host_spec))
        << row.decision << ": " << kube::ToJson(host["spec"]);
    EXPECT_FALSE(kube::Find(host, {"status"})) << row.decision;
  }
}

// One row per annotation decision: which keys the host copy keeps.
TEST(ServiceTranslatorTest, AnnotationsComeFromAnAllowlist) {
  struct Row {
    const char* key;
    bool kept_on_cluster_ip;
    bool kept_on_allowed_load_balancer;
  } rows[] = {
      {"service.kubernetes.io/topology-mode", true, true},
      {"service.kubernetes.io/topology-aware-hints", true, true},
      {"service.beta.kubernetes.io/aws-load-balancer-internal", false, true},
      {"service.beta.kubernetes.io/aws-load-balancer-scheme", false, true},
      {"networking.gke.io/load-balancer-type", false, true},
      {"service.beta.kubernetes.io/azure-load-balancer-internal", false, true},
      // Hostile: names an address, a certificate, a pool or a DNS record.
      {"service.beta.kubernetes.io/aws-load-balancer-eip-allocations", false, false},
      {"service.beta.kubernetes.io/aws-load-balancer-ssl-cert", false, false},
      {"service.beta.kubernetes.io/aws-load-balancer-security-groups", false, false},
      {"service.beta.kubernetes.io/azure-pip-name", false, false},
      {"metallb.universe.tf/loadBalancerIPs", false, false},
      {"io.cilium/lb-ipam-ips", false, false},
      {"kube-vip.io/loadbalancerIPs", false, false},
      {"external-dns.alpha.kubernetes.io/hostname", false, false},
      {"service.kubernetes.io/service-proxy-name", false, false},
      {"vtenant.io/virtual-uid", false, false},
      {"prometheus.io/scrape", false, false},
      {"description", false, false},
  };
  for (const Row& row : rows) {
    for (bool load_balancer : {false, true}) {
      SyncerConfig config = NlpConfig();
      config.allowed_service_types = {"ClusterIP", "LoadBalancer"};
      ServiceTranslator translator(config);
      kube::Object svc = Service(R"({"type":"ClusterIP","ports":[{"port":80}]})", {{row.key, "x"}});
      if (load_balancer) kube::SetString(svc, {"spec"}, "type", "LoadBalancer");
      TranslationNotes notes;
      kube::Object host = translator.ToHost(svc, &notes);
      const bool want = load_balancer ? row.kept_on_allowed_load_balancer : row.kept_on_cluster_ip;
      std::optional<std::string_view> got = kube::Annotation(host, row.key);
      if (std::string_view(row.key) == kVirtualUidAnnotation) {
        EXPECT_EQ(got, "s1") << row.key;  // the syncer's own, not the tenant's
      } else {
        EXPECT_EQ(got.has_value(), want) << row.key << (load_balancer ? " on LoadBalancer" : "");
      }
      EXPECT_EQ(notes.dropped.size(), want ? 0u : 1u) << row.key;
    }
  }
}

TEST(ServiceTranslatorTest, UpdateKeepsWhatTheHostAllocated) {
  SyncerConfig config = NlpConfig();
  config.allowed_service_types = {"ClusterIP", "NodePort"};
  ServiceTranslator translator(config);
  kube::Object svc = Service(R"({"type":"NodePort","clusterIP":"10.96.3.3",
      "selector":{"app":"api"},"ports":[{"name":"http","port":80,"targetPort":8080,
      "protocol":"TCP","nodePort":30080}]})");
  kube::Object host = translator.ToHost(svc);
  // The host assigns a cluster IP and node port; that is not a difference.
  kube::SetString(host, {"spec"}, "clusterIP", "10.96.9.9");
  host["spec"]["ports"][0].AddMember("nodePort", 31000, host.GetAllocator());
  EXPECT_FALSE(translator.Update(translator.ToHost(svc), host));
  kube::SetString(svc, {"spec", "selector"}, "app", "api-v2");
  std::optional<kube::Object> update = translator.Update(translator.ToHost(svc), host);
  ASSERT_TRUE(update);
  EXPECT_EQ(kube::GetString(*update, {"spec", "selector", "app"}), "api-v2");
  EXPECT_EQ(kube::GetString(*update, {"spec", "clusterIP"}), "10.96.9.9");
  EXPECT_EQ(kube::GetInt((*update)["spec"]["ports"][0], {"nodePort"}), 31000);
  // NodePort no longer allowed: the host copy becomes a ClusterIP.
  config.allowed_service_types = {"ClusterIP"};
  update = ServiceTranslator(config).Update(ServiceTranslator(config).ToHost(svc), host);
  ASSERT_TRUE(update);
  EXPECT_EQ(kube::GetString(*update, {"spec", "type"}), "ClusterIP");
}

// With the host's Service range known, the copy asks for the virtual
// Service's own address, from the band the allocator picks from itself only.
TEST(ServiceTranslatorTest, TheClusterIPIsAskedForOnlyFromTheDynamicBand) {
  SyncerConfig config = NlpConfig();
  config.service_range = IpRange::Parse("10.96.0.0/16");
  ServiceTranslator translator(config);
  struct Row {
    const char* decision;
    const char* cluster_ip;  // the virtual Service's
    const char* asked;       // the host copy's spec.clusterIP, or "" for none
  } rows[] = {
      {"one the virtual API server picked: asked for", "10.96.3.3", "10.96.3.3"},
      {"hostile: the host's cluster DNS (static band): not asked for", "10.96.0.10", ""},
      {"hostile: a free static-band address the platform may give by hand: not asked for",
       "10.96.0.200", ""},
      {"hostile: outside the host's range: not asked for", "10.97.0.5", ""},
      {"hostile: the range's last address: not asked for", "10.96.255.255", ""},
      {"another family: not asked for", "fd00::5", ""},
      {"hostile: the DNS's address spelt as IPv4-mapped IPv6: judged as what it is",
       "::ffff:10.96.0.10", ""},
      {"one of the dynamic band spelt as IPv4-mapped IPv6: asked for as IPv4", "::ffff:10.96.3.3",
       "10.96.3.3"},
      {"not an address: not asked for", "ten", ""},
      {"headless stays headless", "None", "None"},
  };
  for (const Row& row : rows) {
    kube::Object host = translator.ToHost(Service(kube::BuildJson(
        kube::JsonObject{{"clusterIP", row.cluster_ip},
                         {"clusterIPs", kube::JsonArray{row.cluster_ip}},
                         {"ports", kube::JsonArray{kube::JsonObject{{"port", 80}}}}})));
    EXPECT_EQ(kube::GetString(host, {"spec", "clusterIP"}), row.asked) << row.decision;
    EXPECT_FALSE(kube::Find(host, {"spec", "clusterIPs"})) << row.decision;
  }
  // Without the range, the host always picks.
  EXPECT_FALSE(
      kube::Find(ServiceTranslator(NlpConfig())
                     .ToHost(Service(R"({"clusterIP":"10.96.3.3","ports":[{"port":80}]})")),
                 {"spec", "clusterIP"}));
}

TEST(ServiceTranslatorTest, WithoutClusterIPLetsTheHostPick) {
  SyncerConfig config = NlpConfig();
  config.service_range = IpRange::Parse("10.96.0.0/16");
  ServiceTranslator translator(config);
  kube::Object asked =
      translator.ToHost(Service(R"({"clusterIP":"10.96.3.3","ports":[{"port":80}]})"));
  std::optional<kube::Object> instead = ServiceTranslator::WithoutClusterIP(asked);
  ASSERT_TRUE(instead);
  EXPECT_FALSE(kube::Find(*instead, {"spec", "clusterIP"}));
  EXPECT_EQ((*instead)["spec"]["ports"], asked["spec"]["ports"]);
  EXPECT_EQ((*instead)["metadata"], asked["metadata"]);
  EXPECT_FALSE(ServiceTranslator::WithoutClusterIP(
      translator.ToHost(Service(R"({"clusterIP":"None","ports":[{"port":80}]})"))));
  EXPECT_FALSE(ServiceTranslator::WithoutClusterIP(
      translator.ToHost(Service(R"({"clusterIP":"10.96.0.10","ports":[{"port":80}]})"))));
  // A copy that got another address keeps it: cluster IPs never change in
  // place.
  kube::Object host = kube::Clone(*instead);
  kube::SetString(host, {"spec"}, "clusterIP", "10.96.9.9");
  EXPECT_FALSE(translator.Update(asked, host));
}

TEST(ServiceTranslatorTest, SelectsNoPods) {
  EXPECT_TRUE(SelectsNoPods(Service(R"({"ports":[{"port":80}]})")));
  EXPECT_TRUE(SelectsNoPods(Service(R"({"selector":{}})")));
  EXPECT_FALSE(SelectsNoPods(Service(R"({"selector":{"app":"api"}})")));
}

}  // namespace
}  // namespace vtenant::syncer
