#include "syncer/flags.h"

#include <gtest/gtest.h>

namespace vtenant::syncer {
namespace {

TEST(FlagsTest, DefaultsFollowTheTenant) {
  Result<SyncerFlags> flags = ParseFlags({"--tenant=nlp", "--virtual-kubeconfig", "/vc"});
  ASSERT_TRUE(flags.ok()) << flags.status().ToString();
  EXPECT_EQ(flags->config.tenant, "nlp");
  EXPECT_EQ(flags->config.queue, "nlp");
  EXPECT_EQ(flags->config.host_namespace, "vtenant-nlp");
  EXPECT_EQ(flags->virtual_kubeconfig, "/vc");
  EXPECT_EQ(flags->host_kubeconfig, "");
  EXPECT_EQ(flags->config.virtual_service_port, 443);
  EXPECT_FALSE(flags->leader_elect);
  EXPECT_FALSE(flags->config.sync_endpoints);
  EXPECT_TRUE(flags->config.allowed_privileged_features.empty());
  // What the tenant may ask for is what the operator passes; alone, nothing.
  const SyncerConfig& c = flags->config;
  EXPECT_EQ(c.scheduler_name, "kai-scheduler");
  EXPECT_EQ(c.pod_security, PodSecurityLevel::kBaseline);
  EXPECT_TRUE(c.allowed_priority_classes.empty());
  EXPECT_TRUE(c.allowed_tolerations.empty());
  EXPECT_TRUE(c.allowed_runtime_classes.empty());
  EXPECT_TRUE(c.allowed_csi_drivers.empty());
  EXPECT_TRUE(c.allowed_device_classes.empty());
  EXPECT_EQ(c.allowed_volume_types, DefaultVolumeTypes());
  EXPECT_EQ(c.allowed_service_types, (std::set<std::string, std::less<>>{"ClusterIP"}));
  EXPECT_FALSE(c.service_range);
  // Given empty, they follow the tenant all the same.
  Result<SyncerFlags> empty =
      ParseFlags({"--tenant=nlp", "--virtual-kubeconfig=/vc", "--queue=", "--host-namespace="});
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->config.queue, "nlp");
  EXPECT_EQ(empty->config.host_namespace, "vtenant-nlp");
}

TEST(FlagsTest, TheTenantsIsolationIsRead) {
  Result<SyncerFlags> flags = ParseFlags(
      {"--tenant=nlp", "--virtual-kubeconfig=/vc", "--scheduler-name=vtenant-scheduler",
       "--pod-security=restricted",
       "--allowed-privileged-features=hostPorts,unconfinedSeccomp,windowsHostProcess",
       R"(--allowed-tolerations=[{"key":"nvidia.com/gpu","operator":"Exists"},)"
       R"({"key":"pool","value":"a100","effect":"NoSchedule"}])",
       "--allowed-runtime-classes=nvidia,gvisor", "--allowed-volume-types=nfs,image",
       "--allowed-csi-drivers=secrets-store.csi.k8s.io", "--allowed-service-types=NodePort",
       "--allowed-device-classes=gpu.nvidia.com,mig.nvidia.com"});
  ASSERT_TRUE(flags.ok()) << flags.status().ToString();
  const SyncerConfig& c = flags->config;
  EXPECT_EQ(c.scheduler_name, "vtenant-scheduler");
  EXPECT_EQ(c.pod_security, PodSecurityLevel::kRestricted);
  EXPECT_EQ(
      c.allowed_privileged_features,
      (std::set<std::string, std::less<>>{"hostPorts", "unconfinedSeccomp", "windowsHostProcess"}));
  ASSERT_EQ(c.allowed_tolerations.size(), 2u);
  EXPECT_EQ(c.allowed_tolerations[0], (AllowedToleration{.key = "nvidia.com/gpu", .exists = true}));
  EXPECT_EQ(c.allowed_tolerations[1],
            (AllowedToleration{.key = "pool", .value = "a100", .effect = "NoSchedule"}));
  EXPECT_EQ(c.allowed_runtime_classes, (std::set<std::string, std::less<>>{"gvisor", "nvidia"}));
  EXPECT_EQ(c.allowed_volume_types, (std::set<std::string, std::less<>>{"image", "nfs"}));
  EXPECT_EQ(c.allowed_csi_drivers,
            (std::set<std::string, std::less<>>{"secrets-store.csi.k8s.io"}));
  EXPECT_EQ(c.allowed_service_types, (std::set<std::string, std::less<>>{"ClusterIP", "NodePort"}));
  EXPECT_EQ(c.allowed_device_classes,
            (std::set<std::string, std::less<>>{"gpu.nvidia.com", "mig.nvidia.com"}));
  // An empty list of volume types is the default list, as on the Tenant.
  Result<SyncerFlags> empty =
      ParseFlags({"--tenant=nlp", "--virtual-kubeconfig=/vc", "--allowed-volume-types="});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->config.allowed_volume_types, DefaultVolumeTypes());
}

TEST(FlagsTest, EverySharedFlagIsRead) {
  Result<SyncerFlags> flags = ParseFlags(
      {"--tenant=nlp", "--queue=ml-nlp", "--host-namespace=hosts", "--virtual-kubeconfig=/vc",
       "--host-kubeconfig=/host", "--allowed-privileged-features=hostPath,privileged",
       "--node-selector=pool=gpu,zone=a", R"(--tolerations=[{"key":"t","operator":"Exists"}])",
       "--virtual-service-host=10.0.0.1", "--virtual-service-port=6443",
       "--health-address=127.0.0.1:9090", "--leader-elect",
       "--allowed-priority-classes=train,inference", "--pod-workers=4", "--kube-api-qps=0",
       "--kube-api-burst=50", "--sync-endpoints", "--service-cidr=10.96.0.0/16"});
  ASSERT_TRUE(flags.ok()) << flags.status().ToString();
  const SyncerConfig& c = flags->config;
  EXPECT_TRUE(c.sync_endpoints);
  EXPECT_EQ(c.queue, "ml-nlp");
  EXPECT_EQ(c.host_namespace, "hosts");
  EXPECT_EQ(flags->host_kubeconfig, "/host");
  EXPECT_EQ(c.allowed_privileged_features,
            (std::set<std::string, std::less<>>{"hostPath", "privileged"}));
  EXPECT_EQ(c.node_selector.at("pool"), "gpu");
  EXPECT_EQ(c.node_selector.at("zone"), "a");
  ASSERT_TRUE(c.tolerations.IsArray());
  EXPECT_EQ(c.tolerations.Size(), 1u);
  EXPECT_EQ(c.virtual_service_host, "10.0.0.1");
  EXPECT_EQ(c.virtual_service_port, 6443);
  EXPECT_EQ(flags->health_address, "127.0.0.1:9090");
  EXPECT_TRUE(flags->leader_elect);
  EXPECT_EQ(c.allowed_priority_classes, (std::set<std::string, std::less<>>{"train", "inference"}));
  EXPECT_EQ(flags->pod_workers, 4);
  EXPECT_EQ(flags->kube_api_qps, 0);
  EXPECT_EQ(flags->kube_api_burst, 50);
  ASSERT_TRUE(c.service_range);
  EXPECT_EQ(c.service_range->bits, 16);
  EXPECT_TRUE(c.service_range->Contains(*IpAddress::Parse("10.96.3.4")));
}

// One row per mistake, each naming its flag, as base/flags_test.cc's
// SplitFlagsTest.EachMistakeIsNamed does for SplitFlags: a parallel on
// purpose.
TEST(FlagsTest, MistakesNameTheFlag) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{"--virtual-kubeconfig=/vc"}, "--tenant"},
      {{"--tenant=nlp"}, "--virtual-kubeconfig"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc", "--bogus=1"}, "--bogus"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc", "--allowed-privileged-features=root"}, "root"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc", "--node-selector=novalue"}, "--node-selector"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc", "--tolerations={}"}, "--tolerations"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc", "--virtual-service-port=0"}, "port"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc", "--health-address=nowhere"}, "host:port"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc", "--leader-elect=yes"}, "--leader-elect"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc", "--kubelet-address=127.0.0.1"},
       "--kubelet-address"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc", "--kubelet-address=127.0.0.1:70000"},
       "--kubelet-address port"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc", "--kubelet-address=127.0.0.1:10250",
        "--kubelet-tls-cert-file=/c", "--kubelet-tls-key-file=/k"},
       "--kubelet-client-ca-file is required"},
      {{"--tenant=nlp", "--virtual-kubeconfig"}, "needs a value"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc", "--kube-api-qps=fast"}, "--kube-api-qps"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc", "--pod-api-address=10.87.0.2:1"},
       "--pod-netns"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc", "--pod-dns-address=10.87.0.2:1"},
       "--pod-netns"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc", "--pod-netns=n", "--pod-api-address=10.87.0.2"},
       "--pod-api-address"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc", "--pod-netns=n", "--pod-dns-address=x:0"},
       "--pod-dns-address"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc", "--pod-security=privileged"}, "--pod-security"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc", "--scheduler-name="}, "--scheduler-name"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc", "--allowed-volume-types=gitRepo"}, "gitRepo"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc", "--allowed-volume-types=hostPath"}, "hostPath"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc", "--allowed-service-types=ExternalName"},
       "ExternalName"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc", "--service-cidr=10.96.0.0"}, "--service-cidr"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc",
        R"(--allowed-tolerations=[{"operator":"Exists"}])"},
       "needs a key"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc",
        R"(--allowed-tolerations=[{"key":"k","operator":"Exists","value":"v"}])"},
       "takes no value"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc",
        R"(--allowed-tolerations=[{"key":"k","effect":"Sometimes"}])"},
       "Sometimes"},
      {{"--tenant=nlp", "--virtual-kubeconfig=/vc",
        R"(--allowed-tolerations=[{"key":"k","tolerationSeconds":5}])"},
       "tolerationSeconds"},
  };
  for (const Case& c : cases) {
    Result<SyncerFlags> flags = ParseFlags(c.args);
    ASSERT_FALSE(flags.ok()) << c.says;
    EXPECT_NE(flags.status().message().find(c.says), std::string::npos) << flags.status().message();
  }
}

TEST(FlagsTest, ThePodsEndpointsOnTheRealNode) {
  Result<SyncerFlags> none = ParseFlags({"--tenant=nlp", "--virtual-kubeconfig=/vc"});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->pod_netns.empty());
  EXPECT_TRUE(none->pod_api_address.empty());
  EXPECT_TRUE(none->pod_dns_address.empty());
  Result<SyncerFlags> flags =
      ParseFlags({"--tenant=nlp", "--virtual-kubeconfig=/vc", "--pod-netns=vtenant-0123",
                  "--pod-api-address=10.87.0.2:40815", "--pod-dns-address=10.87.0.2:40815"});
  ASSERT_TRUE(flags.ok()) << flags.status().ToString();
  EXPECT_EQ(flags->pod_netns, "vtenant-0123");
  EXPECT_EQ(flags->pod_api_address, "10.87.0.2:40815");
  EXPECT_EQ(flags->pod_dns_address, "10.87.0.2:40815");
}

TEST(FlagsTest, HelpNeedsNothingElseAndListsEveryFlag) {
  Result<SyncerFlags> flags = ParseFlags({"--help"});
  ASSERT_TRUE(flags.ok());
  EXPECT_TRUE(flags->help);
  for (const char* flag : {"--tenant",
                           "--queue",
                           "--host-namespace",
                           "--virtual-kubeconfig",
                           "--host-kubeconfig",
                           "--allowed-privileged-features",
                           "--node-selector",
                           "--tolerations",
                           "--virtual-service-host",
                           "--virtual-service-port",
                           "--health-address",
                           "--kubelet-address",
                           "--kubelet-tls-cert-file",
                           "--kubelet-tls-key-file",
                           "--kubelet-client-ca-file",
                           "--leader-elect",
                           "--allowed-priority-classes",
                           "--pod-workers",
                           "--pod-netns",
                           "--pod-api-address",
                           "--pod-dns-address",
                           "--kube-api-qps",
                           "--kube-api-burst",
                           "--scheduler-name",
                           "--pod-security",
                           "--allowed-tolerations",
                           "--allowed-runtime-classes",
                           "--allowed-volume-types",
                           "--allowed-csi-drivers",
                           "--allowed-device-classes",
                           "--allowed-service-types"}) {
    EXPECT_NE(Usage().find(flag), std::string::npos) << flag;
  }
}

}  // namespace
}  // namespace vtenant::syncer
