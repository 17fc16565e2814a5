#include "syncer/pod_affinity.h"

#include <set>
#include <vector>

#include "syncer/names.h"

namespace vtenant::syncer {
namespace {

constexpr std::string_view kAffinities[] = {"podAffinity", "podAntiAffinity"};

// Calls fn(term) for every PodAffinityTerm of `affinity` (the required
// ones, and the podAffinityTerm of each preferred one).
template <typename Fn>
void EachTerm(rapidjson::Value& affinity, Fn fn) {
  for (std::string_view kind : kAffinities) {
    rapidjson::Value* a = FindObject(affinity, kind);
    if (a == nullptr) continue;
    if (rapidjson::Value* required =
            FindArray(*a, "requiredDuringSchedulingIgnoredDuringExecution")) {
      for (rapidjson::Value& term : required->GetArray()) fn(term);
    }
    if (rapidjson::Value* preferred =
            FindArray(*a, "preferredDuringSchedulingIgnoredDuringExecution")) {
      for (rapidjson::Value& weighted : preferred->GetArray()) {
        if (rapidjson::Value* term = FindObject(weighted, "podAffinityTerm")) fn(*term);
      }
    }
  }
}

// Adds `key In values` to `selector`'s matchExpressions.
void Require(rapidjson::Value& selector, std::string_view key,
             const std::vector<std::string>& values, Allocator& a) {
  rapidjson::Value& expressions = ArrayMember(selector, "matchExpressions", a);
  rapidjson::Value requirement(rapidjson::kObjectType);
  SetStringMember(requirement, "key", key, a);
  SetStringMember(requirement, "operator", "In", a);
  rapidjson::Value list(rapidjson::kArrayType);
  // No namespace matched: a value no host pod's label has, so the term
  // matches nothing, as it would have in the virtual cluster.
  if (values.empty()) list.PushBack(JsonString("", a), a);
  for (const std::string& v : values) list.PushBack(JsonString(v, a), a);
  requirement.AddMember("values", std::move(list), a);
  expressions.PushBack(std::move(requirement), a);
}

void ScopeTerm(rapidjson::Value& term, std::string_view ns, const NamespaceLabels& namespaces,
               Allocator& a) {
  if (!term.IsObject()) return;
  const rapidjson::Value* names = kube::Find(term, {"namespaces"});
  const rapidjson::Value* selector = kube::Find(term, {"namespaceSelector"});
  const bool has_names = names != nullptr && names->IsArray() && !names->Empty();
  const bool has_selector = selector != nullptr && selector->IsObject();
  bool every_namespace = false;
  std::set<std::string> reached;
  if (!has_names && !has_selector) reached.emplace(ns);
  if (has_names) {
    for (const rapidjson::Value& n : names->GetArray()) {
      if (n.IsString()) reached.emplace(n.GetString(), n.GetStringLength());
    }
  }
  if (has_selector) {
    if (selector->ObjectEmpty()) {
      every_namespace = true;
    } else {
      // One the API server would refuse selects no namespace.
      Result<kube::LabelSelector> read = kube::LabelSelector::Read(*selector);
      for (const auto& [name, labels] : namespaces) {
        if (read.ok() && read->Matches(labels)) reached.insert(name);
      }
    }
  }
  EraseMember(term, "namespaces");
  EraseMember(term, "namespaceSelector");
  // A term without a labelSelector matches no pods; it stays so.
  rapidjson::Value* label_selector = FindObject(term, "labelSelector");
  if (label_selector == nullptr || every_namespace) return;
  Require(*label_selector, kVirtualNamespaceLabel,
          std::vector<std::string>(reached.begin(), reached.end()), a);
}

}  // namespace

bool UsesNamespaceSelector(const rapidjson::Value& pod) {
  const rapidjson::Value* affinity = kube::Find(pod, {"spec", "affinity"});
  if (affinity == nullptr) return false;
  for (std::string_view kind : kAffinities) {
    const rapidjson::Value* a = kube::Find(*affinity, {kind});
    if (a == nullptr) continue;
    const rapidjson::Value* required =
        kube::Find(*a, {"requiredDuringSchedulingIgnoredDuringExecution"});
    if (required != nullptr && required->IsArray()) {
      for (const rapidjson::Value& term : required->GetArray()) {
        if (kube::Find(term, {"namespaceSelector"}) != nullptr) return true;
      }
    }
    const rapidjson::Value* preferred =
        kube::Find(*a, {"preferredDuringSchedulingIgnoredDuringExecution"});
    if (preferred != nullptr && preferred->IsArray()) {
      for (const rapidjson::Value& weighted : preferred->GetArray()) {
        if (kube::Find(weighted, {"podAffinityTerm", "namespaceSelector"}) != nullptr) return true;
      }
    }
  }
  return false;
}

void ScopeToTenant(rapidjson::Value& spec, std::string_view ns, const NamespaceLabels& namespaces,
                   Allocator& a) {
  if (rapidjson::Value* affinity = FindObject(spec, "affinity")) {
    EachTerm(*affinity, [&](rapidjson::Value& term) { ScopeTerm(term, ns, namespaces, a); });
  }
  if (rapidjson::Value* spread = FindArray(spec, "topologySpreadConstraints")) {
    for (rapidjson::Value& c : spread->GetArray()) {
      if (rapidjson::Value* selector = FindObject(c, "labelSelector")) {
        Require(*selector, kVirtualNamespaceLabel, {std::string(ns)}, a);
      }
    }
  }
}

}  // namespace vtenant::syncer
