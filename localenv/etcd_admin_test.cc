// Integration: a real etcd serves TLS to certificates of its own CA only;
// with authentication on, an API server that is an etcd user of its own
// works under its prefix, whose role reaches that prefix only.
#include "localenv/etcd_admin.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "kube/base64.h"
#include "kube/http_transport.h"
#include "localenv/api_server.h"

namespace vtenant::localenv {
namespace {

class EtcdAdminTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = "/tmp/vtenant-etcd-admin-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    Result<std::unique_ptr<EtcdServer>> etcd = EtcdServer::Start({.dir = dir_ + "/etcd"});
    ASSERT_TRUE(etcd.ok()) << etcd.status().ToString();
    etcd_ = std::move(etcd).value();
  }
  void TearDown() override {
    etcd_.reset();
    if (std::getenv("VTENANT_KEEP_TEST_DIRS") == nullptr) std::filesystem::remove_all(dir_);
  }
  // POST /v3/kv/range of everything under `prefix`, with `tls` and no token.
  int RangeStatus(const EtcdClientTls& tls, const std::string& prefix) {
    Result<std::unique_ptr<kube::HttpTransport>> http =
        kube::NewHttpTransport(EtcdClientConfig(etcd_->client_url(), tls));
    if (!http.ok()) return -1;
    Result<kube::HttpResponse> answer = (*http)->Send(
        "POST", "/v3/kv/range",
        R"({"key":")" + kube::EncodeBase64(prefix) + R"(","range_end":")" +
            kube::EncodeBase64(EtcdAdmin::RangeEnd(prefix)) + R"(","count_only":true})",
        "application/json");
    return answer.ok() ? answer->status_code : -1;
  }
  std::string dir_;
  std::unique_ptr<EtcdServer> etcd_;
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

}  // namespace
}  // namespace vtenant::localenv
