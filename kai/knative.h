// How KAI's pod grouper groups a Knative Service's pods (serving.knative.dev):
// by their Revision, the owner between the Service's Configuration and the
// Deployment of each revision, so that the pods of one revision start
// together:
//   - the group is the Revision's (pg-<revision>-<revision uid> on the host,
//     owned by it), its labels and annotations the Revision's;
//   - minMember: the Revision's autoscaling.knative.dev/min-scale annotation,
//     as Go's Atoi reads it; absent or not a number: 1 (KAI logs and uses
//     1). A revision that scales to zero starts a pod at a time;
//   - default priority class "inference" (an inference service).
// KAI's flag --knative-gang-schedule (on by default) is taken as on; its
// handling of revisions that earlier KAI versions grouped per pod is not
// copied.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <string_view>

namespace vtenant::kai {

inline constexpr char kKnativeServingGroup[] = "serving.knative.dev";
inline constexpr char kKnativeMinScaleAnnotation[] = "autoscaling.knative.dev/min-scale";

// Whether an owner of `api_version` and `kind` is a Knative Service, whose
// pods are grouped by their Revision.
bool IsKnativeService(std::string_view api_version, std::string_view kind);

// Whether it is a Knative Revision.
bool IsKnativeRevision(std::string_view api_version, std::string_view kind);

// The minMember of `revision`'s group, by the rule above: at least 1.
int32_t KnativeRevisionMinMember(const rapidjson::Value& revision);

}  // namespace vtenant::kai
