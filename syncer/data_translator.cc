#include "syncer/data_translator.h"

#include <array>

#include "syncer/json_edit.h"

namespace vtenant::syncer {
namespace {

const Schema& ConfigMapSchema() {
  static const Schema kSchema =
      Schema().Custom({"apiVersion", "kind", "metadata"}).Copy({"data", "binaryData", "immutable"});
  return kSchema;
}

const Schema& SecretSchema() {
  static const Schema kSchema =
      Schema().Custom({"apiVersion", "kind", "metadata", "type"}).Copy({"data", "immutable"});
  return kSchema;
}

}  // namespace

std::string_view HostSecretType(std::string_view type) {
  static constexpr std::array<std::string_view, 6> kKept = {"Opaque",
                                                            "kubernetes.io/dockerconfigjson",
                                                            "kubernetes.io/dockercfg",
                                                            "kubernetes.io/tls",
                                                            "kubernetes.io/basic-auth",
                                                            "kubernetes.io/ssh-auth"};
  for (std::string_view kept : kKept) {
    if (type == kept) return kept;
  }
  return "Opaque";
}

kube::Object DataTranslator::ToHost(const rapidjson::Value& virtual_object,
                                    TranslationNotes* notes) const {
  kube::Object out = HostObjectBase(virtual_object, config_, DefaultMetadataRules(), notes);
  Allocator& a = out.GetAllocator();
  const bool secret = kube::GetString(virtual_object, {"kind"}) == "Secret";
  const Schema& schema = secret ? SecretSchema() : ConfigMapSchema();
  schema.Apply(virtual_object, out, a, "", notes != nullptr ? &notes->dropped : nullptr);
  if (secret) {
    // The API server defaults an empty type to Opaque.
    SetStringMember(out, "type", HostSecretType(kube::GetString(virtual_object, {"type"})), a);
  }
  return out;
}

std::optional<kube::Object> DataTranslator::Update(const rapidjson::Value& desired,
                                                   const rapidjson::Value& host) const {
  return WithFields(desired, host, {"data", "binaryData", "immutable"});
}

bool DataTranslator::NeedsReplace(const rapidjson::Value& desired,
                                  const rapidjson::Value& host) const {
  const rapidjson::Value* immutable = kube::Find(host, {"immutable"});
  const bool frozen = immutable != nullptr && immutable->IsBool() && immutable->GetBool();
  if (frozen) {
    // An immutable host copy takes no change at all, not even its thaw.
    const rapidjson::Value* stays = kube::Find(desired, {"immutable"});
    if (stays == nullptr || !stays->IsBool() || !stays->GetBool()) return true;
    for (std::string_view field : {"data", "binaryData"}) {
      const rapidjson::Value* want = kube::Find(desired, {field});
      const rapidjson::Value* have = kube::Find(host, {field});
      if ((want == nullptr) != (have == nullptr) || (want != nullptr && *want != *have)) {
        return true;
      }
    }
  }
  return kube::GetString(desired, {"type"}) != kube::GetString(host, {"type"});
}

}  // namespace vtenant::syncer
