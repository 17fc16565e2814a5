#include "kube/kubeconfig.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "base/testing/temp_dir.h"

namespace vtenant::kube {
namespace {

constexpr char kTwoContexts[] = R"(
apiVersion: v1
kind: Config
current-context: admin
clusters:
- name: host
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority-data: Q0EtUEVN
- name: other
  cluster:
    server: https://127.0.0.2:7443
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
    client-certificate-data: Q0VSVA==
    client-key-data: S0VZ
- name: robot
  user:
    token: abc123
contexts:
- name: admin
  context: {cluster: host, user: admin}
- name: robot
  context: {cluster: other, user: robot, namespace: team-a}
)";

TEST(KubeconfigTest, CurrentContextWithInlineCertificates) {
  Result<RestConfig> config = ParseKubeconfig(kTwoContexts);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->server, "https://127.0.0.1:6443");  // trailing slash dropped
  EXPECT_EQ(config->ca_pem, "CA-PEM");
  EXPECT_EQ(config->client_certificate_pem, "CERT");
  EXPECT_EQ(config->client_key_pem, "KEY");
  EXPECT_EQ(config->default_namespace, "default");
}

TEST(KubeconfigTest, NamedContextWithToken) {
  Result<RestConfig> config = ParseKubeconfig(kTwoContexts, "robot");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->server, "https://127.0.0.2:7443");
  EXPECT_TRUE(config->insecure_skip_tls_verify);
  EXPECT_EQ(config->bearer_token, "abc123");
  EXPECT_EQ(config->default_namespace, "team-a");
}

TEST(KubeconfigTest, FilePathsResolveAgainstTheKubeconfigFolder) {
  namespace fs = std::filesystem;
  const TempDir temp("kubeconfig_test");
  const fs::path dir = temp.path();
  std::ofstream(dir / "ca.crt") << "FILE-CA";
  std::ofstream(dir / "config") << R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://10.1.2.3", certificate-authority: ca.crt}}]
users: [{name: u, user: {tokenFile: token}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
)";
  Result<RestConfig> config = LoadKubeconfig((dir / "config").string());
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->ca_pem, "FILE-CA");
  EXPECT_EQ(config->bearer_token_file, (dir / "token").string());
}

TEST(KubeconfigTest, RenderedKubeconfigParsesBack) {
  RestConfig original;
  original.server = "https://127.0.0.1:1234";
  original.ca_pem = "-----BEGIN CERTIFICATE-----\nabc\n-----END CERTIFICATE-----\n";
  original.client_certificate_pem = "cert\n";
  original.client_key_pem = "key\n";
  original.default_namespace = "vtenant-nlp";
  Result<RestConfig> parsed = ParseKubeconfig(RenderKubeconfig(original, "vc-nlp"));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->server, original.server);
  EXPECT_EQ(parsed->ca_pem, original.ca_pem);
  EXPECT_EQ(parsed->client_certificate_pem, original.client_certificate_pem);
  EXPECT_EQ(parsed->client_key_pem, original.client_key_pem);
  EXPECT_EQ(parsed->default_namespace, "vtenant-nlp");
}

struct BadCase {
  const char* name;
  const char* yaml;
  const char* context;
  const char* expected_fragment;
};

class BadKubeconfigTest : public testing::TestWithParam<BadCase> {};

TEST_P(BadKubeconfigTest, FailsWithAMessageNamingTheProblem) {
  const BadCase& c = GetParam();
  Result<RestConfig> config = ParseKubeconfig(c.yaml, c.context);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(config.status().message().find(c.expected_fragment), std::string::npos)
      << config.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadKubeconfigTest,
    testing::Values(
        BadCase{"not_yaml", "{{{", "", "not valid YAML"},
        BadCase{"scalar", "hello", "", "not a YAML map"},
        BadCase{"no_context", "clusters: []", "", "no current-context"},
        BadCase{"unknown_context", kTwoContexts, "nope", "no context named \"nope\""},
        BadCase{"missing_server",
                "current-context: c\nclusters: [{name: k, cluster: {}}]\n"
                "contexts: [{name: c, context: {cluster: k}}]",
                "", "has no server"},
        BadCase{"cert_without_key",
                "current-context: c\nclusters: [{name: k, cluster: {server: https://x}}]\n"
                "users: [{name: u, user: {client-certificate-data: Q0VSVA==}}]\n"
                "contexts: [{name: c, context: {cluster: k, user: u}}]",
                "", "without its key"},
        BadCase{"bad_base64",
                "current-context: c\nclusters: [{name: k, cluster: {server: https://x, "
                "certificate-authority-data: '***'}}]\n"
                "contexts: [{name: c, context: {cluster: k}}]",
                "", "not valid base64"},
        BadCase{"exec_plugin",
                "current-context: c\nclusters: [{name: k, cluster: {server: https://x}}]\n"
                "users: [{name: u, user: {exec: {command: aws}}}]\n"
                "contexts: [{name: c, context: {cluster: k, user: u}}]",
                "", "exec or auth-provider"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(InClusterConfigTest, NeedsServiceEnvironment) {
  unsetenv("KUBERNETES_SERVICE_HOST");
  Result<RestConfig> config = InClusterConfig("/nonexistent");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), StatusCode::kFailedPrecondition);
}

TEST(InClusterConfigTest, ReadsMountedServiceAccount) {
  namespace fs = std::filesystem;
  const TempDir temp("incluster_test");
  const fs::path dir = temp.path();
  std::ofstream(dir / "ca.crt") << "SA-CA";
  std::ofstream(dir / "token") << "tok\n";
  std::ofstream(dir / "namespace") << "vtenant-system";
  setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  Result<RestConfig> config = InClusterConfig(dir.string());
  unsetenv("KUBERNETES_SERVICE_HOST");
  unsetenv("KUBERNETES_SERVICE_PORT");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->server, "https://10.0.0.1:443");
  EXPECT_EQ(config->ca_pem, "SA-CA");
  EXPECT_EQ(config->bearer_token_file, (dir / "token").string());
  EXPECT_EQ(config->default_namespace, "vtenant-system");
}

}  // namespace
}  // namespace vtenant::kube
