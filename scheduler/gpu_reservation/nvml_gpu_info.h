// NvmlGpuInfo: GpuInfo through libnvidia-ml.so.1, opened with dlopen so the
// program links and runs (with a clear error) on machines without a driver.
#pragma once

#include <memory>

#include "scheduler/gpu_reservation/gpu_info.h"

namespace vtenant::scheduler {

class NvmlGpuInfo final : public GpuInfo {
 public:
  // `library`: the NVML shared object to open.
  explicit NvmlGpuInfo(std::string library = "libnvidia-ml.so.1") : library_(std::move(library)) {}
  Result<std::vector<std::string>> VisibleGpuUuids() override;

 private:
  const std::string library_;
};

}  // namespace vtenant::scheduler
