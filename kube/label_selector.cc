#include "kube/label_selector.h"

#include <algorithm>
#include <tuple>

namespace vtenant::kube {
namespace {

using Operator = LabelSelector::Operator;

Result<Operator> ReadOperator(std::string_view op, const std::string& where) {
  if (op == "In") return Operator::kIn;
  if (op == "NotIn") return Operator::kNotIn;
  if (op == "Exists") return Operator::kExists;
  if (op == "DoesNotExist") return Operator::kDoesNotExist;
  return InvalidArgument(where + ": operator \"" + std::string(op) +
                         "\" is not In, NotIn, Exists or DoesNotExist");
}

}  // namespace

Result<LabelSelector> LabelSelector::Read(const rapidjson::Value& selector) {
  if (!selector.IsObject()) return InvalidArgument("a label selector must be an object");
  LabelSelector out;
  if (const rapidjson::Value* match = Find(selector, {"matchLabels"}); match != nullptr) {
    if (!match->IsObject()) return InvalidArgument("matchLabels must be an object");
    for (const auto& m : match->GetObject()) {
      if (!m.value.IsString())
        return InvalidArgument("matchLabels." + std::string(m.name.GetString()) +
                               " must be a string");
      out.RequireEqual(m.name.GetString(), m.value.GetString());
    }
  }
  const rapidjson::Value* expressions = Find(selector, {"matchExpressions"});
  if (expressions == nullptr) return out;
  if (!expressions->IsArray()) return InvalidArgument("matchExpressions must be a list");
  for (rapidjson::SizeType i = 0; i < expressions->Size(); ++i) {
    const rapidjson::Value& e = (*expressions)[i];
    const std::string where = "matchExpressions[" + std::to_string(i) + "]";
    if (!e.IsObject()) return InvalidArgument(where + " must be an object");
    Requirement r;
    r.key = GetString(e, {"key"});
    if (r.key.empty()) return InvalidArgument(where + ": key is empty");
    VT_ASSIGN_OR_RETURN(r.op, ReadOperator(GetString(e, {"operator"}), where));
    if (const rapidjson::Value* values = Find(e, {"values"}); values != nullptr) {
      if (!values->IsArray()) return InvalidArgument(where + ": values must be a list");
      for (const rapidjson::Value& v : values->GetArray()) {
        if (!v.IsString()) return InvalidArgument(where + ": values must be strings");
        r.values.emplace_back(v.GetString(), v.GetStringLength());
      }
    }
    const bool set_operator = r.op == Operator::kIn || r.op == Operator::kNotIn;
    if (set_operator && r.values.empty())
      return InvalidArgument(where + ": values must not be empty for In and NotIn");
    if (!set_operator && !r.values.empty())
      return InvalidArgument(where + ": values must be empty for Exists and DoesNotExist");
    out.Add(std::move(r));
  }
  return out;
}

void LabelSelector::RequireEqual(std::string_view key, std::string_view value) {
  Add({std::string(key), Operator::kIn, {std::string(value)}});
}

void LabelSelector::RequireNotEqual(std::string_view key, std::string_view value) {
  Add({std::string(key), Operator::kNotIn, {std::string(value)}});
}

void LabelSelector::Add(Requirement r) {
  std::sort(r.values.begin(), r.values.end());
  r.values.erase(std::unique(r.values.begin(), r.values.end()), r.values.end());
  auto before = [](const Requirement& a, const Requirement& b) {
    return std::tie(a.key, a.op, a.values) < std::tie(b.key, b.op, b.values);
  };
  auto at = std::lower_bound(requirements_.begin(), requirements_.end(), r, before);
  if (at != requirements_.end() && *at == r) return;  // said twice: once is enough
  requirements_.insert(at, std::move(r));
}

bool LabelSelector::Matches(const Labels& labels) const {
  for (const Requirement& r : requirements_) {
    auto it = labels.find(r.key);
    const bool has = it != labels.end();
    const bool in = has && std::binary_search(r.values.begin(), r.values.end(), it->second);
    switch (r.op) {
      case Operator::kIn:
        if (!in) return false;
        break;
      case Operator::kNotIn:
        if (in) return false;
        break;
      case Operator::kExists:
        if (!has) return false;
        break;
      case Operator::kDoesNotExist:
        if (has) return false;
        break;
    }
  }
  return true;
}

std::string LabelSelector::Key() const {
  // The labels.Selector string form ("app in (web),tier notin (db)"),
  // values in order; keys and values cannot hold ',', '(' or ')'.
  std::string out;
  for (const Requirement& r : requirements_) {
    if (!out.empty()) out += ',';
    if (r.op == Operator::kDoesNotExist) out += '!';
    out += r.key;
    if (r.op == Operator::kDoesNotExist || r.op == Operator::kExists) continue;
    out += r.op == Operator::kIn ? " in (" : " notin (";
    for (size_t i = 0; i < r.values.size(); ++i) out += (i ? "," : "") + r.values[i];
    out += ')';
  }
  return out;
}

}  // namespace vtenant::kube
