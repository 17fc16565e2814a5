#include "cli/crd_installer.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "base/eventually.h"

namespace vtenant::cli {
namespace fs = std::filesystem;
namespace {

rapidjson::Value ToJson(const YAML::Node& node, rapidjson::Document::AllocatorType& alloc) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      rapidjson::Value object(rapidjson::kObjectType);
      for (const auto& kv : node) {
        rapidjson::Value key(kv.first.Scalar().c_str(), alloc);
        object.AddMember(key, ToJson(kv.second, alloc), alloc);
      }
      return object;
    }
    case YAML::NodeType::Sequence: {
      rapidjson::Value array(rapidjson::kArrayType);
      for (const auto& item : node) array.PushBack(ToJson(item, alloc), alloc);
      return array;
    }
    case YAML::NodeType::Scalar: {
      const std::string& s = node.Scalar();
      if (node.Tag() != "!") {  // plain (unquoted): resolve as YAML 1.2 core schema
        static const std::regex kInt("[-+]?[0-9]+");
        static const std::regex kFloat(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
        if (s == "true" || s == "True" || s == "TRUE") return rapidjson::Value(true);
        if (s == "false" || s == "False" || s == "FALSE") return rapidjson::Value(false);
        if (s == "null" || s == "Null" || s == "NULL" || s == "~") return rapidjson::Value();
        if (std::regex_match(s, kInt)) return rapidjson::Value(int64_t{std::stoll(s)});
        if (std::regex_match(s, kFloat)) return rapidjson::Value(std::stod(s));
      }
      return rapidjson::Value(s.c_str(), alloc);
    }
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return rapidjson::Value();
  }
  return rapidjson::Value();
}

bool IsEstablished(const rapidjson::Value& crd) {
  const rapidjson::Value* conditions = kube::Find(crd, {"status", "conditions"});
  if (conditions == nullptr || !conditions->IsArray()) return false;
  for (const auto& c : conditions->GetArray()) {
    if (kube::GetString(c, {"type"}) == "Established") {
      return kube::GetString(c, {"status"}) == "True";
    }
  }
  return false;
}

}  // namespace

Result<std::vector<kube::Object>> YamlDocumentsToJson(const std::string& yaml_text,
                                                      const std::string& source_name) {
  std::vector<kube::Object> out;
  try {
    for (const YAML::Node& doc : YAML::LoadAll(yaml_text)) {
      if (doc.IsNull()) continue;
      if (!doc.IsMap()) return InvalidArgument(source_name + ": a document is not a mapping");
      kube::Object object;
      rapidjson::Value value = ToJson(doc, object.GetAllocator());
      static_cast<rapidjson::Value&>(object).Swap(value);
      out.push_back(std::move(object));
    }
  } catch (const YAML::Exception& e) {
    return InvalidArgument(source_name + ": " + e.what());
  }
  return out;
}

Result<std::vector<std::string>> InstallCrds(kube::Client& client, const std::string& dir,
                                             std::chrono::seconds wait) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  if (ec) return NotFound("cannot read CRD folder " + dir + ": " + ec.message());
  if (files.empty()) return NotFound("no CRDs (*.yaml) in " + dir);
  std::sort(files.begin(), files.end());
  std::vector<std::string> names;
  for (const fs::path& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    VT_ASSIGN_OR_RETURN(std::vector<kube::Object> docs,
                        YamlDocumentsToJson(text.str(), file.string()));
    for (kube::Object& crd : docs) {
      const std::string name(kube::Name(crd));
      if (kube::GetString(crd, {"kind"}) != "CustomResourceDefinition" || name.empty()) {
        return InvalidArgument(file.string() + " holds something other than a named CRD");
      }
      Result<kube::Object> created =
          client.Create(kube::resources::kCustomResourceDefinitions, "", crd);
      if (!created.ok() && created.status().code() == StatusCode::kAlreadyExists) {
        // Replace with this version, keeping the stored resourceVersion.
        created = client.UpdateWithRetry(
            kube::resources::kCustomResourceDefinitions, "", name, [&](kube::Object& stored) {
              const std::string version(kube::ResourceVersion(stored));
              stored.CopyFrom(crd, stored.GetAllocator());
              kube::SetString(stored, {"metadata"}, "resourceVersion", version);
              return Status::Ok();
            });
      }
      if (!created.ok()) return created.status().WithContext("installing CRD " + name);
      names.push_back(name);
    }
  }
  for (const std::string& name : names) {
    const bool established = Eventually(
        [&] {
          Result<kube::Object> crd =
              client.Get(kube::resources::kCustomResourceDefinitions, "", name);
          return crd.ok() && IsEstablished(*crd);
        },
        wait, std::chrono::milliseconds(100));
    if (!established) {
      return Status(StatusCode::kTimeout, "CRD " + name + " was not Established within " +
                                              std::to_string(wait.count()) + "s");
    }
  }
  return names;
}

}  // namespace vtenant::cli
