#include "syncer/kubelet_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <thread>

#include "kube/tls_stream.h"
#include "pki/pki.h"

namespace vtenant::syncer {
namespace {

using std::chrono::seconds;

pki::CertificateAndKey Ca(const std::string& name) {
  Result<pki::CertificateAndKey> ca = pki::CreateCertificateAuthority(name, 1);
  EXPECT_TRUE(ca.ok());
  return *ca;
}

pki::CertificateAndKey Leaf(const pki::CertificateAndKey& ca, const std::string& name,
                            bool server) {
  Result<pki::CertificateAndKey> leaf = pki::IssueCertificate(ca, {.common_name = name,
                                                                   .ip_addresses = {"127.0.0.1"},
                                                                   .server = server,
                                                                   .client = !server,
                                                                   .valid_days = 1});
  EXPECT_TRUE(leaf.ok());
  return *leaf;
}

// The tenant's virtual pods and their host copies.
class FakeResolver : public KubeletPodResolver {
 public:
  Result<HostPodName> Resolve(std::string_view ns, std::string_view name) const override {
    auto it = pods_.find(std::string(ns) + "/" + std::string(name));
    if (it == pods_.end())
      return NotFound("pod " + std::string(ns) + "/" + std::string(name) + " does not exist");
    return it->second;
  }
  std::map<std::string, HostPodName> pods_ = {{"ml/web", {"vtenant-nlp", "web-x-ml-x-nlp"}}};
};

// A host API server that records each request head and answers: a
// request that upgrades gets 101 and its bytes echoed back; others a body.
class FakeHost {
 public:
  FakeHost(const pki::CertificateAndKey& serving, const std::string& client_ca) {
    Result<std::unique_ptr<kube::TlsServerContext>> tls =
        kube::TlsServerContext::Create(serving.certificate_pem, serving.private_key_pem, client_ca);
    EXPECT_TRUE(tls.ok()) << tls.status().message();
    tls_ = std::move(*tls);
    listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    EXPECT_EQ(listen(listener_, 8), 0);
    socklen_t length = sizeof(address);
    getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { Loop(); });
  }
  ~FakeHost() {
    shutdown(listener_, SHUT_RDWR);
    thread_.join();
    close(listener_);
  }
  int port() const { return port_; }
  std::vector<std::string> heads() {
    std::lock_guard lock(mu_);
    return heads_;
  }

 private:
  void Loop() {
    while (true) {
      const int fd = accept(listener_, nullptr, nullptr);
      if (fd < 0) return;
      Result<std::unique_ptr<kube::TlsStream>> stream = tls_->Accept(fd, seconds(10));
      if (!stream.ok()) continue;
      std::string head, rest;
      if (!kube::ReadHttpHead(**stream, &head, &rest).ok()) continue;
      {
        std::lock_guard lock(mu_);
        heads_.push_back(head);
      }
      if (head.find("\r\nUpgrade: SPDY/3.1") == std::string::npos) {
        (void)(*stream)->Write(
            "HTTP/1.1 200 OK\r\nContent-Length: 12\r\nConnection: close\r\n\r\nlog line one");
        continue;
      }
      (void)(*stream)->Write(
          "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\n"
          "Upgrade: SPDY/3.1\r\n\r\n" +
          rest);
      char buffer[1024];
      while (true) {
        Result<size_t> n = (*stream)->Read(buffer, sizeof(buffer));
        if (!n.ok() || *n == 0) break;
        if (!(*stream)->Write(std::string_view(buffer, *n)).ok()) break;
      }
    }
  }

  std::unique_ptr<kube::TlsServerContext> tls_;
  int listener_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::string> heads_;
};

class KubeletServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tenant_ca_ = Ca("vtenant-nlp-ca");
    host_ca_ = Ca("host-ca");
    host_ = std::make_unique<FakeHost>(Leaf(host_ca_, "kube-apiserver", true),
                                       host_ca_.certificate_pem);
    const pki::CertificateAndKey syncer_on_host = Leaf(host_ca_, "syncer", false);
    const pki::CertificateAndKey serving = Leaf(tenant_ca_, "vtenant-syncer-kubelet", true);
    Result<std::unique_ptr<KubeletServer>> server = KubeletServer::Start(
        {.certificate_pem = serving.certificate_pem,
         .key_pem = serving.private_key_pem,
         .client_ca_pem = tenant_ca_.certificate_pem,
         .host = {.server = "https://127.0.0.1:" + std::to_string(host_->port()),
                  .ca_pem = host_ca_.certificate_pem,
                  .client_certificate_pem = syncer_on_host.certificate_pem,
                  .client_key_pem = syncer_on_host.private_key_pem,
                  .bearer_token = "syncer-token"}},
        &resolver_);
    ASSERT_TRUE(server.ok()) << server.status().message();
    server_ = std::move(*server);
  }

  // Connects as `client` and sends `request`; everything the endpoint
  // answers until it closes, or the error.
  std::string Exchange(const pki::CertificateAndKey& client, const std::string& request,
                       const std::string& then_send = {}) {
    Result<std::unique_ptr<kube::TlsStream>> stream =
        kube::DialTls({.server = "https://127.0.0.1:" + std::to_string(server_->port()),
                       .ca_pem = tenant_ca_.certificate_pem,
                       .client_certificate_pem = client.certificate_pem,
                       .client_key_pem = client.private_key_pem},
                      seconds(10));
    if (!stream.ok()) return "dial: " + stream.status().message();
    if (!(*stream)->Write(request).ok()) return "write failed";
    std::string answer;
    char buffer[4096];
    bool sent_more = false;
    while (true) {
      Result<size_t> n = (*stream)->Read(buffer, sizeof(buffer));
      if (!n.ok()) return answer.empty() ? "read: " + n.status().message() : answer;
      if (*n == 0) return answer;
      answer.append(buffer, *n);
      if (!then_send.empty() && !sent_more && answer.find("\r\n\r\n") != std::string::npos) {
        (void)(*stream)->Write(then_send);
        sent_more = true;
      }
      if (sent_more && answer.find(then_send) != std::string::npos) return answer;
    }
  }

  pki::CertificateAndKey tenant_ca_, host_ca_;
  FakeResolver resolver_;
  std::unique_ptr<FakeHost> host_;
  std::unique_ptr<KubeletServer> server_;
};

TEST_F(KubeletServerTest, LogsOfTheTenantsPodComeFromTheHostPodsLogSubresource) {
  const std::string answer =
      Exchange(Leaf(tenant_ca_, kKubeletClientUser, false),
               "GET /containerLogs/ml/web/app?tailLines=5 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
               "Connection: keep-alive\r\nAuthorization: Bearer team-token\r\n"
               "Impersonate-User: system:admin\r\nX-Remote-User: admin\r\n\r\n");
  EXPECT_NE(answer.find("200 OK"), std::string::npos) << answer;
  EXPECT_NE(answer.find("log line one"), std::string::npos) << answer;
  const std::vector<std::string> heads = host_->heads();
  ASSERT_EQ(heads.size(), 1u);
  const std::string host_port = "127.0.0.1:" + std::to_string(host_->port());
  // The syncer's own credential, the host pod's subresource, and nothing
  // of the incoming credentials or impersonation.
  EXPECT_EQ(heads[0],
            "GET /api/v1/namespaces/vtenant-nlp/pods/web-x-ml-x-nlp/log?container=app&tailLines=5 "
            "HTTP/1.1\r\nHost: " +
                host_port + "\r\nAuthorization: Bearer syncer-token\r\nConnection: close");
}

TEST_F(KubeletServerTest, AnExecUpgradeIsRelayedBothWays) {
  const std::string answer = Exchange(
      Leaf(tenant_ca_, kKubeletClientUser, false),
      "POST /exec/ml/web/app?command=sh&input=1&output=1&tty=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      "Connection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: "
      "v5.channel.k8s.io\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n"
      "Content-Length: 0\r\n\r\n",
      "spdy frames");
  EXPECT_NE(answer.find("101 Switching Protocols"), std::string::npos) << answer;
  EXPECT_NE(answer.find("spdy frames"), std::string::npos) << answer;
  const std::vector<std::string> heads = host_->heads();
  ASSERT_EQ(heads.size(), 1u);
  EXPECT_EQ(heads[0].substr(0, heads[0].find("\r\n")),
            "POST /api/v1/namespaces/vtenant-nlp/pods/web-x-ml-x-nlp/exec?container=app&"
            "command=sh&stdin=true&stdout=true&tty=true HTTP/1.1");
  for (const char* header :
       {"\r\nConnection: Upgrade", "\r\nUpgrade: SPDY/3.1",
        "\r\nX-Stream-Protocol-Version: v5.channel.k8s.io",
        "\r\nX-Stream-Protocol-Version: v4.channel.k8s.io", "\r\nContent-Length: 0"}) {
    EXPECT_NE(heads[0].find(header), std::string::npos) << header << " in " << heads[0];
  }
}

TEST_F(KubeletServerTest, APodThatIsNotTheTenantsIsRefusedAndTheHostNeverAsked) {
  const std::string answer =
      Exchange(Leaf(tenant_ca_, kKubeletClientUser, false),
               "GET /containerLogs/vision/train/app HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_NE(answer.find("404 Not Found"), std::string::npos) << answer;
  EXPECT_NE(answer.find("pod vision/train does not exist"), std::string::npos) << answer;
  const std::string other_path = Exchange(Leaf(tenant_ca_, kKubeletClientUser, false),
                                          "GET /stats/summary HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_NE(other_path.find("404 Not Found"), std::string::npos) << other_path;
  EXPECT_TRUE(host_->heads().empty());
}

TEST_F(KubeletServerTest, OnlyTheVirtualApiServersCertificateIsAccepted) {
  const std::string request = "GET /containerLogs/ml/web/app HTTP/1.1\r\nHost: x\r\n\r\n";
  // Another tenant's virtual API server (a team that pointed its Node here):
  // the right name, signed by another CA. The handshake fails.
  const pki::CertificateAndKey other_ca = Ca("vtenant-vision-ca");
  const std::string other_tenant = Exchange(Leaf(other_ca, kKubeletClientUser, false), request);
  EXPECT_EQ(other_tenant.find("200 OK"), std::string::npos) << other_tenant;
  EXPECT_EQ(other_tenant.find("log line one"), std::string::npos) << other_tenant;
  // The tenant's CA, another identity (say, the control plane's admin).
  const std::string admin = Exchange(Leaf(tenant_ca_, "vtenant-admin", false), request);
  EXPECT_NE(admin.find("403 Forbidden"), std::string::npos) << admin;
  EXPECT_TRUE(host_->heads().empty());
}

}  // namespace
}  // namespace vtenant::syncer
