#include "scheduler/usage_store.h"

#include "kube/json_builder.h"
#include "kube/object.h"
#include "kube/resource.h"

namespace vtenant::scheduler {

ConfigMapUsageStore::ConfigMapUsageStore(kube::Client& client, std::string ns, std::string name)
    : client_(client), ns_(std::move(ns)), name_(std::move(name)) {}

Result<std::string> ConfigMapUsageStore::Load() {
  kube::ListOptions options;
  options.field_selector = "metadata.name=" + name_;
  VT_ASSIGN_OR_RETURN(kube::ObjectList list,
                      client_.List(kube::resources::kConfigMaps, ns_, options));
  if (list.items.empty()) return std::string();
  exists_ = true;
  return std::string(kube::GetString(list.items[0], {"data", "history"}));
}

Status ConfigMapUsageStore::Save(const std::string& history) {
  const kube::JsonObject data{{"history", history}};
  if (!exists_) {
    Result<kube::Object> made =
        client_.Create(kube::resources::kConfigMaps, ns_,
                       kube::BuildJson(kube::JsonObject{
                           {"apiVersion", "v1"},
                           {"kind", "ConfigMap"},
                           {"metadata", kube::JsonObject{{"name", name_}, {"namespace", ns_}}},
                           {"data", data}}));
    if (made.ok() || made.status().code() != StatusCode::kAlreadyExists) {
      exists_ = made.ok();
      return made.status();
    }
    exists_ = true;
  }
  Status patched = client_
                       .Patch(kube::resources::kConfigMaps, ns_, name_, kube::PatchType::kMerge,
                              kube::ToJson(kube::BuildJson(kube::JsonObject{{"data", data}})))
                       .status();
  // Deleted meanwhile: the next Save makes it again.
  if (patched.code() == StatusCode::kNotFound) exists_ = false;
  return patched;
}

}  // namespace vtenant::scheduler
