// DeviceClaims: dynamic resource allocation (resource.k8s.io/v1), as far as
// the scheduler takes part in it, as kube-scheduler's DynamicResources
// plugin (which KAI's scheduler runs) has it. A pod's spec.resourceClaims
// name ResourceClaims (directly, or through a template whose claim the
// resourceclaim controller names in the pod's status); each claim asks for
// devices of DeviceClasses, which drivers publish in ResourceSlices. The
// scheduler picks the devices, writes them into the claim's
// status.allocation and reserves the claim for the pod (status.reservedFor)
// before it binds the pod; the kubelet hands the devices to the driver.
//
//   - A claim that does not exist yet, is being deleted, or names a class
//     that does not exist or a CEL selector that cannot be read keeps its
//     pod waiting, saying so; so does a claim already reserved for
//     ResourceClaimReservedForMaxSize pods, one asking for more devices
//     than a claim can be given (kClaimAllocationMaxSize), and a shared
//     GPU claim (one the pod names itself; a class whose name says "gpu")
//     not labelled with the pod's queue, as KAI refuses it.
//   - An allocated claim holds the pod to the nodes of its
//     allocation.nodeSelector.
//   - A claim not allocated yet holds the pod to the nodes where all its
//     requests can have devices now (Check): devices that node's slices
//     publish (spec.nodeName, spec.allNodes, spec.nodeSelector) that no
//     claim holds (or a placed pod the core may evict, below), that its
//     class's and its own CEL selectors select (device_selector.h).
//     Requests are ExactCount (count, default 1), All (every selected
//     device on the node, at least one) or firstAvailable (the first
//     subrequest that can be had); All fails where a device it selects is
//     held.
//   - Devices are counted in the core too, so that one cycle does not give
//     one device to two pods: each node has, per class, the devices of that
//     class no claim holds (DeviceClassResource), and a pod asks for the
//     devices its unallocated claims' requests count (All: one); a claim
//     several pods share is asked for by one of them. The pods that share
//     a claim not allocated yet go to one node (the view makes them a set
//     the core keeps together, ClaimSharersKey), since the first bind
//     allocates it on its node: a gang of them is placed whole on one node
//     or waits.
//   - A placed pod holds the devices of the allocated claims it is charged
//     for in the core too: the node counts them as its own and the pod as
//     what it holds (SetPodHeld, Holds), so reclaim and preemption may
//     evict it to free them; the devices go to a waiting pod once the
//     resourceclaim controller has deallocated the claim. Devices of
//     slices for several nodes count as no node's while held.
//   - GPUs are counted in queues as KAI counts DRA GPUs: a node's own
//     slices of a driver whose name says "gpu" add their devices to the
//     cluster's GPU capacity, and a claim's requests of a class whose name
//     says "gpu" charge their devices to the queue of the pod charged for
//     the claim (Gpus), so queue quotas, limits and fair shares hold for
//     them.
//   - At bind (PlanAllocation) the devices are chosen on the node in the
//     order its slices (by name) list them; a device is never given twice,
//     even before the informer shows the claim allocated (Assume).
// A claim's constraints (matchAttribute: its devices, or those of the
// requests named, share an attribute's value, such as a GPU and a NIC on
// one PCIe root) are met by trying each value the node's devices have.
// A device tainted NoSchedule or NoExecute, by its slice or a
// DeviceTaintRule, is given only to a request whose tolerations tolerate
// the taint (device_taints.h); one an All request selects keeps it
// waiting. The core counts each class's free devices twice: untainted
// (DeviceClassResource), and tainted or not (AnyDeviceClassResource). A
// request without tolerations asks for both, one with tolerations for the
// second only, since it may take a tainted device; so one cycle never
// places more pods than there are devices. Which taints a request
// tolerates is checked per node (Check) and at the bind only.
// Partitionable devices: a device that consumes its pool's shared counters
// (a partition of a GPU) is given only while they are free, beside the
// held devices and those chosen in the same pass (CountersAllow). A slice
// with perDeviceNodeSelection serves each node the devices that name it
// (nodeName, allNodes, nodeSelector); like a slice for several nodes, its
// devices are no node's own (reclaim does not free them, and KAI's GPU
// capacity does not count them). Not built for partitions: reclaim (the
// counters a placed pod's partition uses stay used).
// A request for admin access (GA in Kubernetes 1.36; the API server
// allows it only in namespaces labelled for it) is given the devices it
// selects whether held or not, and holds none of them: it is not counted
// in the core, nor charged to a queue.
// Not built: distinctAttribute (alpha), consumable capacity, and extended
// resources backed by a class (KEP-5004): a pod that asks for one by
// Kubernetes' name for it waits, saying so (ClassBackedResource). The
// core's own device counts have names no pod can ask for.
// Not thread-safe: the view holds it under its lock.
#pragma once

#include <rapidjson/document.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "scheduler-core/snapshot_builder.h"
#include "scheduler/device_selector.h"
#include "scheduler/device_taints.h"
#include "scheduler/dra_device.h"
#include "scheduler/node_affinity.h"

namespace vtenant::scheduler {

// The most pods a claim can be reserved for (the API's
// ResourceClaimReservedForMaxSize).
inline constexpr size_t kClaimReservedForMaxSize = 256;

// The most devices a claim can be given (the API's
// AllocationResultsMaxSize); a claim that asks for more is never allocated.
inline constexpr int64_t kClaimAllocationMaxSize = 32;

// The core resource that counts a node's free devices of DeviceClass
// `device_class`.
std::string DeviceClassResource(std::string_view device_class);
// The core resource that counts a node's free devices of `device_class`,
// tainted or not (a name of vtenant's own, under the same prefix).
std::string AnyDeviceClassResource(std::string_view device_class);

// One entry of a pod's spec.resourceClaims.
struct PodDeviceClaim {
  std::string entry;           // its name in the pod
  std::string claim;           // the ResourceClaim; "" while a template's is not made yet
  bool from_template = false;  // resourceClaimTemplateName
  bool operator==(const PodDeviceClaim&) const = default;
};

// The entries of `pod`'s spec.resourceClaims, a template's claim named by
// status.resourceClaimStatuses.
std::vector<PodDeviceClaim> PodDeviceClaims(const rapidjson::Value& pod);

// One device a claim is given: which request, which device.
struct DeviceResult {
  std::string request;  // "<request>" or "<request>/<subrequest>"
  std::string driver;
  std::string pool;
  std::string device;
  // Given for admin access (a monitoring agent's, say): not held, so
  // others are given it too.
  bool admin_access = false;
  bool operator==(const DeviceResult&) const = default;
};

// What binding a pod to a node writes into one of its claims.
struct ClaimAllocation {
  std::string claim;
  std::string claim_uid;
  bool allocate = false;  // false: allocated already, only reserved for the pod
  std::vector<DeviceResult> results;
  // status.allocation.devices.config: the classes' configuration
  // (FromClass) then the claim's (FromClaim), each for the requests it
  // concerns, as kube-scheduler writes it.
  std::string config_json;  // a JSON array
  // Whether the claim lacks kClaimFinalizer, which must come first.
  bool needs_finalizer = false;
  bool operator==(const ClaimAllocation&) const = default;
};

// The finalizer an allocated claim carries until the resourceclaim
// controller has deallocated it (the API's resource.Finalizer). The
// controller frees the devices of a claim no pod uses any more only when
// it is there; kube-scheduler adds it before it writes an allocation.
inline constexpr char kClaimFinalizer[] = "resource.kubernetes.io/delete-protection";

// Adds kClaimFinalizer to ResourceClaim `claim` (a no-op when there).
// FailedPrecondition when the claim is another of its name (another UID
// than `allocation`'s) or is being deleted.
Status ProtectClaim(const ClaimAllocation& allocation, rapidjson::Document* claim);

// Writes into ResourceClaim `claim` what binding pod `pod` (UID `pod_uid`)
// to `node` gives it (`allocation`): status.allocation (the devices, their
// configuration, and the node, as status.allocation.nodeSelector) when it
// allocates, and the pod in status.reservedFor (once). FailedPrecondition
// when the claim is another of its name (another UID), or was allocated
// meanwhile with other devices.
Status WriteAllocation(const ClaimAllocation& allocation, std::string_view pod,
                       std::string_view pod_uid, std::string_view node, rapidjson::Document* claim);

class DeviceClaims {
 public:
  // Where a pod's claims let it go.
  struct Verdict {
    std::string reason;     // why it cannot be placed now; "" when it can
    NodeAffinity affinity;  // the nodes its claims admit; empty: any
    // What it asks of the nodes' DeviceClassResource and
    // AnyDeviceClassResource (milli; Requests).
    std::map<std::string, int64_t> requests;
  };

  // How a pod stands among the pods that share its claims, by claim key
  // ("namespace/name"): the claims another pod is charged for (its queue
  // holds their GPUs, and it asks for their devices while they are not
  // allocated), and for each claim how many waiting pods join it before
  // this one.
  struct Sharing {
    std::set<std::string, std::less<>> charged_to_another;
    std::map<std::string, size_t, std::less<>> joiners_ahead;
  };

  // A node as the checks see it.
  struct NodeRef {
    std::string_view name;
    const sched::LabelPairs* labels = nullptr;
  };

  // Informer events. An object that cannot be read is kept as one that says
  // so: its pods wait with the reason.
  void UpsertSlice(const rapidjson::Value& slice);
  void DeleteSlice(const rapidjson::Value& slice);
  void UpsertClass(const rapidjson::Value& device_class);
  void DeleteClass(const rapidjson::Value& device_class);
  void UpsertClaim(const rapidjson::Value& claim);
  void DeleteClaim(const rapidjson::Value& claim);
  void UpsertTaintRule(const rapidjson::Value& rule);
  void DeleteTaintRule(const rapidjson::Value& rule);

  // Says that the objects cannot be read, and `why` (the API server does
  // not serve them): every pod with claims waits with it.
  void SetUnavailable(std::string why) { unavailable_ = std::move(why); }

  // Whether some slice publishes devices; when not, nodes have none.
  bool Empty() const { return slices_.empty(); }
  // Whether some ResourceClaim exists; when not, no pod shares one.
  bool AnyClaim() const { return !claims_.empty(); }
  // Counts changes of what nodes have free: what Apply gives follows it.
  uint64_t version() const { return version_; }

  // Sets on `node` (named `name`) AnyDeviceClassResource of every class
  // some free device there belongs to, and DeviceClassResource of every
  // class some free untainted one does (a partition: while its counters
  // are free; partitions of one GPU each count, so the core may place
  // more than the bind can give): how many; and adds to its claim_gpus the
  // devices its own slices of GPU drivers publish.
  void Apply(const std::string& name, sched::NodeSpec* node) const;

  // Names the allocated claims (keys) that the pod charged for them holds
  // placed, so that evicting it frees their devices in the core (reclaim,
  // preemption): of those, the devices on their node's own slices that no
  // other claim holds count in Apply as that node's, and Holds gives them
  // as the pod's. Every other held device counts as no node's. Changes
  // version() when the set does.
  void SetPodHeld(std::set<std::string, std::less<>> claims);

  // What the pod charged for claims `claims` in `ns` holds of the nodes'
  // DeviceClassResource and AnyDeviceClassResource (milli): the devices
  // SetPodHeld's claims among them (but for claims in
  // `charged_to_another`) let Apply count, each as CountUnderClasses
  // counts it.
  std::map<std::string, int64_t> Holds(
      std::string_view ns, const std::vector<PodDeviceClaim>& claims,
      const std::set<std::string, std::less<>>& charged_to_another = {}) const;

  // The GPUs claims `claims` in `ns` charge their pod's queue, but for
  // claims (keys) in `charged_to_another`: an allocated claim's devices
  // given to requests of a class whose name says "gpu"; before allocation,
  // what those requests count (All: one).
  int32_t Gpus(std::string_view ns, const std::vector<PodDeviceClaim>& claims,
               const std::set<std::string, std::less<>>& charged_to_another = {}) const;

  // The verdict for claims `claims` of the pod with UID `pod_uid` in `ns`,
  // scheduled in queue `queue`, among `nodes`. As KAI checks them, in
  // claim order: the claim exists and is not being deleted, is reserved
  // for fewer than kClaimReservedForMaxSize pods (or for this one), and,
  // when the pod names it itself and it asks for a class whose name says
  // "gpu" (a claim its pods share), carries the label kai.scheduler/queue
  // of the pod's queue; then where the claims can have their devices,
  // free or held by placed pods the core may evict (SetPodHeld).
  // Its requests are Requests(ns, claims, sharing.charged_to_another); the
  // consumer limit counts sharing.joiners_ahead too.
  Verdict Check(std::string_view ns, std::string_view pod_uid, std::string_view queue,
                const std::vector<PodDeviceClaim>& claims, const std::vector<NodeRef>& nodes,
                const Sharing& sharing = {}) const;

  // What binding that pod to `node` writes into its claims, in claim
  // order: those it allocates (the devices chosen in NodeDevices' order),
  // and those allocated already that are not reserved for it yet.
  // FailedPrecondition when a claim cannot have its devices there.
  Result<std::vector<ClaimAllocation>> PlanAllocation(std::string_view ns, std::string_view pod_uid,
                                                      const std::vector<PodDeviceClaim>& claims,
                                                      const NodeRef& node) const;

  // What claims `claims` in `ns` ask of the nodes' AnyDeviceClassResource
  // and, but for requests with tolerations, DeviceClassResource (milli):
  // the devices of those neither allocated nor assumed, but for claims
  // (keys) in `charged_to_another` (a claim several pods share asks once,
  // by one of them). A pod placed with such claims asks for them too,
  // until its bind gives them.
  std::map<std::string, int64_t> Requests(
      std::string_view ns, const std::vector<PodDeviceClaim>& claims,
      const std::set<std::string, std::less<>>& charged_to_another = {}) const;

  // Why a pod whose containers ask for extended resources `resources` (by
  // name) cannot be placed: one is Kubernetes' name for a device class's
  // extended resource (deviceclass.resource.kubernetes.io/<class>), which
  // only an allocation of that class's devices gives, and vtenant-scheduler
  // does not make such allocations (KEP-5004). "" when none is.
  std::string ClassBackedResource(const std::map<std::string, int64_t>& resources) const;

  // Whether claim `claim` in `ns` exists and is neither allocated nor
  // assumed: a bind must allocate it.
  bool NeedsAllocation(std::string_view ns, std::string_view claim) const;

  // Whether claim `claim` in `ns` is reserved for the pod with UID
  // `pod_uid`.
  bool ReservedFor(std::string_view ns, std::string_view claim, std::string_view pod_uid) const;

  // Records that claim `claim` (in `ns`) was given `results` on `node`:
  // those devices are held, and another pod that shares the claim may bind
  // only to that node, until the informer shows the claim allocated or
  // gone, or Forget.
  void Assume(std::string_view ns, std::string_view claim, std::string node,
              std::vector<DeviceResult> results);
  void Forget(std::string_view ns, std::string_view claim);

 private:
  struct Request {
    std::string name;
    std::string device_class;
    std::vector<Result<DeviceSelector>> selectors;
    std::vector<DeviceToleration> tolerations;
    bool admin_access = false;  // adminAccess: true
    bool all = false;           // allocationMode All
    int64_t count = 1;
    // firstAvailable: the alternatives, in order (each without its own
    // subrequests); empty for an exactly request.
    std::vector<Request> alternatives;

    // The devices it takes at least, as the allocator sizes a claim (All:
    // one).
    int64_t Least() const { return all ? 1 : count; }
  };
  // spec.devices.constraints[]: the devices of `requests` (empty: all the
  // claim's) share the value of attribute `domain`/`name`.
  struct Constraint {
    std::vector<std::string> requests;
    std::string domain;
    std::string name;
  };
  struct Claim {
    std::vector<Constraint> constraints;
    std::string uid;
    bool deleting = false;
    std::string problem;  // why it cannot be allocated as written
    std::string queue;    // its queue label
    std::vector<Request> requests;
    std::string config_json;  // spec.devices.config, a JSON array
    bool finalized = false;   // carries kClaimFinalizer
    bool allocated = false;
    NodeAffinity allocated_nodes;  // status.allocation.nodeSelector
    std::vector<DeviceResult> results;
    std::vector<std::string> reserved_for;  // pod UIDs

    bool ReservedFor(std::string_view pod_uid) const {
      return std::find(reserved_for.begin(), reserved_for.end(), pod_uid) != reserved_for.end();
    }
  };
  // The nodes a slice, or each device of a slice with
  // perDeviceNodeSelection, publishes to: one (nodeName), every node
  // (allNodes), or those a node selector picks; none when none is given.
  struct NodeSelection {
    std::string node;
    bool all_nodes = false;
    std::optional<NodeAffinity> node_selector;
  };
  struct Slice {
    NodeSelection nodes;  // spec's; not read when per_device_nodes
    // spec.perDeviceNodeSelection: each device names its own nodes, in
    // device_nodes (one a device, in the order of devices).
    bool per_device_nodes = false;
    std::vector<NodeSelection> device_nodes;
    std::string driver;
    std::string pool;
    int64_t generation = 0;
    Result<std::vector<Device>> devices = std::vector<Device>{};
    Result<std::map<std::string, Counters>> counter_sets = std::map<std::string, Counters>{};
  };
  // Counters in use, by "driver/pool/counter set".
  using CounterUse = std::map<std::string, Counters>;
  struct Class {
    std::vector<Result<DeviceSelector>> selectors;
    std::string config_json;  // spec.config, a JSON array
  };
  // A device's identity: "driver/pool/device".
  static std::string DeviceKey(std::string_view driver, std::string_view pool,
                               std::string_view device);
  // The nodeName, allNodes and nodeSelector members of `fields` (a
  // slice's spec or one of its devices).
  static NodeSelection ReadNodeSelection(const rapidjson::Value& fields);
  // Whether `nodes` admits node `node`.
  static bool Admits(const NodeSelection& nodes, const NodeRef& node);
  // Whether `slice` may publish devices to node `node` (with
  // per_device_nodes, each device says whether it does), and is of its
  // pool's newest generation.
  bool Serves(const Slice& slice, const NodeRef& node) const;
  // Whether `device` is of `request`'s class and passes its selectors;
  // "" when so, else why not.
  std::string Selects(const Request& request, const Device& device) const;
  // Why request `request` of claim `name` can select no device as written
  // (its class does not exist, its class's or its own CEL selector cannot
  // be read); "" when it can.
  std::string Unreadable(const std::string& name, const Request& request) const;
  // The devices `node` has, held or free: its own slices' (by name), then
  // those of slices for several nodes, each in the slice's order.
  std::vector<const Device*> NodeDevices(const NodeRef& node) const;
  // Whether some claim holds `device`.
  bool Held(const Device& device) const;
  // Whether a taint of `device`, its own or a DeviceTaintRule's, keeps it
  // from `request` (device_taints.h).
  bool Untolerated(const Request& request, const Device& device) const;
  // Adds what `device` consumes of its pool's counters to `use`.
  static void Consume(const Device& device, CounterUse* use);
  // What the held devices use of their pools' counters (as of version_).
  const CounterUse& HeldCounters() const;
  // Whether `device`'s consumesCounters fit its pool's counter sets beside
  // the held devices' use and `taken`: a partition is not given while
  // another of its GPU holds what it needs. A device that names a set its
  // pool does not share is never given.
  bool CountersAllow(const Device& device, const CounterUse& taken) const;
  // Whether it keeps `device` from a request without tolerations: the
  // core counts the device under AnyDeviceClassResource only.
  bool Tainted(const Device& device) const;
  // Whether `request` (or a subrequest) has tolerations: it may take a
  // tainted device, so it asks the core for AnyDeviceClassResource only
  // (Requests).
  static bool Tolerant(const Request& request);
  // Whether `device` is held by claims SetPodHeld named alone, on its
  // node's own slice: the core counts it as the node's and their pod's.
  bool HeldByPlacedPod(const Device& device) const;
  // Adds `device`, a thousandth at a time, to `counts` under
  // AnyDeviceClassResource of every class that selects it, and under
  // DeviceClassResource too when it is not tainted.
  void CountUnderClasses(const Device& device, std::map<std::string, int64_t>* counts) const;
  // Which held devices a choice may take: none (a bind), or those
  // HeldByPlacedPod (where a pod could go once the core evicts their pods).
  enum class Taking { kFreeOnly, kFreeOrEvictable };
  // Chooses devices for `claim` from `devices` (those chosen are removed),
  // free ones or as `taking` says, each request in turn taking the first
  // it selects (no search for a better fit when an earlier request took a
  // device a later one needed); with constraints, for each combination of
  // the values their attributes take on the node in turn.
  // FailedPrecondition when a request cannot be met.
  // `taken` is what the devices chosen before in the same pass use of
  // their pools' counters; those chosen here are added.
  Result<std::vector<DeviceResult>> Choose(const std::string& name, const Claim& claim,
                                           std::vector<const Device*>* devices, CounterUse* taken,
                                           Taking taking) const;
  // Choose, for constraint k's attribute fixed to *fixed[k].
  Result<std::vector<DeviceResult>> ChooseWith(const std::string& name, const Claim& claim,
                                               const std::vector<const DeviceAttribute*>& fixed,
                                               std::vector<const Device*>* devices,
                                               CounterUse* taken, Taking taking) const;
  // `device`'s value of `constraint`'s attribute; nullptr when it has none.
  static const DeviceAttribute* AttributeOf(const Device& device, const Constraint& constraint);
  // The claim of `claim` in `ns`, nullptr when unknown.
  const Claim* Find(std::string_view ns, std::string_view claim) const;
  // Counts `results`' devices as held by one more (`sign` +1) or one
  // fewer (-1) claim.
  void Hold(const std::vector<DeviceResult>& results, int sign);
  // Drops the devices Assume gave claim `key`.
  void Forget(const std::string& key);
  // Indexes the slices by node and notes each pool's newest generation.
  void SlicesChanged();
  // Forgets which devices each class selects.
  void ClassesChanged();

  std::map<std::string, Slice, std::less<>> slices_;
  std::map<std::string, Class, std::less<>> classes_;
  std::map<std::string, Claim, std::less<>> claims_;                 // by "namespace/name"
  std::map<std::string, DeviceTaintRule, std::less<>> taint_rules_;  // by name
  // The pools' counter sets, by "driver/pool/set", and their devices that
  // consume counters, by DeviceKey; of each pool's newest generation.
  std::map<std::string, Counters> counter_sets_;
  std::map<std::string, const Device*, std::less<>> pool_devices_;
  mutable CounterUse held_counters_;
  mutable uint64_t held_counters_version_ = UINT64_MAX;
  // Devices given by Assume, by claim key, until the claim shows them.
  struct Assumed {
    std::string node;
    std::vector<DeviceResult> results;
  };
  std::map<std::string, Assumed, std::less<>> assumed_;
  // By DeviceKey, how many claims (allocated or assumed) hold the device.
  std::map<std::string, int, std::less<>> held_;
  // The claims SetPodHeld named, and, as of version_, how many of them
  // hold each device of a node's own slice (by DeviceKey).
  std::set<std::string, std::less<>> pod_held_;
  mutable std::map<std::string, int, std::less<>> pod_held_devices_;
  mutable uint64_t pod_held_version_ = UINT64_MAX;
  // The newest generation of each pool, by DeviceKey(driver, pool, "").
  std::map<std::string, int64_t> newest_;
  // The slices of each node (spec.nodeName), and those of several
  // (allNodes, nodeSelector); pointers into slices_.
  std::map<std::string, std::vector<const Slice*>, std::less<>> node_slices_;
  std::vector<const Slice*> shared_slices_;
  // The devices of nodes' own slices, of their pool's newest generation,
  // by DeviceKey.
  std::map<std::string, const Device*, std::less<>> own_devices_;
  // By "<class>\0<DeviceKey>": why the class does not select the device
  // ("" when it does), evaluated once per change of either.
  mutable std::map<std::string, std::string> class_matches_;
  uint64_t version_ = 0;
  std::string unavailable_;
};

}  // namespace vtenant::scheduler
