#include "scheduler/pod_terms.h"

#include <algorithm>
#include <climits>
#include <optional>

namespace vtenant::scheduler {
namespace {

using rapidjson::Value;

constexpr char kRequired[] = "requiredDuringSchedulingIgnoredDuringExecution";
constexpr char kPreferred[] = "preferredDuringSchedulingIgnoredDuringExecution";

// The selector of one term of a pod in namespace `ns` with `labels`;
// nullopt for a term not read (see the header).
std::optional<PodSelector> ReadTerm(const Value& term, const std::string& ns,
                                    const kube::Labels& labels) {
  PodSelector out;
  out.namespaces = kube::GetStrings(term, {"namespaces"});
  const Value* namespace_selector = kube::Find(term, {"namespaceSelector"});
  if (namespace_selector != nullptr && !namespace_selector->IsNull()) {
    Result<kube::LabelSelector> read = kube::LabelSelector::Read(*namespace_selector);
    if (!read.ok()) return std::nullopt;  // the API server admits no such pod
    // An empty selector matches every namespace's labels.
    if (read->empty()) {
      out.every_namespace = true;
      out.namespaces.clear();
    } else {
      out.namespace_labels = std::move(read).value();
    }
  } else if (out.namespaces.empty()) {
    out.namespaces.push_back(ns);
  }
  std::sort(out.namespaces.begin(), out.namespaces.end());
  out.namespaces.erase(std::unique(out.namespaces.begin(), out.namespaces.end()),
                       out.namespaces.end());
  const Value* selector = kube::Find(term, {"labelSelector"});
  if (selector == nullptr || selector->IsNull()) {
    out.selects_none = true;
    return out;
  }
  Result<kube::LabelSelector> read = kube::LabelSelector::Read(*selector);
  if (!read.ok()) return std::nullopt;  // the API server admits no such pod
  out.labels = std::move(read).value();
  for (const std::string& key : kube::GetStrings(term, {"matchLabelKeys"}))
    if (auto it = labels.find(key); it != labels.end()) out.labels.RequireEqual(key, it->second);
  for (const std::string& key : kube::GetStrings(term, {"mismatchLabelKeys"}))
    if (auto it = labels.find(key); it != labels.end()) out.labels.RequireNotEqual(key, it->second);
  return out;
}

std::string KeyOf(const PodSelector& s) {
  if (s.selects_none) return "none";
  std::string key = s.every_namespace ? "*" : "";
  for (const std::string& n : s.namespaces) key += n + ",";
  if (s.namespace_labels) key += "ns{" + s.namespace_labels->Key() + "},";
  return key + "{" + s.labels.Key() + "}";
}

// A term read: the pods it selects, its topologyKey and its weight (0
// for a required one).
struct Term {
  PodSelector selector;
  std::string level;
  int32_t weight = 0;
};

// The terms of `affinity_kind` that are read: the required ones, or with
// `preferred` the preferred ones (each a weight and a podAffinityTerm).
std::vector<Term> ReadTerms(const Value& pod, std::string_view affinity_kind, bool preferred) {
  std::vector<Term> out;
  const Value* terms =
      kube::Find(pod, {"spec", "affinity", affinity_kind, preferred ? kPreferred : kRequired});
  if (terms == nullptr || !terms->IsArray()) return out;
  const kube::Labels labels = kube::GetStringMap(pod, {"metadata", "labels"});
  const std::string ns(kube::Namespace(pod));
  for (const Value& entry : terms->GetArray()) {
    const Value* term = preferred ? kube::Find(entry, {"podAffinityTerm"}) : &entry;
    const int64_t weight = preferred ? kube::GetInt(entry, {"weight"}) : 0;
    if (term == nullptr || (preferred && (weight < 1 || weight > 100))) continue;
    const std::string_view level = kube::GetString(*term, {"topologyKey"});
    if (level.empty()) continue;  // the API server requires one
    if (std::optional<PodSelector> s = ReadTerm(*term, ns, labels))
      out.push_back({std::move(*s), std::string(level), static_cast<int32_t>(weight)});
  }
  return out;
}

PodSet SetOf(PodSelector selector) {
  PodSet set;
  set.key = KeyOf(selector);
  set.all.push_back(std::move(selector));
  return set;
}

// spec.topologySpreadConstraints of whenUnsatisfiable DoNotSchedule. A
// constraint reads as a term without namespaces: of the pod's own.
std::vector<InterPodTerms::Spread> ReadSpread(const Value& pod) {
  std::vector<InterPodTerms::Spread> out;
  const Value* constraints = kube::Find(pod, {"spec", "topologySpreadConstraints"});
  if (constraints == nullptr || !constraints->IsArray()) return out;
  const kube::Labels labels = kube::GetStringMap(pod, {"metadata", "labels"});
  const std::string ns(kube::Namespace(pod));
  for (const Value& c : constraints->GetArray()) {
    const int64_t max_skew = kube::GetInt(c, {"maxSkew"});
    const int64_t min_domains = kube::GetInt(c, {"minDomains"}, 1);
    const std::string_view level = kube::GetString(c, {"topologyKey"});
    if (kube::GetString(c, {"whenUnsatisfiable"}) != "DoNotSchedule" || level.empty() ||
        max_skew < 1 || max_skew > INT32_MAX || min_domains < 1 || min_domains > INT32_MAX)
      continue;
    std::optional<PodSelector> selector = ReadTerm(c, ns, labels);
    if (!selector) continue;
    out.push_back({SetOf(std::move(*selector)), std::string(level), static_cast<int32_t>(max_skew),
                   static_cast<int32_t>(min_domains),
                   kube::GetString(c, {"nodeAffinityPolicy"}) != "Ignore",
                   kube::GetString(c, {"nodeTaintsPolicy"}) == "Honor"});
  }
  return out;
}

}  // namespace

bool PodSelector::Selects(std::string_view ns, const kube::Labels& pod_labels,
                          const kube::Labels& ns_labels) const {
  if (selects_none) return false;
  const bool in_namespace = every_namespace ||
                            std::binary_search(namespaces.begin(), namespaces.end(), ns) ||
                            (namespace_labels && namespace_labels->Matches(ns_labels));
  return in_namespace && labels.Matches(pod_labels);
}

bool PodSet::Holds(std::string_view ns, const kube::Labels& pod_labels,
                   const kube::Labels& ns_labels) const {
  for (const PodSelector& s : all)
    if (!s.Selects(ns, pod_labels, ns_labels)) return false;
  return true;
}

bool PodSet::ReadsNamespaceLabels() const {
  return std::any_of(all.begin(), all.end(),
                     [](const PodSelector& s) { return s.namespace_labels.has_value(); });
}

InterPodTerms ReadInterPodTerms(const Value& pod) {
  InterPodTerms out;
  for (Term& t : ReadTerms(pod, "podAffinity", false)) {
    // One set for all of them; a selector said twice is one condition.
    if (std::find(out.affinity.all.begin(), out.affinity.all.end(), t.selector) ==
        out.affinity.all.end())
      out.affinity.all.push_back(std::move(t.selector));
    out.affinity_levels.push_back(std::move(t.level));
  }
  std::vector<std::string> keys;
  for (const PodSelector& s : out.affinity.all) keys.push_back(KeyOf(s));
  std::sort(keys.begin(), keys.end());
  for (const std::string& k : keys) out.affinity.key += (out.affinity.key.empty() ? "" : "&") + k;
  for (Term& t : ReadTerms(pod, "podAntiAffinity", false))
    out.anti_affinity.emplace_back(SetOf(std::move(t.selector)), std::move(t.level));
  for (Term& t : ReadTerms(pod, "podAffinity", true))
    out.preferred.push_back({SetOf(std::move(t.selector)), std::move(t.level), t.weight});
  for (Term& t : ReadTerms(pod, "podAntiAffinity", true))
    out.preferred.push_back({SetOf(std::move(t.selector)), std::move(t.level), -t.weight});
  out.spread = ReadSpread(pod);
  return out;
}

}  // namespace vtenant::scheduler
