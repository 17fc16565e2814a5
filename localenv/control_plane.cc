#include "localenv/control_plane.h"

namespace vtenant::localenv {

Result<ControlPlane> ControlPlane::Start(
    const ApiServerOptions& api,
    const std::optional<ControllerManagerOptions>& controller_manager) {
  ControlPlane plane;
  VT_ASSIGN_OR_RETURN(plane.api_server, ApiServer::Start(api));
  VT_ASSIGN_OR_RETURN(plane.client, kube::RestClient::Create(plane.api_server->admin_config()));
  if (controller_manager.has_value()) {
    VT_ASSIGN_OR_RETURN(plane.controller_manager,
                        ControllerManager::Start(*plane.api_server, *controller_manager));
  }
  return plane;
}

void ControlPlane::Stop() {
  if (controller_manager) controller_manager->Stop();
  if (api_server) api_server->Stop();
}

}  // namespace vtenant::localenv
