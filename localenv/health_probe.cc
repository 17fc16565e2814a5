#include "localenv/health_probe.h"

#include "kube/kubeconfig.h"
#include "localenv/etcd_server.h"

namespace vtenant::localenv {

HealthProber::HealthProber(HealthProbe probe) : probe_(std::move(probe)) {}
HealthProber::~HealthProber() = default;
HealthProber::HealthProber(HealthProber&&) noexcept = default;
HealthProber& HealthProber::operator=(HealthProber&&) noexcept = default;

Result<kube::HttpResponse> HealthProber::Ask(std::chrono::milliseconds timeout) {
  if (probe_.url.empty()) return FailedPrecondition("no health endpoint");
  const size_t scheme = probe_.url.find("://");
  const size_t path_start =
      scheme == std::string::npos ? std::string::npos : probe_.url.find('/', scheme + 3);
  const std::string path = path_start == std::string::npos ? "/" : probe_.url.substr(path_start);
  const bool reused = transport_ != nullptr && transport_timeout_ == timeout;
  if (!reused) {
    transport_.reset();
    const std::string server = probe_.url.substr(0, path_start);
    kube::RestConfig config;
    if (!probe_.kubeconfig.empty()) {
      VT_ASSIGN_OR_RETURN(config, kube::LoadKubeconfig(probe_.kubeconfig));
    } else if (!probe_.etcd_dir.empty()) {
      config = EtcdClientConfig(server, EtcdServer::RootTls(probe_.etcd_dir));
    }
    config.server = server;
    config.insecure_skip_tls_verify = probe_.insecure;
    config.timeout = timeout;
    config.qps = 0;
    VT_ASSIGN_OR_RETURN(transport_, kube::NewHttpTransport(config));
    transport_timeout_ = timeout;
  }
  Result<kube::HttpResponse> answer = transport_->Send("GET", path);
  if (answer.ok()) return answer;
  transport_.reset();
  // A kept client may hold a connection the server has closed since.
  return reused ? Ask(timeout) : answer;
}

Status HealthProber::CheckHealth(std::chrono::milliseconds timeout) {
  VT_ASSIGN_OR_RETURN(kube::HttpResponse response, Ask(timeout));
  if (response.status_code == 200) return Status::Ok();
  return Unavailable(probe_.url + " answered HTTP " + std::to_string(response.status_code) + " " +
                     response.body.substr(0, 200));
}

Status HealthProber::CheckAlive(std::chrono::milliseconds timeout) { return Ask(timeout).status(); }

Status CheckHealth(const HealthProbe& probe, std::chrono::milliseconds timeout) {
  return HealthProber(probe).CheckHealth(timeout);
}

Status CheckAlive(const HealthProbe& probe, std::chrono::milliseconds timeout) {
  return HealthProber(probe).CheckAlive(timeout);
}

}  // namespace vtenant::localenv
