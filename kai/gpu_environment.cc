#include "kai/gpu_environment.h"

#include <cstdio>
#include <cstdlib>

#include "base/ascii.h"
#include "kai/names.h"
#include "kai/object_fields.h"

namespace vtenant::kai {

std::string GpuConfigMapName(std::string_view prefix, ContainerRef container) {
  return std::string(prefix) + (container.init ? "-i" : "-") + std::to_string(container.index);
}

std::string DirectEnvConfigMapName(std::string_view prefix, ContainerRef container) {
  return GpuConfigMapName(prefix, container) + "-evar";
}

std::string GpuConfigMapVolumeName(std::string_view prefix, ContainerRef container) {
  // A ConfigMap's name is a DNS subdomain (dots, from a dotted pod name),
  // a volume's a DNS label: as KAI's binder makes it, lower case, each run
  // of other characters one "-", and no "-" at either end.
  std::string volume;
  bool in_run = false;
  for (char c : AsciiLower(GpuConfigMapName(prefix, container) + "-vol")) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') {
      volume += c;
      in_run = false;
    } else if (!in_run) {
      volume += '-';
      in_run = true;
    }
  }
  const size_t first = volume.find_first_not_of('-');
  if (first == std::string::npos) return "";
  return volume.substr(first, volume.find_last_not_of('-') - first + 1);
}

std::string FormatGpuPortion(int64_t portion_milli) {
  const int64_t hundredths = (portion_milli + 5) / 10;
  char text[32];
  std::snprintf(text, sizeof text, "%lld.%02lld", static_cast<long long>(hundredths / 100),
                static_cast<long long>(hundredths % 100));
  return text;
}

std::vector<std::pair<std::string, std::string>> GpuConfigMapData(
    const std::vector<std::string>& uuids, int64_t portion_milli) {
  std::string devices;
  for (const std::string& uuid : uuids) devices += (devices.empty() ? "" : ",") + uuid;
  const std::string portion = FormatGpuPortion(portion_milli);
  return {{kVisibleDevicesKey, devices}, {kNumGpusKey, portion}, {kGpuPortionKey, portion}};
}

std::string CudaDeviceMemoryLimit(std::string_view gpu_memory_label, int64_t portion_milli) {
  // KAI reads the label with strconv.ParseInt: a sign is taken.
  const int64_t mib = WholeNumber(gpu_memory_label).value_or(0);
  if (mib <= 0) return "";
  // As KAI computes it, in floating point from the portion's text.
  const double portion = std::strtod(FormatGpuPortion(portion_milli).c_str(), nullptr);
  const int64_t limit = static_cast<int64_t>(static_cast<double>(mib) * portion);
  return limit > 0 ? std::to_string(limit) + "m" : "";
}

}  // namespace vtenant::kai
