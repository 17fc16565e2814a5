#include "kube/yaml.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <regex>
#include <string>

namespace vtenant::kube {
namespace {

using rapidjson::Value;

// The core schema's plain scalars (YAML 1.2, section 10.3.2).
bool IsNull(const std::string& s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

std::optional<bool> AsBool(const std::string& s) {
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  return std::nullopt;
}

std::optional<int64_t> AsInt(const std::string& s) {
  static const std::regex decimal("[-+]?[0-9]+");
  if (!std::regex_match(s, decimal)) return std::nullopt;
  int64_t value = 0;
  const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
  auto [end, ec] = std::from_chars(begin, s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

std::optional<double> AsFloat(const std::string& s) {
  static const std::regex number("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  if (!std::regex_match(s, number)) return std::nullopt;
  return std::strtod(s.c_str(), nullptr);
}

// Throws YAML::Exception, with the node's line, for a mapping key that is
// not a scalar (JSON keys are strings).
Value ToJson(const YAML::Node& node, rapidjson::Document::AllocatorType& alloc) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return Value(rapidjson::kNullType);
    case YAML::NodeType::Sequence: {
      Value array(rapidjson::kArrayType);
      for (const YAML::Node& item : node) array.PushBack(ToJson(item, alloc), alloc);
      return array;
    }
    case YAML::NodeType::Map: {
      Value object(rapidjson::kObjectType);
      for (const auto& entry : node) {
        if (!entry.first.IsScalar()) {
          throw YAML::Exception(entry.first.Mark(), "a mapping key that is not a scalar");
        }
        const std::string key = entry.first.Scalar();
        Value name(key.c_str(), static_cast<rapidjson::SizeType>(key.size()), alloc);
        // A repeated key keeps its last value, as kubectl's reader does.
        if (auto it = object.FindMember(name); it != object.MemberEnd()) {
          it->value = ToJson(entry.second, alloc);
        } else {
          object.AddMember(name, ToJson(entry.second, alloc), alloc);
        }
      }
      return object;
    }
    case YAML::NodeType::Scalar:
      break;
  }
  const std::string& text = node.Scalar();
  // yaml-cpp tags a quoted or block scalar "!", a plain one "?".
  if (node.Tag() == "?") {
    if (IsNull(text)) return Value(rapidjson::kNullType);
    if (std::optional<bool> b = AsBool(text)) return Value(*b);
    if (std::optional<int64_t> i = AsInt(text)) return Value(*i);
    if (std::optional<double> f = AsFloat(text)) return Value(*f);
  }
  return Value(text.c_str(), static_cast<rapidjson::SizeType>(text.size()), alloc);
}

}  // namespace

Result<std::vector<Object>> ParseYamlDocuments(std::string_view text) {
  std::vector<Object> out;
  // Converting throws too (a key JSON cannot hold), so it stays inside.
  try {
    for (const YAML::Node& node : YAML::LoadAll(std::string(text))) {
      if (node.IsNull() || !node.IsDefined()) continue;
      Object doc;
      Value value = ToJson(node, doc.GetAllocator());
      static_cast<Value&>(doc).Swap(value);
      out.push_back(std::move(doc));
    }
  } catch (const YAML::Exception& e) {
    return InvalidArgument("YAML line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return out;
}

Result<Object> ParseYaml(std::string_view text) {
  VT_ASSIGN_OR_RETURN(std::vector<Object> docs, ParseYamlDocuments(text));
  if (docs.size() != 1) {
    return InvalidArgument("expected one YAML document, found " + std::to_string(docs.size()));
  }
  return std::move(docs.front());
}

}  // namespace vtenant::kube
