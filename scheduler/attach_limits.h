// AttachLimits: how many volumes of each CSI driver a node can attach, as
// its CSINode says (spec.drivers[].allocatable.count), so that a pod waits
// rather than be bound where its volumes cannot attach (kube-scheduler's
// NodeVolumeLimits; KAI's scheduler runs only its volume binding of
// kube-scheduler's volume plugins, and reads no limits; cloud block storage
// attaches a few dozen disks a node at most).
//
// The core knows no volumes: each limited driver becomes a node resource
// AttachResource(driver) (whose shortage the core reports as "exceed max
// volume count", sched::kAttachableVolumesPrefix), and each pod's volumes
// of that driver requests of it, one per claim:
//   - a node whose CSINode gives the driver a count has that many;
//   - any other node (no CSINode, the driver not listed there, no count)
//     attaches any number, and has kUnlimitedAttachments;
//   - a pod's persistentVolumeClaim and generic ephemeral volumes count,
//     by the driver that attaches their claim
//     (VolumeClaims::AttachingDriver), and its inline CSI volumes by theirs
//     (InlineCsiDrivers).
// Unlike kube-scheduler, a claim two pods on one node share counts for each
// (kube-scheduler counts a volume once a node), and in-tree volume plugins
// migrated to CSI are not counted.
// Not thread-safe: the view holds it under its lock.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "scheduler-core/snapshot_builder.h"

namespace vtenant::scheduler {

// The capacity of a node that sets no limit for a driver: more than any
// number of pods can ask (milli).
inline constexpr int64_t kUnlimitedAttachments = int64_t{1} << 50;

// The core resource that counts volumes of CSI driver `driver` attached to
// a node (the name Kubernetes once gave node allocatable for them).
std::string AttachResource(const std::string& driver);

// The driver of each of `pod`'s inline CSI volumes (spec.volumes[].csi), in
// volume order.
std::vector<std::string> InlineCsiDrivers(const rapidjson::Value& pod);

class AttachLimits {
 public:
  // CSINode informer events (a CSINode is named as its node). Each returns
  // whether the limits changed.
  bool Upsert(const rapidjson::Value& csi_node);
  bool Delete(const rapidjson::Value& csi_node);

  // Whether some node limits some driver; when not, nothing is counted.
  bool Empty() const { return drivers_.empty(); }
  // Counts the changes: what Apply gives a node follows it.
  uint64_t version() const { return version_; }

  // Sets on `node` (named `name`) AttachResource of every limited driver:
  // its count there, else kUnlimitedAttachments.
  void Apply(const std::string& name, sched::NodeSpec* node) const;

  // Adds to `requests` (resource → milli) one attachment per entry of
  // `drivers` (one a claim; "" for none) that some node limits.
  void AddRequests(const std::vector<std::string>& drivers,
                   std::map<std::string, int64_t>* requests) const;

 private:
  // By node: each driver's count where the CSINode gives one.
  std::map<std::string, std::map<std::string, int64_t>> counts_;
  // Each limited driver, with the number of nodes that limit it.
  std::map<std::string, int> drivers_;
  uint64_t version_ = 0;
};

}  // namespace vtenant::scheduler
