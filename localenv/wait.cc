#include "localenv/wait.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "base/host_port.h"
#include "kube/http_transport.h"

namespace vtenant::localenv {
namespace {

// Whether something accepts TCP connections at the IPv4 address and port of
// `server` ("https://127.0.0.1:6443"); true when `server` names no IPv4
// address and port, so the caller goes on to its HTTP probe.
bool Accepts(const std::string& server) {
  const size_t scheme = server.find("://");
  std::string hostport = scheme == std::string::npos ? server : server.substr(scheme + 3);
  hostport = hostport.substr(0, hostport.find('/'));
  const Result<HostPort> address = ParseHostPort(hostport);
  if (!address.ok()) return true;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  if (inet_pton(AF_INET, address->host.c_str(), &addr.sin_addr) != 1) return true;
  addr.sin_port = htons(address->port);
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return true;
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return ok;
}

}  // namespace

Status WaitForHttpOk(const kube::RestConfig& config, const std::string& path,
                     std::chrono::milliseconds timeout, Process* process,
                     const std::string& log_path) {
  kube::RestConfig probe_config = config;
  probe_config.timeout = std::chrono::seconds(5);
  probe_config.qps = 0;
  VT_ASSIGN_OR_RETURN(auto transport, kube::NewHttpTransport(probe_config));
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last_answer = "no answer";
  while (std::chrono::steady_clock::now() < deadline) {
    if (process != nullptr && !process->Running()) {
      return Unavailable(process->name() + " exited while starting; see " + log_path);
    }
    // Until the server listens, every HTTPS attempt is a new connection,
    // and each new connection builds a TLS context (trust store, client
    // key) before it is refused: with twenty servers starting at once that
    // was seconds of CPU. A plain connect costs nothing.
    if (!Accepts(config.server)) {
      last_answer = "nothing listens on " + config.server;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    Result<kube::HttpResponse> response = transport->Send("GET", path);
    if (response.ok() && response->status_code == 200) return Status::Ok();
    last_answer = response.ok() ? "HTTP " + std::to_string(response->status_code) + " " +
                                      response->body.substr(0, 300)
                                : response.status().ToString();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return {StatusCode::kTimeout, config.server + path + " not ready after " +
                                    std::to_string(timeout.count()) + " ms (" + last_answer +
                                    "); see " + log_path};
}

}  // namespace vtenant::localenv
