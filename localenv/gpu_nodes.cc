#include "localenv/gpu_nodes.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "kai/names.h"
#include "kube/quantity.h"

namespace vtenant::localenv {
namespace {

using kube::Quantity;

Status FieldError(std::string_view source, const std::string& entry, const std::string& field,
                  const std::string& problem) {
  return InvalidArgument(std::string(source) + ": node \"" + entry + "\" field " + field + ": " +
                         problem);
}

Result<int64_t> QuantityField(const YAML::Node& item, const char* field, std::string_view source,
                              const std::string& entry, bool milli) {
  if (!item[field]) return FieldError(source, entry, field, "missing");
  Result<Quantity> q = Quantity::Parse(item[field].as<std::string>());
  if (!q.ok()) return FieldError(source, entry, field, q.status().message());
  if (q->Milli() < 0) return FieldError(source, entry, field, "must not be negative");
  return milli ? q->Milli() : q->Value();
}

Result<int64_t> IntField(const YAML::Node& item, const char* field, int64_t fallback,
                         std::string_view source, const std::string& entry) {
  if (!item[field]) return fallback;
  try {
    int64_t v = item[field].as<int64_t>();
    if (v < 0) return FieldError(source, entry, field, "must not be negative");
    return v;
  } catch (const YAML::Exception&) {
    return FieldError(source, entry, field, "not an integer: " + item[field].as<std::string>());
  }
}

Result<SimulatedNode> ParseEntry(const YAML::Node& item, std::string_view source, size_t index) {
  std::string entry = "#" + std::to_string(index + 1);
  if (!item.IsMap())
    return InvalidArgument(std::string(source) + ": node " + entry + " is not a map");
  SimulatedNode node;
  if (!item["name"]) return FieldError(source, entry, "name", "missing");
  node.name = item["name"].as<std::string>();
  entry = node.name;
  VT_ASSIGN_OR_RETURN(node.cpu_milli, QuantityField(item, "cpu", source, entry, true));
  VT_ASSIGN_OR_RETURN(node.memory_bytes, QuantityField(item, "memory", source, entry, false));
  VT_ASSIGN_OR_RETURN(node.gpus, IntField(item, "gpus", 0, source, entry));
  VT_ASSIGN_OR_RETURN(node.gpu_memory_mib, IntField(item, "gpuMemoryMiB", 0, source, entry));
  VT_ASSIGN_OR_RETURN(node.max_pods, IntField(item, "maxPods", 110, source, entry));
  if (item["gpuProduct"]) node.gpu_product = item["gpuProduct"].as<std::string>();
  if (node.gpus > 0 && (node.gpu_product.empty() || node.gpu_memory_mib == 0)) {
    return FieldError(source, entry, "gpuProduct/gpuMemoryMiB", "required when gpus > 0");
  }
  if (const YAML::Node disk = item["ephemeralStorage"]) {
    node.ephemeral_storage = disk.as<std::string>();
    if (!Quantity::Parse(node.ephemeral_storage).ok())
      return FieldError(source, entry, "ephemeralStorage",
                        "not a quantity: " + node.ephemeral_storage);
  }
  if (const YAML::Node resources = item["resources"]) {
    for (const auto& r : resources) {
      const std::string name = r.first.as<std::string>();
      const std::string value = r.second.as<std::string>();
      if (!Quantity::Parse(value).ok()) {
        return FieldError(source, entry, "resources." + name, "not a quantity: " + value);
      }
      node.extra_resources[name] = value;
    }
  }
  if (const YAML::Node labels = item["labels"]) {
    for (const auto& l : labels)
      node.labels[l.first.as<std::string>()] = l.second.as<std::string>();
  }
  if (const YAML::Node taints = item["taints"]) {
    for (const auto& t : taints) {
      NodeTaint taint{t["key"] ? t["key"].as<std::string>() : "",
                      t["value"] ? t["value"].as<std::string>() : "",
                      t["effect"] ? t["effect"].as<std::string>() : ""};
      if (taint.key.empty()) return FieldError(source, entry, "taints", "a taint needs a key");
      if (taint.effect != "NoSchedule" && taint.effect != "PreferNoSchedule" &&
          taint.effect != "NoExecute") {
        return FieldError(source, entry, "taints",
                          "effect must be NoSchedule, PreferNoSchedule or NoExecute, got \"" +
                              taint.effect + "\"");
      }
      node.taints.push_back(taint);
    }
  }
  return node;
}

void AddString(kube::Object& doc, rapidjson::Value& target, const std::string& key,
               const std::string& value) {
  auto& alloc = doc.GetAllocator();
  target.AddMember(rapidjson::Value(key.c_str(), alloc), rapidjson::Value(value.c_str(), alloc),
                   alloc);
}

}  // namespace

Result<std::vector<SimulatedNode>> ParseNodeInventory(std::string_view yaml_text,
                                                      std::string_view source) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    return InvalidArgument(std::string(source) + ": not valid YAML: " + e.what());
  }
  if (!root["nodes"] || !root["nodes"].IsSequence()) {
    return InvalidArgument(std::string(source) + ": expected a top-level `nodes:` list");
  }
  std::vector<SimulatedNode> nodes;
  for (size_t i = 0; i < root["nodes"].size(); ++i) {
    const YAML::Node item = root["nodes"][i];
    auto parse = [&]() -> Result<SimulatedNode> {
      try {
        return ParseEntry(item, source, i);
      } catch (const YAML::Exception& e) {  // a scalar where a map was expected, and such
        return InvalidArgument(std::string(source) + ": node #" + std::to_string(i + 1) + ": " +
                               e.what());
      }
    };
    Result<SimulatedNode> parsed = parse();
    if (!parsed.ok()) return parsed.status();
    Result<int64_t> count = IntField(item, "count", 1, source, parsed->name);
    if (!count.ok()) return count.status();
    if (*count == 1 && !item["count"]) {
      nodes.push_back(*parsed);
      continue;
    }
    for (int64_t n = 0; n < *count; ++n) {
      SimulatedNode copy = *parsed;
      copy.name = parsed->name + "-" + std::to_string(n);
      nodes.push_back(std::move(copy));
    }
  }
  return nodes;
}

Result<std::vector<SimulatedNode>> LoadNodeInventory(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot read node inventory " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseNodeInventory(ss.str(), path);
}

kube::Object NodeManifest(const SimulatedNode& node) {
  kube::Object doc(rapidjson::kObjectType);
  auto& alloc = doc.GetAllocator();
  kube::SetString(doc, {}, "apiVersion", "v1");
  kube::SetString(doc, {}, "kind", "Node");
  kube::SetString(doc, {"metadata"}, "name", node.name);
  std::map<std::string, std::string> labels = node.labels;
  labels[kSimulatedNodeLabel] = "true";
  labels["kubernetes.io/hostname"] = node.name;
  labels["kubernetes.io/os"] = "linux";
  labels["kubernetes.io/arch"] = "amd64";
  if (node.gpus > 0) {
    labels[kai::kGpuPresentLabel] = "true";
    labels[kai::kGpuCountLabel] = std::to_string(node.gpus);
    labels[kai::kGpuProductLabel] = node.gpu_product;
    labels[kai::kGpuMemoryLabel] = std::to_string(node.gpu_memory_mib);
  }
  rapidjson::Value& label_map = kube::EnsurePath(doc, {"metadata", "labels"});
  for (const auto& [k, v] : labels) AddString(doc, label_map, k, v);

  rapidjson::Value taints(rapidjson::kArrayType);
  for (const NodeTaint& t : node.taints) {
    rapidjson::Value taint(rapidjson::kObjectType);
    taint.AddMember("key", rapidjson::Value(t.key.c_str(), alloc), alloc);
    if (!t.value.empty()) taint.AddMember("value", rapidjson::Value(t.value.c_str(), alloc), alloc);
    taint.AddMember("effect", rapidjson::Value(t.effect.c_str(), alloc), alloc);
    taints.PushBack(taint, alloc);
  }
  if (!taints.Empty()) kube::EnsurePath(doc, {"spec"}).AddMember("taints", taints, alloc);

  std::map<std::string, std::string> capacity = node.extra_resources;
  capacity["cpu"] = Quantity::FromMilli(node.cpu_milli).ToString();
  Result<Quantity> memory = Quantity::FromValue(node.memory_bytes, Quantity::Format::kBinarySI);
  capacity["memory"] = memory.ok() ? memory->ToString() : std::to_string(node.memory_bytes);
  capacity["pods"] = std::to_string(node.max_pods);
  capacity.try_emplace("ephemeral-storage", node.ephemeral_storage);
  if (node.gpus > 0) capacity[kai::kGpuResource] = std::to_string(node.gpus);
  for (const char* field : {"capacity", "allocatable"}) {
    rapidjson::Value& target = kube::EnsurePath(doc, {"status", field});
    for (const auto& [k, v] : capacity) AddString(doc, target, k, v);
  }
  return doc;
}

Status RegisterNodes(kube::Client& client, const std::vector<SimulatedNode>& nodes) {
  for (const SimulatedNode& node : nodes) {
    kube::Object manifest = NodeManifest(node);
    Result<kube::Object> created = client.Create(kube::resources::kNodes, "", manifest);
    if (created.ok()) continue;
    if (created.status().code() != StatusCode::kAlreadyExists) {
      return created.status().WithContext("registering node " + node.name);
    }
    // Existing node: bring labels, taints and capacity to the inventory.
    Result<kube::Object> updated =
        client.UpdateWithRetry(kube::resources::kNodes, "", node.name, [&](kube::Object& current) {
          current["metadata"].RemoveMember("labels");
          current["metadata"].AddMember(
              "labels", rapidjson::Value(manifest["metadata"]["labels"], current.GetAllocator()),
              current.GetAllocator());
          if (!current.HasMember("spec"))
            current.AddMember("spec", rapidjson::Value(rapidjson::kObjectType),
                              current.GetAllocator());
          current["spec"].RemoveMember("taints");
          if (manifest.HasMember("spec") && manifest["spec"].HasMember("taints")) {
            current["spec"].AddMember(
                "taints", rapidjson::Value(manifest["spec"]["taints"], current.GetAllocator()),
                current.GetAllocator());
          }
          return Status::Ok();
        });
    if (!updated.ok()) return updated.status().WithContext("updating node " + node.name);
    Result<kube::Object> status = client.UpdateWithRetry(
        kube::resources::kNodes, "", node.name,
        [&](kube::Object& current) {
          for (const char* field : {"capacity", "allocatable"}) {
            rapidjson::Value& target = kube::EnsurePath(current, {"status", field});
            target.CopyFrom(manifest["status"][field], current.GetAllocator());
          }
          return Status::Ok();
        },
        "status");
    if (!status.ok()) return status.status().WithContext("updating node status " + node.name);
  }
  return Status::Ok();
}

}  // namespace vtenant::localenv
