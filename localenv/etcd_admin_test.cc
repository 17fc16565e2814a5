// Integration: a real etcd serves TLS to certificates of its own CA only;
// with authentication on, an API server that is an etcd user of its own
// works under its prefix, whose role reaches that prefix only.
#include "localenv/etcd_admin.h"

#include <gtest/gtest.h>

#include "base/testing/temp_dir.h"
#include "kube/base64.h"
#include "kube/http_transport.h"
#include "kube/json_builder.h"
#include "kube/loopback.h"
#include "kube/object.h"
#include "localenv/api_server.h"
#include "localenv/tools.h"
#include "localenv/wait.h"

namespace vtenant::localenv {
namespace {

// The body of a /v3/kv/range request that counts the keys under `prefix`.
std::string CountUnder(const std::string& prefix) {
  return kube::ToJson(kube::BuildJson(
      kube::JsonObject{{"key", kube::EncodeBase64(prefix)},
                       {"range_end", kube::EncodeBase64(EtcdAdmin::RangeEnd(prefix))},
                       {"count_only", true}}));
}

class EtcdAdminTest : public testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<EtcdServer>> etcd = EtcdServer::Start({.dir = dir_ + "/etcd"});
    ASSERT_TRUE(etcd.ok()) << etcd.status().ToString();
    etcd_ = std::move(etcd).value();
  }
  // POST /v3/kv/range of everything under `prefix`, with `tls` and no token.
  int RangeStatus(const EtcdClientTls& tls, const std::string& prefix) {
    Result<std::unique_ptr<kube::HttpTransport>> http =
        kube::NewHttpTransport(EtcdClientConfig(etcd_->client_url(), tls));
    if (!http.ok()) return -1;
    Result<kube::HttpResponse> answer =
        (*http)->Send("POST", "/v3/kv/range", CountUnder(prefix), "application/json");
    return answer.ok() ? answer->status_code : -1;
  }
  TempDir temp_{"vtenant-etcd-admin"};
  const std::string dir_ = temp_.path();
  std::unique_ptr<EtcdServer> etcd_;  // stops before its folder goes
};

TEST_F(EtcdAdminTest, OnlyClientsWithItsCertificatesGetIn) {
  EXPECT_EQ(etcd_->client_url().rfind("https://127.0.0.1:", 0), 0u) << etcd_->client_url();
  EXPECT_EQ(RangeStatus(etcd_->client_tls(), "/"), 200);
  // The right CA but no client certificate: the TLS handshake fails.
  EtcdClientTls anonymous = etcd_->client_tls();
  anonymous.cert_file.clear();
  anonymous.key_file.clear();
  EXPECT_EQ(RangeStatus(anonymous, "/"), -1);
}

TEST_F(EtcdAdminTest, AnApiServerWorksAsAUserConfinedToItsPrefix) {
  Result<std::unique_ptr<EtcdAdmin>> admin =
      EtcdAdmin::Connect(etcd_->client_url(), etcd_->client_tls());
  ASSERT_TRUE(admin.ok()) << admin.status().ToString();
  Status enabled = (*admin)->EnableAuth();
  ASSERT_TRUE(enabled.ok()) << enabled.ToString();
  enabled = (*admin)->EnableAuth();
  ASSERT_TRUE(enabled.ok()) << "not idempotent: " << enabled.ToString();
  // Authentication is on: the gateway answers nobody without root's token.
  EXPECT_NE(RangeStatus(etcd_->client_tls(), "/"), 200);

  for (int i = 0; i < 2; ++i) {
    Status s = (*admin)->EnsurePrefixUser("vtenant-nlp", "/vtenant/nlp/");
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  Result<std::string> role = (*admin)->Role("vtenant-nlp");
  ASSERT_TRUE(role.ok()) << role.status().ToString();
  EXPECT_NE(role->find(kube::EncodeBase64("/vtenant/nlp/")), std::string::npos) << *role;
  EXPECT_NE(role->find(kube::EncodeBase64("/vtenant/nlp0")), std::string::npos) << *role;
  EXPECT_NE(role->find("READWRITE"), std::string::npos) << *role;

  Result<EtcdClientTls> nlp = EtcdServer::IssueClient(dir_ + "/etcd", "vtenant-nlp", dir_ + "/nlp");
  ASSERT_TRUE(nlp.ok()) << nlp.status().ToString();
  // An API server with that identity and prefix (and no compaction of its
  // own: the key it would coordinate on is outside its range) works.
  Result<std::unique_ptr<ApiServer>> api =
      ApiServer::Start({.dir = dir_ + "/apiserver",
                        .etcd_url = etcd_->client_url(),
                        .etcd_tls = *nlp,
                        .etcd_prefix = "/vtenant/nlp/",
                        .name = "nlp",
                        .extra_args = {"--etcd-compaction-interval=0"}});
  ASSERT_TRUE(api.ok()) << api.status().ToString();
  (*api)->Stop();

  ASSERT_TRUE((*admin)->DeletePrefix("/vtenant/nlp/").ok());
  ASSERT_TRUE((*admin)->DeleteUser("vtenant-nlp").ok());
  ASSERT_TRUE((*admin)->DeleteUser("vtenant-nlp").ok()) << "not idempotent";
  EXPECT_FALSE((*admin)->Role("vtenant-nlp").ok());
}

// An etcd that asks for no credentials (one given to the operator by its
// address): the admin reaches it over plain HTTP, keys under the prefix go
// and the others stay.
TEST_F(EtcdAdminTest, AnEtcdWithoutCredentialsIsReachedWithNone) {
  Result<std::string> binary = FindTool("etcd");
  ASSERT_TRUE(binary.ok()) << binary.status().ToString();
  Result<int> client_port = kube::PickFreeLoopbackPort();
  Result<int> peer_port = kube::PickFreeLoopbackPort();
  ASSERT_TRUE(client_port.ok() && peer_port.ok());
  const std::string url = "http://127.0.0.1:" + std::to_string(*client_port);
  const std::string peer = "http://127.0.0.1:" + std::to_string(*peer_port);
  const std::string log = dir_ + "/plain-etcd.log";
  Result<Process> etcd = Process::Start(
      {.argv = {*binary, "--name=plain", "--data-dir=" + dir_ + "/plain",
                "--listen-client-urls=" + url, "--advertise-client-urls=" + url,
                "--listen-peer-urls=" + peer, "--initial-advertise-peer-urls=" + peer,
                "--initial-cluster=plain=" + peer},
       .log_path = log});
  ASSERT_TRUE(etcd.ok()) << etcd.status().ToString();
  kube::RestConfig plain;
  plain.server = url;
  ASSERT_TRUE(WaitForHttpOk(plain, "/health", std::chrono::seconds(60), &*etcd, log).ok());
  Result<std::unique_ptr<kube::HttpTransport>> http = kube::NewHttpTransport(plain);
  ASSERT_TRUE(http.ok()) << http.status().ToString();
  auto put = [&](const std::string& key) {
    return (*http)->Send("POST", "/v3/kv/put",
                         kube::ToJson(kube::BuildJson(kube::JsonObject{
                             {"key", kube::EncodeBase64(key)}, {"value", "eA=="}})),
                         "application/json");
  };
  auto count = [&](const std::string& prefix) -> std::string {
    Result<kube::HttpResponse> answer =
        (*http)->Send("POST", "/v3/kv/range", CountUnder(prefix), "application/json");
    if (!answer.ok()) return answer.status().ToString();
    Result<kube::Object> parsed = kube::ParseJson(answer->body);
    return parsed.ok() ? std::string(kube::GetString(*parsed, {"count"})) : answer->body;
  };
  for (const std::string key : {"/vtenant/nlp/a", "/vtenant/nlp/b", "/vtenant/nlp0", "/other"}) {
    ASSERT_TRUE(put(key).ok()) << key;
  }
  ASSERT_EQ(count("/vtenant/nlp/"), "2");

  Result<std::unique_ptr<EtcdAdmin>> admin = EtcdAdmin::Connect(url, EtcdClientTls{});
  ASSERT_TRUE(admin.ok()) << admin.status().ToString();
  Status deleted = (*admin)->DeletePrefix("/vtenant/nlp/");
  ASSERT_TRUE(deleted.ok()) << deleted.ToString();
  // etcd leaves out a count of zero.
  EXPECT_EQ(count("/vtenant/nlp/"), "");
  EXPECT_EQ(count("/vtenant/nlp0"), "1");
  EXPECT_EQ(count("/other"), "1");
}

}  // namespace
}  // namespace vtenant::localenv
