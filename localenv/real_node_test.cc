// The real node's configuration: the settings it cannot run without on a
// machine like this one, and that everything stays under its folder and
// inside its namespace.
#include "localenv/real_node.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "kube/object.h"
#include "kube/testing/json.h"

namespace vtenant::localenv {
namespace {

RealNodeOptions Options() {
  return {.dir = "/tmp/env-a/node", .host_dir = "/tmp/env-a/host", .api_server_port = 6443};
}

TEST(RealNodeTest, NamespaceNameIsStablePerFolderAndDistinctBetweenFolders) {
  EXPECT_EQ(NetnsName("/tmp/env-a"), NetnsName("/tmp/env-a/"));
  EXPECT_EQ(NetnsName("/tmp/env-a"), NetnsName("/tmp/env-a/x/.."));
  EXPECT_NE(NetnsName("/tmp/env-a"), NetnsName("/tmp/env-b"));
  EXPECT_EQ(NetnsName("/tmp/env-a").rfind("vtenant-", 0), 0u);
  // ip netns names become file names in /run/netns; interface-name limits
  // do not apply, but keep it short and plain.
  EXPECT_LE(NetnsName("/tmp/env-a").size(), 18u);
}

TEST(RealNodeTest, ContainerdRunsWithoutLoweringOomScoreAndOnItsOwnSocket) {
  const std::string config = RealNodeFiles(Options()).at("containerd/config.toml");
  EXPECT_NE(config.find("restrict_oom_score_adj = true"), std::string::npos);
  EXPECT_NE(config.find("address = \"/tmp/env-a/node/containerd/containerd.sock\""),
            std::string::npos);
  EXPECT_NE(config.find("root = \"/tmp/env-a/node/containerd/root\""), std::string::npos);
  EXPECT_NE(config.find("conf_dir = \"/tmp/env-a/node/cni/conf\""), std::string::npos);
  // Its streaming server on the namespace's loopback only.
  EXPECT_NE(config.find("stream_server_address = \"127.0.0.1\""), std::string::npos);
}

// The pods' network: a bridge inside the namespace, addresses from the
// node's pod range, kept under the node's folder.
TEST(RealNodeTest, PodsGetABridgeAndTheNodesPodRange) {
  RealNodeOptions options = Options();
  options.dir = "/tmp/env \"a\"/node";  // a folder name JSON must escape
  const kube::Object network =
      kube::Json(RealNodeFiles(options).at("cni/conf/10-vtenant.conflist"));
  EXPECT_EQ(kube::GetString(network, {"cniVersion"}), "0.4.0");
  const rapidjson::Value& bridge = network["plugins"][0];
  EXPECT_EQ(kube::GetString(bridge, {"type"}), "bridge");
  EXPECT_FALSE(bridge["ipMasq"].GetBool());
  EXPECT_EQ(kube::GetString(bridge["ipam"]["ranges"][0][0], {"subnet"}), kPodCidr);
  EXPECT_EQ(kube::GetString(bridge, {"ipam", "dataDir"}), "/tmp/env \"a\"/node/cni/ipam");
}

TEST(RealNodeTest, KubeletSettingsForCgroupV1WithSwapAndANonLoopbackNodeIp) {
  const std::string config = RealNodeFiles(Options()).at("kubelet/config.yaml");
  for (const char* line :
       {"cgroupDriver: cgroupfs", "failCgroupV1: false", "failSwapOn: false", "readOnlyPort: 0",
        "healthzBindAddress: 127.0.0.1", "address: 10.87.0.2", "resolvConf: \"\"",
        "containerRuntimeEndpoint: unix:///tmp/env-a/node/containerd/containerd.sock",
        "x509: {clientCAFile: /tmp/env-a/host/pki/ca.crt}"}) {
    EXPECT_NE(config.find(line), std::string::npos) << line << "\n" << config;
  }
  // Pods' cgroups under the environment's own root, named like its namespace.
  EXPECT_NE(config.find("cgroupRoot: /" + NetnsName("/tmp/env-a")), std::string::npos) << config;
}

TEST(RealNodeTest, ApiServerReachesKubeletsThroughTheEgressRelayByInternalIp) {
  const std::string egress = RealNodeFiles(Options()).at("egress-selector.yaml");
  EXPECT_NE(egress.find("kind: EgressSelectorConfiguration"), std::string::npos);
  EXPECT_NE(egress.find("- name: cluster"), std::string::npos);
  EXPECT_NE(egress.find("proxyProtocol: HTTPConnect"), std::string::npos);
  EXPECT_NE(egress.find("udsName: /tmp/env-a/node/egress.sock"), std::string::npos);
  const std::vector<std::string> args = RealNodeApiServerArgs(Options());
  EXPECT_NE(std::find(args.begin(), args.end(),
                      "--egress-selector-config-file=/tmp/env-a/node/egress-selector.yaml"),
            args.end());
  EXPECT_NE(std::find(args.begin(), args.end(), "--kubelet-preferred-address-types=InternalIP"),
            args.end());
}

// The node's programs run in its namespace (nsenter --net), except
// vtenant's own relays and DNS, which open their sockets there and nothing
// on the machine's network (--netns).
TEST(RealNodeTest, EveryProgramRunsOrListensInTheNamespace) {
  RealNodeOptions options = Options();
  options.vtenant_binary = "/bin/vtenant";
  const std::string netns = "--net=/run/netns/" + NetnsName("/tmp/env-a");
  std::vector<std::string> names;
  for (const Component& c : RealNodeComponents(options)) {
    names.push_back(c.name);
    ASSERT_FALSE(c.process.argv.empty());
    const std::vector<std::string>& argv = c.process.argv;
    if (argv[0] == "/bin/vtenant") {
      EXPECT_TRUE(c.name.rfind("node-relay-", 0) == 0 || c.name == "cluster-dns") << c.name;
      const auto flag = std::find(argv.begin(), argv.end(), "--netns");
      ASSERT_NE(flag, argv.end()) << c.name;
      ASSERT_NE(flag + 1, argv.end()) << c.name;
      EXPECT_EQ(*(flag + 1), NetnsName("/tmp/env-a")) << c.name;
    } else {
      ASSERT_GE(argv.size(), 4u) << c.name;
      EXPECT_EQ(argv[0], "/usr/bin/nsenter") << c.name;
      EXPECT_EQ(argv[1], netns) << c.name;
      EXPECT_EQ(argv[2], "--") << c.name;
    }
  }
  EXPECT_EQ(names, (std::vector<std::string>{"node-relay-api", "node-relay-egress", "containerd",
                                             "kubelet", "kube-proxy", "cluster-dns"}));
}

// Pods reach the host API server only where asked for (a chart's, with
// `up --cluster-only`): otherwise nothing of the node listens for it.
TEST(RealNodeTest, PodsReachTheHostApiServerOnlyWhenAskedFor) {
  RealNodeOptions options = Options();
  options.vtenant_binary = "/bin/vtenant";
  options.api_server_port = 6443;
  auto relays_to_api = [](const RealNodeOptions& o) {
    int found = 0;
    for (const Component& c : RealNodeComponents(o)) {
      const std::vector<std::string>& argv = c.process.argv;
      const auto listen = std::find(argv.begin(), argv.end(), "--listen");
      if (listen != argv.end() && listen + 1 != argv.end() &&
          *(listen + 1) == std::string(kNodeIp) + ":6443") {
        ++found;
      }
    }
    return found;
  };
  EXPECT_EQ(relays_to_api(options), 0);
  options.pods_reach_api_server = true;
  EXPECT_EQ(relays_to_api(options), 1);
}

}  // namespace
}  // namespace vtenant::localenv
