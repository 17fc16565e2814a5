#include "scheduler-core/node_extras.h"

#include <algorithm>

namespace vtenant::sched {

void NodeExtras::Apply(PodId pod_id, NodeId node, int sign) {
  const PodExtras& pod = ExtrasOf(snapshot_->pods[pod_id]);
  auto add = [&](StringId name, int64_t amount) {
    const uint64_t slot = Slot(node, name);
    if ((used_[slot] += sign * amount) == 0) used_.erase(slot);
  };
  for (const OtherResource& r : pod.other_resources) add(r.name, r.milli);
  for (StringId port : pod.host_ports) add(port, 1);
}

ExtrasShortage NodeExtras::Shortage(PodId pod_id, NodeId node_id) const {
  const PodExtras& pod = ExtrasOf(snapshot_->pods[pod_id]);
  auto used = [&](StringId name) {
    auto it = used_.find(Slot(node_id, name));
    return it == used_.end() ? int64_t{0} : it->second;
  };
  for (StringId port : pod.host_ports)
    if (used(port) > 0) return ExtrasShortage::kHostPort;
  const std::vector<OtherResource>& has = snapshot_->nodes[node_id].other_resources;
  for (const OtherResource& r : pod.other_resources) {
    auto it = std::lower_bound(has.begin(), has.end(), r.name,
                               [](const OtherResource& o, StringId n) { return o.name < n; });
    const int64_t allocatable = it != has.end() && it->name == r.name ? it->milli : 0;
    if (allocatable - used(r.name) < r.milli) {
      const std::string_view name = snapshot_->strings.Get(r.name);
      if (name.starts_with(kAttachableVolumesPrefix)) return ExtrasShortage::kVolumeCount;
      if (name.starts_with(kDeviceClassPrefix)) return ExtrasShortage::kDeviceClaims;
      return ExtrasShortage::kResource;
    }
  }
  return ExtrasShortage::kNone;
}

}  // namespace vtenant::sched
