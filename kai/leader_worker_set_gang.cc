#include "kai/leader_worker_set_gang.h"

#include <algorithm>
#include <optional>
#include <string>

#include "kai/min_member.h"
#include "kai/names.h"
#include "kai/object_fields.h"
#include "kai/workload_topology.h"

namespace vtenant::kai {
namespace {

struct Segmentation {
  int32_t size = 0;  // workers per segment
  bool leader_excluded = false;
};

// The segment size, from the first place KAI looks that sets one; nullopt
// when none does.
Result<std::optional<int64_t>> SegmentSize(const rapidjson::Value& lws, const std::string& where) {
  if (const rapidjson::Value* v =
          MemberAt(lws, {"spec", "leaderWorkerTemplate", "subGroupPolicy", "subGroupSize"})) {
    if (!v->IsInt64())
      return InvalidArgument(where + ": subGroupPolicy.subGroupSize " + JsonText(*v) +
                             " is not a whole number");
    return std::optional<int64_t>(v->GetInt64());
  }
  for (const rapidjson::Value* object :
       {&lws, MemberAt(lws, {"spec", "leaderWorkerTemplate", "workerTemplate"})}) {
    if (object == nullptr) continue;
    std::optional<std::string_view> text = Annotation(*object, kSegmentSizeAnnotation);
    if (!text) continue;
    std::optional<int64_t> n = WholeNumber(*text);
    if (!n)
      return InvalidArgument(where + ": annotation " + kSegmentSizeAnnotation + " \"" +
                             std::string(*text) + "\" is not a whole number");
    return n;
  }
  return std::optional<int64_t>();
}

Result<std::optional<Segmentation>> ReadSegmentation(const rapidjson::Value& lws, int32_t size,
                                                     const std::string& where) {
  VT_ASSIGN_OR_RETURN(std::optional<int64_t> s, SegmentSize(lws, where));
  if (!s) return std::optional<Segmentation>();
  if (*s < 2 || *s > size)
    return InvalidArgument(where + ": segment size " + std::to_string(*s) +
                           " must be from 2 to the group's size " + std::to_string(size));
  const std::string type =
      StringAt(lws, {"spec", "leaderWorkerTemplate", "subGroupPolicy", "subGroupPolicyType"});
  if (!type.empty() && type != "LeaderWorker" && type != "LeaderExcluded")
    return InvalidArgument(where + ": unknown subGroupPolicyType \"" + type +
                           "\" (LeaderWorker or LeaderExcluded)");
  return std::optional<Segmentation>(
      Segmentation{static_cast<int32_t>(*s), type == "LeaderExcluded"});
}

// The segment of worker index `w` (0: the leader) in a group of `size`.
int64_t SegmentOf(int64_t w, int32_t size, int32_t s) {
  if (w == 0) return 0;
  return (size - 1) % s == 0 ? (w - 1) / s : w / s;
}

// How many pods segment `k` of a group of `size` holds: its workers, and
// in segment 0 the leader unless it is excluded. Counted, not walked: a
// size is whatever the team wrote.
int32_t PodsIn(int32_t k, int32_t size, const Segmentation& seg) {
  if ((size - 1) % seg.size == 0) return seg.size + (k == 0 && !seg.leader_excluded ? 1 : 0);
  // Otherwise worker w is in segment w/s, the leader (0) too.
  return static_cast<int32_t>(std::min<int64_t>(seg.size, size - int64_t{k} * seg.size));
}

// Fills gang.sub_groups (and the pod's leaf) for a segmented group of
// `size` pods; `worker` is the pod's worker index, 0 for the leader. Each
// segment gets `topology`; the leaves within segment 0, and an excluded
// leader, get none, as in KAI.
Status Segment(const Segmentation& seg, int32_t size, int64_t worker,
               const TopologyConstraint& topology, const std::string& where, SubGroupGang& gang) {
  const int32_t segments = static_cast<int32_t>(SegmentOf(size - 1, size, seg.size)) + 1;
  if (segments > kMaxSegments)
    return InvalidArgument(where + ": " + std::to_string(segments) + " segments, more than the " +
                           std::to_string(kMaxSegments) + " allowed");
  if (seg.leader_excluded && (size - 1) % seg.size != 0)
    return InvalidArgument(where + ": LeaderExcluded needs a segment size that divides the " +
                           std::to_string(size - 1) + " workers; " + std::to_string(seg.size) +
                           " does not");
  const int64_t pod_segment = SegmentOf(worker, size, seg.size);
  if (pod_segment >= segments)
    return InvalidArgument(where + ": the pod's worker index " + std::to_string(worker) +
                           " is beyond the group's size " + std::to_string(size));
  if (seg.leader_excluded) gang.sub_groups.push_back({"leader", "", 1, std::nullopt});
  for (int32_t k = 0; k < segments; ++k)
    gang.sub_groups.push_back(
        {"segment-" + std::to_string(k), "", PodsIn(k, size, seg), std::nullopt, topology});
  if (seg.leader_excluded) {
    gang.pod_sub_group = worker == 0 ? "leader" : "segment-" + std::to_string(pod_segment);
    return Status::Ok();
  }
  // Segment 0 is the leader and the first workers, each a leaf under it.
  GangSubGroup& first = gang.sub_groups.front();
  first.min_member.reset();
  first.min_sub_group = 2;
  const std::string parent = first.name;  // the pushes below move `first`
  gang.sub_groups.push_back({"leader", parent, 1, std::nullopt});
  gang.sub_groups.push_back({"workers", parent, PodsIn(0, size, seg) - 1, std::nullopt});
  gang.pod_sub_group = worker == 0        ? "leader"
                       : pod_segment == 0 ? "workers"
                                          : "segment-" + std::to_string(pod_segment);
  return Status::Ok();
}

}  // namespace

Result<SubGroupGang> ReadLeaderWorkerSetGang(const rapidjson::Value& lws,
                                             const rapidjson::Value& pod) {
  const std::string where = "LeaderWorkerSet " + StringAt(lws, {"metadata", "name"});
  const rapidjson::Value* size_value = MemberAt(lws, {"spec", "leaderWorkerTemplate", "size"});
  if (size_value == nullptr)
    return InvalidArgument(where + " has no spec.leaderWorkerTemplate.size");
  if (!size_value->IsInt() || size_value->GetInt() < 1)
    return InvalidArgument(where + ": spec.leaderWorkerTemplate.size " + JsonText(*size_value) +
                           " is not a whole number of at least 1");
  int32_t size = size_value->GetInt();

  std::string policy = StringAt(lws, {"spec", "startupPolicy"});
  if (policy.empty()) policy = "LeaderCreated";
  if (policy != "LeaderCreated" && policy != "LeaderReady")
    return InvalidArgument(where + ": unknown startupPolicy \"" + policy +
                           "\" (LeaderCreated or LeaderReady)");

  int64_t worker = -1;  // no worker-index label: a worker, as KAI reads it
  if (std::optional<std::string_view> index = Label(pod, kLwsWorkerIndexLabel)) {
    std::optional<int64_t> n = WholeNumber(*index);
    if (!n || *n < 0)
      return InvalidArgument(where + ": the pod's label " + kLwsWorkerIndexLabel + " \"" +
                             std::string(*index) + "\" is not a whole number of at least 0");
    worker = *n;
  }
  const bool leader = worker == 0;

  SubGroupGang gang;
  if (policy == "LeaderReady") {
    if (std::optional<std::string_view> own = Annotation(pod, kLwsSizeAnnotation)) {
      std::optional<int64_t> n = WholeNumber(*own);
      if (n && *n >= 1 && *n <= kMaxMinMember) size = static_cast<int32_t>(*n);
    }
    if (leader && StringAt(pod, {"spec", "nodeName"}).empty()) size = 1;
  }
  gang.min_member = size;
  if (std::optional<std::string_view> group = Label(pod, kLwsGroupIndexLabel)) {
    if (std::optional<int64_t> n = WholeNumber(*group))
      gang.name_suffix = "-group-" + std::to_string(*n);
  }

  if (size > 1) {
    VT_ASSIGN_OR_RETURN(std::optional<Segmentation> seg, ReadSegmentation(lws, size, where));
    if (seg) {
      if (worker < 0)
        return InvalidArgument(where + ": the pod lacks the label " + kLwsWorkerIndexLabel +
                               " that places it in a segment");
      // KAI reads the segments' topology only from an LWS with a workerTemplate.
      const rapidjson::Value* worker_template =
          MemberAt(lws, {"spec", "leaderWorkerTemplate", "workerTemplate"});
      const TopologyConstraint topology = worker_template == nullptr
                                              ? TopologyConstraint{}
                                              : SegmentTopology(pod, worker_template, lws);
      VT_RETURN_IF_ERROR(Segment(*seg, size, worker, topology, where, gang));
      return gang;
    }
  }
  gang.sub_groups.push_back({"leader", "", 1, std::nullopt});
  if (size > 1) gang.sub_groups.push_back({"workers", "", size - 1, std::nullopt});
  gang.pod_sub_group = leader || size == 1 ? "leader" : "workers";
  return gang;
}

}  // namespace vtenant::kai
