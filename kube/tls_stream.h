// TLS byte streams, for what the HTTP client cannot carry: a request that
// upgrades its connection (exec, attach and port-forward speak SPDY or
// WebSocket after the response head) belongs to whoever holds the socket,
// so a proxy for it must read and write the raw stream. The syncer's
// kubelet endpoint (syncer/kubelet_server.h) is built on these.
//
// Blocking sockets for the handshake and the request head, each with a
// deadline; RelayTls then moves bytes both ways from one thread, since an
// OpenSSL connection may not be read and written from two at once. A
// program that makes one ignores SIGPIPE from then on, so that a write to a
// peer that has gone fails instead of killing it.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "kube/rest_config.h"

namespace vtenant::kube {

// One TLS connection over a socket it owns; closing it closes both.
class TlsStream {
 public:
  virtual ~TlsStream() = default;

  // Up to `size` bytes into `buffer`: the count, 0 at the peer's end of
  // stream; Unavailable on a failed connection or after the deadline.
  virtual Result<size_t> Read(char* buffer, size_t size) = 0;
  // All of `data`, or Unavailable.
  virtual Status Write(std::string_view data) = 0;
  // The Common Name of the certificate the peer presented (verified during
  // the handshake); "" when it presented none.
  virtual std::string PeerCommonName() const = 0;
};

// Accepts TLS connections that present a client certificate signed by one
// CA and no other.
class TlsServerContext {
 public:
  virtual ~TlsServerContext() = default;

  // A context serving `certificate_pem` with `key_pem` and requiring a
  // client certificate that `client_ca_pem` verifies. InvalidArgument when
  // a PEM does not parse or the key does not match.
  static Result<std::unique_ptr<TlsServerContext>> Create(const std::string& certificate_pem,
                                                          const std::string& key_pem,
                                                          const std::string& client_ca_pem);

  // Takes `fd` (an accepted socket; closed on failure too) and completes the
  // handshake within `deadline`. Forbidden when the client's certificate
  // is not verified by the CA; Unavailable when the handshake fails for
  // another reason, a client that presents no certificate included.
  virtual Result<std::unique_ptr<TlsStream>> Accept(int fd, std::chrono::milliseconds deadline) = 0;
};

// A TLS connection to `config.server` ("https://host:port"), verified
// against config.ca_pem (the system roots when empty, nothing when
// insecure_skip_tls_verify) and presenting the client certificate the
// config holds, if any. `deadline` bounds the connect and then each read
// and write on its own (not the dial as a whole) until RelayTls lifts it.
// InvalidArgument when the server URL, the CA or the client certificate is
// unusable; Unavailable when it cannot resolve, connect or shake hands.
Result<std::unique_ptr<TlsStream>> DialTls(const RestConfig& config,
                                           std::chrono::milliseconds deadline);

// The "Authorization: Bearer ..." header line (with CRLF) for `config`'s
// BearerToken, "" when it has none. Fails as BearerToken does.
Result<std::string> AuthorizationHeaderLine(const RestConfig& config);

// Reads an HTTP/1.1 request or response head, up to and without the blank
// line, from `stream`, into `head`; whatever arrived after it goes to
// `rest`. InvalidArgument past `limit` bytes; Unavailable when the stream
// ends first.
Status ReadHttpHead(TlsStream& stream, std::string* head, std::string* rest,
                    size_t limit = 16 * 1024);

// Copies bytes both ways between `a` and `b` until either side ends or
// fails, then returns; `b` first receives `pending_to_b`. Lifts the read
// deadlines: a follow of logs or an exec session may be idle for hours.
// Only for streams made by DialTls and TlsServerContext::Accept; with any
// other TlsStream it returns at once.
void RelayTls(TlsStream& a, TlsStream& b, std::string_view pending_to_b = {});

}  // namespace vtenant::kube
