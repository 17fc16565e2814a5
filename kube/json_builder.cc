#include "kube/json_builder.h"

namespace vtenant::kube {

JsonArray::JsonArray(std::initializer_list<JsonValue> items) : items_(items) {}

JsonArray& JsonArray::Add(JsonValue value) {
  items_.push_back(std::move(value));
  return *this;
}

JsonObject::JsonObject(std::initializer_list<std::pair<std::string_view, JsonValue>> members) {
  for (const auto& [key, value] : members) Set(key, value);
}

JsonObject& JsonObject::Set(std::string_view key, JsonValue value) {
  for (auto& [k, v] : members_) {
    if (k == key) {
      v = std::move(value);
      return *this;
    }
  }
  members_.emplace_back(std::string(key), std::move(value));
  return *this;
}

JsonValue::JsonValue(const rapidjson::Value& value) : v_(std::make_shared<Object>(Clone(value))) {}

rapidjson::Value JsonValue::ToRapidJson(Object::AllocatorType& a) const {
  struct Visitor {
    Object::AllocatorType& a;
    rapidjson::Value operator()(std::monostate) const { return rapidjson::Value(); }
    rapidjson::Value operator()(bool b) const { return rapidjson::Value(b); }
    rapidjson::Value operator()(int64_t i) const { return rapidjson::Value(i); }
    rapidjson::Value operator()(double d) const { return rapidjson::Value(d); }
    rapidjson::Value operator()(const std::string& s) const {
      return rapidjson::Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
    }
    rapidjson::Value operator()(const std::shared_ptr<JsonArray>& array) const {
      rapidjson::Value out(rapidjson::kArrayType);
      out.Reserve(static_cast<rapidjson::SizeType>(array->items().size()), a);
      for (const JsonValue& item : array->items()) out.PushBack(item.ToRapidJson(a), a);
      return out;
    }
    rapidjson::Value operator()(const std::shared_ptr<JsonObject>& object) const {
      rapidjson::Value out(rapidjson::kObjectType);
      for (const auto& [key, value] : object->members()) {
        out.AddMember(rapidjson::Value(key.data(), static_cast<rapidjson::SizeType>(key.size()), a),
                      value.ToRapidJson(a), a);
      }
      return out;
    }
    rapidjson::Value operator()(const std::shared_ptr<Object>& copy) const {
      return rapidjson::Value(*copy, a);
    }
  };
  return std::visit(Visitor{a}, v_);
}

Object BuildJson(const JsonValue& value) {
  Object doc;
  rapidjson::Value v = value.ToRapidJson(doc.GetAllocator());
  static_cast<rapidjson::Value&>(doc) = std::move(v);
  return doc;
}

JsonArray StringArray(const std::vector<std::string>& items) {
  JsonArray out;
  for (const std::string& item : items) out.Add(item);
  return out;
}

JsonObject StringMap(const std::map<std::string, std::string>& items) {
  JsonObject out;
  for (const auto& [key, value] : items) out.Set(key, value);
  return out;
}

}  // namespace vtenant::kube
