#include "kube/object.h"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace vtenant::kube {

namespace {
rapidjson::Value::StringRefType Ref(std::string_view s) {
  return rapidjson::Value::StringRefType(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}
}  // namespace

Result<Object> ParseJson(std::string_view text) {
  Object doc;
  doc.Parse(text.data(), text.size());
  if (doc.HasParseError()) {
    return InvalidArgument(std::string("invalid JSON at offset ") +
                           std::to_string(doc.GetErrorOffset()) + ": " +
                           rapidjson::GetParseError_En(doc.GetParseError()));
  }
  return doc;
}

std::string ToJson(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

Object Clone(const rapidjson::Value& value) {
  Object doc;
  doc.CopyFrom(value, doc.GetAllocator());
  return doc;
}

const rapidjson::Value* Find(const rapidjson::Value& value,
                             std::initializer_list<std::string_view> path) {
  const rapidjson::Value* current = &value;
  for (std::string_view step : path) {
    if (!current->IsObject()) return nullptr;
    auto it = current->FindMember(rapidjson::Value(Ref(step)));
    if (it == current->MemberEnd()) return nullptr;
    current = &it->value;
  }
  return current;
}

std::string_view GetString(const rapidjson::Value& value,
                           std::initializer_list<std::string_view> path) {
  const rapidjson::Value* v = Find(value, path);
  if (v == nullptr || !v->IsString()) return {};
  return {v->GetString(), v->GetStringLength()};
}

std::vector<std::string> GetStrings(const rapidjson::Value& value,
                                    std::initializer_list<std::string_view> path) {
  std::vector<std::string> out;
  if (const rapidjson::Value* v = Find(value, path); v != nullptr && v->IsArray())
    for (const rapidjson::Value& e : v->GetArray())
      if (e.IsString()) out.emplace_back(e.GetString(), e.GetStringLength());
  return out;
}

std::map<std::string, std::string, std::less<>> GetStringMap(
    const rapidjson::Value& value, std::initializer_list<std::string_view> path) {
  std::map<std::string, std::string, std::less<>> out;
  if (const rapidjson::Value* v = Find(value, path); v != nullptr && v->IsObject())
    for (const auto& m : v->GetObject())
      if (m.value.IsString())
        out.emplace(std::string(m.name.GetString(), m.name.GetStringLength()),
                    std::string(m.value.GetString(), m.value.GetStringLength()));
  return out;
}

int64_t GetInt(const rapidjson::Value& value, std::initializer_list<std::string_view> path,
               int64_t fallback) {
  const rapidjson::Value* v = Find(value, path);
  return v != nullptr && v->IsInt64() ? v->GetInt64() : fallback;
}

std::string_view Name(const rapidjson::Value& o) { return GetString(o, {"metadata", "name"}); }
std::string_view Namespace(const rapidjson::Value& o) {
  return GetString(o, {"metadata", "namespace"});
}
std::string_view Uid(const rapidjson::Value& o) { return GetString(o, {"metadata", "uid"}); }
std::string_view ResourceVersion(const rapidjson::Value& o) {
  return GetString(o, {"metadata", "resourceVersion"});
}
int64_t Generation(const rapidjson::Value& o) { return GetInt(o, {"metadata", "generation"}); }

namespace {
std::optional<std::string_view> MapEntry(const rapidjson::Value& o, std::string_view map,
                                         std::string_view key) {
  const rapidjson::Value* v = Find(o, {"metadata", map, key});
  if (v == nullptr || !v->IsString()) return std::nullopt;
  return std::string_view(v->GetString(), v->GetStringLength());
}
}  // namespace

std::optional<std::string_view> Label(const rapidjson::Value& o, std::string_view key) {
  return MapEntry(o, "labels", key);
}
std::optional<std::string_view> Annotation(const rapidjson::Value& o, std::string_view key) {
  return MapEntry(o, "annotations", key);
}
bool IsBeingDeleted(const rapidjson::Value& o) {
  return Find(o, {"metadata", "deletionTimestamp"}) != nullptr &&
         !Find(o, {"metadata", "deletionTimestamp"})->IsNull();
}

std::string MakeKey(std::string_view ns, std::string_view name) {
  if (ns.empty()) return std::string(name);
  std::string key(ns);
  key += '/';
  key += name;
  return key;
}

std::string KeyOf(const rapidjson::Value& object) {
  return MakeKey(Namespace(object), Name(object));
}

std::pair<std::string, std::string> SplitKey(std::string_view key) {
  size_t slash = key.find('/');
  if (slash == std::string_view::npos) return {"", std::string(key)};
  return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

rapidjson::Value& EnsurePath(Object& doc, std::initializer_list<std::string_view> path) {
  auto& alloc = doc.GetAllocator();
  if (!doc.IsObject()) doc.SetObject();
  rapidjson::Value* current = &doc;
  for (std::string_view step : path) {
    auto it = current->FindMember(rapidjson::Value(Ref(step)));
    if (it == current->MemberEnd()) {
      current->AddMember(
          rapidjson::Value(step.data(), static_cast<rapidjson::SizeType>(step.size()), alloc),
          rapidjson::Value(rapidjson::kObjectType), alloc);
      current = &(*current)[rapidjson::Value(Ref(step))];
    } else {
      if (!it->value.IsObject()) it->value.SetObject();
      current = &it->value;
    }
  }
  return *current;
}

void SetString(Object& doc, std::initializer_list<std::string_view> path, std::string_view key,
               std::string_view value) {
  auto& alloc = doc.GetAllocator();
  rapidjson::Value& target = EnsurePath(doc, path);
  rapidjson::Value v(value.data(), static_cast<rapidjson::SizeType>(value.size()), alloc);
  auto it = target.FindMember(rapidjson::Value(Ref(key)));
  if (it != target.MemberEnd()) {
    it->value = v;
  } else {
    target.AddMember(
        rapidjson::Value(key.data(), static_cast<rapidjson::SizeType>(key.size()), alloc), v,
        alloc);
  }
}

void RemoveMember(Object& doc, std::initializer_list<std::string_view> path, std::string_view key) {
  rapidjson::Value* target = const_cast<rapidjson::Value*>(Find(doc, path));
  if (target != nullptr && target->IsObject()) target->RemoveMember(rapidjson::Value(Ref(key)));
}

namespace {

// An object and the allocator that owns its memory, allocated together.
struct CompactObject {
  // Small chunks: an object costs its size rounded up to a chunk, not 64 KiB
  // of address space and the pages it happens to touch.
  static constexpr size_t kChunk = 1024;
  explicit CompactObject(size_t chunk = kChunk) : allocator(chunk) {}
  rapidjson::MemoryPoolAllocator<> allocator;
  Object object{&allocator};
};

}  // namespace

ObjectPtr ShareCompact(const rapidjson::Value& value) {
  auto holder = std::make_shared<CompactObject>();
  holder->object.CopyFrom(value, holder->allocator);
  return ObjectPtr(holder, &holder->object);
}

Result<ObjectPtr> ParseShared(std::string_view text) {
  // A Kubernetes object's DOM is a little under twice its compact text, so
  // one chunk of this size usually holds all of it.
  auto holder = std::make_shared<CompactObject>(2 * text.size() + 256);
  holder->object.Parse(text.data(), text.size());
  if (holder->object.HasParseError()) {
    return InvalidArgument(std::string("invalid JSON at offset ") +
                           std::to_string(holder->object.GetErrorOffset()) + ": " +
                           rapidjson::GetParseError_En(holder->object.GetParseError()));
  }
  return ObjectPtr(holder, &holder->object);
}

}  // namespace vtenant::kube
