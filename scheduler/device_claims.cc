#include "scheduler/device_claims.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "kai/names.h"
#include "kube/json_builder.h"
#include "kube/object.h"
#include "scheduler-core/node_extras.h"

namespace vtenant::scheduler {
namespace {

// Whether the name of a class (or a driver) says it is of GPUs, as KAI's
// IsGPUDeviceClass.
bool SaysGpu(std::string_view device_class) {
  std::string lower(device_class);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("gpu") != std::string::npos;
}

// Whether ResourceClaim `claim` carries kClaimFinalizer.
bool HasFinalizer(const rapidjson::Value& claim) {
  for (const std::string& f : kube::GetStrings(claim, {"metadata", "finalizers"}))
    if (f == kClaimFinalizer) return true;
  return false;
}

// spec.selectors (a class's, a request's): each CEL expression parsed.
std::vector<Result<DeviceSelector>> ReadSelectors(const rapidjson::Value* selectors) {
  std::vector<Result<DeviceSelector>> out;
  if (selectors == nullptr || !selectors->IsArray()) return out;
  for (const rapidjson::Value& s : selectors->GetArray())
    out.push_back(DeviceSelector::Parse(kube::GetString(s, {"cel", "expression"})));
  return out;
}

// The nodes named `names`, as node affinity.
NodeAffinity NodesNamed(std::vector<std::string> names) {
  return {.terms = {{.match_fields = {{.key = "metadata.name", .values = std::move(names)}}}}};
}

// The devices a claim's status.allocation gives it.
std::vector<DeviceResult> AllocatedDevices(const rapidjson::Value& allocation) {
  std::vector<DeviceResult> results;
  const rapidjson::Value* list = kube::Find(allocation, {"devices", "results"});
  if (list == nullptr || !list->IsArray()) return results;
  for (const rapidjson::Value& d : list->GetArray()) {
    const rapidjson::Value* admin = kube::Find(d, {"adminAccess"});
    results.push_back(
        {std::string(kube::GetString(d, {"request"})), std::string(kube::GetString(d, {"driver"})),
         std::string(kube::GetString(d, {"pool"})), std::string(kube::GetString(d, {"device"})),
         admin != nullptr && admin->IsTrue()});
  }
  return results;
}

// A JSON array's text, "[]" for none.
std::string ArrayJson(const rapidjson::Value* array) {
  return array != nullptr && array->IsArray() ? kube::ToJson(*array) : "[]";
}

}  // namespace

std::string DeviceClassResource(std::string_view device_class) {
  return std::string(sched::kDeviceClassPrefix) + std::string(device_class);
}

// A class's name is a DNS subdomain, without "/": no class's own resource
// can be named so.
std::string AnyDeviceClassResource(std::string_view device_class) {
  return DeviceClassResource(device_class) + "/tainted-or-not";
}

std::vector<PodDeviceClaim> PodDeviceClaims(const rapidjson::Value& pod) {
  std::vector<PodDeviceClaim> out;
  const rapidjson::Value* entries = kube::Find(pod, {"spec", "resourceClaims"});
  if (entries == nullptr || !entries->IsArray()) return out;
  const rapidjson::Value* statuses = kube::Find(pod, {"status", "resourceClaimStatuses"});
  for (const rapidjson::Value& e : entries->GetArray()) {
    PodDeviceClaim c{.entry = std::string(kube::GetString(e, {"name"}))};
    if (std::string_view name = kube::GetString(e, {"resourceClaimName"}); !name.empty()) {
      c.claim = name;
    } else {
      c.from_template = true;
      if (statuses != nullptr && statuses->IsArray())
        for (const rapidjson::Value& s : statuses->GetArray())
          if (kube::GetString(s, {"name"}) == c.entry)
            c.claim = kube::GetString(s, {"resourceClaimName"});
    }
    out.push_back(std::move(c));
  }
  return out;
}

Status ProtectClaim(const ClaimAllocation& allocation, rapidjson::Document* claim) {
  if (kube::Uid(*claim) != allocation.claim_uid)
    return FailedPrecondition("resource claim " + allocation.claim + " was replaced");
  if (kube::IsBeingDeleted(*claim))
    return FailedPrecondition("resource claim " + allocation.claim + " is being deleted");
  if (HasFinalizer(*claim)) return Status::Ok();
  auto& alloc = claim->GetAllocator();
  rapidjson::Value& metadata = (*claim)["metadata"];
  if (!metadata.HasMember("finalizers"))
    metadata.AddMember("finalizers", rapidjson::kArrayType, alloc);
  metadata["finalizers"].PushBack(rapidjson::StringRef(kClaimFinalizer), alloc);
  return Status::Ok();
}

Status WriteAllocation(const ClaimAllocation& allocation, std::string_view pod,
                       std::string_view pod_uid, std::string_view node,
                       rapidjson::Document* claim) {
  if (kube::Uid(*claim) != allocation.claim_uid)
    return FailedPrecondition("resource claim " + allocation.claim + " was replaced");
  if (kube::IsBeingDeleted(*claim))
    return FailedPrecondition("resource claim " + allocation.claim + " is being deleted");
  auto& alloc = claim->GetAllocator();
  if (!claim->HasMember("status")) claim->AddMember("status", rapidjson::kObjectType, alloc);
  rapidjson::Value& status = (*claim)["status"];
  if (allocation.allocate) {
    if (const rapidjson::Value* given = kube::Find(status, {"allocation"}); given != nullptr) {
      if (AllocatedDevices(*given) != allocation.results)
        return FailedPrecondition("resource claim " + allocation.claim +
                                  " was allocated meanwhile to other devices");
    } else {
      kube::JsonArray results;
      for (const DeviceResult& r : allocation.results) {
        kube::JsonObject result{
            {"request", r.request}, {"driver", r.driver}, {"pool", r.pool}, {"device", r.device}};
        if (r.admin_access) result.Set("adminAccess", true);
        results.Add(std::move(result));
      }
      Result<kube::Object> config = kube::ParseJson(allocation.config_json);
      // The node the devices are on, as kube-scheduler writes it for
      // devices local to one node.
      const kube::JsonObject on_node{
          {"nodeSelectorTerms", kube::JsonArray{kube::JsonObject{
                                    {"matchFields", kube::JsonArray{kube::JsonObject{
                                                        {"key", "metadata.name"},
                                                        {"operator", "In"},
                                                        {"values", kube::JsonArray{node}}}}}}}}};
      const kube::JsonValue allocated = kube::JsonObject{
          {"devices", kube::JsonObject{{"results", std::move(results)},
                                       {"config", config.ok() && config->IsArray()
                                                      ? kube::JsonValue(*config)
                                                      : kube::JsonValue(kube::JsonArray{})}}},
          {"nodeSelector", on_node}};
      status.AddMember("allocation", allocated.ToRapidJson(alloc), alloc);
    }
  }
  if (!status.HasMember("reservedFor"))
    status.AddMember("reservedFor", rapidjson::kArrayType, alloc);
  rapidjson::Value& reserved = status["reservedFor"];
  for (const rapidjson::Value& r : reserved.GetArray())
    if (kube::GetString(r, {"uid"}) == pod_uid) return Status::Ok();
  if (reserved.Size() >= kClaimReservedForMaxSize)
    return FailedPrecondition("resource claim " + allocation.claim +
                              " has reached its maximum number of consumers (" +
                              std::to_string(kClaimReservedForMaxSize) + ")");
  const kube::JsonValue ref =
      kube::JsonObject{{"resource", "pods"}, {"name", pod}, {"uid", pod_uid}};
  reserved.PushBack(ref.ToRapidJson(alloc), alloc);
  return Status::Ok();
}

std::string DeviceClaims::DeviceKey(std::string_view driver, std::string_view pool,
                                    std::string_view device) {
  std::string key(driver);
  key.append("/").append(pool).append("/").append(device);
  return key;
}

DeviceClaims::NodeSelection DeviceClaims::ReadNodeSelection(const rapidjson::Value& fields) {
  NodeSelection nodes;
  nodes.node = kube::GetString(fields, {"nodeName"});
  const rapidjson::Value* all = kube::Find(fields, {"allNodes"});
  nodes.all_nodes = all != nullptr && all->IsBool() && all->GetBool();
  if (const rapidjson::Value* selector = kube::Find(fields, {"nodeSelector"});
      selector != nullptr && selector->IsObject()) {
    Result<NodeAffinity> picked = ParseNodeSelector(*selector, "nodeSelector");
    // A selector the API server would refuse admits no node.
    nodes.node_selector = picked.ok() ? *picked : NodeAffinity{};
    if (nodes.node_selector->empty())
      nodes.node_selector->terms.push_back({.match_fields = {{.key = "metadata.name"}}});
  }
  return nodes;
}

bool DeviceClaims::Admits(const NodeSelection& nodes, const NodeRef& node) {
  if (nodes.all_nodes) return true;
  if (!nodes.node.empty()) return nodes.node == node.name;
  return nodes.node_selector && node.labels != nullptr &&
         nodes.node_selector->Matches(node.name, *node.labels);
}

void DeviceClaims::UpsertSlice(const rapidjson::Value& object) {
  Slice slice;
  static const rapidjson::Value kNoFields(rapidjson::kObjectType);
  const rapidjson::Value* spec = kube::Find(object, {"spec"});
  slice.nodes = ReadNodeSelection(spec != nullptr && spec->IsObject() ? *spec : kNoFields);
  const rapidjson::Value* per_device = kube::Find(object, {"spec", "perDeviceNodeSelection"});
  slice.per_device_nodes = per_device != nullptr && per_device->IsBool() && per_device->GetBool();
  if (const rapidjson::Value* devices = kube::Find(object, {"spec", "devices"});
      slice.per_device_nodes && devices != nullptr && devices->IsArray())
    for (const rapidjson::Value& d : devices->GetArray())
      slice.device_nodes.push_back(
          ReadNodeSelection(d.IsObject() ? DeviceProperties(d) : kNoFields));
  slice.driver = kube::GetString(object, {"spec", "driver"});
  slice.pool = kube::GetString(object, {"spec", "pool", "name"});
  if (const rapidjson::Value* g = kube::Find(object, {"spec", "pool", "generation"});
      g != nullptr && g->IsInt64())
    slice.generation = g->GetInt64();
  slice.devices = ReadSliceDevices(object);
  slice.counter_sets = ReadSliceCounterSets(object);
  slices_.insert_or_assign(std::string(kube::Name(object)), std::move(slice));
  SlicesChanged();
}

void DeviceClaims::DeleteSlice(const rapidjson::Value& object) {
  if (slices_.erase(std::string(kube::Name(object))) > 0) SlicesChanged();
}

void DeviceClaims::SlicesChanged() {
  newest_.clear();
  node_slices_.clear();
  shared_slices_.clear();
  for (const auto& [name, slice] : slices_) {
    int64_t& newest = newest_[DeviceKey(slice.driver, slice.pool, "")];
    newest = std::max(newest, slice.generation);
    if (!slice.per_device_nodes && !slice.nodes.node.empty())
      node_slices_[slice.nodes.node].push_back(&slice);
    else
      shared_slices_.push_back(&slice);
  }
  // The pools' counter sets and devices, of each pool's newest generation.
  counter_sets_.clear();
  pool_devices_.clear();
  for (const auto& [name, slice] : slices_) {
    if (slice.generation < newest_[DeviceKey(slice.driver, slice.pool, "")]) continue;
    if (slice.counter_sets.ok())
      for (const auto& [set, counters] : *slice.counter_sets)
        counter_sets_[DeviceKey(slice.driver, slice.pool, set)] = counters;
    if (slice.devices.ok())
      for (const Device& d : *slice.devices)
        if (!d.consumes.empty()) pool_devices_.emplace(DeviceKey(d.driver, d.pool, d.name), &d);
  }
  own_devices_.clear();
  for (const auto& [node, slices] : node_slices_)
    for (const Slice* slice : slices)
      if (Serves(*slice, {node}))
        for (const Device& d : *slice->devices)
          own_devices_.emplace(DeviceKey(d.driver, d.pool, d.name), &d);
  ClassesChanged();
}

void DeviceClaims::ClassesChanged() {
  class_matches_.clear();
  ++version_;
}

void DeviceClaims::UpsertClass(const rapidjson::Value& object) {
  Class c;
  c.selectors = ReadSelectors(kube::Find(object, {"spec", "selectors"}));
  c.config_json = ArrayJson(kube::Find(object, {"spec", "config"}));
  classes_.insert_or_assign(std::string(kube::Name(object)), std::move(c));
  ClassesChanged();
}

void DeviceClaims::DeleteClass(const rapidjson::Value& object) {
  if (classes_.erase(std::string(kube::Name(object))) > 0) ClassesChanged();
}

void DeviceClaims::UpsertTaintRule(const rapidjson::Value& object) {
  const std::string name(kube::Name(object));
  std::optional<DeviceTaintRule> rule = ReadDeviceTaintRule(object);
  if (rule) {
    auto [it, added] = taint_rules_.try_emplace(name, *rule);
    if (!added && it->second == *rule) return;
    it->second = std::move(*rule);
  } else if (taint_rules_.erase(name) == 0) {
    return;
  }
  ++version_;
}

void DeviceClaims::DeleteTaintRule(const rapidjson::Value& object) {
  if (taint_rules_.erase(std::string(kube::Name(object))) > 0) ++version_;
}

void DeviceClaims::UpsertClaim(const rapidjson::Value& object) {
  Claim c;
  c.uid = kube::Uid(object);
  c.deleting = kube::IsBeingDeleted(object);
  c.finalized = HasFinalizer(object);
  c.queue = kube::Label(object, kai::kQueueLabel).value_or("");
  const std::string name(kube::Name(object));
  // One request, exactly or a firstAvailable subrequest.
  auto read_request = [&](const rapidjson::Value& r, std::string request_name) {
    Request out{.name = std::move(request_name),
                .device_class = std::string(kube::GetString(r, {"deviceClassName"})),
                .selectors = ReadSelectors(kube::Find(r, {"selectors"})),
                .tolerations = ReadDeviceTolerations(kube::Find(r, {"tolerations"}))};
    const std::string_view mode = kube::GetString(r, {"allocationMode"});
    out.all = mode == "All";
    if (!mode.empty() && mode != "All" && mode != "ExactCount")
      c.problem = "request " + out.name + " has allocationMode " + std::string(mode) +
                  ", which is not ExactCount or All";
    if (const rapidjson::Value* n = kube::Find(r, {"count"}); n != nullptr && n->IsInt64())
      out.count = n->GetInt64();
    if (out.count < 1) c.problem = "request " + out.name + " asks for fewer than one device";
    // The API server lets only namespaces labelled for it ask.
    const rapidjson::Value* admin = kube::Find(r, {"adminAccess"});
    out.admin_access = admin != nullptr && admin->IsTrue();
    return out;
  };
  if (const rapidjson::Value* requests = kube::Find(object, {"spec", "devices", "requests"});
      requests != nullptr && requests->IsArray()) {
    for (const rapidjson::Value& r : requests->GetArray()) {
      const std::string request_name(kube::GetString(r, {"name"}));
      if (const rapidjson::Value* exactly = kube::Find(r, {"exactly"}); exactly != nullptr) {
        c.requests.push_back(read_request(*exactly, request_name));
      } else if (const rapidjson::Value* first = kube::Find(r, {"firstAvailable"});
                 first != nullptr && first->IsArray() && !first->GetArray().Empty()) {
        Request choice{.name = request_name};
        for (const rapidjson::Value& sub : first->GetArray())
          choice.alternatives.push_back(
              read_request(sub, request_name + "/" + std::string(kube::GetString(sub, {"name"}))));
        choice.device_class = choice.alternatives.front().device_class;
        choice.count = choice.alternatives.front().count;
        choice.all = choice.alternatives.front().all;
        c.requests.push_back(std::move(choice));
      } else {
        c.problem = "request " + request_name + " has neither exactly nor firstAvailable";
      }
    }
  }
  // As the allocator counts it: the least each request takes (All: one).
  int64_t least = 0;
  for (size_t i = 0; i < c.requests.size() && c.problem.empty(); ++i) {
    const Request& r = c.requests[i];
    const int64_t adding = r.Least();
    if (adding > kClaimAllocationMaxSize - least)
      c.problem = "request " + r.name + ": adding " + std::to_string(adding) +
                  " devices exceeds the claim limit of " + std::to_string(kClaimAllocationMaxSize) +
                  ", with " + std::to_string(least) + " already accounted for";
    least += adding;
  }
  if (const rapidjson::Value* constraints = kube::Find(object, {"spec", "devices", "constraints"});
      constraints != nullptr && constraints->IsArray()) {
    for (const rapidjson::Value& k : constraints->GetArray()) {
      const std::string_view attribute = kube::GetString(k, {"matchAttribute"});
      const size_t slash = attribute.find('/');
      if (attribute.empty() || slash == std::string_view::npos) {
        c.problem =
            "a device constraint has no matchAttribute of a domain and a name, the only "
            "constraint vtenant-scheduler reads";
        continue;
      }
      c.constraints.push_back({kube::GetStrings(k, {"requests"}),
                               std::string(attribute.substr(0, slash)),
                               std::string(attribute.substr(slash + 1))});
    }
  }
  c.config_json = ArrayJson(kube::Find(object, {"spec", "devices", "config"}));
  if (const rapidjson::Value* allocation = kube::Find(object, {"status", "allocation"});
      allocation != nullptr && allocation->IsObject()) {
    c.allocated = true;
    if (const rapidjson::Value* selector = kube::Find(*allocation, {"nodeSelector"});
        selector != nullptr && selector->IsObject()) {
      Result<NodeAffinity> nodes = ParseNodeSelector(*selector, "status.allocation.nodeSelector");
      if (nodes.ok()) c.allocated_nodes = *nodes;
    }
    c.results = AllocatedDevices(*allocation);
  }
  if (const rapidjson::Value* reserved = kube::Find(object, {"status", "reservedFor"});
      reserved != nullptr && reserved->IsArray())
    for (const rapidjson::Value& r : reserved->GetArray())
      c.reserved_for.emplace_back(kube::GetString(r, {"uid"}));
  const std::string key = kube::MakeKey(kube::Namespace(object), name);
  if (c.allocated || c.deleting) Forget(key);
  Hold(c.results, +1);
  if (auto old = claims_.find(key); old != claims_.end()) {
    Hold(old->second.results, -1);
    old->second = std::move(c);
  } else {
    claims_.emplace(key, std::move(c));
  }
}

void DeviceClaims::DeleteClaim(const rapidjson::Value& object) {
  const std::string key = kube::KeyOf(object);
  Forget(key);
  if (auto old = claims_.find(key); old != claims_.end()) {
    Hold(old->second.results, -1);
    claims_.erase(old);
  }
}

void DeviceClaims::Assume(std::string_view ns, std::string_view claim, std::string node,
                          std::vector<DeviceResult> results) {
  const std::string key = kube::MakeKey(ns, claim);
  Forget(key);
  Hold(results, +1);
  assumed_.emplace(key, Assumed{std::move(node), std::move(results)});
}

bool DeviceClaims::ReservedFor(std::string_view ns, std::string_view claim,
                               std::string_view pod_uid) const {
  const Claim* c = Find(ns, claim);
  return c != nullptr && c->ReservedFor(pod_uid);
}

std::string DeviceClaims::ClassBackedResource(
    const std::map<std::string, int64_t>& resources) const {
  // Kubernetes' implicit name for every class's extended resource.
  constexpr std::string_view kPrefix = "deviceclass.resource.kubernetes.io/";
  for (const auto& [name, milli] : resources) {
    if (!name.starts_with(kPrefix) || milli <= 0) continue;
    const std::string cls = name.substr(kPrefix.size());
    return "asks for " + name + ", the extended resource of DeviceClass " + cls +
           (classes_.contains(cls) ? "" : " (which does not exist)") +
           "; vtenant-scheduler does not allocate extended resources backed by device classes: "
           "ask for the devices with a ResourceClaim";
  }
  return "";
}

bool DeviceClaims::NeedsAllocation(std::string_view ns, std::string_view claim) const {
  const Claim* c = Find(ns, claim);
  return c != nullptr && !c->allocated && !assumed_.contains(kube::MakeKey(ns, claim));
}

void DeviceClaims::Forget(std::string_view ns, std::string_view claim) {
  Forget(kube::MakeKey(ns, claim));
}

void DeviceClaims::Forget(const std::string& key) {
  if (auto it = assumed_.find(key); it != assumed_.end()) {
    Hold(it->second.results, -1);
    assumed_.erase(it);
  }
}

void DeviceClaims::Hold(const std::vector<DeviceResult>& results, int sign) {
  for (const DeviceResult& r : results) {
    if (r.admin_access) continue;  // not allocated, as the allocator counts it
    const std::string device = DeviceKey(r.driver, r.pool, r.device);
    int& holders = held_[device];
    holders += sign;
    // Only a device that becomes held or free changes what nodes have.
    if (holders == 0 || (sign > 0 && holders == 1)) ++version_;
    if (holders == 0) held_.erase(device);
  }
}

std::map<std::string, int64_t> DeviceClaims::Requests(
    std::string_view ns, const std::vector<PodDeviceClaim>& claims,
    const std::set<std::string, std::less<>>& charged_to_another) const {
  std::map<std::string, int64_t> requests;
  for (const PodDeviceClaim& pc : claims) {
    if (pc.claim.empty() || !NeedsAllocation(ns, pc.claim) ||
        charged_to_another.contains(kube::MakeKey(ns, pc.claim)))
      continue;
    const Claim* c = Find(ns, pc.claim);
    for (const Request& r : c->requests) {
      // Admin access takes no device from others. A request that tolerates
      // taints may take a tainted device, so it does not ask for an
      // untainted one.
      if (r.admin_access) continue;
      const int64_t milli = std::min(r.Least(), kClaimAllocationMaxSize) * 1000;
      requests[AnyDeviceClassResource(r.device_class)] += milli;
      if (!Tolerant(r)) requests[DeviceClassResource(r.device_class)] += milli;
    }
  }
  return requests;
}

const DeviceClaims::Claim* DeviceClaims::Find(std::string_view ns, std::string_view claim) const {
  auto it = claims_.find(kube::MakeKey(ns, claim));
  return it == claims_.end() ? nullptr : &it->second;
}

bool DeviceClaims::Serves(const Slice& slice, const NodeRef& node) const {
  if (!slice.devices.ok()) return false;
  // Only the newest generation of a pool counts: older slices are being
  // replaced by its driver.
  if (auto newest = newest_.find(DeviceKey(slice.driver, slice.pool, ""));
      newest != newest_.end() && newest->second > slice.generation)
    return false;
  return slice.per_device_nodes || Admits(slice.nodes, node);
}

std::string DeviceClaims::Selects(const Request& request, const Device& device) const {
  auto cls = classes_.find(request.device_class);
  if (cls == classes_.end()) return "device class " + request.device_class + " does not exist";
  auto run = [&](const std::vector<Result<DeviceSelector>>& selectors) -> std::string {
    for (const Result<DeviceSelector>& s : selectors) {
      if (!s.ok()) return s.status().message();
      Result<bool> match = s->Matches(device);
      if (!match.ok()) return match.status().message();
      if (!*match) return "not selected";
    }
    return "";
  };
  // A class's verdict on a device holds until either changes.
  std::string memo_key = request.device_class;
  memo_key.append(1, '\0').append(DeviceKey(device.driver, device.pool, device.name));
  auto [memo, fresh] = class_matches_.try_emplace(std::move(memo_key));
  if (fresh) memo->second = run(cls->second.selectors);
  if (!memo->second.empty()) return memo->second;
  return run(request.selectors);
}

std::string DeviceClaims::Unreadable(const std::string& name, const Request& request) const {
  // Why one request, or a subrequest, cannot select a device; "" when it can.
  auto why = [&](const Request& r) -> std::string {
    auto cls = classes_.find(r.device_class);
    if (cls == classes_.end()) {
      // A subrequest of a class that is missing is passed over, as the
      // allocator passes it over.
      if (!request.alternatives.empty()) return "";
      return "device class " + r.device_class + " does not exist for claim " + name + " request " +
             r.name;
    }
    for (const Result<DeviceSelector>& s : cls->second.selectors)
      if (!s.ok())
        return "device class " + r.device_class + " has a selector vtenant-scheduler cannot " +
               "read: " + s.status().message();
    for (const Result<DeviceSelector>& s : r.selectors)
      if (!s.ok())
        return "resource claim " + name + " request " + r.name + " has a selector " +
               "vtenant-scheduler cannot read: " + s.status().message();
    return "";
  };
  if (request.alternatives.empty()) return why(request);
  for (const Request& alternative : request.alternatives)
    if (std::string reason = why(alternative); !reason.empty()) return reason;
  return "";
}

std::vector<const Device*> DeviceClaims::NodeDevices(const NodeRef& node) const {
  std::vector<const Device*> devices;
  auto add = [&](const std::vector<const Slice*>& slices) {
    for (const Slice* slice : slices) {
      if (!Serves(*slice, node)) continue;
      for (size_t i = 0; i < slice->devices->size(); ++i)
        if (!slice->per_device_nodes ||
            (i < slice->device_nodes.size() && Admits(slice->device_nodes[i], node)))
          devices.push_back(&(*slice->devices)[i]);
    }
  };
  if (auto own = node_slices_.find(node.name); own != node_slices_.end()) add(own->second);
  add(shared_slices_);
  return devices;
}

bool DeviceClaims::Held(const Device& device) const {
  return held_.contains(DeviceKey(device.driver, device.pool, device.name));
}

bool DeviceClaims::Tainted(const Device& device) const { return Untolerated(Request{}, device); }

bool DeviceClaims::Tolerant(const Request& request) {
  return !request.tolerations.empty() ||
         std::any_of(request.alternatives.begin(), request.alternatives.end(),
                     [](const Request& r) { return !r.tolerations.empty(); });
}

void DeviceClaims::Consume(const Device& device, CounterUse* use) {
  for (const CounterConsumption& c : device.consumes) {
    Counters& set = (*use)[DeviceKey(device.driver, device.pool, c.counter_set)];
    for (const auto& [counter, milli] : c.counters) set[counter] += milli;
  }
}

const DeviceClaims::CounterUse& DeviceClaims::HeldCounters() const {
  if (held_counters_version_ != version_) {
    held_counters_.clear();
    for (const auto& [key, holders] : held_)
      if (auto d = pool_devices_.find(key); d != pool_devices_.end())
        Consume(*d->second, &held_counters_);
    held_counters_version_ = version_;
  }
  return held_counters_;
}

bool DeviceClaims::CountersAllow(const Device& device, const CounterUse& taken) const {
  if (device.consumes.empty()) return true;
  const CounterUse& held = HeldCounters();
  for (const CounterConsumption& c : device.consumes) {
    const std::string set_key = DeviceKey(device.driver, device.pool, c.counter_set);
    auto capacity = counter_sets_.find(set_key);
    if (capacity == counter_sets_.end()) return false;  // a set its pool does not share
    auto used_in = [&](const CounterUse& use, const std::string& counter) -> int64_t {
      auto set = use.find(set_key);
      if (set == use.end()) return 0;
      auto n = set->second.find(counter);
      return n == set->second.end() ? 0 : n->second;
    };
    for (const auto& [counter, milli] : c.counters) {
      auto has = capacity->second.find(counter);
      if (has == capacity->second.end()) return false;
      if (used_in(held, counter) + used_in(taken, counter) + milli > has->second) return false;
    }
  }
  return true;
}

bool DeviceClaims::Untolerated(const Request& request, const Device& device) const {
  for (const DeviceTaint& taint : device.taints)
    if (PreventsAllocation(taint, request.tolerations)) return true;
  for (const auto& [name, rule] : taint_rules_)
    if (Applies(rule, device) && PreventsAllocation(rule.taint, request.tolerations)) return true;
  return false;
}

void DeviceClaims::CountUnderClasses(const Device& device,
                                     std::map<std::string, int64_t>* counts) const {
  const bool tainted = Tainted(device);
  for (const auto& [cls, unused] : classes_) {
    if (!Selects(Request{.device_class = cls}, device).empty()) continue;
    (*counts)[AnyDeviceClassResource(cls)] += 1000;
    if (!tainted) (*counts)[DeviceClassResource(cls)] += 1000;
  }
}

void DeviceClaims::SetPodHeld(std::set<std::string, std::less<>> claims) {
  std::erase_if(claims, [&](const std::string& key) {
    auto c = claims_.find(key);
    return c == claims_.end() || !c->second.allocated;
  });
  if (claims == pod_held_) return;
  pod_held_ = std::move(claims);
  ++version_;
}

bool DeviceClaims::HeldByPlacedPod(const Device& device) const {
  if (pod_held_version_ != version_) {
    pod_held_devices_.clear();
    for (const std::string& key : pod_held_) {
      auto c = claims_.find(key);
      if (c == claims_.end() || !c->second.allocated) continue;
      for (const DeviceResult& r : c->second.results)
        if (std::string k = DeviceKey(r.driver, r.pool, r.device);
            !r.admin_access && own_devices_.contains(k))
          ++pod_held_devices_[std::move(k)];
    }
    pod_held_version_ = version_;
  }
  const std::string key = DeviceKey(device.driver, device.pool, device.name);
  auto by_pods = pod_held_devices_.find(key);
  auto by_all = held_.find(key);
  return by_pods != pod_held_devices_.end() && by_all != held_.end() &&
         by_pods->second == by_all->second;
}

std::map<std::string, int64_t> DeviceClaims::Holds(
    std::string_view ns, const std::vector<PodDeviceClaim>& claims,
    const std::set<std::string, std::less<>>& charged_to_another) const {
  std::map<std::string, int64_t> holds;
  for (const PodDeviceClaim& pc : claims) {
    const std::string key = kube::MakeKey(ns, pc.claim);
    auto c = claims_.find(key);
    if (pc.claim.empty() || c == claims_.end() || !pod_held_.contains(key) ||
        charged_to_another.contains(key))
      continue;
    for (const DeviceResult& r : c->second.results) {
      auto d = own_devices_.find(DeviceKey(r.driver, r.pool, r.device));
      if (!r.admin_access && d != own_devices_.end() && HeldByPlacedPod(*d->second))
        CountUnderClasses(*d->second, &holds);
    }
  }
  return holds;
}

Result<std::vector<DeviceResult>> DeviceClaims::Choose(const std::string& name, const Claim& claim,
                                                       std::vector<const Device*>* devices,
                                                       CounterUse* taken, Taking taking) const {
  // Each constraint's attribute may take any value the node's devices
  // have: every combination in turn, until one can be had.
  std::vector<std::vector<const DeviceAttribute*>> values(claim.constraints.size());
  for (size_t k = 0; k < claim.constraints.size(); ++k)
    for (const Device* d : *devices)
      if (const DeviceAttribute* v = AttributeOf(*d, claim.constraints[k]);
          v != nullptr && std::none_of(values[k].begin(), values[k].end(),
                                       [&](const DeviceAttribute* seen) { return *seen == *v; }))
        values[k].push_back(v);
  std::vector<const DeviceAttribute*> fixed(claim.constraints.size());
  Status last = FailedPrecondition("cannot allocate all claims: claim " + name +
                                   " has no devices that share its constrained attributes");
  // Tries the combinations that extend fixed[0..k).
  std::function<std::optional<std::vector<DeviceResult>>(size_t)> search =
      [&](size_t k) -> std::optional<std::vector<DeviceResult>> {
    if (k == fixed.size()) {
      std::vector<const Device*> left = *devices;
      CounterUse counted = *taken;
      Result<std::vector<DeviceResult>> results =
          ChooseWith(name, claim, fixed, &left, &counted, taking);
      if (!results.ok()) {
        last = results.status();
        return std::nullopt;
      }
      *devices = std::move(left);
      *taken = std::move(counted);
      return *std::move(results);
    }
    for (const DeviceAttribute* v : values[k]) {
      fixed[k] = v;
      if (auto found = search(k + 1)) return found;
    }
    return std::nullopt;
  };
  if (auto found = search(0)) return *std::move(found);
  return last;
}

const DeviceAttribute* DeviceClaims::AttributeOf(const Device& device,
                                                 const Constraint& constraint) {
  auto domain = device.attributes.find(constraint.domain);
  if (domain == device.attributes.end()) return nullptr;
  auto value = domain->second.find(constraint.name);
  return value == domain->second.end() ? nullptr : &value->second;
}

Result<std::vector<DeviceResult>> DeviceClaims::ChooseWith(
    const std::string& name, const Claim& claim, const std::vector<const DeviceAttribute*>& fixed,
    std::vector<const Device*>* devices, CounterUse* taken, Taking taking) const {
  std::vector<DeviceResult> results;
  // Takes devices for one request (of top-level request `parent`) out of
  // `devices`; false when too few are free (for All, when one it selects
  // is held).
  auto take = [&](const Request& r, const std::string& parent) {
    // Whether `d` has the value each constraint on `parent` was fixed to.
    auto constrained_out = [&](const Device& d) {
      for (size_t k = 0; k < fixed.size(); ++k) {
        const std::vector<std::string>& on = claim.constraints[k].requests;
        if (!on.empty() && std::find(on.begin(), on.end(), parent) == on.end()) continue;
        const DeviceAttribute* v = AttributeOf(d, claim.constraints[k]);
        if (v == nullptr || !(*v == *fixed[k])) return true;
      }
      return false;
    };
    std::vector<size_t> picked;
    CounterUse counted = *taken;  // with the devices picked so far
    for (size_t i = 0; i < devices->size(); ++i) {
      if (!r.all && static_cast<int64_t>(picked.size()) == r.count) break;
      const Device& d = *(*devices)[i];
      if (!Selects(r, d).empty() || constrained_out(d)) continue;
      // An untolerated taint, counters in use or another claim's hold keep
      // a device from the request (admin access reaches it whoever holds
      // it); the allocator gives an All request every device it selects,
      // so any of them fails it.
      if (Untolerated(r, d) || !CountersAllow(d, counted) ||
          (Held(d) && !r.admin_access &&
           !(taking == Taking::kFreeOrEvictable && HeldByPlacedPod(d)))) {
        if (r.all) return false;
        continue;
      }
      picked.push_back(i);
      Consume(d, &counted);
    }
    if (picked.empty() || (!r.all && static_cast<int64_t>(picked.size()) < r.count)) return false;
    for (size_t i : picked) {
      const Device& d = *(*devices)[i];
      results.push_back({r.name, d.driver, d.pool, d.name, r.admin_access});
    }
    for (auto i = picked.rbegin(); i != picked.rend(); ++i) devices->erase(devices->begin() + *i);
    *taken = std::move(counted);
    return true;
  };
  for (const Request& r : claim.requests) {
    if (!classes_.contains(r.device_class) && r.alternatives.empty())
      return FailedPrecondition("device class " + r.device_class + " does not exist for claim " +
                                name + " request " + r.name);
    bool met = false;
    if (r.alternatives.empty()) {
      met = take(r, r.name);
    } else {
      for (const Request& alternative : r.alternatives)
        if ((met = take(alternative, r.name))) break;
    }
    if (!met)
      return FailedPrecondition("cannot allocate all claims: claim " + name + " request " + r.name +
                                " has too few free devices");
  }
  return results;
}

void DeviceClaims::Apply(const std::string& name, sched::NodeSpec* node) const {
  const NodeRef ref{name, &node->labels};
  for (const Device* d : NodeDevices(ref))
    if (Held(*d) ? HeldByPlacedPod(*d) : CountersAllow(*d, {}))
      CountUnderClasses(*d, &node->other_resources);
  // Its GPUs, as KAI counts them: the devices of its own slices whose
  // driver's name says "gpu", held or free.
  if (auto own = node_slices_.find(name); own != node_slices_.end())
    for (const Slice* slice : own->second)
      if (Serves(*slice, ref) && SaysGpu(slice->driver))
        node->claim_gpus += static_cast<int32_t>(slice->devices->size());
}

int32_t DeviceClaims::Gpus(std::string_view ns, const std::vector<PodDeviceClaim>& claims,
                           const std::set<std::string, std::less<>>& charged_to_another) const {
  int64_t gpus = 0;
  for (const PodDeviceClaim& pc : claims) {
    const Claim* c = pc.claim.empty() ? nullptr : Find(ns, pc.claim);
    if (c == nullptr || charged_to_another.contains(kube::MakeKey(ns, pc.claim))) continue;
    for (const Request& r : c->requests) {
      if (!c->allocated) {
        // Before allocation, what Requests asks of the nodes.
        if (SaysGpu(r.device_class) && !r.admin_access)
          gpus += std::min(r.Least(), kClaimAllocationMaxSize);
        continue;
      }
      // Once allocated, the devices given to its GPU requests.
      auto gpu_request = [&](std::string_view given) {
        if (given == r.name) return SaysGpu(r.device_class);
        for (const Request& alternative : r.alternatives)
          if (given == alternative.name) return SaysGpu(alternative.device_class);
        return false;
      };
      for (const DeviceResult& result : c->results)
        gpus += !result.admin_access && gpu_request(result.request);
    }
  }
  return static_cast<int32_t>(std::min<int64_t>(gpus, sched::kMaxClaimGpus));
}

DeviceClaims::Verdict DeviceClaims::Check(std::string_view ns, std::string_view pod_uid,
                                          std::string_view queue,
                                          const std::vector<PodDeviceClaim>& claims,
                                          const std::vector<NodeRef>& nodes,
                                          const Sharing& sharing) const {
  Verdict v;
  if (!unavailable_.empty()) {
    v.reason = unavailable_;
    return v;
  }
  std::vector<std::pair<std::string, const Claim*>> to_allocate;
  for (const PodDeviceClaim& pc : claims) {
    if (pc.claim.empty()) {
      v.reason = "waiting for the resource claim of " + pc.entry + " to be made from its template";
      return v;
    }
    const std::string name = kube::MakeKey(ns, pc.claim);
    const Claim* c = Find(ns, pc.claim);
    if (c == nullptr) {
      v.reason = "resource claim " + name + " does not exist";
      return v;
    }
    if (c->deleting) {
      v.reason = "resource claim " + name + " is being deleted";
      return v;
    }
    const bool reserved = c->ReservedFor(pod_uid);
    // Pods that join it before this one take its room first.
    const auto ahead = sharing.joiners_ahead.find(name);
    const size_t joining_first = ahead == sharing.joiners_ahead.end() ? 0 : ahead->second;
    if (!reserved && c->reserved_for.size() + joining_first >= kClaimReservedForMaxSize) {
      v.reason = "resource claim " + name + " has reached its maximum number of consumers (" +
                 std::to_string(kClaimReservedForMaxSize) + ")";
      return v;
    }
    // KAI's rule for a GPU claim its pods share: of their queue.
    const bool gpu = std::any_of(c->requests.begin(), c->requests.end(), [](const Request& r) {
      return r.alternatives.empty() && SaysGpu(r.device_class);
    });
    if (!pc.from_template && gpu && c->queue.empty()) {
      v.reason = "DRA claim " + pc.claim + " is a shared GPU claim but does not have a queue " +
                 "label (" + std::string(kai::kQueueLabel) + ")";
      return v;
    }
    if (!pc.from_template && gpu && c->queue != queue) {
      v.reason = "DRA claim " + pc.claim + " is a shared GPU claim with wrong queue label " +
                 "(expected queue: " + std::string(queue) + ", claim queue label: " + c->queue +
                 ")";
      return v;
    }
    if (c->allocated) {
      if (!c->allocated_nodes.empty()) v.affinity = Both(v.affinity, c->allocated_nodes);
      continue;
    }
    if (!c->problem.empty()) {
      v.reason = "resource claim " + name + " cannot be allocated: " + c->problem;
      return v;
    }
    for (const Request& r : c->requests) {
      if (std::string why = Unreadable(name, r); !why.empty()) {
        v.reason = std::move(why);
        return v;
      }
    }
    if (auto assumed = assumed_.find(name); assumed != assumed_.end())
      v.affinity = Both(v.affinity, NodesNamed({assumed->second.node}));
    else
      to_allocate.emplace_back(name, c);
  }
  v.requests = Requests(ns, claims, sharing.charged_to_another);
  if (to_allocate.empty()) return v;
  // The nodes where every claim not yet allocated can have its devices now.
  std::vector<std::string> names;
  for (const NodeRef& node : nodes) {
    std::vector<const Device*> devices = NodeDevices(node);
    CounterUse taken;
    bool fits = true;
    for (const auto& [name, c] : to_allocate)
      fits = fits && Choose(name, *c, &devices, &taken, Taking::kFreeOrEvictable).ok();
    if (fits) names.emplace_back(node.name);
  }
  if (names.empty()) {
    v.reason = "cannot allocate all claims: no node has the devices they ask for free";
    return v;
  }
  v.affinity = Both(v.affinity, NodesNamed(std::move(names)));
  return v;
}

Result<std::vector<ClaimAllocation>> DeviceClaims::PlanAllocation(
    std::string_view ns, std::string_view pod_uid, const std::vector<PodDeviceClaim>& claims,
    const NodeRef& node) const {
  std::vector<ClaimAllocation> out;
  std::vector<const Device*> devices = NodeDevices(node);
  CounterUse taken;
  for (const PodDeviceClaim& pc : claims) {
    const std::string name = kube::MakeKey(ns, pc.claim);
    const Claim* c = Find(ns, pc.claim);
    if (c == nullptr || c->deleting)
      return FailedPrecondition("resource claim " + name + " does not exist");
    ClaimAllocation a{.claim = pc.claim, .claim_uid = c->uid, .needs_finalizer = !c->finalized};
    if (c->allocated) {
      if (!c->allocated_nodes.empty() &&
          (node.labels == nullptr || !c->allocated_nodes.Matches(node.name, *node.labels)))
        return FailedPrecondition("claim " + name + " node selector does not match node " +
                                  std::string(node.name));
      if (c->ReservedFor(pod_uid)) continue;  // nothing to write
      out.push_back(std::move(a));
      continue;
    }
    if (auto assumed = assumed_.find(name); assumed != assumed_.end()) {
      // Another pod's bind is allocating it: this one joins it there.
      if (assumed->second.node != node.name)
        return FailedPrecondition("resource claim " + name + " is being allocated on node " +
                                  assumed->second.node);
      out.push_back(std::move(a));
      continue;
    }
    if (!c->problem.empty())
      return FailedPrecondition("resource claim " + name + " cannot be allocated: " + c->problem);
    VT_ASSIGN_OR_RETURN(a.results, Choose(name, *c, &devices, &taken, Taking::kFreeOnly));
    a.allocate = true;
    // The classes' configuration, then the claim's, as kube-scheduler
    // writes them into the allocation.
    kube::JsonArray config;
    // Each entry of `json` (a class's or the claim's spec.config), from
    // `source`, for `requests` (nullptr: the entry's own).
    auto add = [&](const std::string& json, const char* source,
                   const std::vector<std::string>* requests) {
      Result<kube::Object> entries = kube::ParseJson(json);
      if (!entries.ok() || !entries->IsArray()) return;
      for (const rapidjson::Value& e : entries->GetArray()) {
        kube::JsonObject entry{{"source", source}};
        if (requests != nullptr)
          entry.Set("requests", kube::StringArray(*requests));
        else if (const rapidjson::Value* own = kube::Find(e, {"requests"}); own != nullptr)
          entry.Set("requests", kube::JsonValue(*own));
        if (const rapidjson::Value* opaque = kube::Find(e, {"opaque"}); opaque != nullptr)
          entry.Set("opaque", kube::JsonValue(*opaque));
        config.Add(std::move(entry));
      }
    };
    for (const Request& r : c->requests) {
      const Request* given = &r;
      for (const Request& alternative : r.alternatives)
        for (const DeviceResult& result : a.results)
          if (result.request == alternative.name) given = &alternative;
      auto cls = classes_.find(given->device_class);
      if (cls == classes_.end()) continue;
      const std::vector<std::string> requests{given->name};
      add(cls->second.config_json, "FromClass", &requests);
    }
    add(c->config_json, "FromClaim", nullptr);
    a.config_json = kube::ToJson(kube::BuildJson(std::move(config)));
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace vtenant::scheduler
