// Parsing of the numbers users write in Queues and traces, into the integer
// units of the model. Shared by the simulator and the program that converts
// Kubernetes objects, so both reject the same inputs the same way. A pod's
// GPU annotations are kai/gpu_request.h's (vtenant-scheduler reads them
// there, as the syncer and the admission webhook do).
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"

namespace vtenant::sched {

// "0.33" -> 330, "1" -> 1000, "-1" -> -1000, "1e-3" -> 1. A value finer than
// a thousandth is rounded away from zero, as Kubernetes' quantities are
// ("0.3333" -> 334, like kube::Quantity): base/decimal.h's ParseDecimalMilli.
// `field` names the value in the error message.
Result<int64_t> ParseMilli(std::string_view text, std::string_view field);

// A Queue's preemptMinRuntime or reclaimMinRuntime, a metav1.Duration read
// as KAI reads it (Go's syntax, base/duration.h: "90s", "1.5h", "500ms"), in
// whole seconds rounded up so that a short minimum never becomes none.
// InvalidArgument for what Go refuses and for a negative one.
Result<int64_t> ParseMinRuntimeSeconds(std::string_view text);

}  // namespace vtenant::sched
