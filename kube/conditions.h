// Status conditions (metav1.Condition): how every vtenant controller tells
// the truth about an object, with a machine-readable reason and a message a
// person can act on.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "kube/object.h"

namespace vtenant::kube {

struct Condition {
  std::string type;    // "Ready", "QueueReady", ...
  std::string status;  // "True", "False", "Unknown"
  std::string reason;  // CamelCase, e.g. "QueueNotFound"
  std::string message;
  int64_t observed_generation = 0;
  std::string last_transition_time;  // RFC 3339; set by SetCondition
};

// Reads condition `type` from status.conditions, if present.
std::optional<Condition> FindCondition(const rapidjson::Value& object, std::string_view type);

// Writes `condition` into `object`'s status.conditions, replacing one of the
// same type. lastTransitionTime becomes `now` only when the status changes,
// as Kubernetes conventions require. Returns whether anything changed, so a
// reconciler can skip a status write that would change nothing.
bool SetCondition(Object& object, const Condition& condition, const std::string& now);

}  // namespace vtenant::kube
