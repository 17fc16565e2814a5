#include "kai/top_owner.h"

#include <string>
#include <utility>

#include "kai/jobset_gang.h"
#include "kai/leader_worker_set_gang.h"
#include "kai/object_fields.h"
#include "kai/pytorch_job_gang.h"
#include "kai/ray_gang.h"

namespace vtenant::kai {

namespace {

// KAI's skip-top-owner kinds, by API group.
constexpr std::pair<std::string_view, std::string_view> kPassedOver[] = {
    {"trainer.kubeflow.org/", "TrainJob"},
    {"argoproj.io/", "Workflow"},
    {"run.ai/", "TrainingWorkload"},
    {"run.ai/", "InteractiveWorkload"},
    {"run.ai/", "DistributedWorkload"},
    {"run.ai/", "InferenceWorkload"},
    {"run.ai/", "DistributedInferenceWorkload"},
    {"nvidia.com/", "DynamoGraphDeployment"},
};

}  // namespace

bool PassesOverTopOwner(std::string_view api_version, std::string_view kind,
                        bool ray_cluster_below) {
  for (const auto& [group, passed_over] : kPassedOver)
    if (kind == passed_over && api_version.starts_with(group)) return true;
  return IsRayWorkload(api_version, kind) && kind != "RayCluster" && !ray_cluster_below;
}

Result<std::optional<SubGroupGang>> ReadRolesGang(std::string_view api_version,
                                                  std::string_view kind,
                                                  const rapidjson::Value& workload,
                                                  const rapidjson::Value* ray_cluster,
                                                  const rapidjson::Value& pod) {
  const bool jobset = kind == "JobSet" && api_version.starts_with("jobset.x-k8s.io/");
  const bool lws =
      kind == "LeaderWorkerSet" && api_version.starts_with("leaderworkerset.x-k8s.io/");
  const bool pytorch = kind == "PyTorchJob" && api_version.starts_with("kubeflow.org/");
  const bool ray = IsRayWorkload(api_version, kind);
  if (!jobset && !lws && !pytorch && !ray) return std::optional<SubGroupGang>();
  if (ray && ray_cluster == nullptr)
    return InvalidArgument(std::string(kind) + " " + StringAt(workload, {"metadata", "name"}) +
                           ": no RayCluster of it owns the pod yet");
  Result<SubGroupGang> gang = jobset    ? ReadJobSetGang(workload, pod)
                              : lws     ? ReadLeaderWorkerSetGang(workload, pod)
                              : pytorch ? ReadPyTorchJobGang(workload, pod)
                                        : ReadRayClusterGang(*ray_cluster, pod);
  if (!gang.ok()) return gang.status();
  return std::optional<SubGroupGang>(std::move(gang).value());
}

}  // namespace vtenant::kai
