// Integration: real etcd + kube-apiserver on loopback, driven with the real kubectl.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include "base/file.h"
#include "base/testing/temp_dir.h"
#include "localenv/api_server.h"
#include "localenv/command.h"
#include "localenv/etcd_server.h"
#include "localenv/tools.h"

namespace vtenant::localenv {
namespace {

constexpr char kWidgetCrd[] = R"(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.vtenant.dev
spec:
  group: example.vtenant.dev
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
)";

class ControlPlaneTest : public testing::Test {
 protected:
  void SetUp() override {
    Result<std::string> kubectl = FindTool("kubectl");
    ASSERT_TRUE(kubectl.ok()) << kubectl.status().ToString();
    kubectl_ = *kubectl;
  }

  // Runs kubectl against `server` and returns stdout; fails the test on a non-zero exit.
  std::string Kubectl(const ApiServer& server, std::vector<std::string> args,
                      const std::string& input = {}, int expected_exit = 0) {
    args.insert(args.begin(), {kubectl_, "--kubeconfig=" + server.kubeconfig_path()});
    Result<CommandResult> r = RunCommand(args, input);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return "";
    EXPECT_EQ(r->exit_code, expected_exit) << r->err;
    return expected_exit == 0 ? r->out : r->err;
  }

  TempDir temp_{"vtenant-cp"};
  const std::string dir_ = temp_.path();
  std::string kubectl_;
};

TEST_F(ControlPlaneTest, KubectlRoundTripsObjectsAndNothingOutlivesStop) {
  Result<std::unique_ptr<EtcdServer>> etcd = EtcdServer::Start({.dir = dir_ + "/etcd"});
  ASSERT_TRUE(etcd.ok()) << etcd.status().ToString();
  Result<std::unique_ptr<ApiServer>> host = ApiServer::Start({.dir = dir_ + "/host",
                                                              .etcd_url = (*etcd)->client_url(),
                                                              .etcd_tls = (*etcd)->client_tls(),
                                                              .etcd_prefix = "/host"});
  ASSERT_TRUE(host.ok()) << host.status().ToString();
  const ApiServer& api = **host;
  EXPECT_EQ(api.admin_config().server.rfind("https://127.0.0.1:", 0), 0u);

  Kubectl(api, {"create", "namespace", "demo"});
  Kubectl(api, {"-n", "demo", "create", "configmap", "settings", "--from-literal=gpu=l40s"});
  EXPECT_EQ(
      Kubectl(api, {"-n", "demo", "get", "configmap", "settings", "-o", "jsonpath={.data.gpu}"}),
      "l40s");

  Kubectl(api, {"apply", "-f", "-"}, kWidgetCrd);
  Kubectl(api, {"wait", "--for=condition=Established", "--timeout=60s",
                "crd/widgets.example.vtenant.dev"});
  Kubectl(api, {"-n", "demo", "apply", "-f", "-"},
          "apiVersion: example.vtenant.dev/v1\nkind: Widget\nmetadata: {name: w1}\n"
          "spec: {size: 3}\n");
  EXPECT_EQ(Kubectl(api, {"-n", "demo", "get", "widget", "w1", "-o", "jsonpath={.spec.size}"}),
            "3");

  // A second API server on the same etcd under another prefix sees none of it.
  Result<std::unique_ptr<ApiServer>> tenant = ApiServer::Start({.dir = dir_ + "/tenant",
                                                                .etcd_url = (*etcd)->client_url(),
                                                                .etcd_tls = (*etcd)->client_tls(),
                                                                .etcd_prefix = "/tenant-a"});
  ASSERT_TRUE(tenant.ok()) << tenant.status().ToString();
  EXPECT_NE((*tenant)->port(), api.port());
  EXPECT_NE(Kubectl(**tenant, {"get", "namespace", "demo"}, {}, 1).find("NotFound"),
            std::string::npos);
  Kubectl(**tenant, {"create", "namespace", "only-in-tenant"});
  Kubectl(api, {"get", "namespace", "only-in-tenant"}, {}, 1);

  const std::vector<pid_t> pids = {(*etcd)->pid(), api.pid(), (*tenant)->pid()};
  (*tenant)->Stop();
  (*host)->Stop();
  (*etcd)->Stop();
  for (pid_t pid : pids) EXPECT_NE(kill(pid, 0), 0) << "process " << pid << " outlived Stop()";
}

TEST_F(ControlPlaneTest, RestartKeepsPortCertificatesAndData) {
  Result<std::unique_ptr<EtcdServer>> etcd = EtcdServer::Start({.dir = dir_ + "/etcd"});
  ASSERT_TRUE(etcd.ok()) << etcd.status().ToString();
  Result<std::unique_ptr<ApiServer>> host = ApiServer::Start({.dir = dir_ + "/host",
                                                              .etcd_url = (*etcd)->client_url(),
                                                              .etcd_tls = (*etcd)->client_tls()});
  ASSERT_TRUE(host.ok()) << host.status().ToString();
  Kubectl(**host, {"create", "namespace", "survives"});
  const int port = (*host)->port();
  (*host)->Kill();
  ASSERT_TRUE((*host)->Restart().ok());
  EXPECT_EQ((*host)->port(), port);
  Kubectl(**host, {"get", "namespace", "survives"});
}

// An environment made before an identity existed (an older vtenant's),
// started again with it: the new identity gets a certificate from the same
// CA, and every kubeconfig made before keeps working.
TEST_F(ControlPlaneTest, AnIdentityAddedLaterGetsItsCertificateFromTheSameCa) {
  Result<std::unique_ptr<EtcdServer>> etcd = EtcdServer::Start({.dir = dir_ + "/etcd"});
  ASSERT_TRUE(etcd.ok()) << etcd.status().ToString();
  ApiServerOptions options{
      .dir = dir_ + "/host", .etcd_url = (*etcd)->client_url(), .etcd_tls = (*etcd)->client_tls()};
  Result<std::unique_ptr<ApiServer>> first = ApiServer::Start(options);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  const std::string admin_before = ReadFileOrEmpty(dir_ + "/host/pki/admin.crt");
  (*first)->Stop();
  options.extra_users = {{"later-user", ""}};
  Result<std::unique_ptr<ApiServer>> again = ApiServer::Start(options);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(ReadFileOrEmpty(dir_ + "/host/pki/admin.crt"), admin_before);
  Kubectl(**again, {"get", "namespaces"});
  // The new identity authenticates: the server names it back.
  Result<CommandResult> whoami =
      RunCommand({kubectl_, "--kubeconfig=" + dir_ + "/host/later-user.kubeconfig", "auth",
                  "whoami", "-o", "jsonpath={.status.userInfo.username}"});
  ASSERT_TRUE(whoami.ok()) << whoami.status().ToString();
  EXPECT_EQ(whoami->exit_code, 0) << whoami->err;
  EXPECT_EQ(whoami->out, "later-user");
}

}  // namespace
}  // namespace vtenant::localenv
