// ControlPlane: a kube-apiserver, an admin client of it and, optionally, a
// kube-controller-manager against it. The host (LocalCluster) and the
// tests' virtual clusters (localenv/testing/virtual_cluster.h) start the
// same three things in the same order, with different options; this is that
// order, once.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "kube/rest_client.h"
#include "localenv/api_server.h"
#include "localenv/controller_manager.h"

namespace vtenant::localenv {

struct ControlPlane {
  std::unique_ptr<ApiServer> api_server;
  std::unique_ptr<kube::RestClient> client;  // admin (system:masters)
  std::unique_ptr<ControllerManager> controller_manager;

  // Starts the API server and waits for /readyz, makes the admin client,
  // then, when `controller_manager` is given, starts the controller manager
  // with the API server's admin identity and waits for it. The first error
  // is returned, and what was started by then is stopped with it.
  static Result<ControlPlane> Start(
      const ApiServerOptions& api,
      const std::optional<ControllerManagerOptions>& controller_manager);

  // Stops the controller manager, then the API server. Idempotent.
  void Stop();
};

}  // namespace vtenant::localenv
