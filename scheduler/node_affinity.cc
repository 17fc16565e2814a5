#include "scheduler/node_affinity.h"

#include <algorithm>
#include <charconv>

namespace vtenant::scheduler {
namespace {

using rapidjson::Value;
using Op = NodeSelectorRequirement::Op;

std::optional<int64_t> AsInt(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// Whether requirement `r` holds for a value that is `value` (null: absent).
bool Holds(const NodeSelectorRequirement& r, const std::string* value) {
  switch (r.op) {
    case Op::kIn:
      return value != nullptr &&
             std::find(r.values.begin(), r.values.end(), *value) != r.values.end();
    case Op::kNotIn:
      return value == nullptr ||
             std::find(r.values.begin(), r.values.end(), *value) == r.values.end();
    case Op::kExists:
      return value != nullptr;
    case Op::kDoesNotExist:
      return value == nullptr;
    case Op::kGt:
    case Op::kLt: {
      if (value == nullptr) return false;
      std::optional<int64_t> have = AsInt(*value), want = AsInt(r.values[0]);
      if (!have || !want) return false;
      return r.op == Op::kGt ? *have > *want : *have < *want;
    }
  }
  return false;
}

Result<std::vector<NodeSelectorRequirement>> ParseRequirements(const Value& term, const char* field,
                                                               const std::string& where) {
  std::vector<NodeSelectorRequirement> out;
  auto list = term.FindMember(field);
  if (list == term.MemberEnd() || list->value.IsNull()) return out;
  if (!list->value.IsArray()) return InvalidArgument(where + "." + field + " is not a list");
  for (rapidjson::SizeType i = 0; i < list->value.Size(); ++i) {
    const Value& e = list->value[i];
    const std::string at = where + "." + field + "[" + std::to_string(i) + "]";
    NodeSelectorRequirement r;
    r.key = std::string(kube::GetString(e, {"key"}));
    std::string_view op = kube::GetString(e, {"operator"});
    if (op == "In")
      r.op = Op::kIn;
    else if (op == "NotIn")
      r.op = Op::kNotIn;
    else if (op == "Exists")
      r.op = Op::kExists;
    else if (op == "DoesNotExist")
      r.op = Op::kDoesNotExist;
    else if (op == "Gt")
      r.op = Op::kGt;
    else if (op == "Lt")
      r.op = Op::kLt;
    else
      return InvalidArgument(at + ": operator \"" + std::string(op) +
                             "\" is not In, NotIn, Exists, DoesNotExist, Gt or Lt");
    auto vs = e.FindMember("values");
    if (vs != e.MemberEnd() && vs->value.IsArray())
      for (const Value& v : vs->value.GetArray())
        if (v.IsString()) r.values.emplace_back(v.GetString());
    const bool set_op = r.op == Op::kIn || r.op == Op::kNotIn;
    if (set_op && r.values.empty())
      return InvalidArgument(at + ": " + std::string(op) + " needs values");
    if ((r.op == Op::kExists || r.op == Op::kDoesNotExist) && !r.values.empty())
      return InvalidArgument(at + ": " + std::string(op) + " takes no values");
    if ((r.op == Op::kGt || r.op == Op::kLt) && (r.values.size() != 1 || !AsInt(r.values[0])))
      return InvalidArgument(at + ": " + std::string(op) + " needs exactly one integer value");
    if (std::string_view(field) == "matchFields" && (r.key != "metadata.name" || !set_op))
      return InvalidArgument(at + ": matchFields supports only metadata.name with In or NotIn");
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

bool NodeAffinity::Simple() const {
  if (terms.size() != 1 || !terms[0].match_fields.empty() || terms[0].match_expressions.empty())
    return false;
  for (const NodeSelectorRequirement& r : terms[0].match_expressions)
    if (r.op != Op::kIn) return false;
  return true;
}

bool NodeAffinity::Matches(std::string_view name, const sched::LabelPairs& labels) const {
  if (terms.empty()) return true;
  const std::string node_name(name);
  for (const NodeSelectorTerm& t : terms) {
    if (t.match_expressions.empty() && t.match_fields.empty()) continue;  // matches nothing
    bool all = true;
    for (const NodeSelectorRequirement& r : t.match_expressions) {
      const std::string* value = nullptr;
      for (const auto& [k, v] : labels)
        if (k == r.key) value = &v;
      all = all && Holds(r, value);
    }
    for (const NodeSelectorRequirement& r : t.match_fields) all = all && Holds(r, &node_name);
    if (all) return true;
  }
  return false;
}

std::string NodeAffinity::Key() const {
  std::string k;
  auto add = [&](const std::vector<NodeSelectorRequirement>& rs, char tag) {
    for (const NodeSelectorRequirement& r : rs) {
      k += tag;
      k += std::to_string(static_cast<int>(r.op)) + ":" + r.key;
      for (const std::string& v : r.values) k += '\x1f' + v;
      k += '\x1e';
    }
  };
  for (const NodeSelectorTerm& t : terms) {
    add(t.match_expressions, 'e');
    add(t.match_fields, 'f');
    k += '\x1d';
  }
  return k;
}

NodeAffinity Both(const NodeAffinity& a, const NodeAffinity& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  NodeAffinity both;
  for (const NodeSelectorTerm& x : a.terms)
    for (const NodeSelectorTerm& y : b.terms) {
      NodeSelectorTerm t = x;
      t.match_expressions.insert(t.match_expressions.end(), y.match_expressions.begin(),
                                 y.match_expressions.end());
      t.match_fields.insert(t.match_fields.end(), y.match_fields.begin(), y.match_fields.end());
      both.terms.push_back(std::move(t));
    }
  return both;
}

NodeAffinity Either(const NodeAffinity& a, const NodeAffinity& b) {
  if (a.empty() || b.empty()) return NodeAffinity{};
  NodeAffinity either = a;
  either.terms.insert(either.terms.end(), b.terms.begin(), b.terms.end());
  return either;
}

Result<NodeAffinity> ParseRequiredNodeAffinity(const Value& pod) {
  const Value* required = kube::Find(
      pod, {"spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"});
  if (required == nullptr) return NodeAffinity{};
  return ParseNodeSelector(*required, "nodeAffinity");
}

Result<NodeAffinity> ParseNodeSelector(const Value& selector, std::string_view what) {
  NodeAffinity a;
  if (!selector.IsObject()) return a;
  auto terms = selector.FindMember("nodeSelectorTerms");
  if (terms == selector.MemberEnd() || !terms->value.IsArray()) return a;
  for (rapidjson::SizeType i = 0; i < terms->value.Size(); ++i) {
    const Value& t = terms->value[i];
    const std::string where = std::string(what) + " nodeSelectorTerms[" + std::to_string(i) + "]";
    if (!t.IsObject()) return InvalidArgument(where + " is not an object");
    NodeSelectorTerm term;
    VT_ASSIGN_OR_RETURN(term.match_expressions, ParseRequirements(t, "matchExpressions", where));
    VT_ASSIGN_OR_RETURN(term.match_fields, ParseRequirements(t, "matchFields", where));
    a.terms.push_back(std::move(term));
  }
  return a;
}

}  // namespace vtenant::scheduler
