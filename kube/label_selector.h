// LabelSelector: Kubernetes' label selector syntax, matched locally (the
// same text a list or watch sends as labelSelector).
//
//   key=value  key==value  key!=value  key  !key  key in (a,b)  key notin (a,b)
//
// Terms are separated by commas and must all hold. As on the server, `!=`
// and `notin` also match objects without the label. An empty selector
// matches everything.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "kube/object.h"

namespace vtenant::kube {

class LabelSelector {
 public:
  // Matches everything.
  LabelSelector() = default;

  // InvalidArgument naming the bad term when `text` is not a selector.
  static Result<LabelSelector> Parse(std::string_view text);

  // Whether `labels` (label name to value) satisfy every term.
  bool Matches(const std::map<std::string, std::string, std::less<>>& labels) const;

  // Whether the object's metadata.labels satisfy every term.
  bool Matches(const rapidjson::Value& object) const;

  bool empty() const { return requirements_.empty(); }

 private:
  struct Requirement {
    enum class Op { kIn, kNotIn, kExists, kNotExists } op;
    std::string key;
    std::vector<std::string> values;  // kIn / kNotIn; "=" is kIn of one value
  };

  std::vector<Requirement> requirements_;
};

}  // namespace vtenant::kube
