// The environment of a GPU-sharing pod, as KAI's admission webhook shapes
// it and KAI's binder fills it. Programs in the pod, and tools that look
// for a shared pod's GPU (KAI's own suites read NVIDIA_VISIBLE_DEVICES
// through the env var's ConfigMap reference), depend on these names.
//
// At creation the webhook gives a sharing pod annotation
// runai/shared-gpu-configmap: <prefix>, and its share container
// (kai::ShareContainer):
//   - env NVIDIA_VISIBLE_DEVICES, RUNAI_NUM_OF_GPUS and GPU_PORTION, each
//     valueFrom configMapKeyRef of that key in GpuConfigMapName(prefix);
//     entries of those names the author wrote are replaced;
//   - with KAI's hamicore plugins on, env CUDA_DEVICE_MEMORY_LIMIT too,
//     valueFrom that ConfigMap's key of that name, optional: true;
//   - envFrom DirectEnvConfigMapName(prefix), optional: false;
// and the pod a volume GpuConfigMapVolumeName(prefix) of that ConfigMap.
// Before binding, the binder creates both ConfigMaps (the kubelet starts no
// container until they exist) and writes GpuConfigMapData (and, with
// hamicore, CudaDeviceMemoryLimit) into the first;
// the second stays empty, as KAI's binder leaves it for a pod whose
// NVIDIA_VISIBLE_DEVICES comes from the first.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kai/gpu_request.h"

namespace vtenant::kai {

// "<prefix>-<index>" for a container, "<prefix>-i<index>" for an init
// container.
std::string GpuConfigMapName(std::string_view prefix, ContainerRef container);

// GpuConfigMapName + "-evar".
std::string DirectEnvConfigMapName(std::string_view prefix, ContainerRef container);

// GpuConfigMapName + "-vol", made a DNS label as KAI's binder makes it:
// lower case, each run of other characters than a-z, 0-9 and "-" one "-",
// no "-" at either end ("train.v2-abcdefg-shared-gpu-0-vol" becomes
// "train-v2-abcdefg-shared-gpu-0-vol").
std::string GpuConfigMapVolumeName(std::string_view prefix, ContainerRef container);

// A portion of one device, in thousandths, as KAI's scheduler writes it:
// two decimals ("%.2f"), rounded half up: 500 -> "0.50", 333 -> "0.33",
// 1000 -> "1.00".
std::string FormatGpuPortion(int64_t portion_milli);

// The data of GpuConfigMapName for a pod given `uuids` (one per device) at
// `portion_milli` of each: NVIDIA_VISIBLE_DEVICES the UUIDs joined by
// commas; GPU_PORTION and RUNAI_NUM_OF_GPUS (its older name, which KAI's
// binder writes alike) FormatGpuPortion(portion_milli).
std::vector<std::pair<std::string, std::string>> GpuConfigMapData(
    const std::vector<std::string>& uuids, int64_t portion_milli);

// KAI's hamicore binder plugin's CUDA_DEVICE_MEMORY_LIMIT for a share of
// `portion_milli` of a device on a node whose nvidia.com/gpu.memory label
// reads `gpu_memory_label` (MiB): the label times FormatGpuPortion's
// portion, truncated, then "m" ("15202m" of 46068 at 330). "" where the
// label is not a positive whole number as strconv.ParseInt reads it (a
// sign allowed), for which KAI writes none either.
std::string CudaDeviceMemoryLimit(std::string_view gpu_memory_label, int64_t portion_milli);

}  // namespace vtenant::kai
