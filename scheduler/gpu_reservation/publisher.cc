#include "scheduler/gpu_reservation/publisher.h"

#include "scheduler/kai_names.h"

namespace vtenant::scheduler {

Result<std::string> PublishReservedGpu(GpuInfo& gpus, kube::Client& client, const std::string& ns,
                                       const std::string& pod) {
  VT_ASSIGN_OR_RETURN(std::vector<std::string> uuids, gpus.VisibleGpuUuids());
  if (uuids.size() != 1)
    return FailedPrecondition("the reservation pod sees " + std::to_string(uuids.size()) +
                              " GPUs; it must see exactly the one nvidia.com/gpu it requested");
  const std::string patch = std::string(R"({"metadata":{"annotations":{")") +
                            kReservedGpuAnnotation + R"(":")" + uuids[0] + R"("}}})";
  VT_RETURN_IF_ERROR(client.Patch(kube::resources::kPods, ns, pod, kube::PatchType::kMerge, patch)
                         .status()
                         .WithContext("annotating " + ns + "/" + pod));
  return uuids[0];
}

}  // namespace vtenant::scheduler
