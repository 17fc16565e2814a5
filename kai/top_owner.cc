#include "kai/top_owner.h"

#include "kai/ray_gang.h"

namespace vtenant::kai {

bool PassesOverTopOwner(std::string_view api_version, std::string_view kind,
                        bool ray_cluster_below) {
  if (kind == "TrainJob" && api_version.starts_with("trainer.kubeflow.org/")) return true;
  return IsRayWorkload(api_version, kind) && kind != "RayCluster" && !ray_cluster_below;
}

}  // namespace vtenant::kai
