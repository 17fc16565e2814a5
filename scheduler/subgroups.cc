#include "scheduler/subgroups.h"

#include <map>
#include <set>

namespace vtenant::scheduler {
namespace {

Status Bad(size_t i, const std::string& what) {
  return InvalidArgument("spec.subGroups[" + std::to_string(i) + "] " + what);
}

}  // namespace

Result<SubGroups> ReadSubGroups(const rapidjson::Value* sub_groups) {
  SubGroups out;
  if (sub_groups == nullptr || sub_groups->IsNull()) return out;
  if (!sub_groups->IsArray()) return InvalidArgument("spec.subGroups is not a list");
  struct Entry {
    std::string name;
    std::string parent;  // "" at the top
    int32_t min_member = 1;
  };
  std::vector<Entry> entries;
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < sub_groups->Size(); ++i) {
    const rapidjson::Value& s = (*sub_groups)[static_cast<rapidjson::SizeType>(i)];
    if (!s.IsObject()) return Bad(i, "is not an object");
    Entry e;
    auto name = s.FindMember("name");
    if (name == s.MemberEnd() || !name->value.IsString() || name->value.GetStringLength() == 0)
      return Bad(i, "has no name; every sub-group needs one");
    e.name = name->value.GetString();
    if (!index.emplace(e.name, i).second)
      return Bad(i, "repeats the name \"" + e.name + "\"; sub-group names are unique in a group");
    auto min = s.FindMember("minMember");
    if (min != s.MemberEnd()) {
      if (!min->value.IsInt()) return Bad(i, "(\"" + e.name + "\") minMember is not an integer");
      if (min->value.GetInt() < 0)
        return Bad(i, "(\"" + e.name + "\") minMember " + std::to_string(min->value.GetInt()) +
                          " is negative");
      e.min_member = std::max(1, min->value.GetInt());
    }
    auto parent = s.FindMember("parent");
    if (parent != s.MemberEnd() && !parent->value.IsNull()) {
      if (!parent->value.IsString())
        return Bad(i, "(\"" + e.name + "\") parent is not a sub-group name");
      e.parent = parent->value.GetString();
    }
    entries.push_back(std::move(e));
  }
  std::set<std::string> has_children;
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    if (e.parent.empty()) continue;
    if (!index.contains(e.parent))
      return Bad(i, "(\"" + e.name + "\") names parent \"" + e.parent +
                        "\", which is not a sub-group of this PodGroup");
    has_children.insert(e.parent);
  }
  // Every chain of parents must reach the top within as many steps as there
  // are entries; one that does not goes round a cycle.
  for (size_t i = 0; i < entries.size(); ++i) {
    size_t at = i;
    for (size_t steps = 0; !entries[at].parent.empty(); ++steps) {
      if (steps == entries.size())
        return Bad(i, "(\"" + entries[i].name + "\") is its own ancestor through its parents");
      at = index[entries[at].parent];
    }
  }
  for (const Entry& e : entries) {
    if (has_children.contains(e.name))
      out.parents.push_back(e.name);
    else
      out.leaves.push_back({e.name, e.min_member});
  }
  return out;
}

}  // namespace vtenant::scheduler
