#include "kube/label_selector.h"

#include <algorithm>

namespace vtenant::kube {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Splits on commas outside parentheses.
std::vector<std::string_view> Terms(std::string_view text) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')') --depth;
    if (text[i] == ',' && depth == 0) {
      out.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(text.substr(start));
  return out;
}

bool ValidKey(std::string_view key) {
  return !key.empty() && std::none_of(key.begin(), key.end(), [](char c) {
    return c == ' ' || c == '=' || c == '!' || c == '(' || c == ')' || c == ',';
  });
}

}  // namespace

Result<LabelSelector> LabelSelector::Parse(std::string_view text) {
  LabelSelector selector;
  if (Trim(text).empty()) return selector;
  for (std::string_view raw : Terms(text)) {
    const std::string_view term = Trim(raw);
    auto invalid = [&](std::string_view why) {
      return InvalidArgument("label selector \"" + std::string(text) + "\": term \"" +
                             std::string(term) + "\" " + std::string(why));
    };
    if (term.empty()) return invalid("is empty");
    Requirement r;
    size_t op;
    if (size_t paren = term.find('('); paren != std::string_view::npos) {
      std::string_view head = Trim(term.substr(0, paren));
      if (term.back() != ')') return invalid("has no closing parenthesis");
      size_t space = head.rfind(' ');
      if (space == std::string_view::npos) return invalid("needs \"in\" or \"notin\"");
      std::string_view word = head.substr(space + 1);
      if (word == "in") {
        r.op = Requirement::Op::kIn;
      } else if (word == "notin") {
        r.op = Requirement::Op::kNotIn;
      } else {
        return invalid("needs \"in\" or \"notin\"");
      }
      r.key = std::string(Trim(head.substr(0, space)));
      std::string_view list = term.substr(paren + 1, term.size() - paren - 2);
      size_t start = 0;
      while (start <= list.size()) {
        size_t comma = list.find(',', start);
        std::string_view value = Trim(list.substr(
            start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
        if (value.empty()) return invalid("has an empty value");
        r.values.emplace_back(value);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
      }
    } else if ((op = term.find("!=")) != std::string_view::npos) {
      r = {Requirement::Op::kNotIn,
           std::string(Trim(term.substr(0, op))),
           {std::string(Trim(term.substr(op + 2)))}};
    } else if ((op = term.find("==")) != std::string_view::npos) {
      r = {Requirement::Op::kIn,
           std::string(Trim(term.substr(0, op))),
           {std::string(Trim(term.substr(op + 2)))}};
    } else if ((op = term.find('=')) != std::string_view::npos) {
      r = {Requirement::Op::kIn,
           std::string(Trim(term.substr(0, op))),
           {std::string(Trim(term.substr(op + 1)))}};
    } else if (term[0] == '!') {
      r = {Requirement::Op::kNotExists, std::string(Trim(term.substr(1))), {}};
    } else {
      r = {Requirement::Op::kExists, std::string(term), {}};
    }
    if (!ValidKey(r.key)) return invalid("has no valid key");
    selector.requirements_.push_back(std::move(r));
  }
  return selector;
}

bool LabelSelector::Matches(const std::map<std::string, std::string, std::less<>>& labels) const {
  for (const Requirement& r : requirements_) {
    auto it = labels.find(r.key);
    const bool has = it != labels.end();
    const bool listed =
        has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
    switch (r.op) {
      case Requirement::Op::kIn:
        if (!listed) return false;
        break;
      case Requirement::Op::kNotIn:
        if (listed) return false;
        break;
      case Requirement::Op::kExists:
        if (!has) return false;
        break;
      case Requirement::Op::kNotExists:
        if (has) return false;
        break;
    }
  }
  return true;
}

bool LabelSelector::Matches(const rapidjson::Value& object) const {
  if (requirements_.empty()) return true;
  std::map<std::string, std::string, std::less<>> labels;
  if (const rapidjson::Value* found = Find(object, {"metadata", "labels"});
      found != nullptr && found->IsObject()) {
    for (const auto& m : found->GetObject()) {
      if (m.value.IsString()) labels.emplace(m.name.GetString(), m.value.GetString());
    }
  }
  return Matches(labels);
}

}  // namespace vtenant::kube
