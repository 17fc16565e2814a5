#include "kai/object_fields.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace vtenant::kai {
namespace {

std::optional<std::string_view> MetadataEntry(const rapidjson::Value& object, std::string_view map,
                                              std::string_view key) {
  const rapidjson::Value* metadata = Member(object, "metadata");
  const rapidjson::Value* entries = metadata == nullptr ? nullptr : Member(*metadata, map);
  const rapidjson::Value* value = entries == nullptr ? nullptr : Member(*entries, key);
  if (value == nullptr || !value->IsString()) return std::nullopt;
  return std::string_view(value->GetString(), value->GetStringLength());
}

}  // namespace

const rapidjson::Value* Member(const rapidjson::Value& object, std::string_view name) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(rapidjson::Value(
      rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size()))));
  return it == object.MemberEnd() ? nullptr : &it->value;
}

std::optional<std::string_view> Label(const rapidjson::Value& object, std::string_view key) {
  return MetadataEntry(object, "labels", key);
}

std::optional<std::string_view> Annotation(const rapidjson::Value& object, std::string_view key) {
  return MetadataEntry(object, "annotations", key);
}

std::string JsonText(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace vtenant::kai
