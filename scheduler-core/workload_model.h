// The pod shapes a cluster runs, learned online: a histogram of the shapes
// of the pods the scheduler has seen, older ones decayed, so fragmentation
// can be measured against what is likely to come (fgd) without an oracle
// of the future.
//
//   auto model = std::make_shared<WorkloadModel>();
//   model->Observe(snapshot, pod);          // as pods arrive, across cycles
//   options.workload = model;               // read by the fgd rule
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "scheduler-core/model.h"
#include "scheduler-core/snapshot_builder.h"

namespace vtenant::sched {

// What placement needs of a pod shape, by name (label keys and values,
// tolerations as strings), so the model outlives the snapshots it learned from.
// A parallel of PodSpec's request and constraint fields, on purpose: a shape
// has no name, group or running state, and is a map key compared whole.
struct ShapeSpec {
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  int32_t whole_gpus = 0;
  Milli gpu_fraction = 0;
  int32_t gpu_memory_mib = 0;
  int32_t num_devices = 1;
  std::vector<std::pair<std::string, std::string>> node_selector;
  std::vector<std::pair<std::string, std::vector<std::string>>> node_affinity_in;
  // Sorted; which tainted nodes the shape may use.
  std::vector<TolerationSpec> tolerations;
  auto operator<=>(const ShapeSpec&) const = default;
};

class WorkloadModel {
 public:
  // After `half_life_pods` further observations a pod counts half.
  explicit WorkloadModel(double half_life_pods = 5000);

  // One pod seen (its request and node constraints; MIG pods are left out),
  // or `count` pods of its shape seen at once.
  void Observe(const Snapshot& snapshot, PodId pod, double count = 1);

  struct Entry {
    ShapeSpec shape;
    double weight;  // the returned entries' weights add up to 1
  };
  // The heaviest shapes, heaviest first, until they cover `coverage` of the
  // weight or number `max_shapes`; ties by shape, so the answer is stable.
  // With `gpu_only`, shapes that ask for no GPU are left out before
  // counting, so they take none of the `max_shapes` (fgd: a CPU-only shape
  // sees every free GPU as stranded on every node, so it never changes
  // where a pod goes, and counting it would crowd out GPU shapes).
  std::vector<Entry> Top(size_t max_shapes, double coverage, bool gpu_only = false) const;

  bool empty() const { return weight_.empty(); }
  // Changes with every observation, so a reader can tell it is stale.
  uint64_t version() const { return version_; }

 private:
  std::map<ShapeSpec, double> weight_;
  // Instead of decaying every entry, each new observation weighs more.
  double next_weight_ = 1;
  double growth_;
  uint64_t version_ = 0;
};

}  // namespace vtenant::sched
