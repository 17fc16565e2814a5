#include "scheduler/cluster_view.h"

#include <glog/logging.h>

#include <algorithm>

#include "scheduler/core_node.h"
#include "scheduler/core_queue.h"
#include "scheduler/gang_members.h"
#include "scheduler/grouping_rules.h"
#include "scheduler/kai_names.h"

namespace vtenant::scheduler {
namespace {

bool IsShared(const sched::PodSpec& s) { return s.gpu_fraction > 0 || s.gpu_memory_mib > 0; }

// Holders ask for nothing more and get no share beyond what they hold.
const sched::QueueSpec& HolderQueue() {
  static const sched::QueueSpec holder = [] {
    sched::QueueSpec q;
    q.name = kHolderQueue;
    for (sched::QueueResource& r : q.resources) r = {0, sched::kUnlimited, 0};
    return q;
  }();
  return holder;
}

// Why a pod labelled with sub-group `sub` cannot join PodGroup `group`
// (named `name` in the pod's namespace), "" when it can: a group without
// sub-groups and no label, or a leaf of the group's spec.subGroups. A pod
// without the label in a group with sub-groups belongs to none of them;
// KAI leaves it out, and so does this, saying so.
std::string SubGroupReason(const CoreGroup& group, const std::string& name,
                           const std::string& sub) {
  std::string known;
  for (const sched::SubGroup& s : group.spec.subgroups)
    known += (known.empty() ? "" : ", ") + s.name;
  if (sub.empty()) {
    if (known.empty()) return "";
    return "PodGroup " + name + " has sub-groups (" + known + "); label the pod " + kSubGroupLabel +
           " with one of them";
  }
  for (const sched::SubGroup& s : group.spec.subgroups)
    if (s.name == sub) return "";
  // Sub-groups that only group others hold no pods (KAI's pods join leaves).
  const auto& sets = group.spec.subgroup_sets;
  if (std::any_of(sets.begin(), sets.end(), [&](const auto& set) { return set.name == sub; }))
    return "sub-group \"" + sub + "\" of PodGroup " + name +
           " only groups other sub-groups; label the pod " + kSubGroupLabel +
           " with one of those that have no sub-groups of their own";
  return "sub-group \"" + sub + "\" (label " + kSubGroupLabel + ") is not in PodGroup " + name +
         "'s spec.subGroups" + (known.empty() ? " (it has none)" : " (it has " + known + ")");
}

// The translations counter's `kind` label for the letter each kind's
// versions are kept under.
std::string KindName(char kind) {
  switch (kind) {
    case 'p':
      return "pod";
    case 'g':
      return "podgroup";
    case 'n':
      return "node";
    case 'q':
      return "queue";
  }
  return std::string(1, kind);
}

}  // namespace

ClusterView::ClusterView(CorePodOptions options, kube::Registry* registry, WorkerRoles roles,
                         NodePool pool)
    : options_(std::move(options)),
      roles_(std::move(roles)),
      pool_(std::move(pool)),
      translations_(registry
                        ->AddCounter("vtenant_scheduler_translations_total",
                                     "Objects translated into the scheduler's model, by kind "
                                     "(an event with the version already translated is not).",
                                     {"kind"})
                        .value()),
      core_updates_(&registry
                         ->AddCounter("vtenant_scheduler_core_pod_updates_total",
                                      "Pods handed to the scheduling core: when a pod comes and "
                                      "when its translation or standing changes.")
                         .value()
                         ->WithLabelValues({})) {}

void ClusterView::LearnWorkload(std::shared_ptr<sched::WorkloadModel> model) {
  std::lock_guard lock(mu_);
  workload_ = std::move(model);
}

bool ClusterView::Unchanged(char kind, const std::string& key, const rapidjson::Value& object) {
  const std::string_view rv = kube::ResourceVersion(object);
  std::lock_guard lock(mu_);
  auto it = versions_.find({kind, key});
  if (!rv.empty() && it != versions_.end() && it->second == rv) return true;
  translations_->WithLabelValues({KindName(kind)}).Inc();
  return false;
}

void ClusterView::Translated(char kind, const std::string& key, const rapidjson::Value& object) {
  versions_[{kind, key}] = std::string(kube::ResourceVersion(object));
}

void ClusterView::Forgotten(char kind, const std::string& key) { versions_.erase({kind, key}); }

void ClusterView::UpsertPod(const rapidjson::Value& pod) {
  const std::string key = kube::KeyOf(pod);
  if (Unchanged('p', key, pod)) return;
  CorePod t = CorePodFromHost(pod, options_);
  std::lock_guard lock(mu_);
  Translated('p', key, pod);
  // Once the informer shows the pod bound, the assumption has served.
  if (!t.node.empty()) assumed_.erase(t.key);
  if (!t.node.empty() || t.role == CorePod::Role::kFinished) nominated_.erase(t.key);
  pod_sets_.Use(t.terms);
  auto [it, fresh] = pods_.try_emplace(t.key);
  if (!fresh) pod_sets_.Release(it->second.terms);
  marks_.erase(t.key);
  it->second = std::move(t);
}

void ClusterView::DeletePod(const rapidjson::Value& pod) {
  const std::string key = kube::KeyOf(pod);
  std::lock_guard lock(mu_);
  Forgotten('p', key);
  if (auto it = pods_.find(key); it != pods_.end()) {
    pod_sets_.Release(it->second.terms);
    pods_.erase(it);
  }
  marks_.erase(key);
  refused_.erase(key);
  assumed_.erase(key);
  nominated_.erase(key);
}

template <typename Spec>
void ClusterView::UpsertNamed(char kind, const rapidjson::Value& object,
                              Result<Spec> (*translate)(const rapidjson::Value&),
                              std::map<std::string, Spec>& specs, std::string_view until_fixed,
                              const std::function<bool(const Spec&)>& keep) {
  const std::string key(kube::Name(object));
  if (Unchanged(kind, key, object)) return;
  Result<Spec> spec = translate(object);
  std::lock_guard lock(mu_);
  Translated(kind, key, object);
  if (!spec.ok()) {
    LOG(WARNING) << spec.status().ToString() << "; " << until_fixed;
    specs.erase(key);
    return;
  }
  if (keep && !keep(*spec)) {
    specs.erase(key);
    return;
  }
  specs[key] = std::move(spec).value();
}

template <typename Spec>
void ClusterView::DeleteNamed(char kind, const rapidjson::Value& object,
                              std::map<std::string, Spec>& specs) {
  const std::string key(kube::Name(object));
  std::lock_guard lock(mu_);
  Forgotten(kind, key);
  specs.erase(key);
}

void ClusterView::UpsertNode(const rapidjson::Value& node) {
  // With --restrict-node-scheduling a node of neither role is not ours,
  // nor is a node of another pool: as if it were not there.
  UpsertNamed<sched::NodeSpec>('n', node, &CoreNodeFromHost, nodes_,
                               "the node takes no pods until fixed",
                               [this](const sched::NodeSpec& n) {
                                 return roles_.Schedules(n.labels) && pool_.Includes(n.labels);
                               });
}

void ClusterView::DeleteNode(const rapidjson::Value& node) { DeleteNamed('n', node, nodes_); }

void ClusterView::UpsertQueue(const rapidjson::Value& queue) {
  if (!pool_.IncludesObject(queue)) {
    DeleteNamed('q', queue, queues_);  // another pool's
    return;
  }
  UpsertNamed('q', queue, &CoreQueueFromHost, queues_, "its pods wait until it is fixed");
}

void ClusterView::DeleteQueue(const rapidjson::Value& queue) { DeleteNamed('q', queue, queues_); }

void ClusterView::SetQueueUsage(std::map<std::string, sched::ResourceVector> usage) {
  std::lock_guard lock(mu_);
  queue_usage_ = std::move(usage);
}

void ClusterView::UpsertPodGroup(const rapidjson::Value& group) {
  const std::string key = kube::KeyOf(group);
  if (Unchanged('g', key, group)) return;
  Result<CoreGroup> g = CoreGroupFromHost(group);
  std::lock_guard lock(mu_);
  Translated('g', key, group);
  if (!pool_.IncludesObject(group)) {
    // Another pool's: neither its pods nor its status are ours.
    groups_.erase(key);
    invalid_groups_.erase(key);
    foreign_groups_.insert(key);
    return;
  }
  foreign_groups_.erase(key);
  if (!g.ok()) {
    LOG(WARNING) << g.status().ToString() << "; its pods wait until it is fixed";
    groups_.erase(key);
    invalid_groups_[key] = g.status().message();
    return;
  }
  invalid_groups_.erase(key);
  groups_[g->spec.name] = std::move(g).value();
}

void ClusterView::DeletePodGroup(const rapidjson::Value& group) {
  std::lock_guard lock(mu_);
  Forgotten('g', kube::KeyOf(group));
  groups_.erase(kube::KeyOf(group));
  invalid_groups_.erase(kube::KeyOf(group));
  foreign_groups_.erase(kube::KeyOf(group));
}

void ClusterView::UpsertTopology(const rapidjson::Value& topology) {
  const std::string name(kube::Name(topology));
  if (Unchanged('t', name, topology)) return;
  Result<kai::Topology> t = kai::ReadTopology(topology);
  std::lock_guard lock(mu_);
  Translated('t', name, topology);
  ++topologies_changed_;
  if (!t.ok()) {
    LOG(WARNING) << t.status().ToString() << "; workloads naming it wait until it is fixed";
    topologies_.erase(name);
    return;
  }
  topologies_[name] = std::move(t).value();
}

void ClusterView::DeleteTopology(const rapidjson::Value& topology) {
  std::lock_guard lock(mu_);
  Forgotten('t', std::string(kube::Name(topology)));
  topologies_.erase(std::string(kube::Name(topology)));
  ++topologies_changed_;
}

void ClusterView::UpsertPriorityClass(const rapidjson::Value& priority_class) {
  std::lock_guard lock(mu_);
  if (Status s = priority_classes_.Upsert(priority_class); !s.ok())
    LOG(WARNING) << s.ToString() << "; PodGroups naming it take the default priority";
}

void ClusterView::DeletePriorityClass(const rapidjson::Value& priority_class) {
  std::lock_guard lock(mu_);
  priority_classes_.Remove(kube::Name(priority_class));
}

bool ClusterView::UpsertConfigMap(const rapidjson::Value& configmap) {
  std::lock_guard lock(mu_);
  std::string key = kube::KeyOf(configmap);
  const bool awaited = awaited_configmaps_.contains(key);
  configmaps_.insert(std::move(key));
  return awaited;
}

void ClusterView::DeleteConfigMap(const rapidjson::Value& configmap) {
  std::lock_guard lock(mu_);
  configmaps_.erase(kube::KeyOf(configmap));
}

bool ClusterView::UpsertNamespace(const rapidjson::Value& ns) {
  std::lock_guard lock(mu_);
  kube::Labels labels = kube::GetStringMap(ns, {"metadata", "labels"});
  kube::Labels& known = namespace_labels_[std::string(kube::Name(ns))];
  if (known == labels) return false;
  known = std::move(labels);
  if (!pod_sets_.ReadNamespaceLabels()) return false;
  ++namespaces_changed_;
  return true;
}

bool ClusterView::DeleteNamespace(const rapidjson::Value& ns) {
  std::lock_guard lock(mu_);
  if (namespace_labels_.erase(std::string(kube::Name(ns))) == 0 ||
      !pod_sets_.ReadNamespaceLabels()) {
    return false;
  }
  ++namespaces_changed_;
  return true;
}

bool ClusterView::UpsertStorage(StorageKind kind, const rapidjson::Value& object) {
  return ChangeStorage(kind, object, /*remove=*/false);
}

bool ClusterView::DeleteStorage(StorageKind kind, const rapidjson::Value& object) {
  return ChangeStorage(kind, object, /*remove=*/true);
}

bool ClusterView::ChangeStorage(StorageKind kind, const rapidjson::Value& object, bool remove) {
  using Change = void (VolumeClaims::*)(const rapidjson::Value&);
  // By StorageKind: upsert, delete.
  static constexpr Change kChanges[][2] = {
      {&VolumeClaims::UpsertClaim, &VolumeClaims::DeleteClaim},
      {&VolumeClaims::UpsertVolume, &VolumeClaims::DeleteVolume},
      {&VolumeClaims::UpsertClass, &VolumeClaims::DeleteClass},
      {&VolumeClaims::UpsertDriver, &VolumeClaims::DeleteDriver},
      {&VolumeClaims::UpsertCapacity, &VolumeClaims::DeleteCapacity}};
  std::lock_guard lock(mu_);
  (volumes_.*kChanges[static_cast<int>(kind)][remove ? 1 : 0])(object);
  return awaited_volumes_;
}

bool ClusterView::UpsertCsiNode(const rapidjson::Value& csi_node) {
  std::lock_guard lock(mu_);
  return attach_.Upsert(csi_node);
}

bool ClusterView::DeleteCsiNode(const rapidjson::Value& csi_node) {
  std::lock_guard lock(mu_);
  return attach_.Delete(csi_node);
}

void ClusterView::DevicesUnavailable(std::string why) {
  std::lock_guard lock(mu_);
  devices_.SetUnavailable(std::move(why));
}

bool ClusterView::UpsertDevices(DeviceKind kind, const rapidjson::Value& object) {
  return ChangeDevices(kind, object, /*remove=*/false);
}

bool ClusterView::DeleteDevices(DeviceKind kind, const rapidjson::Value& object) {
  return ChangeDevices(kind, object, /*remove=*/true);
}

bool ClusterView::ChangeDevices(DeviceKind kind, const rapidjson::Value& object, bool remove) {
  using Change = void (DeviceClaims::*)(const rapidjson::Value&);
  // By DeviceKind: upsert, delete.
  static constexpr Change kChanges[][2] = {
      {&DeviceClaims::UpsertSlice, &DeviceClaims::DeleteSlice},
      {&DeviceClaims::UpsertClass, &DeviceClaims::DeleteClass},
      {&DeviceClaims::UpsertClaim, &DeviceClaims::DeleteClaim},
      {&DeviceClaims::UpsertTaintRule, &DeviceClaims::DeleteTaintRule}};
  std::lock_guard lock(mu_);
  const uint64_t version = devices_.version();
  (devices_.*kChanges[static_cast<int>(kind)][remove ? 1 : 0])(object);
  return awaited_devices_ || devices_.version() != version;
}

Result<std::vector<ClaimAllocation>> ClusterView::AllocateDevices(const std::string& key,
                                                                  const std::string& node) {
  std::lock_guard lock(mu_);
  auto pod = pods_.find(key);
  if (pod == pods_.end() || pod->second.device_claims.empty())
    return std::vector<ClaimAllocation>{};
  auto n = nodes_.find(node);
  if (n == nodes_.end()) return NotFound("node " + node + " is gone");
  const std::string ns = kube::SplitKey(key).first;
  VT_ASSIGN_OR_RETURN(std::vector<ClaimAllocation> allocations,
                      devices_.PlanAllocation(ns, pod->second.uid, pod->second.device_claims,
                                              {node, &n->second.labels}));
  for (const ClaimAllocation& a : allocations)
    if (a.allocate) devices_.Assume(ns, a.claim, node, a.results);
  return allocations;
}

void ClusterView::ForgetDevices(const std::string& key, const std::vector<std::string>& claims) {
  std::lock_guard lock(mu_);
  const std::string ns = kube::SplitKey(key).first;
  for (const std::string& claim : claims) devices_.Forget(ns, claim);
}

Result<std::vector<VolumeClaims::ClaimBinding>> ClusterView::ClaimBindings(
    const std::string& key, const std::string& node) const {
  std::lock_guard lock(mu_);
  auto pod = pods_.find(key);
  if (pod == pods_.end() || pod->second.claims.empty())
    return std::vector<VolumeClaims::ClaimBinding>{};
  auto n = nodes_.find(node);
  if (n == nodes_.end()) return NotFound("node " + node + " is gone");
  return volumes_.PlanBinding(kube::SplitKey(key).first, pod->second.claims, node,
                              n->second.labels);
}

void ClusterView::Assume(const std::string& key, Placement placement) {
  std::lock_guard lock(mu_);
  nominated_.erase(key);
  assumed_[key] = std::move(placement);
}

void ClusterView::Forget(const std::string& key) {
  std::lock_guard lock(mu_);
  assumed_.erase(key);
}

void ClusterView::Nominate(const std::string& key, Placement placement,
                           std::vector<std::string> victims, int64_t now) {
  std::lock_guard lock(mu_);
  auto [it, fresh] = nominated_.try_emplace(key, Nomination{placement, {}, now});
  if (!fresh) it->second.placement = std::move(placement);
  it->second.victims.insert(victims.begin(), victims.end());
}

void ClusterView::EvictionRefused(const std::string& key, int64_t until) {
  std::lock_guard lock(mu_);
  refused_[key] = until;
}

void ClusterView::GroupEvicted(const std::string& group_key, int64_t now) {
  std::lock_guard lock(mu_);
  last_eviction_[group_key] = now;
}

void ClusterView::GroupStarted(const std::string& group_key, int64_t now) {
  std::lock_guard lock(mu_);
  last_start_[group_key] = now;
}

void ClusterView::DropNomination(const std::string& key) {
  std::lock_guard lock(mu_);
  nominated_.erase(key);
}

std::vector<std::pair<std::string, Placement>> ClusterView::NominationsReady(int64_t now,
                                                                             int64_t max_age_s) {
  std::lock_guard lock(mu_);
  std::vector<std::pair<std::string, Placement>> out;
  for (auto it = nominated_.begin(); it != nominated_.end();) {
    bool gone = true;
    // A victim still in the informer's view (terminating or not) holds its
    // resources; binding before it leaves would over-fill the node.
    for (const std::string& v : it->second.victims) {
      auto p = pods_.find(v);
      gone = gone && (p == pods_.end() || p->second.role == CorePod::Role::kFinished);
    }
    if (gone) {
      out.emplace_back(it->first, it->second.placement);
      ++it;
    } else if (now - it->second.since > max_age_s) {
      it = nominated_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

std::optional<CorePod> ClusterView::Pod(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = pods_.find(key);
  if (it == pods_.end()) return std::nullopt;
  return it->second;
}

Result<sched::LabelPairs> ClusterView::NodeLabels(const std::string& node) const {
  std::lock_guard lock(mu_);
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return NotFound("node " + node + " is not known (gone, or not usable)");
  return it->second.labels;
}

std::string ClusterView::ReservedGpuUuid(const std::string& node, int index) const {
  std::lock_guard lock(mu_);
  for (const auto& [key, p] : pods_)
    if (p.role == CorePod::Role::kReservation && !p.terminating && p.node == node &&
        p.reservation_index == index)
      return p.reserved_gpu_uuid;
  return "";
}

std::vector<Reservation> ClusterView::Reservations() const {
  std::lock_guard lock(mu_);
  std::vector<Reservation> out;
  for (const auto& [key, p] : pods_) {
    if (p.role != CorePod::Role::kReservation) continue;
    Reservation r;
    r.name = kube::SplitKey(key).second;
    r.node = p.node;
    r.index = p.reservation_index;
    r.terminating = p.terminating;
    out.push_back(std::move(r));
  }
  return out;
}

std::set<std::pair<std::string, int>> ClusterView::SharedDevicesInUse() const {
  std::lock_guard lock(mu_);
  std::set<std::pair<std::string, int>> out;
  auto add = [&](const Placement& pl) {
    for (int d : pl.devices) out.emplace(pl.node, d);
  };
  for (const auto& [key, p] : pods_) {
    if (p.role != CorePod::Role::kOurs || !IsShared(p.spec)) continue;
    if (!p.node.empty()) add({p.node, p.gpu_indices, 0, true});
  }
  for (const auto& [key, pl] : assumed_)
    if (pl.shared) add(pl);
  for (const auto& [key, n] : nominated_)
    if (n.placement.shared) add(n.placement);
  return out;
}

size_t ClusterView::PendingCount() const {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (const auto& [key, p] : pods_)
    if (p.role == CorePod::Role::kOurs && p.node.empty() && !p.terminating &&
        !assumed_.contains(key) && !nominated_.contains(key))
      ++n;
  return n;
}

std::string ClusterView::MissingConfigMaps(const std::string& key, const CorePod& pod) {
  std::string missing;
  const std::string ns = kube::SplitKey(key).first;
  for (const std::string& name : pod.required_configmaps) {
    std::string configmap = kube::MakeKey(ns, name);
    if (configmaps_.contains(configmap)) continue;
    missing += (missing.empty() ? "" : " ") + name;
    awaited_configmaps_.insert(std::move(configmap));
  }
  // As KAI words it (Go's %v of a list of names).
  return missing.empty() ? "" : "Missing required configmaps: [" + missing + "]";
}

std::string ClaimSharersKey(std::string_view claim) { return "~claim:" + std::string(claim); }

const std::vector<std::string>& ClusterView::MarksOf(const std::string& key, const CorePod& pod) {
  static const std::vector<std::string> kNone;
  if (pod_sets_.empty()) {
    marks_.clear();
    return kNone;
  }
  // Both counters only grow, so their sum moves whenever either does.
  const uint64_t version = pod_sets_.version() + namespaces_changed_;
  Marks& m = marks_[key];
  if (m.version != version) {
    static const kube::Labels kNoLabels;
    const std::string ns = kube::SplitKey(key).first;
    auto labels = namespace_labels_.find(ns);
    m.keys = pod_sets_.MarksOf(ns, pod.labels,
                               labels == namespace_labels_.end() ? kNoLabels : labels->second);
    m.version = version;
  }
  return m.keys;
}

Result<World> ClusterView::Build(int64_t now) {
  std::lock_guard lock(mu_);
  World w;
  awaited_configmaps_.clear();
  awaited_volumes_ = false;
  awaited_devices_ = false;
  for (const auto& [key, why] : invalid_groups_) {
    w.invalid_podgroups[key].reason = "PodGroup cannot be scheduled: " + why;
    w.invalid_podgroups[key].kind = kInvalidPodGroupReason;
  }
  // Queues whose parent is unknown are left out with their pods: one bad
  // Queue must not stop everyone else's scheduling.
  std::set<std::string> parents;
  for (auto& [name, q] : queues_) {
    if (!q.parent.empty()) parents.insert(q.parent);
    auto usage = queue_usage_.find(name);
    q.usage_ppm = usage == queue_usage_.end() ? sched::ResourceVector{} : usage->second;
  }
  std::map<std::string, const sched::QueueSpec*> usable;
  for (const auto& [name, q] : queues_) {
    std::string walk = name;
    bool ok = true;
    for (size_t steps = 0; !walk.empty(); ++steps) {
      auto it = queues_.find(walk);
      if (it == queues_.end() || steps > queues_.size()) {
        ok = false;
        break;
      }
      walk = it->second.parent;
    }
    if (ok) {
      usable.emplace(name, &q);
    } else {
      LOG_EVERY_N(WARNING, 100) << "queue " << name << ": parentQueue chain names a missing queue";
    }
  }

  // Whether some node takes GPU pods, and pods asking for none: with
  // --restrict-node-scheduling a pod whose role no node carries waits with
  // that said, rather than with a count of nodes its role does not match.
  bool gpu_nodes = false, cpu_nodes = false;
  if (roles_.restrict)
    for (const auto& [name, n] : nodes_) {
      gpu_nodes = gpu_nodes || roles_.IsGpuWorker(n.labels);
      cpu_nodes = cpu_nodes || roles_.IsCpuWorker(n.labels);
    }
  // Affinities the core cannot express, resolved to the nodes that match
  // (once per distinct affinity), given to the core as "node name In (...)".
  std::map<std::string, std::vector<std::string>> affinity_nodes;
  auto resolve_affinity = [&](const NodeAffinity& a) -> const std::vector<std::string>& {
    auto [it, fresh] = affinity_nodes.try_emplace(a.Key());
    if (fresh)
      for (const auto& [name, n] : nodes_)
        if (a.Matches(name, n.labels)) it->second.push_back(name);
    return it->second;
  };
  // The nodes as dynamic resource claims are checked against, listed once
  // a pod has such claims.
  std::vector<DeviceClaims::NodeRef> node_refs;
  auto device_nodes = [&]() -> const std::vector<DeviceClaims::NodeRef>& {
    if (node_refs.empty())
      for (const auto& [name, n] : nodes_) node_refs.push_back({name, &n.labels});
    return node_refs;
  };
  // Why pods of `queue` cannot be scheduled, and its kind; "" when they can.
  auto queue_reason = [&](const std::string& queue) -> std::pair<std::string, const char*> {
    if (!queues_.contains(queue))
      return {"queue \"" + queue + "\" does not exist; create it or set label " +
                  std::string(kQueueLabel) + " to an existing queue",
              kQueueDoesNotExistReason};
    if (!usable.contains(queue))
      return {"queue \"" + queue + "\" has a parent queue that does not exist",
              kQueueDoesNotExistReason};
    if (parents.contains(queue))
      return {"queue \"" + queue + "\" is a parent queue; pods go to its leaf queues",
              kPodSchedulingErrorsReason};
    return {};
  };
  // Each PodGroup's topologyConstraint resolved once (ResolveTopology): its
  // levels as the core reads them, and why it keeps the group from being
  // scheduled ("" when it does not), which the group's status says too.
  struct ResolvedTopology {
    sched::GroupSpec::Levels levels;
    std::map<std::string, sched::GroupSpec::Levels> subgroup_levels;
    std::string reason;  // the first constraint's that cannot be resolved
  };
  std::map<std::string, ResolvedTopology> resolved_topologies;
  auto topology_reason = [&](const std::string& gkey, const CoreGroup& g, bool placed) {
    auto [it, fresh] = resolved_topologies.try_emplace(gkey);
    ResolvedTopology& t = it->second;
    if (fresh) {
      t.reason = ResolveTopology(topologies_, g.topology, "workload", &t.levels);
      for (const auto& [name, constraint] : g.subgroup_topology) {
        if (!t.reason.empty()) break;
        t.reason =
            ResolveTopology(topologies_, constraint, "sub-group " + name, &t.subgroup_levels[name]);
      }
    }
    if (!t.reason.empty()) {
      World::InvalidGroup& ig = w.invalid_podgroups[gkey];
      ig.reason = t.reason;
      ig.kind = kPodSchedulingErrorsReason;
      ++(placed ? ig.running : ig.pending);
    }
    return t.reason;
  };
  auto refused = [&](const std::string& key) {
    auto it = refused_.find(key);
    return it != refused_.end() && it->second > now;
  };

  // What the core should see of each pod, in key order. Devices taken per
  // node: sharing pods' devices are pinned (their reservation pods hold
  // them); whole-GPU pods bound by the informer's account take the lowest
  // free others.
  std::vector<Derived> derived;
  std::map<std::string, uint64_t> taken;
  std::set<std::string> groups_used;
  std::set<std::string> groups_refused;  // a member's eviction was refused lately
  // Each PodGroup's pods: alive, gated and waiting, for World::not_ready;
  // and those that hold a place, for its stale_since.
  struct GroupPods {
    World::NotReadyGroup ready;
    int32_t waiting = 0;
    GangMembers members;
  };
  std::map<std::string, GroupPods> group_pods;
  // ReadWriteOncePod claims, as kube-scheduler's VolumeRestrictions has
  // them: the pod that uses one keeps every other pod from it; while none
  // does, the waiting pod kube-scheduler would try first (higher priority,
  // then older) may have it.
  struct OnePodHolder {
    const std::string* key = nullptr;
    const CorePod* pod = nullptr;
    bool placed = false;
    // Whether waiting pod `q` (of `q_key`) goes before this one.
    bool Behind(const std::string& q_key, const CorePod& q) const {
      if (placed) return false;
      if (q.priority != pod->priority) return q.priority > pod->priority;
      if (q.spec.creation_time != pod->spec.creation_time)
        return q.spec.creation_time < pod->spec.creation_time;
      return q_key < *key;
    }
  };
  std::map<std::string, OnePodHolder> one_pod_claims;  // by "ns/claim"
  if (volumes_.AnyOnePodOnly()) {
    for (const auto& [key, p] : pods_) {
      if (p.claims.empty()) continue;
      const std::string ns = kube::SplitKey(key).first;
      std::vector<std::string> its;  // its ReadWriteOncePod claims, as keys
      for (const PodClaim& claim : p.claims)
        if (volumes_.OnePodOnly(ns, claim.name)) its.push_back(kube::MakeKey(ns, claim.name));
      if (its.empty()) continue;
      const bool placed = !p.node.empty() || assumed_.contains(key) || nominated_.contains(key);
      const bool waiting = !placed && p.role == CorePod::Role::kOurs && !p.gated &&
                           !p.terminating && volumes_.Check(ns, p.uid, p.claims).reason.empty();
      if (!placed && !waiting) continue;
      for (const std::string& claim : its) {
        OnePodHolder& holder = one_pod_claims[claim];
        if (holder.key == nullptr || (!holder.placed && (placed || holder.Behind(key, p))))
          holder = {&key, &p, placed};
      }
    }
  }
  // Each claim with the pod charged for it: the first (by key) of the
  // placed pods that use it, else of the waiting ones. Its queue holds the
  // claim's GPUs, and while the claim is not allocated it asks for the
  // claim's devices. And each claim's waiting pods not reserved in it yet,
  // in key order: no more of them may join it than the consumers it has
  // room for, so a gang of them waits whole rather than bind in part.
  struct ClaimOwner {
    const std::string* key = nullptr;
    bool placed = false;
  };
  std::map<std::string, ClaimOwner> claim_owners;
  std::map<std::string, std::vector<const std::string*>> claim_joiners;
  // And how many pods name each claim: those several name that no bind has
  // allocated yet are placed together (CoreFields::together).
  std::map<std::string, int> claim_users;
  for (const auto& [key, p] : pods_) {
    if (!devices_.AnyClaim()) break;
    if (p.device_claims.empty() || p.terminating || p.role == CorePod::Role::kFinished ||
        (p.gated && p.node.empty()))
      continue;
    const std::string ns = kube::SplitKey(key).first;
    const bool placed = !p.node.empty() || assumed_.contains(key);
    const bool waiting = p.role == CorePod::Role::kOurs && !placed && !nominated_.contains(key);
    for (const PodDeviceClaim& pc : p.device_claims) {
      if (pc.claim.empty()) continue;
      std::string claim = kube::MakeKey(ns, pc.claim);
      if (waiting && !devices_.ReservedFor(ns, pc.claim, p.uid))
        claim_joiners[claim].push_back(&key);
      ++claim_users[claim];
      auto [owner, first] = claim_owners.try_emplace(std::move(claim), ClaimOwner{&key, placed});
      if (!first && placed && !owner->second.placed) owner->second = {&key, true};
    }
  }
  // The devices of claims a placed pod is charged for are that pod's in
  // the core, so that evicting it frees them.
  std::set<std::string, std::less<>> pod_held;
  for (const auto& [claim, owner] : claim_owners)
    if (owner.placed) pod_held.insert(claim);
  devices_.SetPodHeld(std::move(pod_held));
  for (const auto& [key, p] : pods_) {
    if (p.role == CorePod::Role::kReservation) continue;
    const bool ours = p.role == CorePod::Role::kOurs;
    const bool finished = p.role == CorePod::Role::kFinished;
    // Its group as KAI's pod grouper named it, and that PodGroup if known.
    const std::string gkey = !(ours || finished) || p.pod_group.empty()
                                 ? ""
                                 : kube::MakeKey(kube::SplitKey(key).first, p.pod_group);
    const auto g = gkey.empty() ? groups_.end() : groups_.find(gkey);
    if (finished) {
      if (p.succeeded && g != groups_.end()) group_pods[gkey].members.succeeded = true;
      continue;
    }
    GroupPods* counted = g != groups_.end() ? &group_pods[gkey] : nullptr;
    if (counted != nullptr) {
      counted->ready.min_member = g->second.spec.min_member;
      ++counted->ready.alive;
      if (p.gated) ++counted->ready.gated;
      if (p.node.empty()) ++counted->waiting;
    }
    const Placement* assumed = nullptr;
    if (auto it = assumed_.find(key); it != assumed_.end()) assumed = &it->second;
    if (auto it = nominated_.find(key); it != nominated_.end()) assumed = &it->second.placement;
    const bool placed = !p.node.empty() || assumed != nullptr;
    if (placed && counted != nullptr) counted->members.AddPlaced(p.spec.subgroup);
    if (placed && !nodes_.contains(assumed ? assumed->node : p.node)) continue;  // node gone
    // Another shard's pod: its PodGroup is of another pool or, while it
    // has none, its own labels are. Neither scheduled nor reported here;
    // on one of our nodes it holds what it takes.
    const bool foreign = ours && (foreign_groups_.contains(gkey) ||
                                  (g == groups_.end() && !pool_.Includes(p.labels)));
    if (foreign && !placed) continue;
    Derived d{.key = &key, .pod = &p};
    CoreFields& c = d.core;
    c.marks = MarksOf(key, p);
    VolumeClaims::Verdict volumes;
    // Its namespace, split from its key once, for its claims of either kind.
    const std::string claims_ns =
        p.claims.empty() && p.device_claims.empty() ? "" : kube::SplitKey(key).first;
    if (ours && !placed && !p.claims.empty()) {
      volumes = volumes_.Check(claims_ns, p.uid, p.claims);
      for (const PodClaim& claim : p.claims) {
        if (!volumes.reason.empty() || one_pod_claims.empty()) break;
        auto holder = one_pod_claims.find(kube::MakeKey(claims_ns, claim.name));
        if (holder != one_pod_claims.end() && *holder->second.key != key)
          volumes.reason =
              "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod "
              "access mode";
      }
    }
    DeviceClaims::Verdict devices;
    if (!p.device_claims.empty()) {
      // The queue it is scheduled in, as below: its group's, else its own.
      const std::string& queue = g != groups_.end() ? g->second.spec.queue
                                 : p.queue.empty()  ? std::string(kDefaultQueue)
                                                    : p.queue;
      // A claim that pods share is charged to the first of them, and
      // joined by waiting pods in key order.
      DeviceClaims::Sharing sharing;
      for (const PodDeviceClaim& pc : p.device_claims) {
        const std::string claim = kube::MakeKey(claims_ns, pc.claim);
        if (auto owner = claim_owners.find(claim);
            owner != claim_owners.end() && *owner->second.key != key)
          sharing.charged_to_another.insert(claim);
        if (auto joiners = claim_joiners.find(claim); joiners != claim_joiners.end()) {
          const auto& in_line = joiners->second;
          sharing.joiners_ahead[claim] =
              std::find(in_line.begin(), in_line.end(), &key) - in_line.begin();
        }
      }
      if (ours && !placed) {
        devices = devices_.Check(claims_ns, p.uid, queue, p.device_claims, device_nodes(), sharing);
      } else {
        devices.requests =
            devices_.Requests(claims_ns, p.device_claims, sharing.charged_to_another);
        for (const auto& [resource, milli] :
             devices_.Holds(claims_ns, p.device_claims, sharing.charged_to_another))
          devices.requests[resource] += milli;
      }
      c.devices = devices.requests;
      c.claim_gpus = devices_.Gpus(claims_ns, p.device_claims, sharing.charged_to_another);
      // The first bind allocates a shared claim on its node, so the pods
      // that share it go to one node; KAI's session does the same as it
      // allocates the claim for the first of them.
      for (const PodDeviceClaim& pc : p.device_claims) {
        if (pc.claim.empty() || !devices_.NeedsAllocation(claims_ns, pc.claim)) continue;
        const auto users = claim_users.find(kube::MakeKey(claims_ns, pc.claim));
        if (users == claim_users.end() || users->second < 2) continue;
        std::string sharers = ClaimSharersKey(users->first);
        if (ours && !placed) c.together.push_back(sharers);
        if (c.marks.empty() || c.marks.back() != sharers) c.marks.push_back(std::move(sharers));
      }
    }
    if (!attach_.Empty() && (!p.claims.empty() || !p.inline_csi_drivers.empty())) {
      // Every pod's, placed or not: a bound pod's volumes are attached.
      std::vector<std::string> drivers = p.inline_csi_drivers;
      for (const PodClaim& claim : p.claims)
        drivers.push_back(volumes_.AttachingDriver(claims_ns, claim.name));
      attach_.AddRequests(drivers, &c.attachments);
    }
    if (!ours || p.terminating || foreign) {
      if (!placed) continue;  // nothing to hold
      c.holder = true;
    } else if (p.gated && !placed) {
      // Held back by its scheduling gates: neither scheduled nor reported
      // as unschedulable (the API server marks it SchedulingGated). A gang
      // counts it as missing until its gates go.
      continue;
    } else if (!p.problem.ok()) {
      if (!placed) {
        w.unschedulable.push_back({key, p.problem.message()});
        continue;
      }
      c.holder = true;  // runs already; keep its resources counted
    } else if (std::string missing = placed ? "" : MissingConfigMaps(key, p); !missing.empty()) {
      w.unschedulable.push_back({key, std::move(missing)});
      continue;
    } else if (!volumes.reason.empty()) {
      awaited_volumes_ = true;
      w.unschedulable.push_back({key, volumes.reason});
      continue;
    } else if (!devices.reason.empty()) {
      awaited_devices_ = true;
      w.unschedulable.push_back({key, devices.reason});
      continue;
    } else if (std::string backed =
                   placed ? "" : devices_.ClassBackedResource(p.spec.other_resources);
               !backed.empty()) {
      w.unschedulable.push_back({key, std::move(backed)});
      continue;
    } else if (std::string no_node =
                   placed ? "" : roles_.NoNodeReason(p.spec, gpu_nodes, cpu_nodes);
               !no_node.empty()) {
      w.unschedulable.push_back({key, std::move(no_node)});
      continue;
    } else {
      // Group and queue, as KAI's pod grouper left them. A bare pod the
      // binder named into its own group stays a job of its own until the
      // grouper has made that group, charged to its queue as before.
      std::string queue;
      const bool own_group_pending = !gkey.empty() && g == groups_.end() &&
                                     IsOwnGroupNamedAtBind(p.pod_group, kube::SplitKey(key).second,
                                                           p.uid, p.has_controller_owner);
      if (!gkey.empty() && !own_group_pending) {
        std::string why;
        if (g == groups_.end()) {
          auto bad = invalid_groups_.find(gkey);
          if (bad == invalid_groups_.end()) {
            why = "waiting for PodGroup " + p.pod_group;
          } else {
            why = "PodGroup " + p.pod_group +
                  " cannot be scheduled until it is fixed: " + bad->second;
            World::InvalidGroup& ig = w.invalid_podgroups[gkey];
            ++(placed ? ig.running : ig.pending);
          }
        } else {
          why = SubGroupReason(g->second, p.pod_group, p.spec.subgroup);
          if (why.empty()) why = topology_reason(gkey, g->second, placed);
        }
        if (!why.empty()) {
          if (placed)
            c.holder = true;
          else {
            w.unschedulable.push_back({key, why});
            continue;
          }
        } else {
          queue = g->second.spec.queue;
          c.group = gkey;
        }
      } else if (p.has_controller_owner) {
        if (placed)
          c.holder = true;
        else {
          w.unschedulable.push_back({key, "waiting for the pod grouper to give it a PodGroup"});
          continue;
        }
      } else {
        queue = p.queue.empty() ? kDefaultQueue : p.queue;
      }
      if (!c.holder) {
        if (auto [why, kind] = queue_reason(queue); !why.empty()) {
          if (!c.group.empty()) {
            // The group waits for the same reason, on its own status.
            World::InvalidGroup& ig = w.invalid_podgroups[c.group];
            ig.reason = why;
            ig.kind = kind;
            ++(placed ? ig.running : ig.pending);
          }
          if (placed)
            c.holder = true;
          else {
            w.unschedulable.push_back({key, why});
            continue;
          }
        }
      }
      if (!c.holder) {
        c.queue = queue;
        // A pod not in a PodGroup yet is scheduled as the group the pod
        // grouper will give it: of that group's class.
        c.priority = c.group.empty() ? priority_classes_.PriorityOf(p.priority_class) : p.priority;
        c.preemptible = refused(key)                ? false
                        : !p.preemptibility.empty() ? p.preemptibility == kPreemptible
                                                    : DefaultPreemptible(c.priority);
        // Its own affinity, narrowed by where its volumes and devices are.
        const NodeAffinity where = Both(Both(p.affinity, volumes.affinity), devices.affinity);
        if (!where.empty()) c.affinity_nodes = resolve_affinity(where);
        if (!c.group.empty()) {
          groups_used.insert(c.group);
          if (refused(key)) groups_refused.insert(c.group);
        }
      }
    }
    if (c.holder) {
      c.group.clear();
      c.queue = kHolderQueue;
      c.priority = p.spec.priority;
      c.preemptible = false;
    }
    c.whole_gpus = p.spec.whole_gpus;
    if (placed) {
      d.placement = assumed ? *assumed : Placement{p.node, p.gpu_indices, 0, IsShared(p.spec)};
      d.pinned = IsShared(p.spec) || (assumed != nullptr && p.spec.whole_gpus > 0);
      if (d.pinned)
        for (int dev : d.placement->devices)
          if (dev >= 0 && dev < sched::kMaxDevicesPerNode)
            taken[d.placement->node] |= uint64_t{1} << dev;
      // Which of a node's devices a bound whole-GPU pod has is the device
      // plugin's business; more than the node has cannot be held.
      if (!d.pinned && c.whole_gpus > 0)
        c.whole_gpus = std::min(c.whole_gpus, nodes_.at(d.placement->node).gpus);
    }
    derived.push_back(std::move(d));
  }
  for (const auto& [gkey, counts] : group_pods) {
    const World::NotReadyGroup& group = counts.ready;
    if (counts.waiting > 0 && group.alive - group.gated < group.min_member)
      w.not_ready.emplace(gkey, group);
  }

  std::map<std::string, const sched::QueueSpec*> queues = usable;
  queues.emplace(kHolderQueue, &HolderQueue());
  std::map<std::string, sched::GroupSpec> groups;
  std::map<std::string, int64_t> stale_since;
  std::erase_if(last_eviction_, [&](const auto& e) { return !groups_.contains(e.first); });
  std::erase_if(last_start_, [&](const auto& e) { return !groups_.contains(e.first); });
  for (const std::string& gkey : groups_used) {
    const CoreGroup& g = groups_.at(gkey);
    sched::GroupSpec spec = g.spec;
    // Resolved for its pods, and resolvable: they were let through.
    const ResolvedTopology& resolved = resolved_topologies.at(gkey);
    spec.required_topology = resolved.levels.required;
    spec.preferred_topology = resolved.levels.preferred;
    spec.subgroup_topology = resolved.subgroup_levels;
    // Since when: as this process saw it, else as written on the group
    // (a restart), else from now.
    const auto counts = group_pods.find(gkey);
    if (counts != group_pods.end() && RunsBelowMinimum(spec, counts->second.members)) {
      auto since = stale_since_.find(gkey);
      spec.stale_since = since != stale_since_.end()  ? since->second
                         : g.stale_since_written >= 0 ? g.stale_since_written
                                                      : now;
      stale_since.emplace(gkey, spec.stale_since);
    }
    spec.last_eviction_time = g.last_eviction_written;
    if (auto e = last_eviction_.find(gkey); e != last_eviction_.end())
      spec.last_eviction_time = std::max(spec.last_eviction_time, e->second);
    spec.last_start_time = g.last_start_written;
    if (auto s = last_start_.find(gkey); s != last_start_.end())
      spec.last_start_time = std::max(spec.last_start_time, s->second);
    spec.priority = priority_classes_.PriorityOf(g.priority_class);
    if (!g.preemptibility_set) spec.preemptible = DefaultPreemptible(spec.priority);
    if (groups_refused.contains(gkey)) spec.preemptible = false;
    groups.emplace(gkey, std::move(spec));
    w.podgroups.insert(gkey);
  }
  stale_since_.swap(stale_since);
  VT_RETURN_IF_ERROR(SyncUniverse(queues, groups, derived, w.unschedulable));

  // What runs where, fresh each cycle.
  const sched::Snapshot& u = universe_.universe();
  present_.clear();
  for (const Derived& d : derived) {
    if (d.id == sched::kNone) continue;  // the core could not take it
    sched::PresentPod pp{.pod = d.id};
    const sched::Pod& pod = u.pods[d.id];
    if (d.placement) {
      const Placement& pl = *d.placement;
      pp.running = true;
      pp.start_time = d.pod->spec.start_time;
      sched::Allocation& a = pp.allocation;
      a.node = universe_.FindNode(pl.node);
      const sched::Node& node = u.nodes[a.node];
      const sched::PodRequest& r = pod.request;
      if (d.pinned) {
        for (int dev : pl.devices)
          if (dev >= 0 && dev < sched::kMaxDevicesPerNode) a.device_mask |= uint64_t{1} << dev;
      } else if (r.whole_gpus > 0) {
        uint64_t& mask = taken[pl.node];
        int have = 0;
        for (int dev = 0; dev < node.num_devices && have < r.whole_gpus; ++dev)
          if (!(mask & (uint64_t{1} << dev))) {
            a.device_mask |= uint64_t{1} << dev;
            mask |= uint64_t{1} << dev;
            ++have;
          }
        // Over-full by someone else's doing: still count it, on the lowest devices.
        for (int dev = 0; have < r.whole_gpus; ++dev)
          if (!(a.device_mask & (uint64_t{1} << dev))) {
            a.device_mask |= uint64_t{1} << dev;
            ++have;
          }
      }
      if (r.whole_gpus > 0) {
        a.portion = sched::kMilliPerGpu;
      } else if (r.IsShared()) {
        const int first = pl.devices.empty() ? -1 : pl.devices[0];
        const int32_t mib = first >= 0 && first < node.num_devices
                                ? u.devices[node.first_device + first].memory_mib
                                : 0;
        a.portion = pl.portion > 0 ? pl.portion : sched::PortionOnDevice(r, mib);
      }
    }
    if (!d.core.holder && !d.core.group.empty()) w.pod_group[*d.key] = d.core.group;
    present_.push_back(pp);
  }
  const sched::Snapshot& s = universe_.Working(now, present_);
  VT_RETURN_IF_ERROR(sched::Validate(s));
  w.snapshot = &s;
  w.movable.resize(s.pods.size());
  for (sched::PodId i = 0; i < s.pods.size(); ++i)
    w.movable[i] = s.queues[s.groups[s.pods[i].group].queue].name != kHolderQueue;
  return w;
}

Status ClusterView::SyncUniverse(const std::map<std::string, const sched::QueueSpec*>& queues,
                                 const std::map<std::string, sched::GroupSpec>& groups,
                                 std::vector<Derived>& derived,
                                 std::vector<Unschedulable>& unschedulable) {
  // Queues added or changed, parents before children.
  std::vector<std::pair<size_t, const sched::QueueSpec*>> changed;
  for (const auto& [name, q] : queues) {
    auto it = synced_queues_.find(name);
    if (it != synced_queues_.end() && it->second == *q) continue;
    size_t depth = 0;
    for (const sched::QueueSpec* walk = q; !walk->parent.empty(); ++depth)
      walk = queues.at(walk->parent);
    changed.emplace_back(depth, q);
  }
  std::stable_sort(changed.begin(), changed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [depth, q] : changed) {
    Result<sched::QueueId> id = universe_.SetQueue(*q);
    if (!id.ok()) return id.status();
    synced_queues_[q->name] = *q;
  }
  // Nodes added or changed, each labelled with its name for resolved
  // affinities and with its topology domains, and given its CSI attach
  // limits (attach_limits.h); all of them again when a Topology or a limit
  // changed.
  const bool every_node = synced_topologies_ != topologies_changed_ ||
                          synced_attach_limits_ != attach_.version() ||
                          synced_devices_ != devices_.version();
  for (const auto& [name, n] : nodes_) {
    auto it = synced_nodes_.find(name);
    if (!every_node && it != synced_nodes_.end() && it->second == n) continue;
    sched::NodeSpec labelled = n;
    attach_.Apply(name, &labelled);
    if (!devices_.Empty()) devices_.Apply(name, &labelled);
    labelled.labels.emplace_back(kNodeNameLabel, name);
    roles_.MarkNode(&labelled);
    AddDomainLabels(topologies_, &labelled.labels);
    Result<sched::NodeId> id = universe_.SetNode(labelled);
    if (!id.ok()) return id.status();
    synced_nodes_[name] = n;
  }
  synced_topologies_ = topologies_changed_;
  synced_attach_limits_ = attach_.version();
  synced_devices_ = devices_.version();
  // PodGroups added or changed. A group whose subgroups changed has its
  // pods set again: they hold subgroup indices.
  std::set<std::string> regrouped;
  for (const auto& [key, g] : groups) {
    auto it = synced_groups_.find(key);
    if (it != synced_groups_.end() && it->second == g) continue;
    if (it != synced_groups_.end() && it->second.subgroups != g.subgroups) regrouped.insert(key);
    Result<sched::GroupId> id = universe_.SetGroup(g);
    if (!id.ok()) return id.status();
    synced_groups_[key] = g;
  }
  // Pods: both lists are in key order; a synced pod not derived any more
  // leaves, a derived one is set when its translation or standing changed.
  auto remove_pod = [&](std::map<std::string, SyncedPod>::iterator it) {
    Status st = universe_.RemovePod(it->first);
    if (!st.ok()) LOG(ERROR) << "dropping " << it->first << " from the snapshot: " << st.ToString();
    return synced_pods_.erase(it);
  };
  auto synced = synced_pods_.begin();
  for (Derived& d : derived) {
    while (synced != synced_pods_.end() && synced->first < *d.key) synced = remove_pod(synced);
    const bool known = synced != synced_pods_.end() && synced->first == *d.key;
    if (known && synced->second.core == d.core && synced->second.spec == d.pod->spec &&
        !regrouped.contains(d.core.group)) {
      d.id = synced->second.id;
      ++synced;
      continue;
    }
    sched::PodSpec spec = d.pod->spec;
    spec.group = d.core.group;
    spec.queue = d.core.queue;
    spec.priority = d.core.priority;
    spec.preemptible = d.core.preemptible;
    spec.whole_gpus = d.core.whole_gpus;
    for (const auto& [resource, milli] : d.core.attachments)
      spec.other_resources[resource] += milli;
    for (const auto& [resource, milli] : d.core.devices) spec.other_resources[resource] += milli;
    spec.claim_gpus = d.core.claim_gpus;
    if (d.core.holder) spec.subgroup.clear();
    spec.marks = d.core.marks;
    for (const std::string& sharers : d.core.together)
      spec.together.emplace_back(sharers, kNodeNameLabel);
    if (d.core.affinity_nodes)
      spec.node_affinity_in.emplace_back(kNodeNameLabel, *d.core.affinity_nodes);
    if (!d.core.holder) roles_.HoldPod(&spec);
    Result<sched::PodId> id = universe_.SetPod(spec);
    core_updates_->Inc();
    if (!id.ok()) {
      // As written the core cannot hold it; it waits, and says why.
      unschedulable.push_back({*d.key, id.status().message()});
      if (known) synced = remove_pod(synced);
      continue;
    }
    d.id = *id;
    if (known) {
      synced->second = {d.pod->spec, d.core, *id};
      ++synced;
    } else {
      synced_pods_.emplace_hint(synced, *d.key, SyncedPod{d.pod->spec, d.core, *id});
      if (workload_ && !d.core.holder) workload_->Observe(universe_.universe(), *id);
    }
  }
  while (synced != synced_pods_.end()) synced = remove_pod(synced);
  // Removes from `kept`, and from the universe by `remove`, each name `live`
  // no longer has.
  auto forget_gone = [](auto& kept, const auto& live, auto remove) -> Status {
    for (auto it = kept.begin(); it != kept.end();) {
      if (live.contains(it->first)) {
        ++it;
        continue;
      }
      VT_RETURN_IF_ERROR(remove(it->first));
      it = kept.erase(it);
    }
    return Status::Ok();
  };
  // Then what nothing refers to any more: groups, queues (children first), nodes.
  VT_RETURN_IF_ERROR(forget_gone(synced_groups_, groups, [this](const std::string& name) {
    return universe_.RemoveGroup(name);
  }));
  for (bool progress = true; progress;) {
    progress = false;
    for (auto it = synced_queues_.begin(); it != synced_queues_.end();) {
      if (queues.contains(it->first) || !universe_.RemoveQueue(it->first).ok()) {
        ++it;
        continue;
      }
      it = synced_queues_.erase(it);
      progress = true;
    }
  }
  VT_RETURN_IF_ERROR(forget_gone(synced_nodes_, nodes_, [this](const std::string& name) {
    return universe_.RemoveNode(name);
  }));
  return Status::Ok();
}

}  // namespace vtenant::scheduler
