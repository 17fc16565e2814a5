// GpuRequest: the GPUs a pod asks for, as KAI users write it, read and
// validated once for every program: the syncer refuses what this refuses
// before a pod leaves its virtual cluster, the admission webhook refuses the
// same on the host, and the scheduler places what this reads. A pod one of
// them accepts is a pod the others accept (kai/contract_test.cc holds them
// to one table).
//
// A pod asks for exactly one of:
//   - whole GPUs: nvidia.com/gpu limits of its containers (their requests
//     where a container's limits ask for none), summed, at least the
//     largest init container's;
//   - a share of GPUs: annotation gpu-fraction (a share of one device) or
//     gpu-memory (MiB of one device), on gpu-fraction-num-devices devices;
//   - MIG slices: nvidia.com/mig-<g>g.<m>gb limits (else requests), counted
//     as whole GPUs are;
// or none of them.
//
// The rules, each refused with a message naming the field and what to
// change:
//   - gpu-fraction: a decimal number as base/decimal.h reads it ("0.5",
//     "1e-1"; rounded up to a thousandth, so "0.0001" is 1m), more than 0
//     and at most 1. KAI's own webhook refuses 1 itself ("smaller than
//     1.0"); vtenant takes it as the whole of one device, shared with no one.
//   - gpu-memory: a positive whole number of MiB, at most kMaxGpuMemoryMib.
//   - not both gpu-fraction and gpu-memory.
//   - gpu-fraction-num-devices: a whole number from 1 to kMaxDevices, only
//     beside gpu-fraction or gpu-memory (as KAI: it says on how many devices
//     the share is taken).
//   - gpu-fraction-container-name, read only beside a share: the name of an
//     init container or a container of the pod (init containers are
//     looked in first, as KAI's webhook does).
//   - no share beside a non-zero nvidia.com/gpu (KAI refuses any
//     nvidia.com/gpu limit beside gpu-fraction, even "0"; a zero asks for no
//     GPU here).
//   - nvidia.com/gpu: a whole number of devices, not negative, at most
//     kMaxDevices in all (no node holds more).
//   - MIG: a whole, non-negative count per resource, at most kMaxMigSlices
//     in all; a profile <g>g.<m>gb with g from 1 to 7 (as the scheduler
//     prices it; only g and a "gb" after it are checked, and a resource
//     asked for 0 times is not checked at all); one profile per pod (stricter than KAI: the
//     scheduler places a pod's slices as one kind); never beside whole GPUs
//     or a share.
// The annotations' whole numbers are written plainly, as KAI's webhook
// reads them: no sign, no spaces, no unit ("4", not "+4", " 4" or "4Mi").
// Limits are Kubernetes quantities ("1", "1000m"), read as the client reads
// them (base/quantity_text.h), or a JSON integer of 0 or more.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <limits>
#include <string>

#include "base/status.h"

namespace vtenant::kai {

// The most devices one pod may ask for, whole or shared: the most a node
// holds (scheduler-core's kMaxDevicesPerNode; the scheduler checks the two
// agree).
inline constexpr int32_t kMaxDevices = 64;
// The most MIG slices one pod may ask for: seven on each of kMaxDevices.
inline constexpr int32_t kMaxMigSlices = kMaxDevices * 7;
// The most GPU memory a share may ask for on one device: what an int32 of
// MiB holds (2 PiB). Like KAI, any positive whole number is taken: a pod
// asking more than every GPU holds is admitted and waits, saying so.
inline constexpr int32_t kMaxGpuMemoryMib = std::numeric_limits<int32_t>::max();

// A container of a pod by its place: spec.initContainers[index] when
// `init`, else spec.containers[index].
struct ContainerRef {
  bool init = false;
  int32_t index = 0;
};

struct GpuRequest {
  int32_t whole_gpus = 0;      // nvidia.com/gpu
  int64_t fraction_milli = 0;  // gpu-fraction in thousandths of a device, (0, 1000]
  int32_t memory_mib = 0;      // gpu-memory, per device
  int32_t num_devices = 1;     // gpu-fraction-num-devices: devices the share is taken on
  std::string mig_profile;     // "1g.10gb" of nvidia.com/mig-1g.10gb
  int32_t mig_count = 0;
  // For a share: the container that uses it, whose environment tells it
  // which GPU it has (kai/gpu_environment.h).
  ContainerRef share_container;

  // A share of one or more devices (gpu-fraction or gpu-memory).
  bool IsShared() const { return fraction_milli > 0 || memory_mib > 0; }
  bool NeedsGpu() const { return whole_gpus > 0 || IsShared() || mig_count > 0; }
};

// One container's GPU resources: whole GPUs (nvidia.com/gpu and amd.com/gpu
// together, as KAI sums them), and its MIG profile and count.
struct ContainerGpus {
  int64_t whole = 0;
  std::string mig_profile;
  int64_t mig_count = 0;
};

// `container`'s GPUs from its limits, else its requests (the API server
// makes them equal for extended resources; a limit is what users write).
// InvalidArgument naming `where` (the container) for a count that is not a
// whole number of devices, a MIG profile KAI does not know, or two
// profiles.
Result<ContainerGpus> ReadContainerGpus(const rapidjson::Value& container, std::string_view where);

// Reads the GPU request of `pod` (a Pod object: metadata.annotations and
// spec.containers / spec.initContainers resources) and checks every rule
// above. InvalidArgument with a message naming the field and what to change;
// the first problem found is reported (once the devices asked for pass the
// limit, the rest of that container list is not read; the init containers
// are still read after the regular ones).
Result<GpuRequest> ParseGpuRequest(const rapidjson::Value& pod);

// The container of `pod` that uses its share: the one annotation
// gpu-fraction-container-name names, else the first container (index 0,
// whether or not the pod has one). InvalidArgument when the annotation
// names no container of the pod.
Result<ContainerRef> ShareContainer(const rapidjson::Value& pod);

// Annotation gpu-fraction alone: thousandths of a device, more than 0 and at
// most 1000. InvalidArgument naming the annotation and value otherwise, as
// for the two below.
Result<int64_t> ParseGpuFraction(std::string_view text);

// Annotation gpu-memory alone: MiB, from 1 to kMaxGpuMemoryMib, written
// plainly as above.
Result<int32_t> ParseGpuMemoryMib(std::string_view text);

// Annotation gpu-fraction-num-devices alone: from 1 to kMaxDevices.
Result<int32_t> ParseNumDevices(std::string_view text);

// The compute slices of a MIG profile "<g>g.<m>gb": g, from 1 to 7.
// InvalidArgument naming the profile otherwise.
Result<int32_t> MigComputeSlices(std::string_view profile);

}  // namespace vtenant::kai
