#include "kai/gpu_request.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>

#include "base/decimal.h"
#include "base/quantity_text.h"
#include "kai/names.h"
#include "kai/object_fields.h"

namespace vtenant::kai {
namespace {

std::string Quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

// A whole number written plainly ("4"; not "+4", " 4", "4.0" or "4Mi")
// from 1 to `max`; nullopt otherwise.
std::optional<int64_t> PlainPositiveInt(std::string_view text, int64_t max) {
  if (text.empty() || text.size() > 18 || text[0] < '0' || text[0] > '9') return std::nullopt;
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 1 || value > max) {
    return std::nullopt;
  }
  return value;
}

// The quantity `resource` of resource list `list` in whole units, 0 when
// absent. `where` names the container for messages.
Result<int64_t> WholeUnits(const rapidjson::Value& value, std::string_view where,
                           std::string_view list, std::string_view resource) {
  const std::string field =
      std::string(where) + " resources." + std::string(list) + "[" + std::string(resource) + "]";
  int64_t milli = 0;
  if (value.IsString()) {
    Result<QuantityValue> q =
        ParseQuantityText(std::string_view(value.GetString(), value.GetStringLength()));
    if (!q.ok()) return q.status().WithContext(field);
    milli = q->milli;
  } else if (value.IsInt() && value.GetInt() >= 0) {
    milli = int64_t{value.GetInt()} * 1000;  // a manifest's 1 rather than "1"
  } else {
    return InvalidArgument(field + " " + JsonText(value) + " is not a quantity");
  }
  if (milli < 0 || milli % 1000 != 0) {
    return InvalidArgument(field + " " + JsonText(value) +
                           " must be a whole number of devices, 0 or more");
  }
  return milli / 1000;
}

}  // namespace

Result<ContainerGpus> ReadContainerGpus(const rapidjson::Value& container, std::string_view where) {
  ContainerGpus out;
  const rapidjson::Value* resources = Member(container, "resources");
  const rapidjson::Value* limits = resources == nullptr ? nullptr : Member(*resources, "limits");
  const rapidjson::Value* requests =
      resources == nullptr ? nullptr : Member(*resources, "requests");
  for (auto [name, list] : {std::pair{"limits", limits}, std::pair{"requests", requests}}) {
    if (list == nullptr || !list->IsObject()) continue;
    if (out.whole == 0) {
      for (const char* resource : {kGpuResource, kAmdGpuResource}) {
        const rapidjson::Value* gpu = Member(*list, resource);
        if (gpu == nullptr) continue;
        VT_ASSIGN_OR_RETURN(int64_t count, WholeUnits(*gpu, where, name, resource));
        out.whole += count;
      }
    }
    if (out.mig_count > 0) continue;
    for (const auto& member : list->GetObject()) {
      std::string_view resource(member.name.GetString(), member.name.GetStringLength());
      if (!resource.starts_with(kMigResourcePrefix)) continue;
      VT_ASSIGN_OR_RETURN(int64_t count, WholeUnits(member.value, where, name, resource));
      if (count == 0) continue;
      std::string_view profile = resource.substr(std::string_view(kMigResourcePrefix).size());
      VT_RETURN_IF_ERROR(MigComputeSlices(profile).status().WithContext(std::string(where)));
      if (!out.mig_profile.empty() && out.mig_profile != profile) {
        return InvalidArgument(std::string(where) + " asks for two MIG profiles, " +
                               out.mig_profile + " and " + std::string(profile) +
                               "; a pod's MIG slices are all of one profile");
      }
      out.mig_profile = std::string(profile);
      out.mig_count += count;
    }
  }
  return out;
}

namespace {

struct PodGpus {
  int64_t whole = 0;
  std::string mig_profile;
  int64_t mig_count = 0;
};

// The pod's GPUs as kube-scheduler sums a request: the containers' sum, at
// least the largest init container's (init containers run one at a time).
Result<PodGpus> ReadContainers(const rapidjson::Value& pod) {
  PodGpus sum, init_max;
  const rapidjson::Value* spec = Member(pod, "spec");
  if (spec == nullptr) return sum;
  for (auto [list, init] : {std::pair{"containers", false}, std::pair{"initContainers", true}}) {
    const rapidjson::Value* containers = Member(*spec, list);
    if (containers == nullptr || !containers->IsArray()) continue;
    for (const rapidjson::Value& c : containers->GetArray()) {
      const rapidjson::Value* name = Member(c, "name");
      const std::string where =
          std::string(init ? "init container " : "container ") +
          (name != nullptr && name->IsString() ? name->GetString() : std::string("?"));
      VT_ASSIGN_OR_RETURN(ContainerGpus gpus, ReadContainerGpus(c, where));
      if (gpus.mig_count > 0) {
        for (const std::string* seen : {&sum.mig_profile, &init_max.mig_profile}) {
          if (!seen->empty() && *seen != gpus.mig_profile) {
            return InvalidArgument(where + " asks for MIG profile " + gpus.mig_profile +
                                   " and another container for " + *seen +
                                   "; a pod's MIG slices are all of one profile");
          }
        }
      }
      PodGpus& into = init ? init_max : sum;
      if (gpus.mig_count > 0) into.mig_profile = gpus.mig_profile;
      if (init) {
        into.whole = std::max(into.whole, gpus.whole);
        into.mig_count = std::max(into.mig_count, gpus.mig_count);
      } else {
        into.whole += gpus.whole;
        into.mig_count += gpus.mig_count;
      }
      // Past these the pod is refused; stopping here keeps the sums far from overflow.
      if (into.whole > kMaxDevices || into.mig_count > kMaxMigSlices) break;
    }
  }
  PodGpus pod_gpus;
  pod_gpus.whole = std::max(sum.whole, init_max.whole);
  pod_gpus.mig_count = std::max(sum.mig_count, init_max.mig_count);
  pod_gpus.mig_profile = sum.mig_profile.empty() ? init_max.mig_profile : sum.mig_profile;
  return pod_gpus;
}

}  // namespace

Result<int64_t> ParseGpuFraction(std::string_view text) {
  Result<int64_t> milli = ParseDecimalMilli(text, kGpuFractionAnnotation);
  if (!milli.ok() || *milli <= 0 || *milli > 1000) {
    return InvalidArgument(std::string("annotation ") + kGpuFractionAnnotation + " " +
                           Quoted(text) +
                           " must be a decimal number more than 0 and at most 1 (a share of one "
                           "GPU, e.g. \"0.5\"); ask for whole GPUs with nvidia.com/gpu limits");
  }
  return *milli;
}

Result<int32_t> ParseGpuMemoryMib(std::string_view text) {
  std::optional<int64_t> mib = PlainPositiveInt(text, kMaxGpuMemoryMib);
  if (!mib) {
    return InvalidArgument(std::string("annotation ") + kGpuMemoryAnnotation + " " + Quoted(text) +
                           " must be a whole number of MiB from 1 to " +
                           std::to_string(kMaxGpuMemoryMib) + " (e.g. \"4000\", no unit)");
  }
  return static_cast<int32_t>(*mib);
}

Result<int32_t> ParseNumDevices(std::string_view text) {
  std::optional<int64_t> n = PlainPositiveInt(text, kMaxDevices);
  if (!n) {
    return InvalidArgument(std::string("annotation ") + kGpuFractionNumDevicesAnnotation + " " +
                           Quoted(text) + " must be a whole number from 1 to " +
                           std::to_string(kMaxDevices) +
                           " (on how many GPUs the pod takes its share; no node holds more)");
  }
  return static_cast<int32_t>(*n);
}

Result<ContainerRef> ShareContainer(const rapidjson::Value& pod) {
  std::optional<std::string_view> wanted = Annotation(pod, kGpuFractionContainerNameAnnotation);
  if (!wanted) return ContainerRef{};
  if (const rapidjson::Value* spec = Member(pod, "spec"); spec != nullptr) {
    for (auto [list, init] : {std::pair{"initContainers", true}, std::pair{"containers", false}}) {
      const rapidjson::Value* containers = Member(*spec, list);
      if (containers == nullptr || !containers->IsArray()) continue;
      for (rapidjson::SizeType i = 0; i < containers->Size(); ++i) {
        const rapidjson::Value* name = Member((*containers)[i], "name");
        if (name != nullptr && name->IsString() &&
            std::string_view(name->GetString(), name->GetStringLength()) == *wanted) {
          return ContainerRef{.init = init, .index = static_cast<int32_t>(i)};
        }
      }
    }
  }
  return InvalidArgument(std::string("annotation ") + kGpuFractionContainerNameAnnotation + " " +
                         Quoted(*wanted) +
                         " names no container or init container of the pod; name the container "
                         "that uses the GPU share, or remove the annotation for the first one");
}

Result<int32_t> MigComputeSlices(std::string_view profile) {
  const size_t g = profile.find('g');
  int32_t slices = 0;
  const char* end = profile.data() + (g == std::string_view::npos ? 0 : g);
  auto [ptr, ec] = std::from_chars(profile.data(), end, slices);
  if (g == std::string_view::npos || g == 0 || ec != std::errc() || ptr != end || slices < 1 ||
      slices > 7 || profile.substr(g).find("gb") == std::string_view::npos) {
    return InvalidArgument(std::string("MIG resource ") + kMigResourcePrefix +
                           std::string(profile) +
                           " is not of the form nvidia.com/mig-<g>g.<m>gb with g from 1 to 7 "
                           "(e.g. nvidia.com/mig-1g.10gb)");
  }
  return slices;
}

Result<GpuRequest> ParseGpuRequest(const rapidjson::Value& pod) {
  GpuRequest r;
  VT_ASSIGN_OR_RETURN(PodGpus gpus, ReadContainers(pod));
  if (gpus.whole > kMaxDevices) {
    return InvalidArgument(std::string(kGpuResource) + " asks for " + std::to_string(gpus.whole) +
                           " devices in all; at most " + std::to_string(kMaxDevices) +
                           " fit on one node");
  }
  if (gpus.mig_count > kMaxMigSlices) {
    return InvalidArgument(std::string(kMigResourcePrefix) + gpus.mig_profile + " asks for " +
                           std::to_string(gpus.mig_count) + " slices in all; at most " +
                           std::to_string(kMaxMigSlices) + " fit on one node");
  }
  r.whole_gpus = static_cast<int32_t>(gpus.whole);
  r.mig_profile = gpus.mig_profile;
  r.mig_count = static_cast<int32_t>(gpus.mig_count);

  std::optional<std::string_view> fraction = Annotation(pod, kGpuFractionAnnotation);
  std::optional<std::string_view> memory = Annotation(pod, kGpuMemoryAnnotation);
  std::optional<std::string_view> devices = Annotation(pod, kGpuFractionNumDevicesAnnotation);
  if (fraction) {
    VT_ASSIGN_OR_RETURN(r.fraction_milli, ParseGpuFraction(*fraction));
  }
  if (memory) {
    VT_ASSIGN_OR_RETURN(r.memory_mib, ParseGpuMemoryMib(*memory));
  }
  if (fraction && memory) {
    return InvalidArgument(std::string("annotations ") + kGpuFractionAnnotation + " and " +
                           kGpuMemoryAnnotation +
                           " are both set; a pod asks for a share of a GPU by fraction or by "
                           "memory, not both: remove one");
  }
  const char* share = fraction ? kGpuFractionAnnotation : kGpuMemoryAnnotation;
  if (devices) {
    if (!fraction && !memory) {
      return InvalidArgument(std::string("annotation ") + kGpuFractionNumDevicesAnnotation +
                             " needs gpu-fraction or gpu-memory (it says on how many GPUs that "
                             "share is taken); ask for whole GPUs with nvidia.com/gpu limits");
    }
    VT_ASSIGN_OR_RETURN(r.num_devices, ParseNumDevices(*devices));
  }
  if (r.IsShared() && r.whole_gpus > 0) {
    return InvalidArgument(std::string("annotation ") + share + " is set together with " +
                           kGpuResource + " " + std::to_string(r.whole_gpus) +
                           "; a pod asks for a share of a GPU or for whole GPUs, not both: "
                           "remove the annotation or the limit");
  }
  if (r.mig_count > 0 && (r.whole_gpus > 0 || r.IsShared())) {
    return InvalidArgument(std::string(kMigResourcePrefix) + r.mig_profile + " is asked for " +
                           "together with " + (r.IsShared() ? share : kGpuResource) +
                           "; a pod asks for MIG slices, whole GPUs or a share, one of them");
  }
  if (r.IsShared()) {
    VT_ASSIGN_OR_RETURN(r.share_container, ShareContainer(pod));
  }
  return r;
}

}  // namespace vtenant::kai
