#include "scheduler/gpu_reservation/publisher.h"

#include "kube/json_builder.h"
#include "scheduler/kai_names.h"

namespace vtenant::scheduler {

Result<std::string> PublishReservedGpu(GpuInfo& gpus, kube::Client& client, const std::string& ns,
                                       const std::string& pod) {
  VT_ASSIGN_OR_RETURN(std::vector<std::string> uuids, gpus.VisibleGpuUuids());
  if (uuids.size() != 1)
    return FailedPrecondition("the reservation pod sees " + std::to_string(uuids.size()) +
                              " GPUs; it must see exactly the one nvidia.com/gpu it requested");
  const std::string patch = kube::ToJson(kube::BuildJson(kube::JsonObject{
      {"metadata",
       kube::JsonObject{{"annotations", kube::JsonObject{{kReservedGpuAnnotation, uuids[0]}}}}}}));
  VT_RETURN_IF_ERROR(client.Patch(kube::resources::kPods, ns, pod, kube::PatchType::kMerge, patch)
                         .status()
                         .WithContext("annotating " + ns + "/" + pod));
  return uuids[0];
}

}  // namespace vtenant::scheduler
