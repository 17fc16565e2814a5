#include "kai/podgroup_admission.h"

#include <map>
#include <optional>

#include "kai/object_fields.h"

namespace vtenant::kai {
namespace {

struct Entry {
  std::string name;
  std::optional<std::string> parent;
  std::optional<int64_t> min_member, min_sub_group;
};

// Whether the parents of some entry never reach the top: they go round.
// (Every parent is known to exist.)
bool HasCycle(const std::map<std::string, const Entry*>& by_name) {
  for (const auto& [name, entry] : by_name) {
    const Entry* at = entry;
    for (size_t steps = 0; at->parent; ++steps) {
      if (steps == by_name.size()) return true;
      at = by_name.at(*at->parent);
    }
  }
  return false;
}

}  // namespace

Verdict ReviewPodGroup(const rapidjson::Value& podgroup, bool create) {
  Verdict review;
  const rapidjson::Value* spec = Member(podgroup, "spec");
  if (spec == nullptr || !spec->IsObject()) return review;
  const std::optional<int64_t> min_member = IntAt(*spec, {"minMember"});
  const std::optional<int64_t> min_sub_group = IntAt(*spec, {"minSubGroup"});
  if (min_member && min_sub_group) {
    review.errors.push_back(
        "minMember and minSubGroup are mutually exclusive: set minMember (" +
        std::to_string(*min_member) +
        ") to schedule a fixed number of pods, or set minSubGroup to require a minimum number of "
        "child SubGroups, but not both");
    return review;
  }
  std::vector<Entry> entries;
  if (const rapidjson::Value* list = Member(*spec, "subGroups"); list != nullptr && list->IsArray())
    for (const rapidjson::Value& s : list->GetArray()) {
      if (!s.IsObject()) continue;
      Entry e{.name = StringAt(s, {"name"}),
              .min_member = IntAt(s, {"minMember"}),
              .min_sub_group = IntAt(s, {"minSubGroup"})};
      if (const rapidjson::Value* p = Member(s, "parent"); p != nullptr && p->IsString())
        e.parent = std::string(p->GetString(), p->GetStringLength());
      entries.push_back(std::move(e));
    }
  std::map<std::string, const Entry*> by_name;
  for (const Entry& e : entries)
    if (!by_name.emplace(e.name, &e).second) {
      review.errors.push_back("duplicate subgroup name " + e.name);
      return review;
    }
  std::map<std::string, int64_t> children;
  for (const Entry& e : entries) {
    if (!e.parent) continue;
    if (!by_name.contains(*e.parent)) {
      review.errors.push_back("parent " + *e.parent + " of " + e.name + " was not found");
      return review;
    }
    ++children[*e.parent];
  }
  if (HasCycle(by_name)) {
    review.errors.push_back("cycle detected in subgroups");
    return review;
  }
  for (const auto& [name, e] : by_name) {  // by name, as KAI reports them
    const std::string quoted = "subgroup \"" + name + "\": ";
    if (e->min_member && e->min_sub_group) {
      review.errors = {quoted + "minMember and minSubGroup are mutually exclusive"};
      review.warnings.clear();
      return review;
    }
    const int64_t n = children.contains(name) ? children[name] : 0;
    if (n == 0) {
      if (e->min_sub_group)
        review.errors.push_back(
            quoted + "minSubGroup cannot be set on a leaf SubGroup (no child SubGroups)");
      if (!e->min_member) review.errors.push_back("subgroup " + name + ": minMember is required");
      continue;
    }
    if (e->min_member) {
      const std::string why = quoted +
                              "minMember cannot be set on a mid-level SubGroup (has child "
                              "SubGroups); use minSubGroup instead";
      (create ? review.errors : review.warnings).push_back(why);
    }
    if (e->min_sub_group && *e->min_sub_group > n)
      review.warnings.push_back(quoted + "minSubGroup (" + std::to_string(*e->min_sub_group) +
                                ") exceeds the number of direct child SubGroups (" +
                                std::to_string(n) + ")");
  }
  if (min_sub_group) {
    int64_t roots = 0;
    for (const Entry& e : entries) roots += e.parent ? 0 : 1;
    if (*min_sub_group > roots)
      review.warnings.push_back("minSubGroup (" + std::to_string(*min_sub_group) +
                                ") exceeds the number of direct child SubGroups (" +
                                std::to_string(roots) + ")");
  }
  return review;
}

}  // namespace vtenant::kai
