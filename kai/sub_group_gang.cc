#include "kai/sub_group_gang.h"

#include <algorithm>
#include <limits>

namespace vtenant::kai {

int32_t SpecCount(int64_t n) {
  return static_cast<int32_t>(std::clamp<int64_t>(n, 0, std::numeric_limits<int32_t>::max()));
}

rapidjson::Value SubGroupsValue(const SubGroupGang& gang, rapidjson::MemoryPoolAllocator<>& a) {
  rapidjson::Value out(rapidjson::kArrayType);
  for (const GangSubGroup& s : gang.sub_groups) {
    rapidjson::Value entry(rapidjson::kObjectType);
    entry.AddMember("name", rapidjson::Value(s.name.c_str(), a), a);
    if (!s.parent.empty()) entry.AddMember("parent", rapidjson::Value(s.parent.c_str(), a), a);
    if (s.min_member) entry.AddMember("minMember", *s.min_member, a);
    if (s.min_sub_group) entry.AddMember("minSubGroup", *s.min_sub_group, a);
    if (!s.topology.empty())
      entry.AddMember("topologyConstraint", TopologyConstraintValue(s.topology, a), a);
    out.PushBack(entry, a);
  }
  return out;
}

}  // namespace vtenant::kai
