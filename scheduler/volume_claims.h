// VolumeClaims: where a pod's PersistentVolumeClaims let it go, as
// kube-scheduler's VolumeBinding plugin (which KAI's scheduler runs too)
// has it, for the claims of its volumes (persistentVolumeClaim, and the
// claim "<pod>-<volume>" the ephemeral volume controller makes for a
// generic ephemeral volume):
//   - a claim that does not exist, or is being deleted, keeps the pod
//     waiting; so does an ephemeral volume's claim the pod does not own;
//   - a bound claim holds the pod to the nodes its PersistentVolume's
//     spec.nodeAffinity admits (a zonal disk, a local volume), and its
//     zone and region labels, as kube-scheduler's VolumeZone reads them
//     (values joined by "__", a beta key read on a node by its GA one, a
//     node with none of these labels admitted); one bound to a volume that
//     does not exist keeps it waiting;
//   - an unbound claim whose StorageClass binds on the first consumer
//     (volumeBindingMode WaitForFirstConsumer) holds it to the nodes where
//     it can have a volume: those an available PersistentVolume of its
//     class that fits it admits (a local disk: kubernetes.io/no-provisioner
//     classes have no other), and, when the class provisions, those its
//     allowedTopologies admit. At bind (PlanBinding) the claim is bound to
//     the smallest such volume on the chosen node (the volume's claimRef,
//     as kube-scheduler writes it; the volume controller completes the
//     binding), else gets annotation volume.kubernetes.io/selected-node,
//     which tells the provisioner where to make the volume. Where the
//     class's CSI driver tracks storage capacity (CSIDriver
//     spec.storageCapacity), it is made only on nodes a CSIStorageCapacity
//     of the class selects (nodeTopology) with room for the claim's request
//     (maximumVolumeSize, else capacity), as kube-scheduler checks;
//   - any other unbound claim (an Immediate class, a class that does not
//     exist, none) waits for the volume controller to bind it.
// Which pod holds a ReadWriteOncePod claim is the view's to say
// (OnePodOnly; cluster_view.h), from the pods it sees.
// Not thread-safe: the view holds it under its lock.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "kube/label_selector.h"
#include "kube/object.h"
#include "scheduler/node_affinity.h"

namespace vtenant::scheduler {

// The annotation that tells a provisioner which node a claim's first
// consumer was scheduled to (kube-scheduler's, read by every CSI
// external-provisioner).
inline constexpr char kSelectedNodeAnnotation[] = "volume.kubernetes.io/selected-node";
// On a PersistentVolume the scheduler bound to a claim, as kube-scheduler
// marks it.
inline constexpr char kBoundByControllerAnnotation[] = "pv.kubernetes.io/bound-by-controller";
// The provisioner of classes of local disks made by hand: it makes none,
// and the volume controller binds no claim of them; the scheduler that
// picks the node does.
inline constexpr std::string_view kNoProvisioner = "kubernetes.io/no-provisioner";

// A claim a pod's volumes name.
struct PodClaim {
  std::string name;
  bool ephemeral = false;  // made for a generic ephemeral volume: the pod must own it
  bool operator==(const PodClaim&) const = default;
};

// The claims of `pod`'s volumes, in volume order.
std::vector<PodClaim> PodClaims(const rapidjson::Value& pod);

class VolumeClaims {
 public:
  // Where a pod's claims let it go.
  struct Verdict {
    std::string reason;     // why it cannot be placed now; "" when it can
    NodeAffinity affinity;  // the nodes its volumes admit; empty: any
  };

  // What binding a pod to a node asks of one of its claims that waits for
  // its first consumer.
  struct ClaimBinding {
    std::string claim;
    std::string claim_uid;
    // The PersistentVolume to bind it to, at the resourceVersion it was
    // chosen at; empty: the claim is provisioned there (selected-node).
    std::string volume;
    std::string volume_version;
    bool operator==(const ClaimBinding&) const = default;
  };

  // Informer events. A claim, volume or class that cannot be read is kept
  // as one that says so (its pods wait with the reason).
  void UpsertClaim(const rapidjson::Value& claim);
  void DeleteClaim(const rapidjson::Value& claim);
  void UpsertVolume(const rapidjson::Value& volume);
  void DeleteVolume(const rapidjson::Value& volume);
  void UpsertClass(const rapidjson::Value& storage_class);
  void DeleteClass(const rapidjson::Value& storage_class);
  void UpsertDriver(const rapidjson::Value& csi_driver);
  void DeleteDriver(const rapidjson::Value& csi_driver);
  void UpsertCapacity(const rapidjson::Value& csi_storage_capacity);
  void DeleteCapacity(const rapidjson::Value& csi_storage_capacity);

  // The verdict for claims `claims` of the pod with UID `pod_uid` in `ns`.
  Verdict Check(std::string_view ns, std::string_view pod_uid,
                const std::vector<PodClaim>& claims) const;

  // Whether claim `claim` in `ns` asks for access mode ReadWriteOncePod:
  // one pod in the cluster may use it at a time.
  bool OnePodOnly(std::string_view ns, std::string_view claim) const;
  // Whether any claim does.
  bool AnyOnePodOnly() const { return one_pod_claims_ > 0; }

  // The CSI driver that attaches the volume of claim `claim` in `ns`, as
  // kube-scheduler's NodeVolumeLimits counts it: its PersistentVolume's
  // spec.csi.driver once bound, else its StorageClass's provisioner; ""
  // when neither says (an unknown claim, volume or class, a volume of an
  // in-tree plugin).
  std::string AttachingDriver(std::string_view ns, std::string_view claim) const;

  // What binding that pod to node `node` (with `labels`) asks of its claims
  // that wait for their first consumer, in claim order, each volume chosen
  // once. FailedPrecondition when one can have no volume there.
  Result<std::vector<ClaimBinding>> PlanBinding(std::string_view ns,
                                                const std::vector<PodClaim>& claims,
                                                std::string_view node,
                                                const sched::LabelPairs& labels) const;

 private:
  struct Claim {
    std::string uid;
    bool deleting = false;
    std::string volume;         // spec.volumeName: bound when not empty
    std::string storage_class;  // "" when it names none
    std::string selected_node;  // annotation kSelectedNodeAnnotation
    std::vector<std::string> owner_uids;
    // What a volume must offer it: spec.resources.requests.storage in
    // bytes, every access mode it asks, its volumeMode, and labels its
    // spec.selector selects (a selector the API server would refuse
    // selects no volume).
    int64_t request = 0;
    std::vector<std::string> access_modes;
    std::string volume_mode;
    Result<kube::LabelSelector> selector = kube::LabelSelector();
    bool one_pod_only = false;  // access mode ReadWriteOncePod
  };
  struct Volume {
    Result<NodeAffinity> affinity = NodeAffinity{};
    std::string version;  // metadata.resourceVersion
    std::string storage_class;
    bool available = false;  // status.phase Available and no claimRef
    int64_t capacity = 0;    // bytes
    std::vector<std::string> access_modes;
    std::string volume_mode;
    kube::Labels labels;
    std::string csi_driver;  // spec.csi.driver
  };
  // The available volumes `claim` fits, smallest first (then by name).
  std::vector<const std::pair<const std::string, Volume>*> Candidates(const Claim& claim) const;
  struct Class {
    bool wait_for_first_consumer = false;
    std::string provisioner;
    Result<NodeAffinity> allowed_topologies = NodeAffinity{};
    // Whether it makes volumes (kNoProvisioner makes none).
    bool Provisions() const { return provisioner != kNoProvisioner; }
  };
  // The class of `claim` when it binds on the first consumer; else (no
  // class named, an unknown one, an Immediate one) nullptr.
  const Class* FirstConsumerClass(const Claim& claim) const;
  // A CSIStorageCapacity: storage of one class on the nodes it selects.
  struct Capacity {
    std::string storage_class;
    int64_t limit = -1;  // bytes: maximumVolumeSize, else capacity; -1: neither
    // nodeTopology as node affinity; nullopt when it has none (no node has
    // access) or one the API server would refuse.
    std::optional<NodeAffinity> nodes;
  };
  // Where class `cls` can make a volume for `claim` as far as storage
  // capacity goes: anywhere (an empty affinity) when its driver does not
  // track capacity or the claim asks for no size; else the nodes of the
  // class's capacities with room for it, nullopt when there are none.
  std::optional<NodeAffinity> RoomToProvision(const Claim& claim, const Class& cls) const;
  std::map<std::string, Claim> claims_;  // by "namespace/name"
  int one_pod_claims_ = 0;               // of claims_, those one_pod_only
  std::map<std::string, Volume, std::less<>> volumes_;
  std::map<std::string, Class, std::less<>> classes_;
  // CSI drivers by name: whether each tracks storage capacity.
  std::map<std::string, bool, std::less<>> drivers_;
  std::map<std::string, Capacity> capacities_;  // by "namespace/name"
};

}  // namespace vtenant::scheduler
