#include "kube/views/node.h"

namespace vtenant::kube {

std::optional<Quantity> NodeResource(const rapidjson::Value& node, std::string_view field,
                                     std::string_view resource) {
  const rapidjson::Value* list = Find(node, {"status", field});
  if (list == nullptr || !list->IsObject()) return std::nullopt;
  for (auto it = list->MemberBegin(); it != list->MemberEnd(); ++it) {
    if (std::string_view(it->name.GetString(), it->name.GetStringLength()) != resource) continue;
    if (!it->value.IsString()) return std::nullopt;
    Result<Quantity> q = Quantity::Parse({it->value.GetString(), it->value.GetStringLength()});
    if (!q.ok()) return std::nullopt;
    return *q;
  }
  return std::nullopt;
}

}  // namespace vtenant::kube
