#include "scheduler/core_pod.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <map>
#include <set>
#include <string_view>
#include <vector>

#include "base/rfc3339.h"
#include "kai/gpu_request.h"
#include "kai/priority_classes.h"
#include "kube/owner_reference.h"
#include "kube/pod_object_refs.h"
#include "kube/quantity.h"
#include "scheduler-core/model.h"
#include "scheduler/attach_limits.h"
#include "scheduler/core_node.h"
#include "scheduler/kai_names.h"
#include "scheduler/pod_terms.h"

namespace vtenant::scheduler {
namespace {

// A pod the library accepts is one the core can hold: no more devices than a
// node has.
static_assert(kai::kMaxDevices == sched::kMaxDevicesPerNode);

using kube::Find;
using kube::GetString;
using rapidjson::Value;

// The milli value of a quantity in a resource list, 0 when absent.
Result<int64_t> MilliOf(const Value* list, const char* resource) {
  if (list == nullptr || !list->IsObject()) return int64_t{0};
  auto it = list->FindMember(resource);
  if (it == list->MemberEnd() || !it->value.IsString()) return int64_t{0};
  Result<kube::Quantity> q = kube::Quantity::Parse(it->value.GetString());
  if (!q.ok()) return q.status().WithContext(resource);
  return q->Milli();
}

struct ContainerNeeds {
  int64_t cpu_milli = 0;
  int64_t memory_milli = 0;
  std::map<std::string, int64_t> other_milli;  // IsOtherResource (core_node.h)
  bool sidecar = false;                        // an init container of restartPolicy Always

  ContainerNeeds& operator+=(const ContainerNeeds& o) {
    cpu_milli += o.cpu_milli;
    memory_milli += o.memory_milli;
    for (const auto& [name, milli] : o.other_milli) other_milli[name] += milli;
    return *this;
  }
  void AtLeast(const ContainerNeeds& o) {
    cpu_milli = std::max(cpu_milli, o.cpu_milli);
    memory_milli = std::max(memory_milli, o.memory_milli);
    for (const auto& [name, milli] : o.other_milli)
      other_milli[name] = std::max(other_milli[name], milli);
  }
};

// The other resources of resource list `list` (milli) into `out`, each
// only where `out` has none yet.
Status ReadOther(const Value* list, std::map<std::string, int64_t>* out) {
  if (list == nullptr || !list->IsObject()) return Status::Ok();
  for (auto it = list->MemberBegin(); it != list->MemberEnd(); ++it) {
    const std::string name = it->name.GetString();
    if (!IsOtherResource(name) || out->contains(name)) continue;
    VT_ASSIGN_OR_RETURN(int64_t milli, MilliOf(list, name.c_str()));
    if (milli > 0) out->emplace(name, milli);
  }
  return Status::Ok();
}

// One container's needs: requests, else limits, as the API server
// defaults them.
Status ReadContainer(const Value& c, ContainerNeeds* out) {
  const Value* requests = Find(c, {"resources", "requests"});
  const Value* limits = Find(c, {"resources", "limits"});
  for (auto [name, dest] : {std::pair{"cpu", &out->cpu_milli}, {"memory", &out->memory_milli}}) {
    VT_ASSIGN_OR_RETURN(int64_t r, MilliOf(requests, name));
    if (r == 0) {
      VT_ASSIGN_OR_RETURN(r, MilliOf(limits, name));
    }
    *dest = r;
  }
  VT_RETURN_IF_ERROR(ReadOther(requests, &out->other_milli));
  VT_RETURN_IF_ERROR(ReadOther(limits, &out->other_milli));
  out->sidecar = GetString(c, {"restartPolicy"}) == "Always";
  return Status::Ok();
}

// The needs of each container in `spec`'s list `member` ("containers" or
// "initContainers"; none when absent); an error names the container as
// `what` and its name.
Result<std::vector<ContainerNeeds>> NeedsOfEach(const Value& spec, const char* member,
                                                const char* what) {
  std::vector<ContainerNeeds> out;
  auto list = spec.FindMember(member);
  if (list == spec.MemberEnd() || !list->value.IsArray()) return out;
  for (const Value& c : list->value.GetArray()) {
    ContainerNeeds n;
    VT_RETURN_IF_ERROR(ReadContainer(c, &n).WithContext(std::string(what) + " " +
                                                        std::string(GetString(c, {"name"}))));
    out.push_back(n);
  }
  return out;
}

// The pod's effective request, as kube-scheduler computes it
// (k8s.io/component-helpers resource.PodRequests): the containers' sum,
// sidecars (init containers of restartPolicy Always, which run beside them)
// included; at least what each init container needs beside the sidecars
// started before it; a resource the pod's own spec.resources requests (pod
// level; CPU and memory) is that instead; plus spec.overhead (its
// RuntimeClass's).
Result<ContainerNeeds> PodNeeds(const Value& spec) {
  VT_ASSIGN_OR_RETURN(std::vector<ContainerNeeds> containers,
                      NeedsOfEach(spec, "containers", "container"));
  VT_ASSIGN_OR_RETURN(std::vector<ContainerNeeds> inits,
                      NeedsOfEach(spec, "initContainers", "init container"));
  ContainerNeeds sum, sidecars, init_peak;
  for (const ContainerNeeds& n : containers) sum += n;
  for (ContainerNeeds n : inits) {
    if (n.sidecar) {
      sum += n;
      sidecars += n;
      n = sidecars;
    } else {
      n += sidecars;
    }
    init_peak.AtLeast(n);
  }
  sum.AtLeast(init_peak);
  const Value* pod_level = Find(spec, {"resources", "requests"});
  for (auto [name, dest] : {std::pair{"cpu", &sum.cpu_milli}, {"memory", &sum.memory_milli}}) {
    VT_ASSIGN_OR_RETURN(int64_t own, MilliOf(pod_level, name));
    if (own > 0) *dest = own;
    VT_ASSIGN_OR_RETURN(int64_t overhead, MilliOf(Find(spec, {"overhead"}), name));
    *dest += overhead;
  }
  ContainerNeeds overhead;
  VT_RETURN_IF_ERROR(ReadOther(Find(spec, {"overhead"}), &overhead.other_milli));
  sum += overhead;
  return sum;
}

// The host ports the pod's containers bind, "TCP/8080" each. The API
// server sets hostPort for every port of a pod on the host's network.
std::vector<std::string> HostPorts(const Value& pod) {
  std::vector<std::string> out;
  const Value* containers = Find(pod, {"spec", "containers"});
  if (containers == nullptr || !containers->IsArray()) return out;
  for (const Value& c : containers->GetArray()) {
    const Value* ports = Find(c, {"ports"});
    if (ports == nullptr || !ports->IsArray()) continue;
    for (const Value& p : ports->GetArray()) {
      const int64_t port = kube::GetInt(p, {"hostPort"});
      if (port <= 0) continue;
      std::string_view protocol = GetString(p, {"protocol"});
      out.push_back(std::string(protocol.empty() ? "TCP" : protocol) + "/" + std::to_string(port));
    }
  }
  return out;
}

// The pod's request: CPU, memory and other resources by PodNeeds, its host
// ports, and GPUs as kai/gpu_request.h reads and checks them, the same
// reading the syncer and the admission webhook apply.
Status ReadRequest(const Value& pod, sched::PodSpec* spec) {
  ContainerNeeds needs;
  if (const Value* s = Find(pod, {"spec"}); s != nullptr) {
    VT_ASSIGN_OR_RETURN(needs, PodNeeds(*s));
  }
  spec->cpu_milli = needs.cpu_milli;
  spec->memory_bytes = (needs.memory_milli + 999) / 1000;
  spec->other_resources = std::move(needs.other_milli);
  spec->host_ports = HostPorts(pod);

  VT_ASSIGN_OR_RETURN(kai::GpuRequest gpus, kai::ParseGpuRequest(pod));
  spec->whole_gpus = gpus.whole_gpus;
  spec->gpu_fraction = gpus.fraction_milli;
  spec->gpu_memory_mib = gpus.memory_mib;
  spec->num_devices = gpus.num_devices;
  spec->mig_profile = std::move(gpus.mig_profile);
  spec->mig_count = gpus.mig_count;
  return Status::Ok();
}

// CorePod::required_configmaps of `pod`; `shared_prefix` the sharing pod's
// GPU ConfigMap prefix ("" for none).
std::vector<std::string> RequiredConfigMaps(const Value& pod, std::string_view shared_prefix) {
  const Value* spec = Find(pod, {"spec"});
  if (spec == nullptr) return {};
  std::set<std::string_view> mounted;
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"}) {
    const Value* containers = Find(*spec, {list});
    if (containers == nullptr || !containers->IsArray()) continue;
    for (const Value& c : containers->GetArray()) {
      if (const Value* mounts = Find(c, {"volumeMounts"}); mounts && mounts->IsArray())
        for (const Value& m : mounts->GetArray()) mounted.insert(GetString(m, {"name"}));
    }
  }
  std::set<std::string> names;
  kube::ForEachObjectRef(*spec, [&](const kube::PodObjectRef<const Value>& ref) {
    if (ref.kind != kube::ObjectRefKind::kConfigMap || ref.optional) return;
    if (!ref.volume.empty() && !mounted.contains(ref.volume)) return;
    const std::string_view name = ref.Name();
    if (name.empty() || (!shared_prefix.empty() && name.starts_with(shared_prefix))) return;
    names.emplace(name);
  });
  return {names.begin(), names.end()};
}

std::optional<sched::TaintEffect> ParseEffect(std::string_view e) {
  if (e == "NoSchedule") return sched::TaintEffect::kNoSchedule;
  if (e == "PreferNoSchedule") return sched::TaintEffect::kPreferNoSchedule;
  if (e == "NoExecute") return sched::TaintEffect::kNoExecute;
  return std::nullopt;
}

// nodeSelector, tolerations and the required node affinity: a simple one
// (one term of In expressions) for the core, any other into `affinity`.
Status ReadPlacementRules(const Value& pod, sched::PodSpec* spec, NodeAffinity* affinity) {
  if (const Value* sel = Find(pod, {"spec", "nodeSelector"}); sel != nullptr) {
    for (auto it = sel->MemberBegin(); it != sel->MemberEnd(); ++it)
      if (it->value.IsString())
        spec->node_selector.emplace_back(it->name.GetString(), it->value.GetString());
  }
  if (const Value* spec_v = Find(pod, {"spec"}); spec_v != nullptr) {
    auto tol = spec_v->FindMember("tolerations");
    if (tol != spec_v->MemberEnd() && tol->value.IsArray()) {
      for (const Value& t : tol->value.GetArray()) {
        sched::TolerationSpec ts;
        ts.key = std::string(GetString(t, {"key"}));
        ts.exists = GetString(t, {"operator"}) == "Exists";
        ts.value = std::string(GetString(t, {"value"}));
        ts.effect = ParseEffect(GetString(t, {"effect"}));
        spec->tolerations.push_back(std::move(ts));
      }
    }
  }
  VT_ASSIGN_OR_RETURN(NodeAffinity a, ParseRequiredNodeAffinity(pod));
  if (a.Simple()) {
    for (NodeSelectorRequirement& r : a.terms[0].match_expressions)
      spec->node_affinity_in.emplace_back(std::move(r.key), std::move(r.values));
  } else {
    *affinity = std::move(a);
  }
  return Status::Ok();
}

}  // namespace

int64_t ParseTimestamp(std::string_view text) {
  std::optional<std::chrono::system_clock::time_point> t = ParseRfc3339(text);
  if (!t) return 0;
  return std::chrono::duration_cast<std::chrono::seconds>(t->time_since_epoch()).count();
}

Result<std::vector<int>> ParseGpuIndices(std::string_view text) {
  std::vector<int> out;
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view part = text.substr(0, comma);
    int v = -1;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || end != part.data() + part.size() || v < 0)
      return InvalidArgument(std::string("annotation ") + kGpuIndexAnnotation + " \"" +
                             std::string(text) + "\" is not a list of device indices");
    out.push_back(v);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

bool HasSchedulingGates(const Value& pod) {
  const Value* gates = Find(pod, {"spec", "schedulingGates"});
  return gates != nullptr && gates->IsArray() && !gates->Empty();
}

CorePod CorePodFromHost(const Value& pod, const CorePodOptions& options) {
  CorePod t;
  t.key = kube::KeyOf(pod);
  t.uid = std::string(kube::Uid(pod));
  t.spec.name = t.key;
  t.node = std::string(GetString(pod, {"spec", "nodeName"}));
  t.terminating = kube::IsBeingDeleted(pod);
  t.gated = HasSchedulingGates(pod);
  const std::string_view phase = GetString(pod, {"status", "phase"});
  const bool ours = GetString(pod, {"spec", "schedulerName"}) == options.scheduler_name;
  if (phase == "Succeeded" || phase == "Failed") {
    t.role = CorePod::Role::kFinished;
    t.succeeded = phase == "Succeeded";
  } else if (kube::Namespace(pod) == options.reservation_namespace &&
             kube::Label(pod, kReservationLabel) == kReservationLabelValue) {
    t.role = CorePod::Role::kReservation;
  } else {
    t.role = ours ? CorePod::Role::kOurs : CorePod::Role::kOthers;
  }
  t.spec.creation_time = ParseTimestamp(GetString(pod, {"metadata", "creationTimestamp"}));
  t.spec.start_time = ParseTimestamp(GetString(pod, {"status", "startTime"}));
  if (t.spec.start_time == 0) t.spec.start_time = t.spec.creation_time;
  t.pod_group = std::string(kube::Annotation(pod, kPodGroupAnnotation).value_or(""));
  t.queue = std::string(kube::Label(pod, kQueueLabel).value_or(""));
  t.spec.subgroup = std::string(kube::Label(pod, kSubGroupLabel).value_or(""));
  t.shared_gpu_configmap =
      std::string(kube::Annotation(pod, kSharedGpuConfigMapAnnotation).value_or(""));
  if (!t.shared_gpu_configmap.empty()) {
    // A pod whose named container is gone has its problem from ReadRequest.
    if (Result<kai::ContainerRef> c = kai::ShareContainer(pod); c.ok()) t.share_container = *c;
  }
  if (t.role == CorePod::Role::kOurs)
    t.required_configmaps = RequiredConfigMaps(pod, t.shared_gpu_configmap);
  if (t.role == CorePod::Role::kOurs || t.role == CorePod::Role::kOthers) {
    t.claims = PodClaims(pod);
    t.inline_csi_drivers = InlineCsiDrivers(pod);
    t.device_claims = PodDeviceClaims(pod);
  }
  t.priority = static_cast<int32_t>(kube::GetInt(pod, {"spec", "priority"}, 0));
  t.priority_class = std::string(kai::WorkloadPriorityClass(pod, pod, kai::kTrainPriorityClass));
  if (std::optional<std::string_view> p = kube::Label(pod, kPreemptibilityLabel);
      p && IsPreemptibility(*p))
    t.preemptibility = std::string(*p);
  t.has_controller_owner = kube::ControllerReference(pod) != nullptr;
  if (t.role == CorePod::Role::kReservation) {
    Result<std::vector<int>> idx =
        ParseGpuIndices(kube::Annotation(pod, kReservationIndexAnnotation).value_or(""));
    if (idx.ok() && idx->size() == 1) t.reservation_index = (*idx)[0];
    t.reserved_gpu_uuid = std::string(kube::Annotation(pod, kReservedGpuAnnotation).value_or(""));
  }
  Status request = ReadRequest(pod, &t.spec);
  if (!request.ok()) t.problem = request;
  Status rules = ReadPlacementRules(pod, &t.spec, &t.affinity);
  if (!rules.ok() && t.problem.ok()) t.problem = rules;
  if (t.role != CorePod::Role::kFinished) {
    // Other pods' terms may select it, and its own hold others away.
    t.labels = kube::GetStringMap(pod, {"metadata", "labels"});
    t.terms = ReadInterPodTerms(pod);
    for (const std::string& level : t.terms.affinity_levels)
      t.spec.affinity.emplace_back(t.terms.affinity.key, level);
    for (const auto& [set, level] : t.terms.anti_affinity)
      t.spec.anti_affinity.emplace_back(set.key, level);
    for (const InterPodTerms::Preferred& p : t.terms.preferred)
      t.spec.preferred.push_back({p.set.key, p.level, p.weight});
    for (const InterPodTerms::Spread& c : t.terms.spread)
      t.spec.spread.push_back(
          {c.set.key, c.level, c.max_skew, c.min_domains, c.honor_affinity, c.honor_taints});
  }
  if (t.role == CorePod::Role::kOthers) {
    // A GPU share is ours to give: another scheduler's pod holds what the
    // node gives it (whole GPUs, CPU, memory), never a fraction or a pinned
    // device it claims by annotation.
    t.spec.gpu_fraction = 0;
    t.spec.gpu_memory_mib = 0;
    t.spec.num_devices = 1;
  }
  if (auto idx = kube::Annotation(pod, kGpuIndexAnnotation);
      idx && t.spec.gpu_fraction + t.spec.gpu_memory_mib > 0) {
    Result<std::vector<int>> parsed = ParseGpuIndices(*idx);
    if (parsed.ok()) t.gpu_indices = std::move(parsed).value();
  }
  return t;
}

}  // namespace vtenant::scheduler
