#include "kube/views/core_kinds.h"

#include "kube/base64.h"

namespace vtenant::kube {

Result<std::optional<std::string>> SecretData(const rapidjson::Value& secret,
                                              std::string_view key) {
  const rapidjson::Value* v = Find(secret, {"data", key});
  if (v == nullptr || !v->IsString()) return std::optional<std::string>();
  VT_ASSIGN_OR_RETURN(std::string bytes, DecodeBase64({v->GetString(), v->GetStringLength()},
                                                      "data." + std::string(key)));
  return std::optional<std::string>(std::move(bytes));
}

void MutableSecret::SetData(std::string_view key, std::string_view bytes) {
  SetString(doc(), {"data"}, key, EncodeBase64(bytes));
}

}  // namespace vtenant::kube
