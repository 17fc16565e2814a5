// NodePool: which nodes, Queues, PodGroups and pods are this scheduler's,
// as KAI Scheduler's shards divide a cluster (--nodepool-label-key,
// --partition-label-value). An object is in the pool when its label
// `label_key` equals `value`; with no value, when it lacks the label (the
// default shard, KAI's default, so that nodes labelled for another pool
// are left to that pool's scheduler); with no label key, always.
//
// Out of the pool, a node is not the scheduler's (as if absent, with the
// pods on it), nor is a Queue, nor a PodGroup and its pods, whose status
// another shard writes. A pod not yet in a PodGroup is the pool's by its
// own labels, which the pod grouper copies onto the group it makes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "kai/names.h"
#include "kube/object.h"
#include "scheduler-core/snapshot_builder.h"

namespace vtenant::scheduler {

struct NodePool {
  std::string label_key = kai::kNodePoolLabel;
  std::string value;

  // Whether an object whose pool label has `found` (nullopt: it has none)
  // is in the pool.
  bool Holds(std::optional<std::string_view> found) const;

  // Whether an object with `labels` (a map, or a node's pairs) is in it.
  template <typename Map>
  bool Includes(const Map& labels) const {
    auto it = labels.find(label_key);
    return Holds(it == labels.end() ? std::nullopt : std::optional<std::string_view>(it->second));
  }
  bool Includes(const sched::LabelPairs& labels) const;
  // By the object's metadata.labels.
  bool IncludesObject(const rapidjson::Value& object) const;

  // Its name in Events and PodGroup conditions: `value`, else "default", as
  // KAI names it.
  std::string_view Name() const {
    return value.empty() ? std::string_view("default") : std::string_view(value);
  }
};

}  // namespace vtenant::scheduler
