#include "scheduler/volume_claims.h"

#include <algorithm>
#include <optional>

#include "kube/quantity.h"

namespace vtenant::scheduler {
namespace {

using rapidjson::Value;

// A claim's class before spec.storageClassName existed, still honoured.
constexpr char kBetaStorageClassAnnotation[] = "volume.beta.kubernetes.io/storage-class";

// A StorageClass's allowedTopologies, as node affinity: its terms ORed,
// each term's matchLabelExpressions ANDed, each "key In values".
Result<NodeAffinity> AllowedTopologies(const Value& storage_class) {
  NodeAffinity a;
  const Value* terms = kube::Find(storage_class, {"allowedTopologies"});
  if (terms == nullptr || !terms->IsArray()) return a;
  for (const Value& t : terms->GetArray()) {
    NodeSelectorTerm term;
    const Value* expressions = kube::Find(t, {"matchLabelExpressions"});
    if (expressions == nullptr || !expressions->IsArray())
      return InvalidArgument("an allowedTopologies term without matchLabelExpressions");
    for (const Value& e : expressions->GetArray()) {
      term.match_expressions.push_back({.key = std::string(kube::GetString(e, {"key"})),
                                        .values = kube::GetStrings(e, {"values"})});
    }
    a.terms.push_back(std::move(term));
  }
  return a;
}

// The bytes of quantity `path` of `object`; 0 when absent or unreadable.
int64_t Bytes(const Value& object, std::initializer_list<std::string_view> path) {
  Result<kube::Quantity> q = kube::Quantity::Parse(kube::GetString(object, path));
  return q.ok() ? q->Value() : 0;
}

// Only `node`, by name.
NodeAffinity OnlyNode(std::string node) {
  NodeSelectorTerm term;
  term.match_fields.push_back({.key = "metadata.name",
                               .op = NodeSelectorRequirement::Op::kIn,
                               .values = {std::move(node)}});
  return NodeAffinity{.terms = {std::move(term)}};
}

// The nodes a label selector on node labels selects, as node affinity (an
// empty selector selects every node, as an empty affinity admits them).
NodeAffinity SelectorAsAffinity(const kube::LabelSelector& selector) {
  using Op = NodeSelectorRequirement::Op;
  if (selector.empty()) return NodeAffinity{};
  NodeSelectorTerm term;
  for (const kube::LabelSelector::Requirement& r : selector.requirements()) {
    // By LabelSelector::Operator, in its order.
    static constexpr Op kOps[] = {Op::kIn, Op::kNotIn, Op::kExists, Op::kDoesNotExist};
    using From = kube::LabelSelector::Operator;
    static_assert(static_cast<int>(From::kIn) == 0 && static_cast<int>(From::kNotIn) == 1 &&
                  static_cast<int>(From::kExists) == 2 &&
                  static_cast<int>(From::kDoesNotExist) == 3);
    term.match_expressions.push_back(
        {.key = r.key, .op = kOps[static_cast<int>(r.op)], .values = r.values});
  }
  return NodeAffinity{.terms = {std::move(term)}};
}

// The nodes a PersistentVolume's zone and region labels admit, as
// kube-scheduler's VolumeZone has it: every such label's value (several
// zones joined by "__") names the node's of the same key; a node without
// the beta key is read by its GA one; a node with none of these keys is
// admitted whatever the volume says. Empty when the volume has none.
NodeAffinity VolumeZoneAffinity(const kube::Labels& labels) {
  using Op = NodeSelectorRequirement::Op;
  struct Key {
    const char* label;
    const char* ga;  // the GA key a beta one is read as; nullptr for a GA key
  };
  static constexpr Key kKeys[] = {
      {"topology.kubernetes.io/zone", nullptr},
      {"topology.kubernetes.io/region", nullptr},
      {"failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone"},
      {"failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region"}};
  NodeAffinity matching;
  bool any = false;
  NodeSelectorTerm unlabelled;  // a node with none of the keys
  for (const Key& k : kKeys) {
    unlabelled.match_expressions.push_back({.key = k.label, .op = Op::kDoesNotExist});
    auto it = labels.find(k.label);
    if (it == labels.end()) continue;
    std::vector<std::string> values;
    for (size_t start = 0; start <= it->second.size();) {
      const size_t end = std::min(it->second.find("__", start), it->second.size());
      if (end > start) values.push_back(it->second.substr(start, end - start));
      start = end + 2;
    }
    NodeAffinity key{
        .terms = {{.match_expressions = {{.key = k.label, .op = Op::kIn, .values = values}}}}};
    if (k.ga != nullptr) {
      key = Either(key,
                   NodeAffinity{.terms = {{.match_expressions = {
                                               {.key = k.label, .op = Op::kDoesNotExist},
                                               {.key = k.ga, .op = Op::kIn, .values = values}}}}});
    }
    matching = any ? Both(matching, key) : key;
    any = true;
  }
  if (!any) return NodeAffinity{};
  return Either(matching, NodeAffinity{.terms = {std::move(unlabelled)}});
}

}  // namespace

std::vector<PodClaim> PodClaims(const Value& pod) {
  std::vector<PodClaim> out;
  const Value* volumes = kube::Find(pod, {"spec", "volumes"});
  if (volumes == nullptr || !volumes->IsArray()) return out;
  for (const Value& v : volumes->GetArray()) {
    if (std::string_view claim = kube::GetString(v, {"persistentVolumeClaim", "claimName"});
        !claim.empty()) {
      out.push_back({std::string(claim)});
    } else if (kube::Find(v, {"ephemeral"}) != nullptr) {
      out.push_back({std::string(kube::Name(pod)) + "-" + std::string(kube::GetString(v, {"name"})),
                     /*ephemeral=*/true});
    }
  }
  return out;
}

void VolumeClaims::UpsertClaim(const Value& claim) {
  Claim c;
  c.uid = std::string(kube::Uid(claim));
  c.deleting = kube::Find(claim, {"metadata", "deletionTimestamp"}) != nullptr;
  c.request = Bytes(claim, {"spec", "resources", "requests", "storage"});
  c.access_modes = kube::GetStrings(claim, {"spec", "accessModes"});
  c.volume_mode = std::string(kube::GetString(claim, {"spec", "volumeMode"}));
  if (const Value* selector = kube::Find(claim, {"spec", "selector"});
      selector != nullptr && !selector->IsNull())
    c.selector = kube::LabelSelector::Read(*selector);
  c.volume = std::string(kube::GetString(claim, {"spec", "volumeName"}));
  const Value* named = kube::Find(claim, {"spec", "storageClassName"});
  c.storage_class =
      named != nullptr && named->IsString()
          ? std::string(named->GetString())
          : std::string(kube::Annotation(claim, kBetaStorageClassAnnotation).value_or(""));
  c.selected_node = std::string(kube::Annotation(claim, kSelectedNodeAnnotation).value_or(""));
  if (const Value* owners = kube::Find(claim, {"metadata", "ownerReferences"});
      owners != nullptr && owners->IsArray())
    for (const Value& o : owners->GetArray())
      c.owner_uids.emplace_back(kube::GetString(o, {"uid"}));
  c.one_pod_only = std::find(c.access_modes.begin(), c.access_modes.end(), "ReadWriteOncePod") !=
                   c.access_modes.end();
  Claim& kept = claims_[kube::KeyOf(claim)];
  one_pod_claims_ += int{c.one_pod_only} - int{kept.one_pod_only};
  kept = std::move(c);
}

void VolumeClaims::DeleteClaim(const Value& claim) {
  auto it = claims_.find(kube::KeyOf(claim));
  if (it == claims_.end()) return;
  one_pod_claims_ -= int{it->second.one_pod_only};
  claims_.erase(it);
}

void VolumeClaims::UpsertVolume(const Value& volume) {
  const std::string name(kube::Name(volume));
  Volume v;
  if (const Value* required = kube::Find(volume, {"spec", "nodeAffinity", "required"}))
    v.affinity = ParseNodeSelector(*required, "spec.nodeAffinity.required");
  v.version = std::string(kube::ResourceVersion(volume));
  v.storage_class = std::string(kube::GetString(volume, {"spec", "storageClassName"}));
  v.available = kube::GetString(volume, {"status", "phase"}) == "Available" &&
                kube::Find(volume, {"spec", "claimRef"}) == nullptr;
  v.capacity = Bytes(volume, {"spec", "capacity", "storage"});
  v.access_modes = kube::GetStrings(volume, {"spec", "accessModes"});
  v.volume_mode = std::string(kube::GetString(volume, {"spec", "volumeMode"}));
  v.labels = kube::GetStringMap(volume, {"metadata", "labels"});
  if (v.affinity.ok()) v.affinity = Both(*v.affinity, VolumeZoneAffinity(v.labels));
  v.csi_driver = std::string(kube::GetString(volume, {"spec", "csi", "driver"}));
  volumes_.insert_or_assign(name, std::move(v));
}

bool VolumeClaims::OnePodOnly(std::string_view ns, std::string_view claim) const {
  auto c = claims_.find(kube::MakeKey(ns, claim));
  return c != claims_.end() && c->second.one_pod_only;
}

std::string VolumeClaims::AttachingDriver(std::string_view ns, std::string_view claim) const {
  auto c = claims_.find(kube::MakeKey(ns, claim));
  if (c == claims_.end()) return "";
  if (!c->second.volume.empty()) {
    auto v = volumes_.find(c->second.volume);
    return v == volumes_.end() ? "" : v->second.csi_driver;
  }
  auto cls = classes_.find(c->second.storage_class);
  return cls == classes_.end() ? "" : cls->second.provisioner;
}

void VolumeClaims::DeleteVolume(const Value& volume) {
  if (auto it = volumes_.find(kube::Name(volume)); it != volumes_.end()) volumes_.erase(it);
}

void VolumeClaims::UpsertClass(const Value& storage_class) {
  Class c;
  c.wait_for_first_consumer =
      kube::GetString(storage_class, {"volumeBindingMode"}) == "WaitForFirstConsumer";
  c.provisioner = std::string(kube::GetString(storage_class, {"provisioner"}));
  c.allowed_topologies = AllowedTopologies(storage_class);
  classes_.insert_or_assign(std::string(kube::Name(storage_class)), std::move(c));
}

void VolumeClaims::DeleteClass(const Value& storage_class) {
  if (auto it = classes_.find(kube::Name(storage_class)); it != classes_.end()) classes_.erase(it);
}

void VolumeClaims::UpsertDriver(const Value& csi_driver) {
  const Value* tracks = kube::Find(csi_driver, {"spec", "storageCapacity"});
  drivers_.insert_or_assign(std::string(kube::Name(csi_driver)),
                            tracks != nullptr && tracks->IsBool() && tracks->GetBool());
}

void VolumeClaims::DeleteDriver(const Value& csi_driver) {
  if (auto it = drivers_.find(kube::Name(csi_driver)); it != drivers_.end()) drivers_.erase(it);
}

void VolumeClaims::UpsertCapacity(const Value& csi_storage_capacity) {
  Capacity c;
  c.storage_class = std::string(kube::GetString(csi_storage_capacity, {"storageClassName"}));
  for (const char* field : {"maximumVolumeSize", "capacity"}) {
    Result<kube::Quantity> q =
        kube::Quantity::Parse(kube::GetString(csi_storage_capacity, {field}));
    if (!q.ok()) continue;
    c.limit = q->Value();
    break;
  }
  if (const Value* topology = kube::Find(csi_storage_capacity, {"nodeTopology"});
      topology != nullptr && topology->IsObject()) {
    if (Result<kube::LabelSelector> selector = kube::LabelSelector::Read(*topology); selector.ok())
      c.nodes = SelectorAsAffinity(*selector);
  }
  capacities_.insert_or_assign(kube::KeyOf(csi_storage_capacity), std::move(c));
}

void VolumeClaims::DeleteCapacity(const Value& csi_storage_capacity) {
  capacities_.erase(kube::KeyOf(csi_storage_capacity));
}

std::optional<NodeAffinity> VolumeClaims::RoomToProvision(const Claim& claim,
                                                          const Class& cls) const {
  auto driver = drivers_.find(cls.provisioner);
  if (claim.request == 0 || driver == drivers_.end() || !driver->second) return NodeAffinity{};
  std::optional<NodeAffinity> room;
  for (const auto& [key, capacity] : capacities_) {
    if (capacity.storage_class != claim.storage_class || capacity.limit < claim.request ||
        !capacity.nodes)
      continue;
    room = room ? Either(*room, *capacity.nodes) : *capacity.nodes;
  }
  return room;
}

VolumeClaims::Verdict VolumeClaims::Check(std::string_view ns, std::string_view pod_uid,
                                          const std::vector<PodClaim>& claims) const {
  Verdict v;
  auto wait = [&](std::string reason) {
    v.reason = std::move(reason);
    return v;
  };
  for (const PodClaim& pc : claims) {
    const std::string quoted = "persistentvolumeclaim \"" + pc.name + "\"";
    auto it = claims_.find(std::string(ns) + "/" + pc.name);
    if (it == claims_.end()) return wait(quoted + " not found");
    const Claim& c = it->second;
    if (c.deleting) return wait(quoted + " is being deleted");
    if (pc.ephemeral &&
        std::find(c.owner_uids.begin(), c.owner_uids.end(), pod_uid) == c.owner_uids.end())
      return wait(quoted +
                  " was not created for this pod's ephemeral volume (the pod is not its "
                  "owner)");
    if (!c.volume.empty()) {
      auto vol = volumes_.find(c.volume);
      if (vol == volumes_.end())
        return wait(quoted + " is bound to PersistentVolume \"" + c.volume +
                    "\", which does not exist");
      if (!vol->second.affinity.ok())
        return wait("PersistentVolume \"" + c.volume +
                    "\": " + vol->second.affinity.status().message());
      v.affinity = Both(v.affinity, *vol->second.affinity);
      continue;
    }
    const Class* cls = FirstConsumerClass(c);
    if (cls == nullptr)
      return wait("pod has unbound immediate PersistentVolumeClaims: " + quoted +
                  " waits for the volume controller to bind it");
    // Provisioning already asked for on a node (an earlier bind): there.
    if (!c.selected_node.empty()) {
      v.affinity = Both(v.affinity, OnlyNode(c.selected_node));
      continue;
    }
    // Where a volume that is there fits it, or one can be made.
    std::optional<NodeAffinity> where;
    for (const auto* candidate : Candidates(c)) {
      const Result<NodeAffinity>& admits = candidate->second.affinity;
      if (!admits.ok()) continue;
      where = where ? Either(*where, *admits) : *admits;
    }
    if (cls->Provisions()) {
      if (!cls->allowed_topologies.ok())
        return wait("StorageClass \"" + c.storage_class +
                    "\": " + cls->allowed_topologies.status().message());
      if (std::optional<NodeAffinity> room = RoomToProvision(c, *cls)) {
        const NodeAffinity made = Both(*cls->allowed_topologies, *room);
        where = where ? Either(*where, made) : made;
      }
    }
    if (!where && cls->Provisions())
      return wait(quoted + " has no available PersistentVolume of StorageClass \"" +
                  c.storage_class +
                  "\" that fits it, and node(s) did not have enough free storage: no "
                  "CSIStorageCapacity of the class has room for " +
                  std::to_string(c.request) + " bytes");
    if (!where)
      return wait(quoted + " has no available PersistentVolume of StorageClass \"" +
                  c.storage_class + "\" that fits it, and the class (" + cls->provisioner +
                  ") makes none");
    v.affinity = Both(v.affinity, *where);
  }
  return v;
}

const VolumeClaims::Class* VolumeClaims::FirstConsumerClass(const Claim& claim) const {
  auto it = claim.storage_class.empty() ? classes_.end() : classes_.find(claim.storage_class);
  return it != classes_.end() && it->second.wait_for_first_consumer ? &it->second : nullptr;
}

std::vector<const std::pair<const std::string, VolumeClaims::Volume>*> VolumeClaims::Candidates(
    const Claim& claim) const {
  std::vector<const std::pair<const std::string, Volume>*> out;
  if (!claim.selector.ok()) return out;
  const auto mode = [](const std::string& m) { return m.empty() ? "Filesystem" : m; };
  for (const auto& entry : volumes_) {
    const Volume& vol = entry.second;
    if (!vol.available || vol.storage_class != claim.storage_class ||
        vol.capacity < claim.request || mode(vol.volume_mode) != mode(claim.volume_mode))
      continue;
    const bool modes = std::all_of(
        claim.access_modes.begin(), claim.access_modes.end(), [&](const std::string& m) {
          return std::find(vol.access_modes.begin(), vol.access_modes.end(), m) !=
                 vol.access_modes.end();
        });
    if (modes && claim.selector->Matches(vol.labels)) out.push_back(&entry);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) {
    return a->second.capacity < b->second.capacity;
  });
  return out;
}

Result<std::vector<VolumeClaims::ClaimBinding>> VolumeClaims::PlanBinding(
    std::string_view ns, const std::vector<PodClaim>& claims, std::string_view node,
    const sched::LabelPairs& labels) const {
  std::vector<ClaimBinding> out;
  for (const PodClaim& pc : claims) {
    auto it = claims_.find(std::string(ns) + "/" + pc.name);
    if (it == claims_.end()) return NotFound("persistentvolumeclaim \"" + pc.name + "\" is gone");
    const Claim& c = it->second;
    const Class* cls = FirstConsumerClass(c);
    if (!c.volume.empty() || !c.selected_node.empty() || cls == nullptr)
      continue;  // bound, provisioning, or not the scheduler's to bind
    ClaimBinding b{.claim = pc.name, .claim_uid = c.uid};
    for (const auto* candidate : Candidates(c)) {
      const bool taken = std::any_of(out.begin(), out.end(), [&](const ClaimBinding& o) {
        return o.volume == candidate->first;
      });
      const Result<NodeAffinity>& admits = candidate->second.affinity;
      if (taken || !admits.ok() || !(admits->empty() || admits->Matches(node, labels))) continue;
      b.volume = candidate->first;
      b.volume_version = candidate->second.version;
      break;
    }
    if (b.volume.empty() && !cls->Provisions())
      return FailedPrecondition("persistentvolumeclaim \"" + pc.name +
                                "\" has no available PersistentVolume on node " +
                                std::string(node));
    if (b.volume.empty()) {
      std::optional<NodeAffinity> room = RoomToProvision(c, *cls);
      if (!room || !(room->empty() || room->Matches(node, labels)))
        return FailedPrecondition("persistentvolumeclaim \"" + pc.name +
                                  "\": no CSIStorageCapacity has room for it on node " +
                                  std::string(node));
    }
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace vtenant::scheduler
