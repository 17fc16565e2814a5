// Parsing of the pod annotations and Queue numbers users write, into the
// integer units of the model. Shared by the simulator and the program that
// converts Kubernetes objects, so both reject the same inputs the same way.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"
#include "scheduler-core/resources.h"

namespace vtenant::sched {

// "0.33" -> 330, "1" -> 1000, "-1" -> -1000, "1e-3" -> 1. A value finer than
// a thousandth is rounded away from zero, as Kubernetes' quantities are
// ("0.3333" -> 334, like kube::Quantity): base/decimal.h's ParseDecimalMilli.
// `field` names the value in the error message.
Result<int64_t> ParseMilli(std::string_view text, std::string_view field);

// Annotation gpu-fraction: more than 0 and at most 1 device.
Result<Milli> ParseGpuFraction(std::string_view text);

// Annotation gpu-memory: a positive number of MiB.
Result<int32_t> ParseGpuMemoryMib(std::string_view text);

// Annotation gpu-fraction-num-devices: a positive device count.
Result<int32_t> ParseNumDevices(std::string_view text);

}  // namespace vtenant::sched
