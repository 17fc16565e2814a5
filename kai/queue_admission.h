// ReviewQueue: what KAI's Queue admission webhook refuses when a Queue
// (scheduling.run.ai/v2) is created, updated or deleted (KAI's
// queue_validator.go; the messages are its):
//   - a Queue without spec.resources, on create and update ("resources
//     must be specified", which KAI also returns as a warning);
//   - deleting a Queue whose status.childQueues names any child ("cannot
//     delete queue <q>: it has child queues [a b]"): its children would be
//     left without a parent.
// KAI's optional quota checks (a child's quota against its parent's, off
// by default) are not made.
#pragma once

#include <rapidjson/document.h>

#include <string_view>

#include "kai/verdict.h"

namespace vtenant::kai {

// `operation` is the AdmissionReview's ("CREATE", "UPDATE", "DELETE");
// `queue` the object written, or for DELETE the one being deleted.
Verdict ReviewQueue(std::string_view operation, const rapidjson::Value& queue);

}  // namespace vtenant::kai
