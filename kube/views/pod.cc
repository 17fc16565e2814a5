#include "kube/views/pod.h"

namespace vtenant::kube {
namespace {

std::optional<Quantity> ContainerResource(const rapidjson::Value& container, std::string_view field,
                                          std::string_view resource) {
  const rapidjson::Value* list = Find(container, {"resources", field});
  if (list == nullptr || !list->IsObject()) return std::nullopt;
  auto it = list->FindMember(rapidjson::Value(
      rapidjson::StringRef(resource.data(), static_cast<rapidjson::SizeType>(resource.size()))));
  if (it == list->MemberEnd()) return std::nullopt;
  Result<Quantity> q = it->value.IsString()
                           ? Quantity::Parse({it->value.GetString(), it->value.GetStringLength()})
                       : it->value.IsInt64() ? Quantity::FromValue(it->value.GetInt64())
                                             : Result<Quantity>(InvalidArgument("not a quantity"));
  if (!q.ok()) return std::nullopt;
  return *q;
}

}  // namespace

std::optional<Quantity> PodResource(const rapidjson::Value& pod, std::string_view field,
                                    std::string_view resource) {
  std::optional<int64_t> apps;
  if (const rapidjson::Value* containers = Find(pod, {"spec", "containers"});
      containers != nullptr && containers->IsArray()) {
    for (const rapidjson::Value& c : containers->GetArray()) {
      if (std::optional<Quantity> q = ContainerResource(c, field, resource)) {
        apps = apps.value_or(0) + q->Milli();
      }
    }
  }
  std::optional<int64_t> largest_init;
  if (const rapidjson::Value* inits = Find(pod, {"spec", "initContainers"});
      inits != nullptr && inits->IsArray()) {
    for (const rapidjson::Value& c : inits->GetArray()) {
      if (std::optional<Quantity> q = ContainerResource(c, field, resource)) {
        largest_init = std::max(largest_init.value_or(0), q->Milli());
      }
    }
  }
  if (!apps && !largest_init) return std::nullopt;
  return Quantity::FromMilli(std::max(apps.value_or(0), largest_init.value_or(0)));
}

}  // namespace vtenant::kube
