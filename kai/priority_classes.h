// PriorityClasses: a job's priority as KAI's scheduler takes it, from the
// host's PriorityClasses (its cluster_info getPodGroupPriority and
// getDefaultPriority).
//
// A PodGroup's priority is the value of the PriorityClass its
// spec.priorityClassName names, not its pods' spec.priority. A group that
// names no class, or a class that does not exist, takes the value of the
// class marked globalDefault, else kDefaultPodGroupPriority. So a
// Deployment's group, which KAI's pod grouper names "inference", is
// non-preemptible (125 on KAI's chart) although its pods name no class.
// Not thread-safe: its owner locks.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "base/status.h"

namespace vtenant::kai {

// The priority of a PodGroup whose class is not found when no class is the
// global default (KAI's constants.DefaultPodGroupPriority): preemptible.
inline constexpr int32_t kDefaultPodGroupPriority = 50;

// The class KAI's pod grouper names on a workload's PodGroup:
// spec.priorityClassName of `pod`, else label priorityClassName of `top`
// (the top owner; the pod itself when bare), else of `pod`, else
// `fallback` (the kind's default). Views into the objects or `fallback`.
std::string_view WorkloadPriorityClass(const rapidjson::Value& pod, const rapidjson::Value& top,
                                       std::string_view fallback);

class PriorityClasses {
 public:
  // Records `priority_class` (scheduling.k8s.io/v1 PriorityClass),
  // replacing one of the same name. InvalidArgument, and nothing recorded
  // (one of that name is forgotten), when it has no name or its value is
  // not a 32-bit integer: the API server admits no such class.
  Status Upsert(const rapidjson::Value& priority_class);

  // Forgets the class `name`; none of that name is fine.
  void Remove(std::string_view name);

  // The priority of a PodGroup whose spec.priorityClassName is `name` (""
  // when unset), as the contract above says. When several classes claim
  // globalDefault (the API server refuses a second, but a race can leave
  // two), the first by name decides.
  int32_t PriorityOf(std::string_view name) const;

 private:
  struct Class {
    int32_t value = 0;
    bool global_default = false;
  };
  std::map<std::string, Class, std::less<>> classes_;
};

}  // namespace vtenant::kai
