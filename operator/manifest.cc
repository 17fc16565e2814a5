#include "operator/manifest.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <regex>

#include "operator/podgroup_crd_yaml.h"

namespace vtenant::op {
namespace {

rapidjson::Value ScalarToJson(const YAML::Node& node, rapidjson::Document::AllocatorType& alloc) {
  const std::string& text = node.Scalar();
  if (node.Tag() != "!") {  // "!" marks a quoted scalar: always a string
    static const std::regex kInt("^[-+]?[0-9]+$");
    static const std::regex kFloat("^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$");
    if (text == "true" || text == "True" || text == "TRUE") return rapidjson::Value(true);
    if (text == "false" || text == "False" || text == "FALSE") return rapidjson::Value(false);
    if (text == "null" || text == "~" || text == "Null" || text == "NULL") {
      return rapidjson::Value(rapidjson::kNullType);
    }
    if (std::regex_match(text, kInt)) {
      int64_t v = 0;
      const char* begin = text.data() + (text[0] == '+' ? 1 : 0);
      if (std::from_chars(begin, text.data() + text.size(), v).ec == std::errc()) {
        return rapidjson::Value(v);
      }
    }
    if (std::regex_match(text, kFloat)) return rapidjson::Value(std::stod(text));
  }
  return rapidjson::Value(text.c_str(), static_cast<rapidjson::SizeType>(text.size()), alloc);
}

rapidjson::Value NodeToJson(const YAML::Node& node, rapidjson::Document::AllocatorType& alloc) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      rapidjson::Value obj(rapidjson::kObjectType);
      for (const auto& kv : node) {
        const std::string& key = kv.first.Scalar();
        obj.AddMember(rapidjson::Value(key.c_str(), alloc), NodeToJson(kv.second, alloc), alloc);
      }
      return obj;
    }
    case YAML::NodeType::Sequence: {
      rapidjson::Value arr(rapidjson::kArrayType);
      for (const auto& item : node) arr.PushBack(NodeToJson(item, alloc), alloc);
      return arr;
    }
    case YAML::NodeType::Scalar:
      return ScalarToJson(node, alloc);
    default:
      return rapidjson::Value(rapidjson::kNullType);
  }
}

}  // namespace

Result<kube::Object> YamlToJson(std::string_view yaml_text) {
  YAML::Node node;
  try {
    node = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    return InvalidArgument(std::string("invalid YAML: ") + e.what());
  }
  kube::Object doc;
  rapidjson::Value v = NodeToJson(node, doc.GetAllocator());
  doc.CopyFrom(v, doc.GetAllocator());
  return doc;
}

Result<kube::Object> PodGroupCrd() { return YamlToJson(kPodGroupCrdYaml); }

}  // namespace vtenant::op
