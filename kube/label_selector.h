// LabelSelector: a metav1.LabelSelector, read once and matched many times.
//
// One reader for every selector vtenant evaluates itself: pod affinity
// terms (the scheduler, the syncer's namespaceSelector), a claim's volume
// selector. matchLabels and matchExpressions are ANDed, as the API server
// does; an empty selector ({}) selects everything.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "kube/object.h"

namespace vtenant::kube {

// An object's labels (metadata.labels), as GetStringMap reads them.
using Labels = std::map<std::string, std::string, std::less<>>;

class LabelSelector {
 public:
  enum class Operator { kIn, kNotIn, kExists, kDoesNotExist };
  struct Requirement {
    std::string key;
    Operator op = Operator::kIn;
    std::vector<std::string> values;  // sorted, each once
    bool operator==(const Requirement&) const = default;
  };

  // The selector that selects everything.
  LabelSelector() = default;

  // Reads `selector` (an object with matchLabels and matchExpressions).
  // InvalidArgument naming the field for what the API server refuses: a
  // value that is not a string, an unknown operator, In or NotIn without
  // values, Exists or DoesNotExist with some.
  static Result<LabelSelector> Read(const rapidjson::Value& selector);

  // Adds `key In (value)`: a term's matchLabelKeys, as the API server
  // merges them.
  void RequireEqual(std::string_view key, std::string_view value);
  // Adds `key NotIn (value)`: a term's mismatchLabelKeys.
  void RequireNotEqual(std::string_view key, std::string_view value);

  // Whether `labels` meet every requirement.
  bool Matches(const Labels& labels) const;

  bool empty() const { return requirements_.empty(); }
  const std::vector<Requirement>& requirements() const { return requirements_; }

  // Text equal for selectors that select the same way (requirements in
  // order of key, operator and values): a key for maps and dedup.
  std::string Key() const;

  bool operator==(const LabelSelector&) const = default;

 private:
  void Add(Requirement r);
  std::vector<Requirement> requirements_;  // sorted
};

}  // namespace vtenant::kube
