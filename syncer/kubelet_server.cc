#include "syncer/kubelet_server.h"

#include <arpa/inet.h>
#include <glog/logging.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "base/ascii.h"
#include "syncer/kubelet_request.h"

namespace vtenant::syncer {
namespace {

constexpr auto kHandshakeDeadline = std::chrono::seconds(30);

void Respond(kube::TlsStream& stream, int code, std::string_view reason, std::string_view message) {
  const std::string body = std::string(message) + "\n";
  (void)stream.Write("HTTP/1.1 " + std::to_string(code) + " " + std::string(reason) +
                     "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " +
                     std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
}

// The request headers passed on to the host: what an upgrade to SPDY or
// WebSocket and a request body need. Credentials, impersonation and
// forwarding headers are not among them.
bool IsForwardedHeader(const std::string& lower_name) {
  static const char* const kForwarded[] = {"connection",
                                           "upgrade",
                                           "x-stream-protocol-version",
                                           "sec-websocket-key",
                                           "sec-websocket-version",
                                           "sec-websocket-protocol",
                                           "content-length",
                                           "content-type",
                                           "user-agent"};
  return std::any_of(std::begin(kForwarded), std::end(kForwarded),
                     [&](const char* name) { return lower_name == name; });
}

}  // namespace

Result<std::unique_ptr<KubeletServer>> KubeletServer::Start(const KubeletServerOptions& options,
                                                            const KubeletPodResolver* resolver) {
  std::unique_ptr<KubeletServer> server(new KubeletServer());
  server->options_ = options;
  server->resolver_ = resolver;
  VT_ASSIGN_OR_RETURN(const kube::ServerAddress host, kube::ParseServerUrl(options.host.server));
  server->host_authority_ = host.Authority();
  VT_ASSIGN_OR_RETURN(server->tls_,
                      kube::TlsServerContext::Create(options.certificate_pem, options.key_pem,
                                                     options.client_ca_pem));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(options.port));
  if (inet_pton(AF_INET, options.address.c_str(), &address.sin_addr) != 1) {
    return InvalidArgument("the kubelet endpoint takes a numeric IPv4 address, not " +
                           options.address);
  }
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int on = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(fd, 64) != 0) {
    const std::string why = std::strerror(errno);
    if (fd >= 0) close(fd);
    return Unavailable("cannot listen on " + options.address + ":" + std::to_string(options.port) +
                       ": " + why);
  }
  socklen_t length = sizeof(address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  server->listener_ = fd;
  server->port_ = ntohs(address.sin_port);
  server->acceptor_ = std::thread([s = server.get()] { s->AcceptLoop(); });
  return server;
}

KubeletServer::~KubeletServer() {
  stopping_ = true;
  shutdown(listener_, SHUT_RDWR);
  if (acceptor_.joinable()) acceptor_.join();
  close(listener_);
  std::unique_lock lock(mu_);
  for (int fd : open_) shutdown(fd, SHUT_RDWR);
  drained_.wait(lock, [this] { return open_.empty(); });
}

void KubeletServer::AcceptLoop() {
  while (!stopping_) {
    const int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE) continue;
      return;  // the listener was shut down
    }
    {
      std::lock_guard lock(mu_);
      open_.insert(fd);
    }
    std::thread([this, fd] { Serve(fd); }).detach();
  }
}

void KubeletServer::Serve(int fd) {
  {
    Result<std::unique_ptr<kube::TlsStream>> client = tls_->Accept(fd, kHandshakeDeadline);
    if (client.ok()) {
      Handle(**client);
    } else {
      LOG(WARNING) << "kubelet endpoint: connection refused: " << client.status().message();
    }
  }  // the stream, or a failed Accept, has closed `fd`
  // Last: once the set is empty the destructor may return, so nothing of
  // this object is touched after the lock is released.
  std::lock_guard lock(mu_);
  open_.erase(open_.find(fd));
  drained_.notify_all();
}

void KubeletServer::Handle(kube::TlsStream& client) {
  // The request is read before any answer: closing a socket with unread
  // bytes resets the connection, and the client would never see why.
  std::string head, rest;
  if (!kube::ReadHttpHead(client, &head, &rest).ok()) {
    Respond(client, 400, "Bad Request", "malformed request");
    return;
  }
  if (client.PeerCommonName() != kKubeletClientUser) {
    LOG(WARNING) << "kubelet endpoint: refused certificate of \"" << client.PeerCommonName()
                 << "\"";
    Respond(client, 403, "Forbidden",
            "only the virtual API server may use this endpoint, not \"" + client.PeerCommonName() +
                "\"");
    return;
  }
  // "POST /exec/ns/pod/c?command=sh HTTP/1.1", then headers.
  const size_t line_end = head.find("\r\n");
  const std::string line = head.substr(0, line_end);
  const size_t first = line.find(' '), second = line.rfind(' ');
  if (first == std::string::npos || second <= first) {
    Respond(client, 400, "Bad Request", "malformed request line");
    return;
  }
  const std::string method = line.substr(0, first);
  const std::string target = line.substr(first + 1, second - first - 1);
  if (method != "GET" && method != "POST") {
    Respond(client, 405, "Method Not Allowed", "GET or POST only");
    return;
  }
  Result<KubeletRequest> request = ParseKubeletRequest(target);
  if (!request.ok()) {
    const bool missing = request.status().code() == StatusCode::kNotFound;
    Respond(client, missing ? 404 : 400, missing ? "Not Found" : "Bad Request",
            request.status().message());
    return;
  }
  Result<HostPodName> host_pod = resolver_->Resolve(request->pod_namespace, request->pod);
  if (!host_pod.ok()) {
    Respond(client, 404, "Not Found", host_pod.status().message());
    return;
  }

  // The headers to pass on; a request without an upgrade gets
  // "Connection: close" instead of its own, so the host closes after its
  // answer, which ends the relay.
  std::vector<std::pair<std::string, std::string>> kept;  // lowercase name, line
  bool upgrade = false;
  for (size_t at = line_end; at != std::string::npos && at + 2 <= head.size();) {
    const size_t next = head.find("\r\n", at + 2);
    std::string header = head.substr(at + 2, next == std::string::npos ? next : next - at - 2);
    at = next;
    const size_t colon = header.find(':');
    if (colon == std::string::npos || header.find('\n') != std::string::npos ||
        header.find('\r') != std::string::npos) {
      continue;
    }
    std::string name = AsciiLower(header.substr(0, colon));
    if (!IsForwardedHeader(name)) continue;
    if (name == "upgrade") upgrade = true;
    kept.emplace_back(std::move(name), std::move(header));
  }
  std::string headers = upgrade ? "" : "Connection: close\r\n";
  for (const auto& [name, header] : kept) {
    if (upgrade || name != "connection") headers += header + "\r\n";
  }
  Result<std::string> authorization = kube::AuthorizationHeaderLine(options_.host);
  if (!authorization.ok()) {
    Respond(client, 502, "Bad Gateway", authorization.status().message());
    return;
  }
  Result<std::unique_ptr<kube::TlsStream>> host = kube::DialTls(options_.host, kHandshakeDeadline);
  if (!host.ok()) {
    Respond(client, 502, "Bad Gateway", "the host API server: " + host.status().message());
    return;
  }
  const std::string host_head =
      method + " " + HostRequestTarget(*request, host_pod->ns, host_pod->name) +
      " HTTP/1.1\r\nHost: " + host_authority_ + "\r\n" + *authorization + headers + "\r\n";
  if (!(*host)->Write(host_head).ok()) {
    Respond(client, 502, "Bad Gateway", "the host API server closed the connection");
    return;
  }
  kube::RelayTls(client, **host, rest);
}

}  // namespace vtenant::syncer
