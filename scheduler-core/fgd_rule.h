// Fragmentation gradient descent (Weng et al., "Beware of Fragmentation",
// USENIX ATC'23), as a placement rule.
//
// The fragmentation of a node, measured against a workload of pod shapes
// with probabilities p_m, is F(n) = sum_m p_m * F_n(m), where F_n(m) is the
// free GPU of n that shape m cannot use: all of it when m does not fit n at
// all (CPU, memory, pod slots, GPU model, too few devices with room), else
// the free GPU of the devices with less room than m asks per device. A pod
// goes to the node, and for a pod sharing one device the device, where F
// grows least. The workload is the caller's WorkloadModel (shapes seen so far,
// decayed) or, without one, the shapes of the snapshot's pods.
//
// Where this differs from the paper's artifact, on purpose: the growth is
// compared exactly (the artifact rounds a sigmoid of it to an integer
// 0..100, so most candidates tie); ties go to the node left with less free
// GPU, then to the one whose leftover CPU share stays closest to its
// leftover GPU share, so equal fragmentation still packs and GPUs are not
// stranded beside spent CPU; shapes weigh by how often they come times
// what they would allocate (1 + GPUs), since
// stranding a whole-GPU job's room costs more than a small fraction's;
// memory counts like CPU; GPU model constraints are node affinity, matched
// per node class.
//
// Nodes in the same state (same class, free CPU, memory, pod slot, device
// room) score alike, so the rule keeps them in buckets, caught up from the
// ClusterState's change log, ordered by GPU room (ClusterState::GpuRoom),
// and scores one node per
// bucket with room enough, once per pod shape (a bucket keeps what it
// offers each shape until the workload changes): a search costs a walk
// over the distinct node states that could take the pod, not the nodes.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <vector>

#include "scheduler-core/placement_rule.h"
#include "scheduler-core/workload_model.h"

namespace vtenant::sched {

class FgdRule : public PlacementRule {
 public:
  // `model` may be null: then the snapshot's pods are the workload. At most
  // `max_scored` node states that fit are scored per pod, tightest first,
  // plus the one with the most room (Options::fgd_max_candidates).
  FgdRule(const ClusterState& state, std::shared_ptr<const WorkloadModel> model,
          int max_scored = 16);

  bool Find(const Placer& placer, PodId pod, const NodeFilter& filter, Allocation* out) override;
  // Binpack's device order, for Check's own device choice.
  bool DeviceKey(Milli used, Milli portion, int index, DeviceFit worst,
                 int64_t* key) const override;

  // The node's fragmentation against the current workload (the model as
  // it is now, read again if it learned since), in milli-GPU.
  double NodeFragmentation(NodeId node);

 private:
  // One shape of the workload, resolved against this snapshot.
  struct Target {
    int64_t cpu_milli;
    int64_t memory_bytes;
    int32_t devices;     // devices it needs room on
    Milli fraction;      // per device; 1000 for whole GPUs
    int32_t memory_mib;  // gpu-memory shapes: per device
    double weight;
    std::vector<uint8_t> eligible;  // per node class
  };
  // A node's state as fragmentation sees it.
  struct View {
    int64_t cpu_milli;
    int64_t memory_bytes;
    bool pod_slot;
    int32_t node_class;
    int32_t device_mib;
    int num_devices;
    std::array<Milli, kMaxDevicesPerNode> free;  // 0 for devices held whole
  };
  // What a bucket's state offers one pod shape: a function of the state
  // and the shape alone (fit, and for the best device choice its growth and
  // tie-breaks), so it is worked out once per bucket and shape, not once
  // per pod; a node leaving the state moves to another bucket.
  struct Offer {
    ShapeId shape;
    bool fits;
    double growth;
    Milli gpu_left;
    // |leftover CPU share - leftover GPU share| of the node after the pod:
    // GPUs left without CPU beside them are stranded, and so are CPU cores
    // left beside no GPU for the GPU pods that need them.
    double imbalance;
    Milli room_left;  // on the device a single-device shared pod takes
    Milli room;       // that device's room before it
  };
  struct Bucket {
    std::set<NodeId> nodes;
    double frag = 0;
    bool frag_known = false;
    std::vector<Offer> offers;
  };
  using Key = std::vector<int64_t>;

  void BuildTargets(const std::vector<WorkloadModel::Entry>& entries);
  // Re-reads the model when it learned something since (a caller that
  // keeps one rule across arrivals, like vtenant-sim --each-pod-once).
  void Refresh();
  void CatchUp();
  Key KeyOf(NodeId node) const;
  View ViewOf(NodeId node) const;
  double Frag(const View& v) const;
  // What bucket `b`, whose node `n` the pod fits, offers the pod.
  Offer Evaluate(const Placer& placer, PodId pod, NodeId n, Bucket& b) const;

  const ClusterState* state_;
  const Snapshot* snapshot_;
  std::shared_ptr<const WorkloadModel> model_;
  uint64_t model_version_ = 0;
  std::vector<int32_t> class_of_;  // per node
  std::vector<NodeId> class_example_;
  std::vector<Target> targets_;
  std::map<Key, Bucket> buckets_;
  std::vector<const Key*> key_of_;  // per node, into buckets_
  size_t log_seen_ = 0;
  int max_scored_;
};

}  // namespace vtenant::sched
