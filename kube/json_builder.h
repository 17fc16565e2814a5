// Documents built in code as a tree of values, instead of JSON text pasted
// together from strings: RapidJSON escapes every string, and the shape of
// the document is visible in the code that makes it.
//
//   kube::JsonObject rule{{"apiGroups", kube::JsonArray{""}},
//                         {"resources", kube::JsonArray{"pods"}},
//                         {"verbs", kube::JsonArray{"get", "list", "watch"}}};
//   if (!names.empty()) rule.Set("resourceNames", kube::StringArray(names));
//   kube::Object role = kube::BuildJson(kube::JsonObject{
//       {"apiVersion", "rbac.authorization.k8s.io/v1"},
//       {"kind", "Role"},
//       {"metadata", kube::JsonObject{{"name", name}, {"namespace", ns}}},
//       {"rules", kube::JsonArray{std::move(rule)}}});
//
// For documents made in control paths (operator, CLI, tests). Hot paths
// that rewrite large objects per event edit RapidJSON values in place.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "kube/object.h"

namespace vtenant::kube {

class JsonValue;

// An array under construction.
class JsonArray {
 public:
  JsonArray() = default;
  JsonArray(std::initializer_list<JsonValue> items);

  // Appends `value`; returns *this for chaining.
  JsonArray& Add(JsonValue value);
  bool empty() const { return items_.empty(); }

  const std::vector<JsonValue>& items() const { return items_; }

 private:
  std::vector<JsonValue> items_;
};

// An object under construction. Members keep the order they were set in;
// setting a key again replaces its value in place.
class JsonObject {
 public:
  JsonObject() = default;
  JsonObject(std::initializer_list<std::pair<std::string_view, JsonValue>> members);

  // Sets member `key` to `value`; returns *this for chaining.
  JsonObject& Set(std::string_view key, JsonValue value);
  bool empty() const { return members_.empty(); }

  const std::vector<std::pair<std::string, JsonValue>>& members() const { return members_; }

 private:
  std::vector<std::pair<std::string, JsonValue>> members_;
};

// One value: null, bool, integer, number, string, array, object, or a copy
// of an existing RapidJSON value (a field of an object read from a server).
class JsonValue {
 public:
  JsonValue() = default;  // null
  JsonValue(std::nullptr_t) {}
  JsonValue(bool b) : v_(b) {}
  JsonValue(int i) : v_(static_cast<int64_t>(i)) {}
  JsonValue(int64_t i) : v_(i) {}
  JsonValue(double d) : v_(d) {}
  JsonValue(const char* s) : v_(std::string(s)) {}
  JsonValue(std::string_view s) : v_(std::string(s)) {}
  JsonValue(std::string s) : v_(std::move(s)) {}
  JsonValue(JsonArray a) : v_(std::make_shared<JsonArray>(std::move(a))) {}
  JsonValue(JsonObject o) : v_(std::make_shared<JsonObject>(std::move(o))) {}
  // A deep copy of `value`, taken now.
  explicit JsonValue(const rapidjson::Value& value);

  // This value as a member of a document that uses allocator `a`.
  rapidjson::Value ToRapidJson(Object::AllocatorType& a) const;

 private:
  std::variant<std::monostate, bool, int64_t, double, std::string, std::shared_ptr<JsonArray>,
               std::shared_ptr<JsonObject>, std::shared_ptr<Object>>
      v_;
};

// The document `value` describes.
Object BuildJson(const JsonValue& value);

// An array of the strings in `items`, in their order.
JsonArray StringArray(const std::vector<std::string>& items);

// An object of the string pairs in `items`, in key order.
JsonObject StringMap(const std::map<std::string, std::string>& items);

}  // namespace vtenant::kube
