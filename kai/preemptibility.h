// KAI's preemptibility: whether a gang may be evicted for another once it
// runs. A PodGroup's spec.preemptibility, or the label
// kai.scheduler/preemptibility on a workload's owners or pod, holds one of
// two values; a group that holds neither is preemptible below priority 100.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vtenant::kai {

inline constexpr char kPreemptible[] = "preemptible";
inline constexpr char kNonPreemptible[] = "non-preemptible";

constexpr bool IsPreemptibility(std::string_view value) {
  return value == kPreemptible || value == kNonPreemptible;
}

// KAI's rule for groups that do not say: preemptible below priority 100.
constexpr bool DefaultPreemptible(int32_t priority) { return priority < 100; }

// The preemptibility KAI's pod grouper gives a workload's PodGroup: the
// first valid kai.scheduler/preemptibility label of `objects`, which are the
// owners top first and then the pod; "" when none has one. An invalid value
// is passed over, as KAI's grouper passes it over. Null entries (an owner not
// known) are skipped.
std::string WorkloadPreemptibility(const std::vector<const rapidjson::Value*>& objects);

}  // namespace vtenant::kai
