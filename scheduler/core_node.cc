#include "scheduler/core_node.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string>

#include "kube/quantity.h"
#include "scheduler/kai_names.h"

namespace vtenant::scheduler {
namespace {

using kube::Find;
using kube::GetString;
using rapidjson::Value;

Result<int64_t> Milli(const Value* list, std::string_view name) {
  if (list == nullptr || !list->IsObject()) return int64_t{0};
  auto it = list->FindMember(rapidjson::StringRef(name.data(), name.size()));
  if (it == list->MemberEnd() || !it->value.IsString()) return int64_t{0};
  VT_ASSIGN_OR_RETURN(kube::Quantity q, kube::Quantity::Parse(it->value.GetString()));
  return q.Milli();
}

bool Ready(const Value& node) {
  const Value* status = Find(node, {"status"});
  if (status == nullptr) return false;
  auto conds = status->FindMember("conditions");
  if (conds == status->MemberEnd() || !conds->value.IsArray()) return false;
  for (const Value& c : conds->value.GetArray())
    if (GetString(c, {"type"}) == "Ready") return GetString(c, {"status"}) == "True";
  return false;
}

// KAI's reading of GPU feature discovery's memory label (node_info.go): MiB,
// or bytes where the value is 1 TiB or more in MiB (a GFD bug wrote bytes);
// floored to a multiple of 100 MiB, as KAI does so that two shares never
// meet on the same bytes. A GPU node without a readable label still takes
// whole GPUs and fractions: KAI gives it 100 MiB a device, which keeps
// fractions' arithmetic working and lets no gpu-memory share over 100 MiB in.
// So does a label under 100 MiB, which KAI would floor to none.
int32_t GpuMemoryMib(std::string_view label) {
  constexpr int64_t kDefaultMib = 100;
  constexpr int64_t kTibInMib = int64_t{1} << 20;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(label.data(), label.data() + label.size(), v);
  if (ec != std::errc() || end != label.data() + label.size()) return kDefaultMib;
  if (v >= kTibInMib) v /= int64_t{1} << 20;  // bytes
  v -= v % 100;
  return static_cast<int32_t>(v <= 0 ? kDefaultMib : std::min<int64_t>(v, INT32_MAX));
}

}  // namespace

bool IsOtherResource(std::string_view name) {
  return name != "cpu" && name != "memory" && name != "pods" && name != kGpuResource &&
         name != kAmdGpuResource && !name.starts_with(kMigResourcePrefix);
}

Result<sched::NodeSpec> CoreNodeFromHost(const Value& node) {
  sched::NodeSpec n;
  n.name = std::string(kube::Name(node));
  auto fail = [&](const Status& s) { return s.WithContext("node " + n.name); };
  const Value* alloc = Find(node, {"status", "allocatable"});
  if (alloc == nullptr) alloc = Find(node, {"status", "capacity"});
  Result<int64_t> cpu = Milli(alloc, "cpu");
  Result<int64_t> memory = Milli(alloc, "memory");
  Result<int64_t> pods = Milli(alloc, "pods");
  Result<int64_t> gpus = Milli(alloc, kGpuResource);
  Result<int64_t> amd_gpus = Milli(alloc, kAmdGpuResource);
  for (const Result<int64_t>* r : {&cpu, &memory, &pods, &gpus, &amd_gpus})
    if (!r->ok()) return fail(r->status());
  n.cpu_milli = *cpu;
  n.memory_bytes = *memory / 1000;
  n.max_pods = *pods > 0 ? static_cast<int32_t>(*pods / 1000) : 110;
  n.gpus = static_cast<int32_t>((*gpus + *amd_gpus) / 1000);
  const Value* cordoned = Find(node, {"spec", "unschedulable"});
  n.schedulable =
      !(cordoned != nullptr && cordoned->IsBool() && cordoned->GetBool()) && Ready(node);
  if (const Value* labels = Find(node, {"metadata", "labels"}); labels != nullptr) {
    for (auto it = labels->MemberBegin(); it != labels->MemberEnd(); ++it)
      if (it->value.IsString()) n.labels.emplace_back(it->name.GetString(), it->value.GetString());
  }
  if (n.gpus > 0) {
    n.gpu_memory_mib = GpuMemoryMib(kube::Label(node, kGpuMemoryLabel).value_or(""));
    n.gpu_model = std::string(kube::Label(node, kGpuProductLabel).value_or(""));
  }
  if (alloc != nullptr && alloc->IsObject()) {
    for (auto it = alloc->MemberBegin(); it != alloc->MemberEnd(); ++it) {
      std::string_view name = it->name.GetString();
      const bool mig = name.starts_with(kMigResourcePrefix);
      if (!mig && !IsOtherResource(name)) continue;
      Result<int64_t> count = Milli(alloc, name);
      if (!count.ok()) return fail(count.status());
      if (*count <= 0) continue;
      if (mig)
        n.mig.emplace_back(std::string(name.substr(std::string_view(kMigResourcePrefix).size())),
                           static_cast<int32_t>(*count / 1000));
      else
        n.other_resources.emplace(name, *count);
    }
  }
  if (const Value* spec = Find(node, {"spec"}); spec != nullptr) {
    auto taints = spec->FindMember("taints");
    if (taints != spec->MemberEnd() && taints->value.IsArray()) {
      for (const Value& t : taints->value.GetArray()) {
        std::string_view e = GetString(t, {"effect"});
        sched::TaintSpec ts{std::string(GetString(t, {"key"})),
                            std::string(GetString(t, {"value"})), sched::TaintEffect::kNoSchedule};
        if (e == "PreferNoSchedule") ts.effect = sched::TaintEffect::kPreferNoSchedule;
        if (e == "NoExecute") ts.effect = sched::TaintEffect::kNoExecute;
        n.taints.push_back(std::move(ts));
      }
    }
  }
  return n;
}

}  // namespace vtenant::scheduler
