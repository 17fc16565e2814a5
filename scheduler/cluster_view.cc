#include "scheduler/cluster_view.h"

#include <glog/logging.h>

#include <algorithm>

#include "scheduler/kai_names.h"
#include "scheduler/node_translator.h"
#include "scheduler/queue_translator.h"

namespace vtenant::scheduler {
namespace {

bool IsShared(const sched::PodSpec& s) { return s.gpu_fraction > 0 || s.gpu_memory_mib > 0; }

}  // namespace

bool ClusterView::Unchanged(char kind, const std::string& key, const rapidjson::Value& object) {
  const std::string_view rv = kube::ResourceVersion(object);
  std::lock_guard lock(mu_);
  auto it = versions_.find({kind, key});
  if (!rv.empty() && it != versions_.end() && it->second == rv) return true;
  ++translations_;
  return false;
}

void ClusterView::Translated(char kind, const std::string& key, const rapidjson::Value& object) {
  versions_[{kind, key}] = std::string(kube::ResourceVersion(object));
}

void ClusterView::Forgotten(char kind, const std::string& key) { versions_.erase({kind, key}); }

uint64_t ClusterView::Translations() const {
  std::lock_guard lock(mu_);
  return translations_;
}

void ClusterView::UpsertPod(const rapidjson::Value& pod) {
  const std::string key = kube::KeyOf(pod);
  if (Unchanged('p', key, pod)) return;
  TranslatedPod t = TranslatePod(pod, options_);
  std::lock_guard lock(mu_);
  Translated('p', key, pod);
  // Once the informer shows the pod bound, the assumption has served.
  if (!t.node.empty()) assumed_.erase(t.key);
  if (!t.node.empty() || t.role == TranslatedPod::Role::kFinished) nominated_.erase(t.key);
  pods_[t.key] = std::move(t);
}

void ClusterView::DeletePod(const rapidjson::Value& pod) {
  const std::string key = kube::KeyOf(pod);
  std::lock_guard lock(mu_);
  Forgotten('p', key);
  pods_.erase(key);
  refused_.erase(key);
  assumed_.erase(key);
  nominated_.erase(key);
}

void ClusterView::UpsertNode(const rapidjson::Value& node) {
  const std::string key(kube::Name(node));
  if (Unchanged('n', key, node)) return;
  Result<sched::NodeSpec> n = TranslateNode(node);
  std::lock_guard lock(mu_);
  Translated('n', key, node);
  if (!n.ok()) {
    LOG(WARNING) << n.status().ToString() << "; the node takes no pods until fixed";
    nodes_.erase(std::string(kube::Name(node)));
    return;
  }
  nodes_[n->name] = std::move(n).value();
}

void ClusterView::DeleteNode(const rapidjson::Value& node) {
  std::lock_guard lock(mu_);
  Forgotten('n', std::string(kube::Name(node)));
  nodes_.erase(std::string(kube::Name(node)));
}

void ClusterView::UpsertQueue(const rapidjson::Value& queue) {
  const std::string key(kube::Name(queue));
  if (Unchanged('q', key, queue)) return;
  Result<sched::QueueSpec> q = TranslateQueue(queue);
  std::lock_guard lock(mu_);
  Translated('q', key, queue);
  if (!q.ok()) {
    LOG(WARNING) << q.status().ToString() << "; its pods wait until it is fixed";
    queues_.erase(std::string(kube::Name(queue)));
    return;
  }
  queues_[q->name] = std::move(q).value();
}

void ClusterView::DeleteQueue(const rapidjson::Value& queue) {
  std::lock_guard lock(mu_);
  Forgotten('q', std::string(kube::Name(queue)));
  queues_.erase(std::string(kube::Name(queue)));
}

void ClusterView::UpsertPodGroup(const rapidjson::Value& group) {
  const std::string key = kube::KeyOf(group);
  if (Unchanged('g', key, group)) return;
  Result<TranslatedGroup> g = TranslatePodGroup(group);
  std::lock_guard lock(mu_);
  Translated('g', key, group);
  if (!g.ok()) {
    LOG(WARNING) << g.status().ToString();
    groups_.erase(kube::KeyOf(group));
    return;
  }
  groups_[g->spec.name] = std::move(g).value();
}

void ClusterView::DeletePodGroup(const rapidjson::Value& group) {
  std::lock_guard lock(mu_);
  Forgotten('g', kube::KeyOf(group));
  groups_.erase(kube::KeyOf(group));
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
      gone = gone && (p == pods_.end() || p->second.role == TranslatedPod::Role::kFinished);
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

std::optional<TranslatedPod> ClusterView::Pod(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = pods_.find(key);
  if (it == pods_.end()) return std::nullopt;
  return it->second;
}

bool ClusterView::QueueExists(const std::string& name) const {
  std::lock_guard lock(mu_);
  return queues_.contains(name);
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
    if (p.role == TranslatedPod::Role::kReservation && !p.terminating && p.node == node &&
        p.reservation_index == index)
      return p.reserved_gpu_uuid;
  return "";
}

std::vector<Reservation> ClusterView::Reservations() const {
  std::lock_guard lock(mu_);
  std::vector<Reservation> out;
  for (const auto& [key, p] : pods_) {
    if (p.role != TranslatedPod::Role::kReservation) continue;
    Reservation r;
    r.name = kube::SplitKey(key).second;
    r.node = p.node;
    r.index = p.reservation_index;
    r.gpu_uuid = p.reserved_gpu_uuid;
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
    if (p.role != TranslatedPod::Role::kOurs || !IsShared(p.spec)) continue;
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
    if (p.role == TranslatedPod::Role::kOurs && p.node.empty() && !p.terminating &&
        !assumed_.contains(key) && !nominated_.contains(key))
      ++n;
  return n;
}

Result<World> ClusterView::Build(int64_t now) const {
  std::lock_guard lock(mu_);
  World w;
  sched::SnapshotBuilder b;
  b.SetNow(now);
  // Queues whose parent is unknown are left out with their pods: one bad
  // Queue must not stop everyone else's scheduling.
  std::set<std::string> parents;
  for (const auto& [name, q] : queues_)
    if (!q.parent.empty()) parents.insert(q.parent);
  std::set<std::string> usable;
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
      usable.insert(name);
      b.AddQueue(q);
    } else {
      LOG_EVERY_N(WARNING, 100) << "queue " << name << ": parentQueue chain names a missing queue";
    }
  }
  sched::QueueSpec holder;
  holder.name = kHolderQueue;
  // Holders ask for nothing more and get no share beyond what they hold.
  for (sched::QueueResource& r : holder.resources) r = {0, sched::kUnlimited, 0};
  b.AddQueue(holder);

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

  // Devices taken per node: sharing pods' devices are pinned (their
  // reservation pods hold them); whole-GPU pods take the lowest free others.
  std::map<std::string, uint64_t> taken;
  struct Entry {
    sched::PodSpec spec;
    bool holder = false;  // non-preemptible holder instead of a schedulable pod
    bool ours = false;
    const Placement* assumed = nullptr;
  };
  std::vector<Entry> entries;
  auto queue_reason = [&](const std::string& queue) -> std::string {
    if (!queues_.contains(queue))
      return "queue \"" + queue + "\" does not exist; create it or set label " +
             std::string(kQueueLabel) + " to an existing queue";
    if (!usable.contains(queue))
      return "queue \"" + queue + "\" has a parent queue that does not exist";
    if (parents.contains(queue))
      return "queue \"" + queue + "\" is a parent queue; pods go to its leaf queues";
    return "";
  };
  std::map<std::string, int32_t> group_priority;
  std::set<std::string> groups_used;
  std::set<std::string> groups_refused;  // a member's eviction was refused lately
  auto refused = [&](const std::string& key) {
    auto it = refused_.find(key);
    return it != refused_.end() && it->second > now;
  };

  for (const auto& [key, p] : pods_) {
    if (p.role == TranslatedPod::Role::kFinished || p.role == TranslatedPod::Role::kReservation)
      continue;
    const Placement* assumed = nullptr;
    if (auto it = assumed_.find(key); it != assumed_.end()) assumed = &it->second;
    if (auto it = nominated_.find(key); it != nominated_.end()) assumed = &it->second.placement;
    const bool placed = !p.node.empty() || assumed != nullptr;
    if (placed && !nodes_.contains(assumed ? assumed->node : p.node)) continue;  // node gone
    Entry e;
    e.spec = p.spec;
    e.ours = p.role == TranslatedPod::Role::kOurs;
    e.assumed = assumed;
    if (!e.ours || p.terminating) {
      if (!placed) continue;  // nothing to hold
      e.holder = true;
    } else if (!p.problem.ok()) {
      if (!placed) {
        w.unschedulable.push_back({key, p.problem.message()});
        continue;
      }
      e.holder = true;  // runs already; keep its resources counted
    } else {
      // Group and queue, as KAI's pod grouper left them.
      std::string queue;
      if (!p.pod_group.empty()) {
        const std::string gkey = kube::MakeKey(kube::SplitKey(key).first, p.pod_group);
        auto g = groups_.find(gkey);
        if (g == groups_.end()) {
          if (placed)
            e.holder = true;
          else {
            w.unschedulable.push_back({key, "waiting for PodGroup " + p.pod_group});
            continue;
          }
        } else {
          queue = g->second.spec.queue;
          e.spec.group = gkey;
        }
      } else if (p.has_controller_owner) {
        if (placed)
          e.holder = true;
        else {
          w.unschedulable.push_back({key, "waiting for the pod grouper to give it a PodGroup"});
          continue;
        }
      } else {
        queue = p.queue.empty() ? kDefaultQueue : p.queue;
      }
      if (!e.holder) {
        if (std::string why = queue_reason(queue); !why.empty()) {
          if (placed)
            e.holder = true;
          else {
            w.unschedulable.push_back({key, why});
            continue;
          }
        }
      }
      if (!e.holder) {
        e.spec.queue = queue;
        e.spec.priority = p.priority;
        e.spec.preemptible = DefaultPreemptible(p.priority);
        if (!p.affinity.empty())
          e.spec.node_affinity_in.emplace_back(kNodeNameLabel, resolve_affinity(p.affinity));
        if (refused(key)) e.spec.preemptible = false;
        if (!e.spec.group.empty()) {
          group_priority[e.spec.group] = std::max(group_priority[e.spec.group], p.priority);
          groups_used.insert(e.spec.group);
          if (refused(key)) groups_refused.insert(e.spec.group);
        }
      }
    }
    if (e.holder) {
      e.spec.group.clear();
      e.spec.queue = kHolderQueue;
      e.spec.preemptible = false;
      e.spec.subgroup.clear();
    }
    if (placed) {
      const Placement pl =
          assumed ? *assumed : Placement{p.node, p.gpu_indices, 0, IsShared(p.spec)};
      e.spec.node = pl.node;
      if (IsShared(e.spec)) {
        e.spec.devices = pl.devices;
        e.spec.portion = pl.portion;
        for (int d : pl.devices) taken[pl.node] |= uint64_t{1} << d;
      } else if (assumed && e.spec.whole_gpus > 0) {
        e.spec.devices = pl.devices;
        for (int d : pl.devices) taken[pl.node] |= uint64_t{1} << d;
      }
    }
    entries.push_back(std::move(e));
  }
  for (const auto& [name, n] : nodes_) {
    if (affinity_nodes.empty()) {
      b.AddNode(n);
      continue;
    }
    sched::NodeSpec labelled = n;
    labelled.labels.emplace_back(kNodeNameLabel, name);
    b.AddNode(std::move(labelled));
  }
  // Whole GPUs of bound pods: which device is the device plugin's business;
  // the lowest free ones keep the count right.
  for (Entry& e : entries) {
    if (e.spec.node.empty() || e.spec.whole_gpus == 0 || !e.spec.devices.empty()) continue;
    const sched::NodeSpec& n = nodes_.at(e.spec.node);
    int want = std::min(e.spec.whole_gpus, n.gpus);
    e.spec.whole_gpus = want;
    uint64_t& mask = taken[e.spec.node];
    for (int d = 0; d < n.gpus && static_cast<int>(e.spec.devices.size()) < want; ++d)
      if (!(mask & (uint64_t{1} << d))) {
        e.spec.devices.push_back(d);
        mask |= uint64_t{1} << d;
      }
    // Over-full by someone else's doing: still count it, on the lowest devices.
    for (int d = 0; static_cast<int>(e.spec.devices.size()) < want; ++d)
      if (std::find(e.spec.devices.begin(), e.spec.devices.end(), d) == e.spec.devices.end())
        e.spec.devices.push_back(d);
  }
  for (const std::string& gkey : groups_used) {
    const TranslatedGroup& g = groups_.at(gkey);
    sched::GroupSpec spec = g.spec;
    spec.priority = group_priority[gkey];
    if (!g.preemptibility_set) spec.preemptible = DefaultPreemptible(spec.priority);
    if (groups_refused.contains(gkey)) spec.preemptible = false;
    b.AddGroup(spec);
    w.podgroups.insert(gkey);
  }
  for (Entry& e : entries) {
    if (!e.spec.group.empty()) w.pod_group[e.spec.name] = e.spec.group;
    b.AddPod(e.spec);
  }
  VT_ASSIGN_OR_RETURN(w.snapshot, b.Build());
  w.movable.resize(w.snapshot.pods.size());
  for (sched::PodId i = 0; i < w.snapshot.pods.size(); ++i) {
    const sched::Pod& pod = w.snapshot.pods[i];
    w.movable[i] = w.snapshot.queues[w.snapshot.groups[pod.group].queue].name != kHolderQueue;
  }
  return w;
}

}  // namespace vtenant::scheduler
