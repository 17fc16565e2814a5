// Kubernetes objects as RapidJSON documents, with small accessors for the
// fields vtenant reads.
//
// Objects stay whole documents: a controller that reads three fields and
// writes one back never drops the fields it does not understand.
#pragma once

#include <rapidjson/document.h>

#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace vtenant::kube {

using Object = rapidjson::Document;
// Shared, immutable objects as informer caches hand them out.
using ObjectPtr = std::shared_ptr<const Object>;

// Parses JSON text into an object. Fails with the parse error and offset.
Result<Object> ParseJson(std::string_view text);

// Serialises compactly.
std::string ToJson(const rapidjson::Value& value);

// A deep copy (RapidJSON documents are move-only).
Object Clone(const rapidjson::Value& value);

// An immutable shared copy of `value` in memory sized to it. A Document's
// own allocator starts with a 64 KiB chunk, most of it never used, and each
// object's first pages are then only partly filled; informer caches hold
// many objects for a long time, so they store this compact copy instead.
ObjectPtr ShareCompact(const rapidjson::Value& value);

// Parses JSON text into an immutable shared object in memory sized to it
// (see ShareCompact). Fails like ParseJson.
Result<ObjectPtr> ParseShared(std::string_view text);

// The value at a path of member names, or nullptr if any step is missing or
// not an object.
const rapidjson::Value* Find(const rapidjson::Value& value,
                             std::initializer_list<std::string_view> path);

// The string at `path`, or "" when absent or not a string.
std::string_view GetString(const rapidjson::Value& value,
                           std::initializer_list<std::string_view> path);

// The strings of the array at `path`, in order; elements that are not
// strings are left out, and an absent array or another type gives none.
std::vector<std::string> GetStrings(const rapidjson::Value& value,
                                    std::initializer_list<std::string_view> path);

// The string members of the object at `path` (labels, a matchLabels);
// members of another type are left out.
std::map<std::string, std::string, std::less<>> GetStringMap(
    const rapidjson::Value& value, std::initializer_list<std::string_view> path);

// The integer at `path`, or `fallback` when absent or not an integer.
int64_t GetInt(const rapidjson::Value& value, std::initializer_list<std::string_view> path,
               int64_t fallback = 0);

// metadata accessors: "" (0, nullopt) when the field is absent or of another
// type. The views point into `object`, valid while it lives unchanged.
std::string_view Name(const rapidjson::Value& object);
std::string_view Namespace(const rapidjson::Value& object);
std::string_view Uid(const rapidjson::Value& object);
std::string_view ResourceVersion(const rapidjson::Value& object);
int64_t Generation(const rapidjson::Value& object);
std::optional<std::string_view> Label(const rapidjson::Value& object, std::string_view key);
std::optional<std::string_view> Annotation(const rapidjson::Value& object, std::string_view key);
bool IsBeingDeleted(const rapidjson::Value& object);

// "namespace/name", or "name" for cluster-scoped objects: the key of caches and queues.
std::string KeyOf(const rapidjson::Value& object);
std::string MakeKey(std::string_view ns, std::string_view name);
// Splits a key made by MakeKey into {namespace, name}.
std::pair<std::string, std::string> SplitKey(std::string_view key);

// Returns the object at `path` in `doc`, creating empty objects along the way
// (replacing non-object values).
rapidjson::Value& EnsurePath(Object& doc, std::initializer_list<std::string_view> path);

// Sets a string member `key` of the object at `path`, creating the path.
void SetString(Object& doc, std::initializer_list<std::string_view> path, std::string_view key,
               std::string_view value);

// Removes member `key` of the object at `path`, if present.
void RemoveMember(Object& doc, std::initializer_list<std::string_view> path, std::string_view key);

}  // namespace vtenant::kube
