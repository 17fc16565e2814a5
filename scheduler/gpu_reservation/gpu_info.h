// GpuInfo: what the reservation pod's program asks of the GPU driver.
//
// A reservation pod requests `nvidia.com/gpu: 1`, so the device plugin shows
// its container exactly one GPU; the program reads that GPU's UUID and
// publishes it for the binder. The driver is reached through NVML loaded at
// run time (nvml_gpu_info.h), so everything builds and tests without a GPU;
// tests use a fake.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace vtenant::scheduler {

class GpuInfo {
 public:
  virtual ~GpuInfo() = default;
  // UUIDs ("GPU-...") of the GPUs this process can see, in NVML index order.
  // Unavailable when the driver cannot be loaded or answers with an error.
  virtual Result<std::vector<std::string>> VisibleGpuUuids() = 0;
};

}  // namespace vtenant::scheduler
