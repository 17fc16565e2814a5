// Kubeflow's distributed training jobs (kubeflow.org) as KAI's pod grouper
// treats them: which kinds are gangs, and how many of a job's pods must be
// placed at once. The scheduler's grouper (a job's pods on the host) and
// the syncer (a job in a team's cluster, whose pods become one host gang)
// read both from here, so a job gets the same minMember on either side.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <span>
#include <string_view>

#include "base/status.h"

namespace vtenant::kai {

inline constexpr std::string_view kKubeflowGroup = "kubeflow.org";

// One Kubeflow training job kind: its resource name and which member of its
// spec holds its roles' replica specs (the same at every version served).
struct KubeflowJobKind {
  std::string_view kind;         // "PyTorchJob"
  std::string_view resource;     // "pytorchjobs"
  std::string_view specs_field;  // "pytorchReplicaSpecs"
};

// The kinds KAI's pod grouper gangs: PyTorchJob, TFJob, XGBoostJob, JAXJob
// and MPIJob (kubeflow.org/v1; the MPI operator's MPIJob is v2beta1).
std::span<const KubeflowJobKind> KubeflowJobKinds();

// The entry of KubeflowJobKinds() for `kind` (of any version: KAI matches
// the group and kind; the group is the caller's to check), or nullptr when
// `kind` is none of them.
const KubeflowJobKind* FindKubeflowJobKind(std::string_view kind);

// The minMember of Kubeflow job `job` (one of KubeflowJobKinds()), by KAI's
// rules: spec.runPolicy.schedulingPolicy.minAvailable when set (then the
// specs are not read or checked); for a PyTorchJob else
// spec.elasticPolicy.minReplicas; else the sum of the replicas of every role
// in its specs member, each of which must ask for at least 1 (an MPIJob must
// have a Launcher and a Worker role). An MPIJob whose
// spec.launcherCreationPolicy is WaitForWorkersReady counts without its
// launcher's replicas while `mpi_launcher_exists` is false, minAvailable
// included: the launcher is created only once the workers run, so a gang
// counting it would never start. The syncer always passes false: the
// gang forms from the workers and a later launcher joins it. Not clamped to a PodGroup's
// range: minAvailable and minReplicas come back as written, 0 or negative
// too. InvalidArgument ("<Kind> <name>: spec.<member> ...") when the specs
// are missing or a role asks for no replicas, or when `job` is not a
// Kubeflow job kind of the list.
Result<int64_t> KubeflowJobMinMember(const rapidjson::Value& job, bool mpi_launcher_exists);

}  // namespace vtenant::kai
