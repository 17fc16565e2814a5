#include "scheduler/pod_anti_affinity.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>

namespace vtenant::scheduler {
namespace {

using rapidjson::Value;

using Labels = std::map<std::string, std::string, std::less<>>;

// Whether one requirement of a labelSelector's matchExpressions holds for
// `labels`; nullopt for an operator a labelSelector does not have.
std::optional<bool> Holds(const Value& requirement, const Labels& labels) {
  const std::string_view op = kube::GetString(requirement, {"operator"});
  const std::vector<std::string> values = kube::GetStrings(requirement, {"values"});
  auto it = labels.find(kube::GetString(requirement, {"key"}));
  const bool in =
      it != labels.end() && std::find(values.begin(), values.end(), it->second) != values.end();
  if (op == "In") return in;
  if (op == "NotIn") return !in;
  if (op == "Exists") return it != labels.end();
  if (op == "DoesNotExist") return it == labels.end();
  return std::nullopt;
}

// Whether `selector` (a labelSelector, with `extra` matchLabels and
// `unequal` labels that must differ) selects `labels`. An empty selector
// selects every pod, as a labelSelector does; a malformed one none.
bool Selects(const Value* selector, const Labels& extra, const Labels& unequal,
             const Labels& labels) {
  if (selector == nullptr || !selector->IsObject())
    return false;  // a term without one selects none
  auto equal = [&](const std::string& key, const std::string& value) {
    auto it = labels.find(key);
    return it != labels.end() && it->second == value;
  };
  if (const Value* match = kube::Find(*selector, {"matchLabels"}); match && match->IsObject())
    for (const auto& m : match->GetObject())
      if (!m.value.IsString() || !equal(m.name.GetString(), m.value.GetString())) return false;
  for (const auto& [key, value] : extra)
    if (!equal(key, value)) return false;
  for (const auto& [key, value] : unequal)
    if (equal(key, value)) return false;
  if (const Value* exprs = kube::Find(*selector, {"matchExpressions"}); exprs && exprs->IsArray())
    for (const Value& r : exprs->GetArray()) {
      std::optional<bool> holds = Holds(r, labels);
      if (!holds || !*holds) return false;
    }
  return true;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> ReplicaExclusions(const Value& pod) {
  std::vector<std::pair<std::string, std::string>> out;
  const Value* terms = kube::Find(pod, {"spec", "affinity", "podAntiAffinity",
                                        "requiredDuringSchedulingIgnoredDuringExecution"});
  if (terms == nullptr || !terms->IsArray()) return out;
  const Labels labels = kube::GetStringMap(pod, {"metadata", "labels"});
  const std::string ns(kube::Namespace(pod));
  for (const Value& term : terms->GetArray()) {
    const std::string_view level = kube::GetString(term, {"topologyKey"});
    if (level.empty()) continue;
    // The namespaces it reaches: all, its list, or the pod's own.
    std::string reach;
    if (const Value* selector = kube::Find(term, {"namespaceSelector"}); selector != nullptr) {
      if (!selector->IsObject() || !selector->ObjectEmpty())
        continue;  // needs the namespaces' labels
      reach = "*";
    } else {
      std::vector<std::string> names = kube::GetStrings(term, {"namespaces"});
      if (names.empty()) names.push_back(ns);
      if (std::find(names.begin(), names.end(), ns) == names.end()) continue;
      std::sort(names.begin(), names.end());
      for (const std::string& n : names) reach += n + ",";
    }
    // matchLabelKeys and mismatchLabelKeys: the pod's own values.
    Labels extra, unequal;
    for (const std::string& key : kube::GetStrings(term, {"matchLabelKeys"}))
      if (auto it = labels.find(key); it != labels.end()) extra.emplace(key, it->second);
    for (const std::string& key : kube::GetStrings(term, {"mismatchLabelKeys"}))
      if (auto it = labels.find(key); it != labels.end()) unequal.emplace(key, it->second);
    const Value* selector = kube::Find(term, {"labelSelector"});
    if (!Selects(selector, extra, unequal, labels)) continue;
    std::string key = reach + "|" + kube::ToJson(*selector) + "|";
    for (const auto& [k, v] : extra) key += k + "=" + v + ",";
    out.emplace_back(std::move(key), std::string(level));
  }
  return out;
}

}  // namespace vtenant::scheduler
