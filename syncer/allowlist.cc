#include "syncer/allowlist.h"

#include <glog/logging.h>

#include <algorithm>

namespace vtenant::syncer {
namespace {

std::string_view NameOf(const rapidjson::Value& name) {
  return {name.GetString(), name.GetStringLength()};
}

// Entries are ordered by length first, so most comparisons of a lookup end
// without reading the names.
bool Before(std::string_view a, std::string_view b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

}  // namespace

std::string FieldPath(std::string_view path, std::string_view name) {
  std::string out;
  out.reserve(path.size() + 1 + name.size());
  out += path;
  if (!path.empty()) out += '.';
  out += name;
  return out;
}

Schema& Schema::Add(std::string_view name, Rule rule, const Schema* nested) {
  auto at = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const Entry& e, std::string_view n) { return Before(e.name, n); });
  CHECK(at == entries_.end() || at->name != name) << "schema names member " << name << " twice";
  entries_.insert(at, Entry{std::string(name), rule, nested});
  return *this;
}

Schema& Schema::Copy(std::initializer_list<std::string_view> names) {
  for (std::string_view n : names) Add(n, Rule::kCopy, nullptr);
  return *this;
}

Schema& Schema::Object(std::string_view name, const Schema* schema) {
  CHECK(schema != nullptr);
  return Add(name, Rule::kObject, schema);
}

Schema& Schema::ArrayOf(std::string_view name, const Schema* schema) {
  CHECK(schema != nullptr);
  return Add(name, Rule::kArrayOf, schema);
}

Schema& Schema::Custom(std::initializer_list<std::string_view> names) {
  for (std::string_view n : names) Add(n, Rule::kCustom, nullptr);
  return *this;
}

const Schema::Entry* Schema::Find(std::string_view name) const {
  auto at = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const Entry& e, std::string_view n) { return Before(e.name, n); });
  return at != entries_.end() && at->name == name ? &*at : nullptr;
}

void Schema::Apply(const rapidjson::Value& from, rapidjson::Value& out, Allocator& a,
                   std::string_view path, DroppedFields* dropped) const {
  std::string buffer(path);
  Walk(from, out, a, buffer, dropped);
}

void Schema::Walk(const rapidjson::Value& from, rapidjson::Value& out, Allocator& a,
                  std::string& path, DroppedFields* dropped) const {
  if (!out.IsObject()) out.SetObject();
  if (!from.IsObject()) {
    if (dropped != nullptr) dropped->push_back(path);
    return;
  }
  // `path` grows by one member while that member is walked and is cut back
  // after, so a walk allocates no path unless something is dropped.
  const size_t mark = path.size();
  auto enter = [&](std::string_view name) {
    if (!path.empty()) path += '.';
    path += name;
  };
  for (const auto& m : from.GetObject()) {
    const std::string_view name = NameOf(m.name);
    const Entry* entry = Find(name);
    if (entry == nullptr) {
      if (dropped != nullptr) dropped->push_back(FieldPath(path, name));
      continue;
    }
    switch (entry->rule) {
      case Rule::kCopy:
        out.AddMember(JsonString(name, a), rapidjson::Value(m.value, a), a);
        break;
      case Rule::kObject: {
        if (m.value.IsNull()) break;  // an explicit null says as much as absence
        rapidjson::Value nested(rapidjson::kObjectType);
        enter(name);
        entry->nested->Walk(m.value, nested, a, path, dropped);
        path.resize(mark);
        if (m.value.IsObject()) out.AddMember(JsonString(name, a), std::move(nested), a);
        break;
      }
      case Rule::kArrayOf: {
        if (m.value.IsNull()) break;
        enter(name);
        if (!m.value.IsArray()) {
          if (dropped != nullptr) dropped->push_back(path);
          path.resize(mark);
          break;
        }
        path += "[]";
        rapidjson::Value items(rapidjson::kArrayType);
        items.Reserve(m.value.Size(), a);
        for (const rapidjson::Value& item : m.value.GetArray()) {
          rapidjson::Value copy(rapidjson::kObjectType);
          entry->nested->Walk(item, copy, a, path, dropped);
          if (item.IsObject()) items.PushBack(std::move(copy), a);
        }
        path.resize(mark);
        out.AddMember(JsonString(name, a), std::move(items), a);
        break;
      }
      case Rule::kCustom:
        break;
    }
  }
}

}  // namespace vtenant::syncer
