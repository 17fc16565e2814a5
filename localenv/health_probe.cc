#include "localenv/health_probe.h"

#include "kube/http_transport.h"
#include "kube/kubeconfig.h"
#include "localenv/etcd_server.h"

namespace vtenant::localenv {
namespace {

// The answer of `probe.url`, whatever its status code.
Result<kube::HttpResponse> Ask(const HealthProbe& probe, std::chrono::milliseconds timeout) {
  if (probe.url.empty()) return FailedPrecondition("no health endpoint");
  const size_t scheme = probe.url.find("://");
  const size_t path_start =
      scheme == std::string::npos ? std::string::npos : probe.url.find('/', scheme + 3);
  const std::string server = probe.url.substr(0, path_start);
  const std::string path = path_start == std::string::npos ? "/" : probe.url.substr(path_start);
  kube::RestConfig config;
  if (!probe.kubeconfig.empty()) {
    VT_ASSIGN_OR_RETURN(config, kube::LoadKubeconfig(probe.kubeconfig));
  } else if (!probe.etcd_dir.empty()) {
    config = EtcdClientConfig(server, EtcdServer::RootTls(probe.etcd_dir));
  }
  config.server = server;
  config.insecure_skip_tls_verify = probe.insecure;
  config.timeout = timeout;
  config.qps = 0;
  VT_ASSIGN_OR_RETURN(auto transport, kube::NewHttpTransport(config));
  return transport->Send("GET", path);
}

}  // namespace

Status CheckHealth(const HealthProbe& probe, std::chrono::milliseconds timeout) {
  VT_ASSIGN_OR_RETURN(kube::HttpResponse response, Ask(probe, timeout));
  if (response.status_code == 200) return Status::Ok();
  return Unavailable(probe.url + " answered HTTP " + std::to_string(response.status_code) + " " +
                     response.body.substr(0, 200));
}

Status CheckAlive(const HealthProbe& probe, std::chrono::milliseconds timeout) {
  return Ask(probe, timeout).status();
}

}  // namespace vtenant::localenv
