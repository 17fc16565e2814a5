// Admission: what the mutating webhook does to a pod at creation, as a pure
// function of the AdmissionReview (the TLS server is webhook_server.h).
//
// A pod's environment cannot change after creation, so a GPU-sharing pod
// (annotation gpu-fraction or gpu-memory) gets, when it is created:
//   - annotation runai/shared-gpu-configmap: "<base>-<7 random>-shared-gpu",
//     as KAI names it (base: the first owner's name, else the pod's name
//     or generateName, cut to KAI's length budget);
//   - on its share container (annotation gpu-fraction-container-name, else
//     the first), the environment kai/gpu_environment.h describes: env
//     NVIDIA_VISIBLE_DEVICES, RUNAI_NUM_OF_GPUS and GPU_PORTION from the
//     ConfigMap "<prefix>-<i>" ("-i<i>" for an init container), envFrom
//     "<prefix>-<i>-evar", and the pod a volume of the first. The binder
//     makes and fills both before binding (the kubelet waits for them);
//   - spec.runtimeClassName, when it names none: the options' GPU-fraction
//     RuntimeClass ("nvidia", as KAI), where the cluster has it.
// Any pod of our scheduler whose GPU request kai::ParseGpuRequest refuses
// (kai/gpu_request.h: gpu-fraction outside (0, 1], gpu-memory not a
// positive whole number of MiB, both set, a share together with
// nvidia.com/gpu, ...) is refused with its message, which says what to
// change. The syncer refuses a tenant's pod by the same rule first, so a
// pod it passes is never refused here.
//
// With block_visible_devices (KAI's --block-nvidia-visible-devices, off by
// default) a pod of ours cannot reach GPUs it did not ask for through the
// NVIDIA container runtime's NVIDIA_VISIBLE_DEVICES: every container that
// asks for no GPU (nvidia.com/gpu or amd.com/gpu, a MIG slice) gets the
// variable set to "void", whatever it wrote; a container that asks for GPUs
// may set it only to "void" or "none", else the pod is refused. A
// GPU-sharing pod's share container is left to the sharing environment
// above.
//
// Nothing else about a pod is refused: what the scheduler cannot read
// otherwise becomes its pending reason.
#pragma once

#include <functional>
#include <string>

#include "base/status.h"
#include "kai/names.h"
#include "kai/queue_admission.h"
#include "kube/object.h"

namespace vtenant::scheduler {

struct AdmissionOptions {
  std::string scheduler_name = kai::kSchedulerName;
  // The RuntimeClass a GPU-sharing pod that names none gets, as KAI's
  // admission sets it (its GPU comes from NVIDIA_VISIBLE_DEVICES, which
  // only the NVIDIA container runtime reads); "" for none. Set only while
  // `runtime_class_exists` (when given) says the class exists: the API
  // server refuses a pod naming a RuntimeClass it does not have.
  std::string gpu_fraction_runtime_class;
  std::function<bool(const std::string& name)> runtime_class_exists;
  // KAI's --block-nvidia-visible-devices (above).
  bool block_visible_devices = false;
  // KAI's hamicore admission plugin: the share container's env gets
  // CUDA_DEVICE_MEMORY_LIMIT from its GPU ConfigMap (kai/gpu_environment.h),
  // which HAMi-core, preloaded on the node, enforces; an entry of that name
  // the author wrote is replaced.
  bool hami_core = false;
  // KAI's --enable-quota-validation: the cluster's Queues, against which
  // a Queue written is held (kai/queue_admission.h); empty: off.
  kai::QueueLookup queues;
  // Source of the 7 random characters; replaceable so tests are repeatable.
  std::function<std::string()> random_suffix;
};

// The JSON Patch (RFC 6902) for `pod`, "" when nothing changes, or
// InvalidArgument with the reason the pod is refused.
Result<std::string> MutatePod(const rapidjson::Value& pod, const AdmissionOptions& options);

// Answers an AdmissionReview request (admission.k8s.io/v1) with the
// AdmissionReview response: for a pod, allowed with the patch, or refused
// with the message (HTTP-level code 400 in status); for a PodGroup or a
// Queue, what kai::ReviewPodGroup or kai::ReviewQueue says, its errors
// refusing (one per line) and its warnings returned as the response's
// warnings. InvalidArgument when `review` is not an AdmissionReview
// request.
Result<std::string> Review(std::string_view review, const AdmissionOptions& options);

// Seven characters of Kubernetes' rand.String alphabet (consonants and 2,
// 4-9), from OpenSSL's RAND_bytes.
std::string RandomSuffix();

}  // namespace vtenant::scheduler
