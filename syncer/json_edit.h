// Small edits of RapidJSON values inside a document, for translators that
// rewrite whole objects. Every function takes the document's allocator.
#pragma once

#include <string_view>

#include "kube/object.h"

namespace vtenant::syncer {

using Allocator = kube::Object::AllocatorType;

inline rapidjson::Value JsonString(std::string_view s, Allocator& a) {
  return rapidjson::Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
}

// Sets member `key` of object `obj` to `value` (replacing it if present).
inline void SetMember(rapidjson::Value& obj, std::string_view key, rapidjson::Value value,
                      Allocator& a) {
  auto it = obj.FindMember(rapidjson::Value(rapidjson::StringRef(key.data(), key.size())));
  if (it != obj.MemberEnd()) {
    it->value = std::move(value);
  } else {
    obj.AddMember(JsonString(key, a), std::move(value), a);
  }
}

inline void SetStringMember(rapidjson::Value& obj, std::string_view key, std::string_view value,
                            Allocator& a) {
  SetMember(obj, key, JsonString(value, a), a);
}

inline void EraseMember(rapidjson::Value& obj, std::string_view key) {
  if (obj.IsObject()) obj.RemoveMember(rapidjson::StringRef(key.data(), key.size()));
}

// Member `key` of `obj`, created empty of `type` (an object or an array)
// when absent or of another type.
inline rapidjson::Value& MemberOfType(rapidjson::Value& obj, std::string_view key,
                                      rapidjson::Type type, Allocator& a) {
  const rapidjson::Value name(rapidjson::StringRef(key.data(), key.size()));
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd()) {
    obj.AddMember(JsonString(key, a), rapidjson::Value(type), a);
    return obj[name];
  }
  if (it->value.GetType() != type) it->value = rapidjson::Value(type);
  return it->value;
}

// Member `key` of `obj`, created as an empty object when absent or of
// another type (ArrayMember: as an empty array).
inline rapidjson::Value& ObjectMember(rapidjson::Value& obj, std::string_view key, Allocator& a) {
  return MemberOfType(obj, key, rapidjson::kObjectType, a);
}

inline rapidjson::Value& ArrayMember(rapidjson::Value& obj, std::string_view key, Allocator& a) {
  return MemberOfType(obj, key, rapidjson::kArrayType, a);
}

// Member `key` of `obj` when it is an array (FindObject: an object), else
// nullptr.
inline rapidjson::Value* FindArray(rapidjson::Value& obj, std::string_view key) {
  if (!obj.IsObject()) return nullptr;
  auto it = obj.FindMember(rapidjson::Value(rapidjson::StringRef(key.data(), key.size())));
  return it != obj.MemberEnd() && it->value.IsArray() ? &it->value : nullptr;
}

inline rapidjson::Value* FindObject(rapidjson::Value& obj, std::string_view key) {
  if (!obj.IsObject()) return nullptr;
  auto it = obj.FindMember(rapidjson::Value(rapidjson::StringRef(key.data(), key.size())));
  return it != obj.MemberEnd() && it->value.IsObject() ? &it->value : nullptr;
}

}  // namespace vtenant::syncer
