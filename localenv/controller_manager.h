// ControllerManager: kube-controller-manager for a local control plane.
//
// Runs the built-in controllers (Jobs, ReplicaSets, garbage collection,
// namespaces, service accounts, node lifecycle) that make the host behave
// like a real cluster in tests and in `make demo`.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "localenv/api_server.h"
#include "localenv/health_probe.h"
#include "localenv/process.h"

namespace vtenant::localenv {

struct ControllerManagerOptions {
  std::string dir;  // log and generated serving certificate live here
  bool die_with_parent = true;
  // For Start without an ApiServer object (a control plane whose API server
  // was started earlier, e.g. by another process): its admin kubeconfig and
  // the folder with ca.crt and sa.key.
  std::string kubeconfig;
  std::string pki_dir;
  // --controllers: "*" minus what needs a kubelet or CNI. A virtual control
  // plane also drops node-lifecycle-controller (its nodes have no kubelet
  // to heartbeat) and can run far fewer.
  std::vector<std::string> controllers = {"*", "-node-ipam-controller"};
  std::vector<std::string> extra_args;
  std::map<std::string, std::string> env;  // e.g. GOMEMLIMIT
  // How long each start attempt waits for /healthz.
  std::chrono::milliseconds ready_timeout = std::chrono::seconds(60);
};

class ControllerManager : public ServerProcess {
 public:
  // Starts against `api_server` with its admin identity and waits for
  // /healthz (options.ready_timeout per attempt, up to three attempts, each
  // on a newly picked free port). The last attempt's error, with context.
  static Result<std::unique_ptr<ControllerManager>> Start(const ApiServer& api_server,
                                                          const ControllerManagerOptions& options);
  // Starts against the API server of options.kubeconfig, trusting
  // options.pki_dir, and waits for /healthz as above. InvalidArgument when
  // either is empty.
  static Result<std::unique_ptr<ControllerManager>> Start(const ControllerManagerOptions& options);

  // /healthz on its self-signed secure port.
  HealthProbe Health() const;

 private:
  ControllerManager() = default;
  int port_ = 0;
};

}  // namespace vtenant::localenv
