#include "kai/kubeflow_job.h"

#include <array>
#include <initializer_list>
#include <optional>
#include <string>

#include "kai/object_fields.h"

namespace vtenant::kai {
namespace {

constexpr std::array<KubeflowJobKind, 5> kKinds = {{
    {"PyTorchJob", "pytorchjobs", "pytorchReplicaSpecs"},
    {"TFJob", "tfjobs", "tfReplicaSpecs"},
    {"XGBoostJob", "xgboostjobs", "xgbReplicaSpecs"},
    {"JAXJob", "jaxjobs", "jaxReplicaSpecs"},
    {"MPIJob", "mpijobs", "mpiReplicaSpecs"},
}};

std::string Describe(const rapidjson::Value& job) {
  return StringAt(job, {"kind"}) + " " + StringAt(job, {"metadata", "name"});
}

// minAvailable, else the sum of the replicas of every role of
// spec.<specs_field> (each must ask for some; `required` roles must exist).
Result<int64_t> ReplicaSum(const rapidjson::Value& job, std::string_view specs_field,
                           std::initializer_list<std::string_view> required) {
  if (auto m = IntAt(job, {"spec", "runPolicy", "schedulingPolicy", "minAvailable"})) return *m;
  const std::string field(specs_field);
  const rapidjson::Value* specs = MemberAt(job, {"spec", specs_field});
  if (specs == nullptr || !specs->IsObject()) {
    return InvalidArgument(Describe(job) + ": spec." + field + " is missing");
  }
  for (std::string_view role : required) {
    if (Member(*specs, role) == nullptr) {
      return InvalidArgument(Describe(job) + ": spec." + field + "." + std::string(role) +
                             " is required");
    }
  }
  int64_t total = 0;
  for (auto it = specs->MemberBegin(); it != specs->MemberEnd(); ++it) {
    std::optional<int64_t> n = IntAt(it->value, {"replicas"});
    if (!n || *n <= 0) {
      return InvalidArgument(Describe(job) + ": spec." + field + "." + it->name.GetString() +
                             ".replicas must be at least 1");
    }
    total += *n;
  }
  if (total <= 0) return InvalidArgument(Describe(job) + ": no replicas");
  return total;
}

}  // namespace

std::span<const KubeflowJobKind> KubeflowJobKinds() { return kKinds; }

const KubeflowJobKind* FindKubeflowJobKind(std::string_view kind) {
  for (const KubeflowJobKind& k : kKinds) {
    if (k.kind == kind) return &k;
  }
  return nullptr;
}

Result<int64_t> KubeflowJobMinMember(const rapidjson::Value& job, bool mpi_launcher_exists) {
  const std::string kind = StringAt(job, {"kind"});
  const KubeflowJobKind* k = FindKubeflowJobKind(kind);
  if (k == nullptr) return InvalidArgument(Describe(job) + ": not a Kubeflow training job");
  if (k->kind == "PyTorchJob") {
    if (auto m = IntAt(job, {"spec", "runPolicy", "schedulingPolicy", "minAvailable"})) return *m;
    if (auto r = IntAt(job, {"spec", "elasticPolicy", "minReplicas"})) return *r;
    return ReplicaSum(job, k->specs_field, {});
  }
  if (k->kind == "MPIJob") {
    VT_ASSIGN_OR_RETURN(int64_t m, ReplicaSum(job, k->specs_field, {"Launcher", "Worker"}));
    if (StringAt(job, {"spec", "launcherCreationPolicy"}) == "WaitForWorkersReady" &&
        !mpi_launcher_exists) {
      m -= IntAt(job, {"spec", "mpiReplicaSpecs", "Launcher", "replicas"}).value_or(0);
    }
    return m;
  }
  return ReplicaSum(job, k->specs_field, {});
}

}  // namespace vtenant::kai
