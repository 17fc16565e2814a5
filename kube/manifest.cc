#include "kube/manifest.h"

#include <fstream>
#include <sstream>
#include <thread>

#include "kube/yaml.h"

namespace vtenant::kube {
namespace {

std::string Describe(const rapidjson::Value& object) {
  std::string out(GetString(object, {"kind"}));
  out += " ";
  if (!Namespace(object).empty()) {
    out += Namespace(object);
    out += "/";
  }
  out += Name(object);
  return out;
}

bool IsEstablished(const rapidjson::Value& crd) {
  const rapidjson::Value* conditions = Find(crd, {"status", "conditions"});
  if (conditions == nullptr || !conditions->IsArray()) return false;
  for (const rapidjson::Value& c : conditions->GetArray()) {
    if (GetString(c, {"type"}) == "Established" && GetString(c, {"status"}) == "True") return true;
  }
  return false;
}

}  // namespace

Result<Object> ApplyObject(Client& client, const rapidjson::Value& object,
                           const ApplyOptions& options) {
  if (!object.IsObject()) return InvalidArgument("a manifest document is not an object");
  if (Name(object).empty()) {
    return InvalidArgument(std::string(GetString(object, {"kind"})) + " without metadata.name");
  }
  VT_ASSIGN_OR_RETURN(ResourceType type, ResourceTypeFor(GetString(object, {"apiVersion"}),
                                                         GetString(object, {"kind"})));
  std::string ns(Namespace(object));
  if (type.namespaced && ns.empty()) ns = options.default_namespace;
  if (!type.namespaced) ns.clear();
  PatchOptions patch{.field_manager = options.field_manager, .force = options.force};
  Result<Object> applied =
      client.Patch(type, ns, Name(object), PatchType::kApply, ToJson(object), patch);
  if (!applied.ok()) return applied.status().WithContext("apply " + Describe(object));
  if (type.kind == "CustomResourceDefinition" && options.crd_established_timeout.count() > 0) {
    VT_RETURN_IF_ERROR(
        WaitForCrdEstablished(client, Name(object), options.crd_established_timeout));
  }
  return applied;
}

Status ApplyManifest(Client& client, std::string_view yaml_text, const ApplyOptions& options) {
  VT_ASSIGN_OR_RETURN(std::vector<Object> documents, ParseYamlDocuments(yaml_text));
  for (const Object& document : documents) {
    if (GetString(document, {"kind"}) == "List") {
      const rapidjson::Value* items = Find(document, {"items"});
      if (items == nullptr || !items->IsArray()) continue;
      for (const rapidjson::Value& item : items->GetArray()) {
        VT_RETURN_IF_ERROR(ApplyObject(client, item, options).status());
      }
      continue;
    }
    VT_RETURN_IF_ERROR(ApplyObject(client, document, options).status());
  }
  return Status::Ok();
}

Status ApplyManifestFiles(Client& client, const std::vector<std::string>& paths,
                          const ApplyOptions& options) {
  for (const std::string& path : paths) {
    std::ifstream in(path);
    if (!in) return NotFound("cannot read manifest " + path);
    std::stringstream text;
    text << in.rdbuf();
    VT_RETURN_IF_ERROR(ApplyManifest(client, text.str(), options).WithContext(path));
  }
  return Status::Ok();
}

Status WaitForCrdEstablished(Client& client, std::string_view name,
                             std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  Status last = Status::Ok();
  while (true) {
    Result<Object> crd = client.Get(resources::kCustomResourceDefinitions, "", name);
    if (crd.ok() && IsEstablished(*crd)) return Status::Ok();
    if (!crd.ok()) last = crd.status();
    if (std::chrono::steady_clock::now() >= deadline) {
      return Status(StatusCode::kTimeout, "CRD " + std::string(name) + " not established within " +
                                              std::to_string(timeout.count()) + " ms" +
                                              (last.ok() ? "" : " (" + last.ToString() + ")"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace vtenant::kube
