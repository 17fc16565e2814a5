// EnsureHostCredentials: the syncer's host token is issued once, kept while
// fresh, refreshed at half its life, and a failed refresh of a token still
// valid does not take the syncer's credentials away.
#include "operator/host_credentials.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/file.h"
#include "base/testing/temp_dir.h"
#include "kube/kubeconfig.h"
#include "operator/testing/fake_token_issuer.h"

namespace vtenant::op {
namespace {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

class HostCredentialsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    request_ = {.dir = (dir_ / "syncer").string(),
                .ns = "vtenant-nlp",
                .service_account = "vtenant-syncer",
                .server = "https://127.0.0.1:6443",
                .ca_pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
                .lifetime = 3600s};
    issuer_.now = std::chrono::system_clock::from_time_t(1'800'000'000);
  }

  Result<HostCredentials> Ensure(std::chrono::seconds after) {
    return EnsureHostCredentials(issuer_, request_, issuer_.now + after);
  }

  TempDir temp_{"host-credentials"};
  const fs::path dir_ = temp_.path();
  HostCredentialsRequest request_;
  FakeTokenIssuer issuer_;
};

TEST_F(HostCredentialsTest, TheKubeconfigAuthenticatesWithTheIssuedTokenFile) {
  Result<HostCredentials> c = Ensure(0s);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->refreshed);
  EXPECT_EQ(issuer_.last_account, "vtenant-nlp/vtenant-syncer");
  Result<kube::RestConfig> config = kube::LoadKubeconfig(c->kubeconfig_path);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->server, "https://127.0.0.1:6443");
  EXPECT_EQ(config->ca_pem, request_.ca_pem);
  EXPECT_TRUE(config->client_certificate_pem.empty());  // not the operator's identity
  EXPECT_TRUE(config->bearer_token.empty());
  ASSERT_FALSE(config->bearer_token_file.empty());
  EXPECT_EQ(ReadFileOrEmpty(config->bearer_token_file), "token-1");
  for (const auto& file : {c->kubeconfig_path, config->bearer_token_file}) {
    EXPECT_EQ(fs::status(file).permissions() & (fs::perms::group_all | fs::perms::others_all),
              fs::perms::none)
        << file << " is readable by others";
  }
}

TEST_F(HostCredentialsTest, AFreshTokenIsKeptAndRefreshedAtHalfItsLife) {
  ASSERT_TRUE(Ensure(0s).ok());
  Result<HostCredentials> early = Ensure(1799s);
  ASSERT_TRUE(early.ok());
  EXPECT_FALSE(early->refreshed);
  EXPECT_EQ(issuer_.issued, 1);
  Result<HostCredentials> due = Ensure(1800s);
  ASSERT_TRUE(due.ok());
  EXPECT_TRUE(due->refreshed);
  EXPECT_EQ(issuer_.issued, 2);
  EXPECT_EQ(ReadFileOrEmpty(fs::path(request_.dir) / "host-token"), "token-2");
}

TEST_F(HostCredentialsTest, AFailedRefreshKeepsAValidTokenAndSaysWhy) {
  ASSERT_TRUE(Ensure(0s).ok());
  issuer_.error = Unavailable("host API server down");
  Result<HostCredentials> c = Ensure(2000s);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_FALSE(c->refreshed);
  EXPECT_NE(c->refresh_error.find("host API server down"), std::string::npos);
  EXPECT_EQ(ReadFileOrEmpty(fs::path(request_.dir) / "host-token"), "token-1");
  // Once the token has expired there is nothing left to hand out.
  Result<HostCredentials> expired = Ensure(3600s);
  ASSERT_FALSE(expired.ok());
  EXPECT_NE(expired.status().message().find("host API server down"), std::string::npos);
}

TEST_F(HostCredentialsTest, NoTokenWithoutTheIssuer) {
  issuer_.error = Unavailable("forbidden");
  EXPECT_FALSE(Ensure(0s).ok());
  EXPECT_FALSE(fs::exists(fs::path(request_.dir) / "host.kubeconfig"));
}

}  // namespace
}  // namespace vtenant::op
