// Unit tests of what the real transport's TLS connections trust, and that a
// new connection no longer reads the system CA bundle. A TLS server on a
// loopback thread answers every request and closes, so each request opens
// a new connection; SSL_CERT_FILE names a file whose opens are counted, so
// the test sees every load of the "system bundle". No processes.
#include "kube/tls_trust.h"

#include <gtest/gtest.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <thread>

#include "base/testing/temp_dir.h"
#include "kube/http_transport.h"
#include "pki/pki.h"

namespace vtenant::kube {
namespace {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
using asio::ip::tcp;

// Answers each request on 127.0.0.1 with 200 and `Connection: close`.
class TlsServer {
 public:
  explicit TlsServer(const pki::CertificateAndKey& serving)
      : context_(ssl::context::tls_server), acceptor_(io_, {asio::ip::address_v4::loopback(), 0}) {
    context_.use_certificate_chain(asio::buffer(serving.certificate_pem));
    context_.use_private_key(asio::buffer(serving.private_key_pem), ssl::context::pem);
    port_ = acceptor_.local_endpoint().port();
    thread_ = std::thread([this] { Serve(); });
  }
  ~TlsServer() {
    stop_ = true;
    tcp::socket wake(io_);
    boost::system::error_code ignored;
    wake.connect({asio::ip::address_v4::loopback(), port_}, ignored);
    thread_.join();
  }
  std::string url() const { return "https://127.0.0.1:" + std::to_string(port_); }

 private:
  void Serve() {
    while (!stop_) {
      tcp::socket socket(io_);
      boost::system::error_code ec;
      acceptor_.accept(socket, ec);
      if (ec || stop_) return;
      ssl::stream<tcp::socket&> tls(socket, context_);
      tls.handshake(ssl::stream_base::server, ec);
      if (ec) continue;  // the client refused our certificate
      asio::streambuf request;
      asio::read_until(tls, request, "\r\n\r\n", ec);
      if (ec) continue;
      const std::string answer =
          "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
          "Connection: close\r\n\r\n{}";
      asio::write(tls, asio::buffer(answer), ec);
      tls.shutdown(ec);
    }
  }

  asio::io_context io_;
  ssl::context context_;
  tcp::acceptor acceptor_;
  unsigned short port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// SSL_CERT_FILE pointed at a file holding `bundle_pem` whose opens are
// counted (inotify), restored when it goes.
class CountedBundle {
 public:
  explicit CountedBundle(const std::string& bundle_pem) {
    std::ofstream(path_) << bundle_pem;
    inotify_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    EXPECT_GE(inotify_, 0) << std::strerror(errno);
    // Closes are watched too: inotify merges an event into an unread one just
    // like it, and open, close, open, ... never are.
    EXPECT_GE(inotify_add_watch(inotify_, path_.c_str(), IN_OPEN | IN_CLOSE_NOWRITE), 0)
        << std::strerror(errno);
    if (const char* old = std::getenv("SSL_CERT_FILE")) old_ = old;
    setenv("SSL_CERT_FILE", path_.c_str(), 1);
  }
  ~CountedBundle() {
    close(inotify_);
    if (old_) {
      setenv("SSL_CERT_FILE", old_->c_str(), 1);
    } else {
      unsetenv("SSL_CERT_FILE");
    }
  }
  // How many times the file has been opened so far.
  int opens() {
    alignas(inotify_event) char buffer[4096];
    for (ssize_t n; (n = read(inotify_, buffer, sizeof(buffer))) > 0;) {
      for (char* p = buffer; p < buffer + n;) {
        const auto* event = reinterpret_cast<const inotify_event*>(p);
        if (event->mask & IN_OPEN) ++opens_;
        p += sizeof(inotify_event) + event->len;
      }
    }
    return opens_;
  }

 private:
  TempDir temp_{"vtenant-tls-trust-test"};
  const std::string path_ = temp_.File("bundle.pem");
  int inotify_ = -1;
  int opens_ = 0;
  std::optional<std::string> old_;
};

struct Pki {
  pki::CertificateAndKey ca;
  pki::CertificateAndKey other_ca;
  pki::CertificateAndKey serving;   // for 127.0.0.1, by `ca`
  pki::CertificateAndKey misnamed;  // for elsewhere.example only, by `ca`
};

Pki MakePki() {
  Pki pki;
  Result<pki::CertificateAndKey> ca = pki::CreateCertificateAuthority("test-ca");
  Result<pki::CertificateAndKey> other = pki::CreateCertificateAuthority("other-ca");
  EXPECT_TRUE(ca.ok() && other.ok());
  pki.ca = *ca;
  pki.other_ca = *other;
  Result<pki::CertificateAndKey> serving = pki::IssueCertificate(
      pki.ca, {.common_name = "api", .ip_addresses = {"127.0.0.1"}, .server = true});
  EXPECT_TRUE(serving.ok()) << serving.status().ToString();
  pki.serving = *serving;
  Result<pki::CertificateAndKey> misnamed = pki::IssueCertificate(
      pki.ca, {.common_name = "api", .dns_names = {"elsewhere.example"}, .server = true});
  EXPECT_TRUE(misnamed.ok()) << misnamed.status().ToString();
  pki.misnamed = *misnamed;
  return pki;
}

RestConfig Config(const std::string& server, const std::string& ca_pem) {
  RestConfig config;
  config.server = server;
  config.ca_pem = ca_pem;
  config.qps = 0;
  return config;
}

Result<int> Get(HttpTransport& transport) {
  VT_ASSIGN_OR_RETURN(HttpResponse response, transport.Send("GET", "/version"));
  return response.status_code;
}

// One test, in this order, because the system roots are loaded once per
// process: what happens before the first load matters.
TEST(TlsTrustTest, NewConnectionsTrustTheirCaAndReadTheSystemBundleOnceAtMost) {
  const Pki pki = MakePki();
  TlsServer server(pki.serving);
  // The "system bundle" trusts the server's CA, so a connection that used it
  // instead of its own CA would be let through.
  CountedBundle bundle(pki.ca.certificate_pem);

  // A server with its own CA: every new connection trusts that CA alone,
  // and none reads the system bundle.
  Result<std::unique_ptr<HttpTransport>> own =
      NewHttpTransport(Config(server.url(), pki.ca.certificate_pem));
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  for (int i = 0; i < 3; ++i) {
    Result<int> code = Get(**own);
    ASSERT_TRUE(code.ok()) << code.status().ToString();
    EXPECT_EQ(*code, 200);
  }
  Result<std::unique_ptr<HttpTransport>> wrong =
      NewHttpTransport(Config(server.url(), pki.other_ca.certificate_pem));
  ASSERT_TRUE(wrong.ok()) << wrong.status().ToString();
  EXPECT_EQ(Get(**wrong).status().code(), StatusCode::kUnavailable)
      << "a certificate of another CA must fail the handshake, whatever the system trusts";
  // The right CA but another name: the server name is still checked.
  TlsServer misnamed(pki.misnamed);
  Result<std::unique_ptr<HttpTransport>> by_name =
      NewHttpTransport(Config(misnamed.url(), pki.ca.certificate_pem));
  ASSERT_TRUE(by_name.ok()) << by_name.status().ToString();
  EXPECT_EQ(Get(**by_name).status().code(), StatusCode::kUnavailable)
      << "a certificate for elsewhere.example must not pass for 127.0.0.1";
  EXPECT_EQ(bundle.opens(), 0);

  // Servers without a CA of their own: the system roots, read once for
  // every connection of every such transport.
  for (int t = 0; t < 2; ++t) {
    Result<std::unique_ptr<HttpTransport>> system = NewHttpTransport(Config(server.url(), ""));
    ASSERT_TRUE(system.ok()) << system.status().ToString();
    for (int i = 0; i < 2; ++i) {
      Result<int> code = Get(**system);
      ASSERT_TRUE(code.ok()) << code.status().ToString();
      EXPECT_EQ(*code, 200);
    }
  }
  EXPECT_EQ(bundle.opens(), 1);
}

TEST(TlsTrustTest, TrustOnlyHoldsEveryCertificateOfTheBundleAndNothingElse) {
  const Pki pki = MakePki();
  std::shared_ptr<X509_STORE> store =
      TrustOnly(pki.ca.certificate_pem + pki.other_ca.certificate_pem);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(sk_X509_OBJECT_num(X509_STORE_get0_objects(store.get())), 2);
  EXPECT_EQ(TrustOnly("-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n"),
            nullptr);
  EXPECT_EQ(TrustOnly(""), nullptr);
}

}  // namespace
}  // namespace vtenant::kube
