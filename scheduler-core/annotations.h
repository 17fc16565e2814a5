// Parsing of the numbers users write in Queues and traces, into the integer
// units of the model. Shared by the simulator (Queue YAML, traces) and
// vtenant-scheduler (Queue objects, scheduler/core_queue.cc, which hands
// over each JSON number as its shortest text), so both read a Queue alike:
// the same rounding, the same refusals. A pod's GPU annotations are
// kai/gpu_request.h's (vtenant-scheduler reads them there, as the syncer
// and the admission webhook do).
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

// A Queue's quota or limit for resource `r`, in the units KAI's Queue spec
// uses (GPU devices, CPU millicores, memory megabytes), into the model's
// (milli-GPU, millicores, bytes): "0.33" GPU -> 330, rounded as ParseMilli
// rounds. "-1" is kUnlimited. InvalidArgument naming `field` for what is
// not a number and for another negative value.
Result<int64_t> ParseQueueAmount(std::string_view text, Resource r, std::string_view field);

// A Queue's overQuotaWeight in thousandths ("2" -> 2000). "-1", as for
// amounts, leaves KAI's default, 1 (1000). InvalidArgument naming `field`
// for what is not a number and for another negative value.
Result<int64_t> ParseQueueWeight(std::string_view text, std::string_view field);

// A Queue's preemptMinRuntime or reclaimMinRuntime, a metav1.Duration read
// as KAI reads it (Go's syntax, base/duration.h: "90s", "1.5h", "500ms"), in
// whole seconds rounded up so that a short minimum never becomes none.
// InvalidArgument for what Go refuses and for a negative one.
Result<int64_t> ParseMinRuntimeSeconds(std::string_view text);

}  // namespace vtenant::sched
