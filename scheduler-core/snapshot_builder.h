// Builds a Snapshot from named objects, the way callers think of them
// (nodes, queues, pod groups and pods by name), and validates it.
//
// The simulator and the tests build snapshots through this class; the
// Kubernetes-facing program keeps a Universe (universe.h), which applies
// the same Make*/OwnGroupSpec functions below, so name resolution and the
// defaults KAI applies (a pod without a group is a group of one) live in
// one place.
// Objects may be added in any order; names are resolved by Build().
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "scheduler-core/model.h"

namespace vtenant::sched {

using LabelPairs = std::vector<std::pair<std::string, std::string>>;

struct TaintSpec {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::kNoSchedule;
  bool operator==(const TaintSpec&) const = default;
};

struct TolerationSpec {
  std::string key;  // empty with exists: tolerate everything
  bool exists = false;
  std::string value;
  std::optional<TaintEffect> effect;
  auto operator<=>(const TolerationSpec&) const = default;
};

struct NodeSpec {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  int32_t max_pods = 110;
  bool schedulable = true;
  bool gpus_in_capacity = true;  // Node::gpus_in_capacity
  int32_t gpus = 0;
  int32_t gpu_memory_mib = 0;
  std::string gpu_model;
  LabelPairs labels;
  std::vector<TaintSpec> taints;
  std::vector<std::pair<std::string, int32_t>> mig;  // "1g.5gb" -> count (mixed strategy)
  // Allocatable of other resources (model.h's OtherResource), milli.
  std::map<std::string, int64_t> other_resources;
  int32_t claim_gpus = 0;  // Node::claim_gpus
  bool operator==(const NodeSpec&) const = default;
};

struct QueueSpec {
  std::string name;
  std::string parent;  // empty: top level
  std::array<QueueResource, kNumResources> resources{};
  int32_t priority = 0;
  std::optional<int64_t> preempt_min_runtime_s;
  std::optional<int64_t> reclaim_min_runtime_s;
  int64_t creation_time = 0;
  ResourceVector usage_ppm;  // Queue::usage_ppm
  bool operator==(const QueueSpec&) const = default;
};

struct GroupSpec {
  std::string name;
  std::string queue;
  int32_t min_member = 1;
  int32_t priority = 0;
  // Unset: follows from the priority as KAI derives it (PreemptibleByDefault).
  std::optional<bool> preemptible;
  int64_t creation_time = 0;
  // PodGroup's, model.h; their `topology` is set from subgroup_topology.
  std::vector<SubGroup> subgroups;
  std::vector<SubGroupSet> subgroup_sets;
  int32_t min_sub_group = kAllChildren;
  std::string required_topology;  // node label key, empty: none
  std::string preferred_topology;
  // The levels of sub-groups (leaves or sets) that have a constraint, by
  // sub-group name; node label keys as above.
  struct Levels {
    std::string required;
    std::string preferred;
    bool operator==(const Levels&) const = default;
  };
  std::map<std::string, Levels> subgroup_topology;
  int64_t stale_since = -1;
  std::optional<int64_t> stale_grace_s;  // PodGroup's, model.h
  int64_t preemption_delay_s = 0;
  int64_t last_eviction_time = 0;
  int64_t last_start_time = 0;  // PodGroup's, model.h
  bool operator==(const GroupSpec&) const = default;
};

struct PodSpec {
  std::string name;
  // Empty: the pod is a job of its own (a group named after it) in `queue`,
  // with `priority` and `preemptible`, as KAI's pod grouper does.
  std::string group;
  std::string queue;
  int32_t priority = 0;
  std::optional<bool> preemptible;  // unset: derived from the priority
  std::string subgroup;
  // The request. ShapeSpec (workload_model.h) repeats these fields as the
  // key of a learned shape, which has no name or group.
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  int32_t whole_gpus = 0;
  Milli gpu_fraction = 0;
  int32_t gpu_memory_mib = 0;
  int32_t num_devices = 1;
  std::string mig_profile;
  int32_t mig_count = 0;
  int32_t claim_gpus = 0;  // PodRequest::claim_gpus
  LabelPairs node_selector;
  // Required node affinity terms "key In (values)".
  std::vector<std::pair<std::string, std::vector<std::string>>> node_affinity_in;
  std::vector<TolerationSpec> tolerations;
  // Inter-pod terms (model.h): the keys whose set holds the pod, and the
  // required affinity and anti-affinity terms, (key, level) each.
  std::vector<std::string> marks;
  std::vector<std::pair<std::string, std::string>> affinity;
  std::vector<std::pair<std::string, std::string>> anti_affinity;
  // PodExtras::together, (key, level) each.
  std::vector<std::pair<std::string, std::string>> together;
  struct Preferred {
    std::string key;
    std::string level;
    int32_t weight = 0;  // negative for anti-affinity
    bool operator==(const Preferred&) const = default;
  };
  std::vector<Preferred> preferred;
  struct Spread {
    std::string key;
    std::string level;
    int32_t max_skew = 1;
    int32_t min_domains = 1;
    bool honor_affinity = true;
    bool honor_taints = false;
    bool operator==(const Spread&) const = default;
  };
  std::vector<Spread> spread;
  std::map<std::string, int64_t> other_resources;  // requests, milli
  std::vector<std::string> host_ports;             // "TCP/8080"
  int64_t creation_time = 0;
  // Running pods: the node, the device indices on it and, for a sharing pod,
  // the portion per device (0: derive it from the request and the device).
  std::string node;
  std::vector<int> devices;
  Milli portion = 0;
  int64_t start_time = 0;
  bool operator==(const PodSpec&) const = default;
};

class SnapshotBuilder {
 public:
  SnapshotBuilder& SetNow(int64_t now) {
    now_ = now;
    return *this;
  }
  SnapshotBuilder& AddNode(NodeSpec spec) { return Append(nodes_, std::move(spec)); }
  SnapshotBuilder& AddQueue(QueueSpec spec) { return Append(queues_, std::move(spec)); }
  SnapshotBuilder& AddGroup(GroupSpec spec) { return Append(groups_, std::move(spec)); }
  SnapshotBuilder& AddPod(PodSpec spec) { return Append(pods_, std::move(spec)); }

  // Resolves names, derives indices, validates. The first problem found is
  // returned, naming the object and field.
  Result<Snapshot> Build() const;

 private:
  template <typename Spec>
  SnapshotBuilder& Append(std::vector<Spec>& specs, Spec spec) {
    specs.push_back(std::move(spec));
    return *this;
  }

  int64_t now_ = 0;
  std::vector<NodeSpec> nodes_;
  std::vector<QueueSpec> queues_;
  std::vector<GroupSpec> groups_;
  std::vector<PodSpec> pods_;
};

// One spec made into its model object, as Build() makes each: strings are
// interned in `strings`, and what one object alone can be checked for is
// checked (the error names the object and field). Names of other objects
// are left to the caller: MakeNode's devices (appended to `devices`, owned
// by node `id`) are its only link; MakeQueue leaves `parent`, MakeGroup
// `queue`, and MakePod `group` and the running state unset (MakePod resolves
// the pod's subgroup in `group`). Universe (universe.h) uses these to add
// objects one at a time.
Result<Node> MakeNode(const NodeSpec& spec, NodeId id, Interner& strings,
                      std::vector<GpuDevice>& devices);
Queue MakeQueue(const QueueSpec& spec);
PodGroup MakeGroup(const GroupSpec& spec, Interner& strings);
Result<Pod> MakePod(const PodSpec& spec, const PodGroup& group, Interner& strings);

// The group of one that a pod naming no group is in: the pod's name, queue,
// priority, preemptibility and creation time.
GroupSpec OwnGroupSpec(const PodSpec& pod);

// A queue spec with a GPU quota/limit/weight (in milli-GPU) and no CPU or
// memory constraint: the common case in tests, examples and benchmarks.
QueueSpec GpuQueue(std::string name, std::string parent, Milli quota, Milli limit = kUnlimited,
                   double weight = 1.0);

}  // namespace vtenant::sched
