// CoreQueueFromHost: a KAI Queue (scheduling.run.ai/v2) as the scheduler core
// sees it.
//
// Units as KAI writes them: GPU in devices (0.33 is 330m), CPU in
// millicores, memory in MB (10^6 bytes); -1 is unlimited. Priority defaults
// to 100 as in KAI; the min runtimes are durations ("5m", "30s").
#pragma once

#include "base/status.h"
#include "kube/object.h"
#include "scheduler-core/snapshot_builder.h"

namespace vtenant::scheduler {

// Fails with InvalidArgument naming the queue and field.
Result<sched::QueueSpec> CoreQueueFromHost(const rapidjson::Value& queue);

}  // namespace vtenant::scheduler
