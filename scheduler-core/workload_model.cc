#include "scheduler-core/workload_model.h"

#include <algorithm>
#include <cmath>

namespace vtenant::sched {

WorkloadModel::WorkloadModel(double half_life_pods)
    : growth_(std::exp2(1.0 / std::max(1.0, half_life_pods))) {}

void WorkloadModel::Observe(const Snapshot& s, PodId p, double count) {
  const Pod& pod = s.pods[p];
  const PodRequest& r = pod.request;
  if (r.mig_count > 0) return;
  ShapeSpec shape{r.cpu_milli,
                  r.memory_bytes,
                  r.whole_gpus,
                  r.gpu_fraction,
                  r.gpu_memory_mib,
                  r.num_devices,
                  {},
                  {},
                  {}};
  if (!r.IsShared()) shape.num_devices = 1;
  for (const Label& l : pod.node_selector)
    shape.node_selector.emplace_back(s.strings.Get(l.key), s.strings.Get(l.value));
  for (const LabelIn& in : pod.node_affinity) {
    std::vector<std::string> values;
    for (StringId v : in.values) values.push_back(s.strings.Get(v));
    std::sort(values.begin(), values.end());
    shape.node_affinity_in.emplace_back(s.strings.Get(in.key), std::move(values));
  }
  auto name = [&](StringId id) { return id == kNoString ? std::string() : s.strings.Get(id); };
  for (const Toleration& t : pod.tolerations)
    shape.tolerations.push_back({name(t.key), t.exists, name(t.value), t.effect});
  std::sort(shape.tolerations.begin(), shape.tolerations.end());
  weight_[std::move(shape)] += next_weight_ * count;
  ++version_;
  next_weight_ *= growth_;
  if (next_weight_ > 1e200) {  // rescale long before doubles run out
    for (auto& [_, w] : weight_) w /= next_weight_;
    next_weight_ = 1;
  }
}

std::vector<WorkloadModel::Entry> WorkloadModel::Top(size_t max_shapes, double coverage,
                                                     bool gpu_only) const {
  std::vector<Entry> all;
  double total = 0;
  for (const auto& [shape, w] : weight_) {
    if (gpu_only && shape.whole_gpus == 0 && shape.gpu_fraction == 0 && shape.gpu_memory_mib == 0)
      continue;
    all.push_back({shape, w});
    total += w;
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const Entry& a, const Entry& b) { return a.weight > b.weight; });
  std::vector<Entry> out;
  double covered = 0;
  for (Entry& e : all) {
    if (out.size() >= max_shapes || (total > 0 && covered >= coverage * total)) break;
    covered += e.weight;
    out.push_back(std::move(e));
  }
  for (Entry& e : out) e.weight /= covered > 0 ? covered : 1;
  return out;
}

}  // namespace vtenant::sched
