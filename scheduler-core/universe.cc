#include "scheduler-core/universe.h"

#include <algorithm>
#include <utility>

namespace vtenant::sched {

Result<Universe> Universe::Create(const SnapshotBuilder& builder) {
  VT_ASSIGN_OR_RETURN(Snapshot s, builder.Build());
  for (Pod& p : s.pods) {
    p.phase = PodPhase::kPending;
    p.allocation = {};
    p.start_time = 0;
  }
  return Universe(std::move(s));
}

Universe::Universe(Snapshot universe) : universe_(std::move(universe)) {
  work_.nodes = universe_.nodes;
  work_.devices = universe_.devices;
  work_.queues = universe_.queues;
  work_.strings = universe_.strings;
  work_.num_shapes = universe_.num_shapes;
  working_group_.assign(universe_.groups.size(), kNone);
  slot_.assign(universe_.pods.size(), nullptr);
}

const Snapshot& Universe::Working(int64_t now, const std::vector<PresentPod>& present) {
  work_.now = now;
  // Walk in universe order so the working snapshot does not depend on the
  // order the caller listed the pods in: same pods, same decisions.
  for (const PresentPod& p : present) slot_[p.pod] = &p;
  std::fill(working_group_.begin(), working_group_.end(), kNone);
  universe_pod_.clear();
  size_t pods_used = 0, groups_used = 0;
  for (PodId u = 0; u < universe_.pods.size(); ++u) {
    const PresentPod* present_pod = slot_[u];
    if (present_pod == nullptr) continue;
    slot_[u] = nullptr;
    // Copy-assigning into the previous cycle's objects reuses their memory.
    if (pods_used == work_.pods.size()) work_.pods.emplace_back();
    Pod& pod = work_.pods[pods_used++];
    pod = universe_.pods[u];
    const GroupId ug = pod.group;
    if (working_group_[ug] == kNone) {
      working_group_[ug] = static_cast<GroupId>(groups_used);
      if (groups_used == work_.groups.size()) work_.groups.emplace_back();
      work_.groups[groups_used++] = universe_.groups[ug];
    }
    pod.group = working_group_[ug];
    if (present_pod->running) {
      pod.phase = PodPhase::kRunning;
      pod.allocation = present_pod->allocation;
      pod.start_time = present_pod->start_time;
    }
    universe_pod_.push_back(u);
  }
  work_.pods.resize(pods_used);
  work_.groups.resize(groups_used);
  work_.Finalize(/*derive_shapes=*/false);
  return work_;
}

}  // namespace vtenant::sched
