// ClusterView: the scheduler's translated copy of the cluster, fed by
// informer events, and the core's Universe (scheduler-core/universe.h) kept
// up to date from it, whose working snapshot each cycle is given.
//
// Objects are translated once per change (core_pod.h and the other core_*.h): an
// event carrying the resourceVersion already translated (an informer's
// resync, a relist) is skipped. A cycle then works out, for each object,
// what the core should see (a pod's group and queue, or that it only holds
// resources, or that it waits with a reason) and hands the Universe only
// the objects whose translation or standing changed since the cycle
// before, so names are interned and shapes found once per change, not once
// per cycle; what runs where is given fresh each cycle (the work is counted
// in vtenant_scheduler_translations_total and
// vtenant_scheduler_core_pod_updates_total). On top of what the
// API server says, the view holds what only the scheduler knows yet:
//   - assumed placements: binds in flight or done but not yet seen by the
//     informer, so a pod is never placed twice and its GPU never given away;
//   - nominations: placements decided while their victims still terminate;
//     the pod holds its place until the victims are gone, then is bound.
// Pods that are terminating still hold their resources (as non-preemptible
// holders: they are already leaving). Pods bound by other schedulers hold
// theirs the same way. A pod whose eviction was just refused is not offered
// as a victim for a while. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "kai/priority_classes.h"
#include "kube/metrics.h"
#include "kube/object.h"
#include "scheduler-core/model.h"
#include "scheduler-core/snapshot_builder.h"
#include "scheduler-core/universe.h"
#include "scheduler-core/workload_model.h"
#include "scheduler/attach_limits.h"
#include "scheduler/core_pod.h"
#include "scheduler/core_podgroup.h"
#include "scheduler/device_claims.h"
#include "scheduler/node_pool.h"
#include "scheduler/pod_sets.h"
#include "scheduler/topology_domains.h"
#include "scheduler/volume_claims.h"
#include "scheduler/worker_roles.h"

namespace vtenant::scheduler {

// Where a pod goes or sits: node, device indices on it, portion per device
// (1000 for whole GPUs).
struct Placement {
  std::string node;
  std::vector<int> devices;
  sched::Milli portion = 0;
  bool shared = false;  // a GPU-sharing pod (fraction or gpu-memory)
  bool operator==(const Placement&) const = default;
};

// The queue that holds pods the scheduler may not move: bound by others,
// terminating, or of a queue that no longer exists. Not a Kubernetes name.
inline constexpr char kHolderQueue[] = "~held";

// A label every node carries in the snapshot, its name, so that a pod's
// node affinity resolved to node names can match it. Not a valid
// Kubernetes label key, so no real label can collide with it.
inline constexpr char kNodeNameLabel[] = "~node-name";

// The pod set, in the snapshot, of the pods that name ResourceClaim
// `claim` (a key): while no bind has allocated it, a waiting one goes to a
// node that holds one of them already, as the claim will be there. Not a
// key PodSets makes, so no inter-pod term can name it.
std::string ClaimSharersKey(std::string_view claim);

// One reservation pod: the shared GPU it pins.
struct Reservation {
  std::string name;  // in the reservation namespace
  std::string node;
  int index = -1;
  bool terminating = false;
};

// A pod left out of a cycle, and why (for its Event).
struct Unschedulable {
  std::string key;
  std::string reason;
};

struct World {
  // Pod names are pod keys. Owned by the view; valid until its next Build.
  const sched::Snapshot* snapshot = nullptr;
  std::vector<bool> movable;  // by PodId: ours and not a holder
  std::vector<Unschedulable> unschedulable;
  std::map<std::string, std::string> pod_group;  // pod key -> its PodGroup's key
  std::set<std::string> podgroups;               // keys of the PodGroup objects in the snapshot
  // PodGroups that cannot be scheduled as written (a malformed
  // spec.subGroups, an unknown preemptibility, a queue that does not
  // exist): why, its kind in KAI's words (kai/names.h), and how many of
  // their pods run (bound before the group went wrong) and wait, for its
  // status.
  struct InvalidGroup {
    std::string reason;
    std::string kind;
    int32_t running = 0;
    int32_t pending = 0;
  };
  std::map<std::string, InvalidGroup> invalid_podgroups;
  // PodGroups not ready for scheduling, as KAI counts them: some of their
  // pods wait (pending or gated) and fewer than minMember are alive and not
  // gated. Keyed by PodGroup key.
  struct NotReadyGroup {
    int32_t min_member = 0;
    int32_t alive = 0;  // pods that exist and have not finished
    int32_t gated = 0;  // of them, held by scheduling gates
  };
  std::map<std::string, NotReadyGroup> not_ready;
};

class ClusterView {
 public:
  // Registers its counters in `registry`, which must outlive it. `roles`:
  // which nodes are the scheduler's and which pods each takes
  // (worker_roles.h; by default every node takes every pod). `pool`: the
  // nodes, Queues, PodGroups and pods of the scheduler's shard
  // (node_pool.h; by default those without KAI's node-pool label).
  explicit ClusterView(CorePodOptions options, kube::Registry* registry = &kube::DefaultRegistry(),
                       WorkerRoles roles = {}, NodePool pool = {});

  // From now on each pod Build sees for the first time is observed into
  // `model` (the pod shapes fgd measures fragmentation against), so the
  // workload is learned from the pods that arrive, older ones decayed,
  // rather than read off whatever one cycle's snapshot holds. Holders
  // (terminating pods, other schedulers' pods, reservation pods) are not
  // workload and are left out.
  void LearnWorkload(std::shared_ptr<sched::WorkloadModel> model);

  // Informer events. An upsert whose object has the resourceVersion last
  // translated for it changes nothing and costs no translation.
  void UpsertPod(const rapidjson::Value& pod);
  void DeletePod(const rapidjson::Value& pod);
  void UpsertNode(const rapidjson::Value& node);
  void DeleteNode(const rapidjson::Value& node);
  void UpsertQueue(const rapidjson::Value& queue);
  void DeleteQueue(const rapidjson::Value& queue);
  // Each queue's historical usage (UsageHistory::Usage), which the next
  // Builds give the core (sched::Queue::usage_ppm); a queue not listed has
  // none.
  void SetQueueUsage(std::map<std::string, sched::ResourceVector> usage);
  void UpsertPodGroup(const rapidjson::Value& group);
  void DeletePodGroup(const rapidjson::Value& group);
  // KAI's Topologies (topology_domains.h): the domains of the nodes, and
  // the levels a PodGroup's topologyConstraint names. A Topology that is
  // malformed is left out, as if absent.
  void UpsertTopology(const rapidjson::Value& topology);
  void DeleteTopology(const rapidjson::Value& topology);
  // PriorityClasses: a PodGroup's priority is the value of the class its
  // spec.priorityClassName names, else of the global default class, else
  // 50, as KAI's (kai/priority_classes.h); its pods' spec.priority is not
  // read. A pod in no PodGroup keeps its own spec.priority.
  void UpsertPriorityClass(const rapidjson::Value& priority_class);
  void DeletePriorityClass(const rapidjson::Value& priority_class);
  // ConfigMaps, by name only: a pod of ours waits, as KAI's predicate has
  // it, until every ConfigMap it requires (CorePod::required_configmaps)
  // exists ("Missing required configmaps: [a b]"). UpsertConfigMap returns
  // whether a pod the last Build left waiting needs that ConfigMap (worth
  // a cycle; most ConfigMaps, the binder's own among them, are not).
  bool UpsertConfigMap(const rapidjson::Value& configmap);
  void DeleteConfigMap(const rapidjson::Value& configmap);
  // Namespaces, by their labels: a pod affinity term's namespaceSelector
  // reaches the namespaces whose labels it matches (pod_terms.h). Each
  // returns whether a change of labels changes which pods a known term
  // selects (worth a cycle).
  bool UpsertNamespace(const rapidjson::Value& ns);
  bool DeleteNamespace(const rapidjson::Value& ns);
  // PersistentVolumeClaims, PersistentVolumes, StorageClasses, CSIDrivers
  // and CSIStorageCapacities: where a pod's claims let it go
  // (volume_claims.h); a pod whose claims keep it from any node waits with
  // the reason. Each returns whether the last Build left a pod waiting on
  // its claims (worth a cycle).
  enum class StorageKind { kClaim, kVolume, kClass, kDriver, kCapacity };
  bool UpsertStorage(StorageKind kind, const rapidjson::Value& object);
  bool DeleteStorage(StorageKind kind, const rapidjson::Value& object);
  // CSINodes: how many volumes of each CSI driver a node attaches
  // (attach_limits.h). Each returns whether the limits changed (worth a
  // cycle).
  bool UpsertCsiNode(const rapidjson::Value& csi_node);
  bool DeleteCsiNode(const rapidjson::Value& csi_node);
  // ResourceSlices, DeviceClasses, ResourceClaims and DeviceTaintRules:
  // where a pod's dynamic resource claims let it go, and the devices each
  // node has free (device_claims.h). Each returns whether a pod waited on
  // its claims at the last Build, or what nodes have free changed (worth a
  // cycle).
  enum class DeviceKind { kSlice, kClass, kClaim, kTaintRule };
  // Says that they cannot be read, and `why`: pods with resource claims
  // wait with it.
  void DevicesUnavailable(std::string why);
  bool UpsertDevices(DeviceKind kind, const rapidjson::Value& object);
  bool DeleteDevices(DeviceKind kind, const rapidjson::Value& object);
  // What binding pod `key` to `node` writes into its resource claims
  // (DeviceClaims::PlanAllocation). The devices chosen are held from now
  // on, until the claims show them or ForgetDevices.
  Result<std::vector<ClaimAllocation>> AllocateDevices(const std::string& key,
                                                       const std::string& node);
  // Lets go of the devices AllocateDevices chose for `key`'s claims
  // `claims` (a bind that failed before writing them).
  void ForgetDevices(const std::string& key, const std::vector<std::string>& claims);
  // What binding pod `key` to `node` asks of its claims that wait for
  // their first consumer (VolumeClaims::PlanBinding), as the view now sees
  // them.
  Result<std::vector<VolumeClaims::ClaimBinding>> ClaimBindings(const std::string& key,
                                                                const std::string& node) const;

  // Records that `key` goes to `placement` (a bind started). It holds the
  // placement until the informer shows the pod bound or gone, or Forget.
  void Assume(const std::string& key, Placement placement);
  void Forget(const std::string& key);

  // Records that `key` will go to `placement` once the pods `victims`
  // (keys) are gone; it holds the placement meanwhile. A nomination renewed
  // by a later cycle keeps its victims and adds the new ones.
  void Nominate(const std::string& key, Placement placement, std::vector<std::string> victims,
                int64_t now);
  void DropNomination(const std::string& key);
  // Nominated pods whose victims have all left the cluster (deleted, or
  // finished): ready to bind. Nominations older than `max_age_s` at `now`
  // are dropped instead, so the next cycle plans again.
  std::vector<std::pair<std::string, Placement>> NominationsReady(int64_t now,
                                                                  int64_t max_age_s = 300);

  // Records that evicting `key` was refused (a PodDisruptionBudget said no):
  // until `until` (seconds) the pod, and its PodGroup, count as not
  // preemptible, so the next cycles pick other victims or wait instead of
  // asking for the same eviction every cycle.
  void EvictionRefused(const std::string& key, int64_t until);

  // Records that a pod of PodGroup `group_key` was evicted at `now`
  // (seconds): the group's preemption delay counts from then
  // (sched::PodGroup::last_eviction_time). Kept while the group exists; the
  // status writer puts it on the group, whence a restarted scheduler reads
  // it (CoreGroup::last_eviction_written).
  void GroupEvicted(const std::string& group_key, int64_t now);

  // Records that pods of PodGroup `group_key` were bound or nominated at
  // `now` (seconds): its minimum runtime counts from then
  // (sched::PodGroup::last_start_time, KAI's LastStartTimestamp). Kept and
  // written back as GroupEvicted's time is (CoreGroup::last_start_written).
  void GroupStarted(const std::string& group_key, int64_t now);

  // The snapshot for a cycle at `now` (seconds): the Universe brought up
  // to date with what changed since the last call, and its working
  // snapshot. One caller at a time (the cycle); the events above may come
  // meanwhile from other threads.
  Result<World> Build(int64_t now);

  // The translated pod, if known.
  std::optional<CorePod> Pod(const std::string& key) const;
  std::vector<Reservation> Reservations() const;
  // Shared GPUs in use: (node, device index) of every sharing pod that is
  // bound, assumed or nominated.
  std::set<std::pair<std::string, int>> SharedDevicesInUse() const;
  // How many of our pods are pending (not bound, assumed, nominated or
  // terminating).
  size_t PendingCount() const;
  // The labels of `node`; NotFound when the view has no such node.
  Result<sched::LabelPairs> NodeLabels(const std::string& node) const;
  // The published GPU UUID of the reservation of (node, index), "" if none yet.
  std::string ReservedGpuUuid(const std::string& node, int index) const;

 private:
  // The keys of the pod sets (pod_sets.h) pod `key` is in, worked out
  // again only when the sets or the pod changed. mu_ held.
  const std::vector<std::string>& MarksOf(const std::string& key, const CorePod& pod);
  // UpsertStorage and DeleteStorage. Takes mu_.
  bool ChangeStorage(StorageKind kind, const rapidjson::Value& object, bool remove);
  // UpsertDevices and DeleteDevices. Takes mu_.
  bool ChangeDevices(DeviceKind kind, const rapidjson::Value& object, bool remove);
  // "Missing required configmaps: [a b]" for pod `key`, "" when none is
  // missing; the missing ones join awaited_configmaps_. mu_ held.
  std::string MissingConfigMaps(const std::string& key, const CorePod& pod);
  // Whether `object` of `kind` ('p'od, 'n'ode, 'q'ueue, pod'g'roup) under
  // `key` has the resourceVersion last translated (never for an object
  // without one); counts a translation otherwise. Takes mu_.
  bool Unchanged(char kind, const std::string& key, const rapidjson::Value& object);
  // Notes the version translated, or forgets it. mu_ held.
  void Translated(char kind, const std::string& key, const rapidjson::Value& object);
  void Forgotten(char kind, const std::string& key);
  // Upsert and delete of a Node or Queue, kept in `specs` under its name:
  // `translate` makes its spec; one it cannot translate is taken out, and the
  // log says why and `until_fixed`; one `keep` (when given) refuses is taken
  // out silently. Take mu_.
  template <typename Spec>
  void UpsertNamed(char kind, const rapidjson::Value& object,
                   Result<Spec> (*translate)(const rapidjson::Value&),
                   std::map<std::string, Spec>& specs, std::string_view until_fixed,
                   const std::function<bool(const Spec&)>& keep = nullptr);
  template <typename Spec>
  void DeleteNamed(char kind, const rapidjson::Value& object, std::map<std::string, Spec>& specs);

  // What a cycle adds to a translated pod for the core (see Build).
  struct CoreFields {
    bool holder = false;  // holds resources in kHolderQueue instead of being scheduled
    std::string queue;    // the queue of its own group, when `group` is empty
    std::string group;    // its PodGroup's key, "" when a group of its own
    int32_t priority = 0;
    std::optional<bool> preemptible;
    std::optional<std::vector<std::string>> affinity_nodes;  // resolved affinity
    std::vector<std::string> marks;                          // the pod sets it is in
    // The sets it must share a node with (ClaimSharersKey): of the claims
    // it waits to share with other pods, not allocated yet.
    std::vector<std::string> together;
    int32_t whole_gpus = 0;                      // capped at its node's GPUs once bound
    std::map<std::string, int64_t> attachments;  // its volumes, as attach_limits.h counts them
    std::map<std::string, int64_t> devices;      // its claims' devices, as device_claims.h counts
    int32_t claim_gpus = 0;                      // the GPUs its claims charge its queue
    bool operator==(const CoreFields&) const = default;
  };
  // What the Universe was last given for a pod, and its id there.
  struct SyncedPod {
    sched::PodSpec spec;  // as translated
    CoreFields core;
    sched::PodId id = sched::kNone;
  };
  // One pod of this cycle's snapshot, as Build works it out.
  struct Derived {
    const std::string* key = nullptr;
    const CorePod* pod = nullptr;
    CoreFields core;
    std::optional<Placement> placement;  // bound, assumed or nominated
    bool pinned = false;                 // its devices are known, not just their number
    sched::PodId id = sched::kNone;      // in the Universe, once synced
  };

  // Brings the Universe to `queues`, `groups` and the `derived` pods (in
  // key order; their ids are filled in), adding and changing before
  // removing so nothing ever refers to what is gone. A pod the core refuses
  // as written is left out, with its reason in `unschedulable`. mu_ held.
  Status SyncUniverse(const std::map<std::string, const sched::QueueSpec*>& queues,
                      const std::map<std::string, sched::GroupSpec>& groups,
                      std::vector<Derived>& derived, std::vector<Unschedulable>& unschedulable);

  const CorePodOptions options_;
  const WorkerRoles roles_;
  const NodePool pool_;
  mutable std::mutex mu_;
  std::map<std::string, CorePod> pods_;
  // The sets of pods the pods' inter-pod terms name, and each pod's marks
  // as of a version of them (kept only while some set is named).
  PodSets pod_sets_;
  struct Marks {
    uint64_t version = 0;  // of pod_sets_ plus namespaces_changed_
    std::vector<std::string> keys;
  };
  std::map<std::string, Marks> marks_;
  std::map<std::string, kube::Labels, std::less<>> namespace_labels_;
  // Counts the changes of namespaces' labels that some known set reads.
  uint64_t namespaces_changed_ = 0;
  std::map<std::string, sched::NodeSpec> nodes_;
  std::map<std::string, sched::QueueSpec> queues_;
  std::map<std::string, sched::ResourceVector> queue_usage_;  // SetQueueUsage's
  std::map<std::string, CoreGroup> groups_;
  std::map<std::string, std::string> invalid_groups_;  // PodGroup key -> why it is refused
  std::set<std::string>
      foreign_groups_;  // PodGroups of another pool: theirs and their pods' ours not
  Topologies topologies_;
  kai::PriorityClasses priority_classes_;
  uint64_t topologies_changed_ = 0;           // counts changes: the nodes' domain labels follow
  std::set<std::string> configmaps_;          // keys of the ConfigMaps that exist
  std::set<std::string> awaited_configmaps_;  // missing ones pods waited for at the last Build
  VolumeClaims volumes_;
  AttachLimits attach_;
  DeviceClaims devices_;
  bool awaited_devices_ = false;  // a pod waited on its resource claims at the last Build
  bool awaited_volumes_ = false;  // a pod waited on its claims at the last Build
  std::map<std::string, Placement> assumed_;
  struct Nomination {
    Placement placement;
    std::set<std::string> victims;
    int64_t since = 0;
  };
  std::map<std::string, Nomination> nominated_;
  std::map<std::string, int64_t> refused_;  // pod key -> protected until (seconds)
  // PodGroup key -> since when it runs below its minimum (RunsBelowMinimum):
  // as written on the group when this process first saw it so, else that
  // cycle's time; redone at every Build.
  std::map<std::string, int64_t> stale_since_;
  std::map<std::string, int64_t> last_eviction_;  // PodGroup key -> GroupEvicted's `now`
  std::map<std::string, int64_t> last_start_;     // PodGroup key -> GroupStarted's `now`
  std::map<std::pair<char, std::string>, std::string> versions_;  // translated resourceVersions
  // Objects translated (upserts not skipped as unchanged), by kind.
  kube::Family<kube::Counter>* translations_;

  // The core's view, touched only by Build.
  sched::Universe universe_;
  std::map<std::string, sched::NodeSpec> synced_nodes_;    // as translated
  uint64_t synced_topologies_ = 0;                         // topologies_changed_ when synced
  uint64_t synced_attach_limits_ = 0;                      // attach_.version() when synced
  uint64_t synced_devices_ = 0;                            // devices_.version() when synced
  std::map<std::string, sched::QueueSpec> synced_queues_;  // holder included
  std::map<std::string, sched::GroupSpec> synced_groups_;
  std::map<std::string, SyncedPod> synced_pods_;
  std::vector<sched::PresentPod> present_;
  // Pods handed to the core's Universe: once when a pod comes, and again
  // only when its translation or its standing (group, queue, held or
  // scheduled, placement's GPU count) changes, not once per cycle.
  kube::Counter* core_updates_;
  std::shared_ptr<sched::WorkloadModel> workload_;  // may be null
};

}  // namespace vtenant::scheduler
