#include "localenv/wait.h"

#include <thread>

#include "kube/http_transport.h"

namespace vtenant::localenv {

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
