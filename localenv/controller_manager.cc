#include "localenv/controller_manager.h"

#include <filesystem>

#include "base/secret_file.h"
#include "localenv/tools.h"
#include "localenv/wait.h"

namespace vtenant::localenv {

Result<std::unique_ptr<ControllerManager>> ControllerManager::Start(
    const ApiServer& api_server, const ControllerManagerOptions& options) {
  ControllerManagerOptions with_server = options;
  with_server.kubeconfig = api_server.kubeconfig_path();
  with_server.pki_dir = api_server.pki_dir();
  return Start(with_server);
}

Result<std::unique_ptr<ControllerManager>> ControllerManager::Start(
    const ControllerManagerOptions& options) {
  if (options.kubeconfig.empty() || options.pki_dir.empty()) {
    return InvalidArgument("kube-controller-manager needs a kubeconfig and a PKI folder");
  }
  VT_ASSIGN_OR_RETURN(std::string binary, FindTool("kube-controller-manager"));
  // Its serving certificate and key are generated in here.
  VT_RETURN_IF_ERROR(EnsurePrivateDirectory(options.dir));
  std::unique_ptr<ControllerManager> manager(new ControllerManager());
  manager->log_path_ = options.dir + "/kube-controller-manager.log";
  Status last_error;
  for (int attempt = 0; attempt < 3; ++attempt) {
    VT_ASSIGN_OR_RETURN(int port, PickFreeLoopbackPort());
    ProcessOptions process;
    process.argv = {
        binary, "--kubeconfig=" + options.kubeconfig,
        "--authentication-kubeconfig=" + options.kubeconfig,
        "--authorization-kubeconfig=" + options.kubeconfig,
        // Its endpoints are asked with tokens (TokenReview) or not at all;
        // looking up client CAs in the cluster would find no front-proxy
        // (requestheader) CA, which no API server here has, and log that
        // as an error every few seconds.
        "--authentication-skip-lookup=true", "--bind-address=127.0.0.1",
        "--secure-port=" + std::to_string(port), "--cert-dir=" + options.dir + "/generated-certs",
        "--leader-elect=false", "--service-account-private-key-file=" + options.pki_dir + "/sa.key",
        "--root-ca-file=" + options.pki_dir + "/ca.crt", "--use-service-account-credentials=false",
        // No kubelet or CNI runs here: node IP ranges are not needed.
        "--allocate-node-cidrs=false", "--profiling=false", "--v=1"};
    std::string controllers;
    for (const auto& c : options.controllers) controllers += (controllers.empty() ? "" : ",") + c;
    process.argv.push_back("--controllers=" + controllers);
    process.argv.insert(process.argv.end(), options.extra_args.begin(), options.extra_args.end());
    process.env = options.env;
    process.log_path = manager->log_path_;
    process.die_with_parent = options.die_with_parent;
    VT_ASSIGN_OR_RETURN(manager->process_, Process::Start(process));
    kube::RestConfig probe;
    probe.server = "https://127.0.0.1:" + std::to_string(port);
    probe.insecure_skip_tls_verify = true;  // self-signed serving cert of its own; loopback only
    last_error = WaitForHttpOk(probe, "/healthz", options.ready_timeout, &manager->process_,
                               manager->log_path_);
    if (last_error.ok()) {
      manager->port_ = port;
      return manager;
    }
    manager->process_.Stop();
  }
  return last_error.WithContext("starting kube-controller-manager");
}

HealthProbe ControllerManager::Health() const {
  return {.url = "https://127.0.0.1:" + std::to_string(port_) + "/healthz", .insecure = true};
}

}  // namespace vtenant::localenv
