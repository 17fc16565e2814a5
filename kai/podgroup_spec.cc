#include "kai/podgroup_spec.h"

#include <algorithm>
#include <map>

#include "base/duration.h"
#include "kai/min_member.h"
#include "kai/names.h"
#include "kai/object_fields.h"
#include "kai/preemptibility.h"

namespace vtenant::kai {
namespace {

Status BadEntry(size_t i, const std::string& what) {
  return InvalidArgument("spec.subGroups[" + std::to_string(i) + "] " + what);
}

// A member that is present and not null.
const rapidjson::Value* Set(const rapidjson::Value* spec, std::string_view name) {
  const rapidjson::Value* v = spec == nullptr ? nullptr : Member(*spec, name);
  return v == nullptr || v->IsNull() ? nullptr : v;
}

// A duration field: a string in Go's syntax, as metav1.Duration is written.
Result<std::chrono::nanoseconds> DurationOf(const rapidjson::Value& v) {
  if (!v.IsString()) return InvalidArgument("not a string");
  return ParseDuration(std::string_view(v.GetString(), v.GetStringLength()));
}

// A preemption delay may be none, never negative; a staleness grace may be
// anything (negative: never evicted). Both readers below keep to these.
bool DelayFits(std::chrono::nanoseconds d) { return d.count() >= 0; }
bool GraceFits(std::chrono::nanoseconds) { return true; }

}  // namespace

Result<SubGroups> ReadSubGroups(const rapidjson::Value* sub_groups) {
  SubGroups out;
  if (sub_groups == nullptr || sub_groups->IsNull()) return out;
  if (!sub_groups->IsArray()) return InvalidArgument("spec.subGroups is not a list");
  struct Entry {
    std::string name;
    std::string parent;  // "" at the top
    int32_t min_member = 1;
    std::optional<int32_t> min_sub_group;
    int32_t children = 0;
    TopologyConstraint topology;
  };
  std::vector<Entry> entries;
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < sub_groups->Size(); ++i) {
    const rapidjson::Value& s = (*sub_groups)[static_cast<rapidjson::SizeType>(i)];
    if (!s.IsObject()) return BadEntry(i, "is not an object");
    Entry e;
    const rapidjson::Value* name = Member(s, "name");
    if (name == nullptr || !name->IsString() || name->GetStringLength() == 0)
      return BadEntry(i, "has no name; every sub-group needs one");
    e.name = name->GetString();
    if (!index.emplace(e.name, i).second)
      return BadEntry(i,
                      "repeats the name \"" + e.name + "\"; sub-group names are unique in a group");
    // A count field: absent (or null) is unset; otherwise a whole int32, not negative.
    auto count = [&](const char* field) -> Result<std::optional<int32_t>> {
      const rapidjson::Value* v = Set(&s, field);
      if (v == nullptr) return std::optional<int32_t>();
      if (!v->IsInt()) return BadEntry(i, "(\"" + e.name + "\") " + field + " is not an integer");
      if (v->GetInt() < 0)
        return BadEntry(i, "(\"" + e.name + "\") " + field + " " + std::to_string(v->GetInt()) +
                               " is negative");
      return std::optional<int32_t>(v->GetInt());
    };
    VT_ASSIGN_OR_RETURN(std::optional<int32_t> min_member, count("minMember"));
    VT_ASSIGN_OR_RETURN(e.min_sub_group, count("minSubGroup"));
    if (min_member && e.min_sub_group)
      return BadEntry(i, "(\"" + e.name +
                             "\") sets both minMember and minSubGroup; a leaf sub-group counts "
                             "pods (minMember), a parent counts sub-groups (minSubGroup)");
    e.min_member = min_member.value_or(0);
    if (const rapidjson::Value* parent = Member(s, "parent");
        parent != nullptr && !parent->IsNull()) {
      if (!parent->IsString())
        return BadEntry(i, "(\"" + e.name + "\") parent is not a sub-group name");
      e.parent = parent->GetString();
    }
    if (const rapidjson::Value* topology = Set(&s, "topologyConstraint")) {
      if (!topology->IsObject())
        return BadEntry(i, "(\"" + e.name + "\") topologyConstraint is not an object");
      const auto field = [&](const char* key, std::string* out) -> Status {
        const rapidjson::Value* v = Set(topology, key);
        if (v == nullptr) return Status::Ok();
        if (!v->IsString())
          return BadEntry(i, "(\"" + e.name + "\") topologyConstraint." + key + " is not a string");
        *out = v->GetString();
        return Status::Ok();
      };
      VT_RETURN_IF_ERROR(field("topology", &e.topology.topology));
      VT_RETURN_IF_ERROR(field("requiredTopologyLevel", &e.topology.required_level));
      VT_RETURN_IF_ERROR(field("preferredTopologyLevel", &e.topology.preferred_level));
    }
    entries.push_back(std::move(e));
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    if (e.parent.empty()) {
      ++out.top_level;
      continue;
    }
    auto parent = index.find(e.parent);
    if (parent == index.end())
      return BadEntry(i, "(\"" + e.name + "\") names parent \"" + e.parent +
                             "\", which is not a sub-group of this PodGroup");
    ++entries[parent->second].children;
  }
  // Every chain of parents must reach the top within as many steps as there
  // are entries; one that does not goes round a cycle.
  for (size_t i = 0; i < entries.size(); ++i) {
    size_t at = i;
    for (size_t steps = 0; !entries[at].parent.empty(); ++steps) {
      if (steps == entries.size())
        return BadEntry(i, "(\"" + entries[i].name + "\") is its own ancestor through its parents");
      at = index[entries[at].parent];
    }
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    Entry& e = entries[i];
    if (e.children == 0) {
      if (e.min_sub_group)
        return BadEntry(i, "(\"" + e.name +
                               "\") sets minSubGroup, but no sub-group names it as parent; a "
                               "leaf counts its pods with minMember");
      out.leaves.push_back(
          {std::move(e.name), e.min_member, std::move(e.parent), std::move(e.topology)});
      continue;
    }
    if (e.min_sub_group && *e.min_sub_group > e.children)
      return BadEntry(i, "(\"" + e.name + "\") minSubGroup " + std::to_string(*e.min_sub_group) +
                             " is more than its " + std::to_string(e.children) +
                             " child sub-groups; it could never be satisfied");
    out.parents.push_back(
        {std::move(e.name), std::move(e.parent), e.min_sub_group, std::move(e.topology)});
  }
  return out;
}

Result<PodGroupSpec> ReadPodGroupSpec(const rapidjson::Value& pod_group) {
  PodGroupSpec out;
  const rapidjson::Value* spec = Member(pod_group, "spec");
  if (const rapidjson::Value* m = Set(spec, "minMember")) {
    if (!m->IsInt64() || m->GetInt64() < 0 || m->GetInt64() > kMaxMinMember) {
      return InvalidArgument("spec.minMember " + JsonText(*m) +
                             " must be a whole number from 0 to " + std::to_string(kMaxMinMember) +
                             " (how many of the group's "
                             "pods must run at once; 0 for no gang)");
    }
    // 0 is KAI's "no gang requirement": each pod goes as it fits, which is
    // what a gang of one does.
    out.min_member = std::max<int32_t>(1, static_cast<int32_t>(m->GetInt64()));
  }
  if (const rapidjson::Value* m = Set(spec, "minSubGroup")) {
    if (!m->IsInt() || m->GetInt() < 0) {
      return InvalidArgument("spec.minSubGroup " + JsonText(*m) +
                             " must be a whole number from 0 (how many top-level sub-groups "
                             "must be satisfied for the group to run)");
    }
    if (Set(spec, "minMember") != nullptr) {
      return InvalidArgument(
          "spec.minMember and spec.minSubGroup are both set; they are mutually exclusive: "
          "minMember runs a fixed number of pods, minSubGroup a number of sub-groups");
    }
    out.min_sub_group = m->GetInt();
  }
  if (const rapidjson::Value* p = Set(spec, "preemptibility")) {
    const std::string_view value =
        p->IsString() ? std::string_view(p->GetString(), p->GetStringLength()) : "";
    if (!p->IsString() || (!value.empty() && !IsPreemptibility(value))) {
      return InvalidArgument("spec.preemptibility " + JsonText(*p) + " must be \"" + kPreemptible +
                             "\" or \"" + kNonPreemptible +
                             "\" (or unset: preemptible below priority 100)");
    }
    out.preemptibility = std::string(value);
  }
  if (const rapidjson::Value* m = Set(spec, "markUnschedulable")) {
    if (!m->IsBool()) {
      return InvalidArgument("spec.markUnschedulable " + JsonText(*m) + " must be true or false");
    }
    out.mark_unschedulable = m->GetBool();
  }
  if (const rapidjson::Value* c = Set(spec, "priorityClassName")) {
    if (!c->IsString()) {
      return InvalidArgument("spec.priorityClassName " + JsonText(*c) +
                             " must be the name of a PriorityClass");
    }
    out.priority_class = std::string(c->GetString(), c->GetStringLength());
  }
  VT_ASSIGN_OR_RETURN(out.sub_groups, ReadSubGroups(Set(spec, "subGroups")));
  if (out.min_sub_group && *out.min_sub_group > out.sub_groups.top_level) {
    return InvalidArgument("spec.minSubGroup " + std::to_string(*out.min_sub_group) +
                           " is more than the group's " + std::to_string(out.sub_groups.top_level) +
                           " top-level sub-groups; it could never be satisfied");
  }
  if (const rapidjson::Value* d = Set(spec, "preemptionDelay")) {
    Result<std::chrono::nanoseconds> delay = DurationOf(*d);
    if (!delay.ok() || !DelayFits(*delay)) {
      return InvalidArgument("spec.preemptionDelay " + JsonText(*d) +
                             " must be a duration such as 30s or 5m, not negative");
    }
    out.preemption_delay_s = CeilSeconds(*delay);
  }
  if (const rapidjson::Value* g = Set(spec, "stalenessGracePeriod")) {
    Result<std::chrono::nanoseconds> grace = DurationOf(*g);
    if (!grace.ok() || !GraceFits(*grace)) {
      return InvalidArgument("spec.stalenessGracePeriod " + JsonText(*g) +
                             " must be a duration such as 60s or 5m (negative: never evicted)");
    }
    out.staleness_grace_s = grace->count() < 0 ? -1 : CeilSeconds(*grace);
  }
  return out;
}

WorkloadTimings ReadWorkloadTimings(const std::vector<const rapidjson::Value*>& objects) {
  // The first value of `key` that parses and that `fits`.
  auto first = [&](const char* key, bool (*fits)(std::chrono::nanoseconds)) -> std::string {
    for (const rapidjson::Value* object : objects) {
      if (object == nullptr) continue;
      std::optional<std::string_view> value = Annotation(*object, key);
      if (!value) continue;
      Result<std::chrono::nanoseconds> d = ParseDuration(*value);
      if (d.ok() && fits(*d)) return std::string(*value);
    }
    return "";
  };
  return {first(kPreemptionDelayAnnotation, DelayFits),
          first(kStalenessGracePeriodAnnotation, GraceFits)};
}

}  // namespace vtenant::kai
