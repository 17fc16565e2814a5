#include "kube/tls_stream.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

namespace vtenant::kube {
namespace {

std::string SslError(const std::string& what) {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return what;
  char text[256];
  ERR_error_string_n(code, text, sizeof(text));
  return what + ": " + text;
}

// OpenSSL writes to its socket with write(2): a peer that has gone would
// kill the process with SIGPIPE instead of failing the write. Every program
// that uses these streams ignores the signal from their first use.
void IgnoreSigpipe() {
  static std::once_flag once;
  std::call_once(once, [] { signal(SIGPIPE, SIG_IGN); });
}

struct SslCtxFree {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxFree>;

void SetReceiveDeadline(int fd, std::chrono::milliseconds deadline) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(deadline.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((deadline.count() % 1000) * 1000);
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

// Adds every certificate of the PEM bundle `pem` to `store`. False when
// none parses.
bool AddCertificates(X509_STORE* store, const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  int added = 0;
  while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    if (X509_STORE_add_cert(store, cert) == 1) ++added;
    X509_free(cert);
  }
  BIO_free(bio);
  ERR_clear_error();
  return added > 0;
}

Status UseCertificateAndKey(SSL_CTX* ctx, const std::string& certificate_pem,
                            const std::string& key_pem) {
  BIO* cert_bio = BIO_new_mem_buf(certificate_pem.data(), static_cast<int>(certificate_pem.size()));
  X509* cert = PEM_read_bio_X509(cert_bio, nullptr, nullptr, nullptr);
  BIO_free(cert_bio);
  BIO* key_bio = BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(key_bio, nullptr, nullptr, nullptr);
  BIO_free(key_bio);
  Status status;
  if (cert == nullptr || key == nullptr) {
    status = InvalidArgument(SslError("certificate or key does not parse"));
  } else if (SSL_CTX_use_certificate(ctx, cert) != 1 || SSL_CTX_use_PrivateKey(ctx, key) != 1 ||
             SSL_CTX_check_private_key(ctx) != 1) {
    status = InvalidArgument(SslError("certificate and key do not match"));
  }
  X509_free(cert);
  EVP_PKEY_free(key);
  return status;
}

class OpenSslStream final : public TlsStream {
 public:
  // Takes `fd` and `ssl`, whose context it keeps alive through `ctx`.
  OpenSslStream(int fd, SSL* ssl, std::shared_ptr<SSL_CTX> ctx)
      : fd_(fd), ssl_(ssl), ctx_(std::move(ctx)) {}
  ~OpenSslStream() override {
    SSL_shutdown(ssl_);  // close_notify, best effort
    SSL_free(ssl_);
    close(fd_);
  }

  Result<size_t> Read(char* buffer, size_t size) override {
    const int n = SSL_read(ssl_, buffer, static_cast<int>(size));
    if (n > 0) return static_cast<size_t>(n);
    const int error = SSL_get_error(ssl_, n);
    ERR_clear_error();
    if (error == SSL_ERROR_ZERO_RETURN) return size_t{0};
    if (error == SSL_ERROR_SYSCALL && errno == 0) return size_t{0};  // closed without notify
    return Unavailable("TLS read failed");
  }

  Status Write(std::string_view data) override {
    while (!data.empty()) {
      const int n = SSL_write(ssl_, data.data(), static_cast<int>(data.size()));
      if (n > 0) {
        data.remove_prefix(static_cast<size_t>(n));
        continue;
      }
      const int error = SSL_get_error(ssl_, n);
      ERR_clear_error();
      // Only after RelayTls made the socket non-blocking.
      if (error == SSL_ERROR_WANT_WRITE || error == SSL_ERROR_WANT_READ) {
        pollfd fd{fd_, static_cast<short>(error == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN), 0};
        if (poll(&fd, 1, 60'000) <= 0) return Unavailable("TLS write timed out");
        continue;
      }
      return Unavailable("TLS write failed");
    }
    return Status();
  }

  std::string PeerCommonName() const override {
    X509* peer = SSL_get1_peer_certificate(ssl_);
    if (peer == nullptr) return "";
    char name[256] = {0};
    const int n =
        X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, name, sizeof(name));
    X509_free(peer);
    return n > 0 ? std::string(name, static_cast<size_t>(n)) : "";
  }

  int fd() const { return fd_; }
  SSL* ssl() const { return ssl_; }

 private:
  int fd_;
  SSL* ssl_;
  std::shared_ptr<SSL_CTX> ctx_;
};

class OpenSslServerContext final : public TlsServerContext {
 public:
  explicit OpenSslServerContext(std::shared_ptr<SSL_CTX> ctx) : ctx_(std::move(ctx)) {}

  Result<std::unique_ptr<TlsStream>> Accept(int fd, std::chrono::milliseconds deadline) override {
    SetReceiveDeadline(fd, deadline);
    SSL* ssl = SSL_new(ctx_.get());
    if (ssl == nullptr) {
      close(fd);
      return Internal(SslError("SSL_new"));
    }
    SSL_set_fd(ssl, fd);
    if (SSL_accept(ssl) != 1) {
      const bool rejected = SSL_get_verify_result(ssl) != X509_V_OK;
      const std::string why = SslError("TLS handshake failed");
      SSL_free(ssl);
      close(fd);
      if (rejected) return Status(StatusCode::kForbidden, "client certificate not accepted");
      return Unavailable(why);
    }
    X509* peer = SSL_get1_peer_certificate(ssl);
    const bool verified = peer != nullptr && SSL_get_verify_result(ssl) == X509_V_OK;
    X509_free(peer);
    if (!verified) {
      SSL_free(ssl);
      close(fd);
      return Status(StatusCode::kForbidden, "no client certificate");
    }
    return std::unique_ptr<TlsStream>(std::make_unique<OpenSslStream>(fd, ssl, ctx_));
  }

 private:
  std::shared_ptr<SSL_CTX> ctx_;
};

}  // namespace

Result<std::unique_ptr<TlsServerContext>> TlsServerContext::Create(
    const std::string& certificate_pem, const std::string& key_pem,
    const std::string& client_ca_pem) {
  IgnoreSigpipe();
  std::shared_ptr<SSL_CTX> ctx(SSL_CTX_new(TLS_server_method()), SslCtxFree());
  if (ctx == nullptr) return Internal(SslError("SSL_CTX_new"));
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  VT_RETURN_IF_ERROR(UseCertificateAndKey(ctx.get(), certificate_pem, key_pem));
  // Only the given CA: not the system roots, not a chain the client sends.
  X509_STORE* store = X509_STORE_new();
  if (!AddCertificates(store, client_ca_pem)) {
    X509_STORE_free(store);
    return InvalidArgument("client CA does not parse");
  }
  SSL_CTX_set_cert_store(ctx.get(), store);
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  return std::unique_ptr<TlsServerContext>(std::make_unique<OpenSslServerContext>(ctx));
}

Result<std::unique_ptr<TlsStream>> DialTls(const RestConfig& config,
                                           std::chrono::milliseconds deadline) {
  VT_ASSIGN_OR_RETURN(const ServerAddress server, ParseServerUrl(config.server));
  const std::string& host = server.host;
  IgnoreSigpipe();
  std::shared_ptr<SSL_CTX> ctx(SSL_CTX_new(TLS_client_method()), SslCtxFree());
  if (ctx == nullptr) return Internal(SslError("SSL_CTX_new"));
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  if (!config.client_certificate_pem.empty()) {
    VT_RETURN_IF_ERROR(
        UseCertificateAndKey(ctx.get(), config.client_certificate_pem, config.client_key_pem));
  }
  if (!config.insecure_skip_tls_verify) {
    if (config.ca_pem.empty()) {
      SSL_CTX_set_default_verify_paths(ctx.get());
    } else if (!AddCertificates(SSL_CTX_get_cert_store(ctx.get()), config.ca_pem)) {
      return InvalidArgument("the CA of " + config.server + " does not parse");
    }
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  }

  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(server.port).c_str(), &hints, &found) != 0 ||
      found == nullptr) {
    return Unavailable("cannot resolve " + host);
  }
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    SetReceiveDeadline(fd, deadline);
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) return Unavailable("cannot connect to " + config.server + ": " + strerror(errno));
  const int on = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));

  SSL* ssl = SSL_new(ctx.get());
  SSL_set_fd(ssl, fd);
  in6_addr ip6{};
  in_addr ip4{};
  const bool numeric =
      inet_pton(AF_INET, host.c_str(), &ip4) == 1 || inet_pton(AF_INET6, host.c_str(), &ip6) == 1;
  if (!numeric) SSL_set_tlsext_host_name(ssl, host.c_str());
  if (!config.insecure_skip_tls_verify) {
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
    if (numeric) {
      X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str());
    } else {
      X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size());
    }
  }
  if (SSL_connect(ssl) != 1) {
    const std::string why = SslError("TLS handshake with " + config.server + " failed");
    SSL_free(ssl);
    close(fd);
    return Unavailable(why);
  }
  return std::unique_ptr<TlsStream>(std::make_unique<OpenSslStream>(fd, ssl, ctx));
}

Result<std::string> AuthorizationHeaderLine(const RestConfig& config) {
  VT_ASSIGN_OR_RETURN(std::string token, BearerToken(config));
  if (token.empty()) return std::string();
  return "Authorization: Bearer " + token + "\r\n";
}

Status ReadHttpHead(TlsStream& stream, std::string* head, std::string* rest, size_t limit) {
  std::string data;
  char buffer[4096];
  while (true) {
    const size_t end = data.find("\r\n\r\n");
    if (end != std::string::npos) {
      *head = data.substr(0, end);
      *rest = data.substr(end + 4);
      return Status();
    }
    if (data.size() > limit) return InvalidArgument("HTTP head longer than its limit");
    VT_ASSIGN_OR_RETURN(size_t n, stream.Read(buffer, sizeof(buffer)));
    if (n == 0) return Unavailable("the connection ended inside the HTTP head");
    data.append(buffer, n);
  }
}

void RelayTls(TlsStream& a_stream, TlsStream& b_stream, std::string_view pending_to_b) {
  auto* a = dynamic_cast<OpenSslStream*>(&a_stream);
  auto* b = dynamic_cast<OpenSslStream*>(&b_stream);
  if (a == nullptr || b == nullptr) return;  // only streams made here
  if (!pending_to_b.empty() && !b->Write(pending_to_b).ok()) return;
  for (OpenSslStream* s : {a, b}) {
    SetReceiveDeadline(s->fd(), std::chrono::milliseconds(0));  // 0: no deadline
    fcntl(s->fd(), F_SETFL, fcntl(s->fd(), F_GETFL) | O_NONBLOCK);
  }
  char buffer[16 * 1024];
  while (true) {
    bool moved = false;
    for (auto [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
      const int n = SSL_read(from->ssl(), buffer, sizeof(buffer));
      if (n > 0) {
        if (!to->Write(std::string_view(buffer, static_cast<size_t>(n))).ok()) return;
        moved = true;
        continue;
      }
      const int error = SSL_get_error(from->ssl(), n);
      ERR_clear_error();
      if (error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE) return;  // ended
    }
    if (moved) continue;
    pollfd fds[2] = {{a->fd(), POLLIN, 0}, {b->fd(), POLLIN, 0}};
    if (poll(fds, 2, -1) < 0 && errno != EINTR) return;
  }
}

}  // namespace vtenant::kube
