// The few reads of a Kubernetes object (a RapidJSON value) the KAI rules
// need, so this library needs RapidJSON's headers and not kube/'s client.
// Label and Annotation behave as kube/object.h's of the same names, and
// JsonText as kube::ToJson; WholeNumber reads a number as KAI's Go does.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace vtenant::kai {

// The member `name` of `object`, or nullptr when `object` is not an object
// or has no such member.
const rapidjson::Value* Member(const rapidjson::Value& object, std::string_view name);

// The value at `path` below `object`, one Member per step ({"spec",
// "replicas"}), or nullptr when a step is missing or not an object.
const rapidjson::Value* MemberAt(const rapidjson::Value& object,
                                 std::initializer_list<std::string_view> path);

// The integer at `path`, or nullopt when it is missing or not an int64.
std::optional<int64_t> IntAt(const rapidjson::Value& object,
                             std::initializer_list<std::string_view> path);

// The string at `path`, or "" when it is missing or not a string.
std::string StringAt(const rapidjson::Value& object, std::initializer_list<std::string_view> path);

// metadata.labels[key] / metadata.annotations[key] when present and a string.
std::optional<std::string_view> Label(const rapidjson::Value& object, std::string_view key);
std::optional<std::string_view> Annotation(const rapidjson::Value& object, std::string_view key);

// `text` as Go's strconv.Atoi reads it (an optional sign, then up to 18
// digits), as KAI reads the numbers in workload labels and annotations;
// nullopt when it is not one.
std::optional<int64_t> WholeNumber(std::string_view text);

// `value` as compact JSON, for messages that quote what was written.
std::string JsonText(const rapidjson::Value& value);

}  // namespace vtenant::kai
