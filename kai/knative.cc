#include "kai/knative.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "kai/object_fields.h"

namespace vtenant::kai {
namespace {

// Asked of every owner of every pod grouped: no string is built for it.
bool IsKnative(std::string_view api_version, std::string_view kind, std::string_view want) {
  constexpr std::string_view kGroup = kKnativeServingGroup;
  return kind == want && api_version.size() > kGroup.size() && api_version.starts_with(kGroup) &&
         api_version[kGroup.size()] == '/';
}

}  // namespace

bool IsKnativeService(std::string_view api_version, std::string_view kind) {
  return IsKnative(api_version, kind, "Service");
}

bool IsKnativeRevision(std::string_view api_version, std::string_view kind) {
  return IsKnative(api_version, kind, "Revision");
}

int32_t KnativeRevisionMinMember(const rapidjson::Value& revision) {
  std::optional<std::string_view> text = Annotation(revision, kKnativeMinScaleAnnotation);
  std::optional<int64_t> n = text ? WholeNumber(*text) : std::nullopt;
  // KAI writes what Atoi gave; a PodGroup asks for at least one pod.
  return static_cast<int32_t>(
      std::clamp<int64_t>(n.value_or(1), 1, std::numeric_limits<int32_t>::max()));
}

}  // namespace vtenant::kai
