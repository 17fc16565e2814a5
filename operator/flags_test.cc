#include "operator/flags.h"

#include <gtest/gtest.h>

namespace vtenant::op {
namespace {

TEST(FlagsTest, DefaultsAndEveryFlag) {
  Result<OperatorFlags> d = ParseOperatorFlags({});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->backend_default, Backend::kProcess);
  EXPECT_FALSE(d->leader_elect);
  Result<OperatorFlags> f = ParseOperatorFlags(
      {"--kubeconfig=/k", "--backend-default", "statefulset", "--state-dir=/s", "--tools-bin=/t",
       "--syncer-binary=/b/vtenant-syncer", "--health-address=0.0.0.0:9000", "--leader-elect",
       "--etcd-servers=http://127.0.0.1:2379", "--workers=3", "--no-syncer=false",
       "--starting-apiservers=4", "--credentials-namespace=ops", "--tenant-credential-lifetime=8h",
       "--pod-netns=vtenant-abc", "--pod-address=10.87.0.2", "--image-registry=localhost/vtenant",
       "--etcd-image=localhost/vtenant/etcd:3.7.3"});
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->kubeconfig, "/k");
  EXPECT_EQ(f->backend_default, Backend::kStatefulSet);
  EXPECT_EQ(f->state_dir, "/s");
  EXPECT_EQ(f->tools_bin, "/t");
  EXPECT_EQ(f->syncer_binary, "/b/vtenant-syncer");
  EXPECT_EQ(f->health_address, "0.0.0.0:9000");
  EXPECT_TRUE(f->leader_elect);
  EXPECT_EQ(f->etcd_servers, "http://127.0.0.1:2379");
  EXPECT_EQ(f->workers, 3);
  EXPECT_FALSE(f->no_syncer);
  EXPECT_EQ(f->starting_apiservers, 4);
  EXPECT_EQ(d->starting_apiservers, 5);
  EXPECT_EQ(ParseOperatorFlags({"--starting-apiservers=0"})->starting_apiservers, 0);
  EXPECT_EQ(f->credentials_namespace, "ops");
  EXPECT_EQ(f->pod_netns, "vtenant-abc");
  EXPECT_EQ(f->pod_address, "10.87.0.2");
  EXPECT_TRUE(d->pod_netns.empty());
  EXPECT_TRUE(d->pod_address.empty());
  EXPECT_EQ(f->image_registry, "localhost/vtenant");
  EXPECT_EQ(f->etcd_image, "localhost/vtenant/etcd:3.7.3");
  EXPECT_EQ(d->image_registry, "registry.k8s.io");
  EXPECT_EQ(f->tenant_credential_lifetime, std::chrono::hours(8));
  EXPECT_EQ(d->tenant_credential_lifetime, std::chrono::hours(24));
  EXPECT_EQ(ParseOperatorFlags({"--tenant-credential-lifetime=7d"})->tenant_credential_lifetime,
            std::chrono::hours(24 * 7));
  EXPECT_TRUE(d->reserved_namespaces.empty());
  EXPECT_EQ(ParseOperatorFlags({"--reserved-namespaces=gpu-pool,,ops"})->reserved_namespaces,
            (std::vector<std::string>{"gpu-pool", "ops"}));
}

TEST(FlagsTest, BadInputNamesTheFlag) {
  EXPECT_NE(ParseOperatorFlags({"--frobnicate"}).status().message().find("--frobnicate"),
            std::string::npos);
  EXPECT_NE(ParseOperatorFlags({"--backend-default=vm"}).status().message().find("vm"),
            std::string::npos);
  EXPECT_FALSE(ParseOperatorFlags({"--workers=0"}).ok());
  EXPECT_FALSE(ParseOperatorFlags({"--starting-apiservers=-1"}).ok());
  EXPECT_FALSE(ParseOperatorFlags({"--kubeconfig"}).ok());
  EXPECT_FALSE(ParseOperatorFlags({"--leader-elect=maybe"}).ok());
  // The pods' address is a numeric IP, and comes with its namespace.
  EXPECT_NE(ParseOperatorFlags({"--pod-netns=n", "--pod-address=node"})
                .status()
                .message()
                .find("--pod-address"),
            std::string::npos);
  EXPECT_FALSE(ParseOperatorFlags({"--pod-address=10.87.0.2"}).ok());
  EXPECT_FALSE(ParseOperatorFlags({"--pod-netns=n"}).ok());
  EXPECT_EQ(ParseOperatorFlags({"--tenant-credential-lifetime=1.5h"})->tenant_credential_lifetime,
            std::chrono::minutes(90));
  for (const char* bad : {"24", "h", "1,5h", "10s", "400d", "-1h"}) {
    EXPECT_FALSE(ParseOperatorFlags({std::string("--tenant-credential-lifetime=") + bad}).ok())
        << bad;
  }
}

TEST(FlagsTest, UsageDocumentsEveryFlag) {
  const std::string usage = OperatorUsage();
  for (const char* flag : {"--kubeconfig",
                           "--backend-default",
                           "--state-dir",
                           "--tools-bin",
                           "--syncer-binary",
                           "--no-syncer",
                           "--etcd-servers",
                           "--syncer-image",
                           "--image-registry",
                           "--etcd-image",
                           "--health-address",
                           "--leader-elect",
                           "--leader-election-namespace",
                           "--leader-election-id",
                           "--workers",
                           "--starting-apiservers",
                           "--credentials-namespace",
                           "--tenant-credential-lifetime",
                           "--reserved-namespaces",
                           "--pod-netns",
                           "--pod-address",
                           "--help"}) {
    EXPECT_NE(usage.find(flag), std::string::npos) << flag;
  }
}

}  // namespace
}  // namespace vtenant::op
