// ReviewQueue: what KAI's Queue admission webhook refuses when a Queue
// (scheduling.run.ai/v2) is created, updated or deleted (KAI's
// queue_validator.go; the messages are its):
//   - a Queue without spec.resources, on create and update ("resources
//     must be specified", which KAI also returns as a warning);
//   - deleting a Queue whose status.childQueues names any child ("cannot
//     delete queue <q>: it has child queues [a b]"): its children would be
//     left without a parent.
//
// With KAI's quota validation on (its --enable-quota-validation, off by
// default), a Queue written with a parentQueue is also held against its
// parent:
//   - refused when the parent does not exist ("failed to get parent queue
//     <p>: queues.scheduling.run.ai "<p>" not found") or has no resources
//     ("parent queue <p> has no resources defined");
//   - warned about, for each of CPU, GPU and memory, when its quota exceeds
//     the parent's ("child queue GPU quota (2.00) exceeds parent queue <p>
//     GPU quota (1.00)") and when the quotas of the parent's children,
//     itself counted once, add up to more ("total children GPU quota
//     (1.50) exceeds parent queue <p> GPU quota (1.00)");
// and a parent updated while it has children is held against them alike
// ("child queue <c> CPU quota (...) exceeds parent CPU quota (...)",
// "total children ... exceeds parent ... quota (...)"). Two departures from
// KAI's letter, so that the warnings say what a user relies on: KAI sums
// only the CPU quotas when a child is written, where every resource is
// summed here; and a negative quota is unlimited (as KAI's metrics read
// it), so an unlimited parent is never exceeded and an unlimited child
// exceeds any limited parent ("(unlimited)"), where KAI compares the
// numbers as they stand.
#pragma once

#include <rapidjson/document.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "kai/verdict.h"

namespace vtenant::kai {

// The Queue named `name` as the cluster has it; null when it has none.
using QueueLookup = std::function<std::shared_ptr<const rapidjson::Value>(const std::string& name)>;

// `operation` is the AdmissionReview's ("CREATE", "UPDATE", "DELETE");
// `queue` the object written, or for DELETE the one being deleted;
// `old_queue` for UPDATE the object before (else null). With `queues`
// (non-null, non-empty) the quota validation above is on.
Verdict ReviewQueue(std::string_view operation, const rapidjson::Value& queue,
                    const rapidjson::Value* old_queue = nullptr,
                    const QueueLookup* queues = nullptr);

}  // namespace vtenant::kai
