#include "kai/object_fields.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace vtenant::kai {
namespace {

std::optional<std::string_view> MetadataEntry(const rapidjson::Value& object, std::string_view map,
                                              std::string_view key) {
  const rapidjson::Value* value = MemberAt(object, {"metadata", map, key});
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

const rapidjson::Value* MemberAt(const rapidjson::Value& object,
                                 std::initializer_list<std::string_view> path) {
  const rapidjson::Value* at = &object;
  for (std::string_view name : path)
    if (at = Member(*at, name); at == nullptr) return nullptr;
  return at;
}

std::optional<int64_t> IntAt(const rapidjson::Value& object,
                             std::initializer_list<std::string_view> path) {
  const rapidjson::Value* v = MemberAt(object, path);
  if (v == nullptr || !v->IsInt64()) return std::nullopt;
  return v->GetInt64();
}

std::string StringAt(const rapidjson::Value& object, std::initializer_list<std::string_view> path) {
  const rapidjson::Value* v = MemberAt(object, path);
  return v != nullptr && v->IsString() ? std::string(v->GetString(), v->GetStringLength()) : "";
}

std::optional<std::string_view> Label(const rapidjson::Value& object, std::string_view key) {
  return MetadataEntry(object, "labels", key);
}

std::optional<std::string_view> Annotation(const rapidjson::Value& object, std::string_view key) {
  return MetadataEntry(object, "annotations", key);
}

std::optional<int64_t> WholeNumber(std::string_view text) {
  const bool negative = text.starts_with('-');
  if (negative || text.starts_with('+')) text.remove_prefix(1);  // one sign only
  if (text.empty() || text.size() > 18) return std::nullopt;
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return negative ? -value : value;
}

std::string JsonText(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace vtenant::kai
