#include "kai/pytorch_job_gang.h"

#include <algorithm>
#include <optional>
#include <string>

#include "kai/kubeflow_job.h"
#include "kai/names.h"
#include "kai/object_fields.h"
#include "kai/workload_topology.h"

namespace vtenant::kai {
namespace {

// The segment size: the pod's annotation, else the Worker template's; 0
// when neither sets one.
Result<int64_t> SegmentSize(const rapidjson::Value& pod, const rapidjson::Value& worker,
                            const std::string& where) {
  std::optional<std::string_view> text = Annotation(pod, kSegmentSizeAnnotation);
  if (!text || text->empty()) {
    const rapidjson::Value* t =
        MemberAt(worker, {"template", "metadata", "annotations", kSegmentSizeAnnotation});
    if (t == nullptr || !t->IsString() || t->GetStringLength() == 0) return int64_t{0};
    text = std::string_view(t->GetString(), t->GetStringLength());
  }
  std::optional<int64_t> n = WholeNumber(*text);  // as KAI's strconv.Atoi
  if (!n || *n < 1)
    return InvalidArgument(where + ": annotation " + kSegmentSizeAnnotation + " \"" +
                           std::string(*text) + "\" is not a whole number of at least 1");
  return *n;
}

}  // namespace

Result<SubGroupGang> ReadPyTorchJobGang(const rapidjson::Value& job, const rapidjson::Value& pod) {
  const std::string where = "PyTorchJob " + StringAt(job, {"metadata", "name"});
  VT_ASSIGN_OR_RETURN(int64_t total, KubeflowJobMinMember(job, /*mpi_launcher_exists=*/false));
  SubGroupGang gang;
  gang.min_member = std::max<int32_t>(1, SpecCount(total));
  const std::string role(Label(pod, kKubeflowReplicaTypeLabel).value_or(""));

  const int64_t masters =
      IntAt(job, {"spec", "pytorchReplicaSpecs", "Master", "replicas"}).value_or(0);
  if (masters > 0) {
    gang.sub_groups.push_back({"master", "", SpecCount(masters), std::nullopt});
    if (role == "master") gang.pod_sub_group = "master";
  }

  const rapidjson::Value* worker = MemberAt(job, {"spec", "pytorchReplicaSpecs", "Worker"});
  if (worker == nullptr) return gang;
  const int64_t workers_min = std::max<int64_t>(0, total - masters);
  const int64_t workers = IntAt(*worker, {"replicas"}).value_or(1);
  VT_ASSIGN_OR_RETURN(int64_t size, SegmentSize(pod, *worker, where));
  const int64_t segments = size == 0 || workers <= 0 ? 0 : (workers + size - 1) / size;
  if (segments > kMaxSegments)
    return InvalidArgument(where + ": " + std::to_string(segments) +
                           " worker segments, more than " + std::to_string(kMaxSegments));
  if (segments == 0) {
    gang.sub_groups.push_back({"worker", "", SpecCount(workers_min), std::nullopt});
    if (role == "worker") gang.pod_sub_group = "worker";
    return gang;
  }
  gang.sub_groups.push_back({"worker", "", std::nullopt, SpecCount(segments)});
  // Segments whose first worker is within the workers' minimum are needed;
  // the rest are elastic.
  const int64_t needed = (workers_min + size - 1) / size;
  const TopologyConstraint topology = SegmentTopology(pod, Member(*worker, "template"), job);
  for (int64_t k = 0; k < segments; ++k) {
    const int64_t holds = std::min(size, workers - k * size);
    gang.sub_groups.push_back({"worker-" + std::to_string(k), "worker",
                               k < needed ? SpecCount(holds) : 0, std::nullopt, topology});
  }
  if (role == "worker") {
    std::optional<std::string_view> index = Label(pod, kKubeflowReplicaIndexLabel);
    std::optional<int64_t> i = index ? WholeNumber(*index) : std::nullopt;
    if (!i || *i < 0 || *i / size >= segments)
      return InvalidArgument(where + ": the worker pod's label " + kKubeflowReplicaIndexLabel +
                             " \"" + std::string(index.value_or("")) +
                             "\" names no worker of the job");
    gang.pod_sub_group = "worker-" + std::to_string(*i / size);
  }
  return gang;
}

}  // namespace vtenant::kai
