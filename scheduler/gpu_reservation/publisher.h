// PublishReservedGpu: the reservation pod's one job. It reads the UUID of
// the single GPU its container sees and writes it on its own pod as the
// annotation run.ai/reserve_for_gpu_index, where vtenant-scheduler's binder
// (like KAI's) picks it up for NVIDIA_VISIBLE_DEVICES of the sharing pods.
#pragma once

#include <string>

#include "kube/client.h"
#include "scheduler/gpu_reservation/gpu_info.h"

namespace vtenant::scheduler {

// Annotates pod `ns`/`pod` with the UUID and returns it. FailedPrecondition
// when the container sees no GPU or more than one (the pod asks for exactly
// one); the driver's error, or the API server's for the patch, otherwise.
// Idempotent.
Result<std::string> PublishReservedGpu(GpuInfo& gpus, kube::Client& client, const std::string& ns,
                                       const std::string& pod);

}  // namespace vtenant::scheduler
