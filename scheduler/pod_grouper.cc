#include "scheduler/pod_grouper.h"

#include <algorithm>
#include <cctype>

#include "scheduler/kai_names.h"

namespace vtenant::scheduler {
namespace {

using rapidjson::Value;

std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

// Where objects of an owner reference live: the common kinds exactly,
// others by the usual plural.
kube::ResourceType TypeOf(const Value& ref) {
  std::string api(kube::GetString(ref, {"apiVersion"}));
  std::string kind(kube::GetString(ref, {"kind"}));
  kube::ResourceType t;
  if (size_t slash = api.find('/'); slash != std::string::npos) {
    t.group = api.substr(0, slash);
    t.version = api.substr(slash + 1);
  } else {
    t.version = api;
  }
  t.kind = kind;
  std::string plural = kind;
  std::transform(plural.begin(), plural.end(), plural.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  t.resource = plural + "s";
  return t;
}

const Value* ControllerRef(const Value& object) {
  const Value* meta = kube::Find(object, {"metadata"});
  if (meta == nullptr) return nullptr;
  auto refs = meta->FindMember("ownerReferences");
  if (refs == meta->MemberEnd() || !refs->value.IsArray()) return nullptr;
  for (const Value& r : refs->value.GetArray())
    if (r.HasMember("controller") && r["controller"].IsBool() && r["controller"].GetBool())
      return &r;
  return nullptr;
}

}  // namespace

int32_t MinMemberFor(const Value& top) {
  std::string_view kind = kube::GetString(top, {"kind"});
  if (kind == "Job")
    return static_cast<int32_t>(
        std::max<int64_t>(1, kube::GetInt(top, {"spec", "parallelism"}, 1)));
  return 1;
}

Result<kube::ReconcileResult> PodGrouper::Reconcile(const std::string& key) {
  kube::ObjectPtr pod = pods_.cache().Get(key);
  if (pod == nullptr || kube::IsBeingDeleted(*pod)) return kube::ReconcileResult{};
  if (kube::GetString(*pod, {"spec", "schedulerName"}) != scheduler_name_)
    return kube::ReconcileResult{};
  if (kube::Annotation(*pod, kPodGroupAnnotation)) return kube::ReconcileResult{};
  const Value* ref = ControllerRef(*pod);
  if (ref == nullptr) return kube::ReconcileResult{};
  const std::string ns(kube::Namespace(*pod));

  std::string queue(kube::Label(*pod, kQueueLabel).value_or(""));
  // Walk to the top owner; an owner we cannot read ends the walk there.
  kube::Object top = kube::Clone(*ref);  // the reference, until an object is read
  bool have_object = false;
  std::string top_name(kube::GetString(*ref, {"name"})), top_uid(kube::GetString(*ref, {"uid"}));
  std::string top_api(kube::GetString(*ref, {"apiVersion"})),
      top_kind(kube::GetString(*ref, {"kind"}));
  for (int depth = 0; depth < 8 && ref != nullptr; ++depth) {
    Result<kube::Object> owner = client_.Get(TypeOf(*ref), ns, kube::GetString(*ref, {"name"}));
    if (!owner.ok()) break;
    top = std::move(owner).value();
    have_object = true;
    top_name = std::string(kube::Name(top));
    top_uid = std::string(kube::Uid(top));
    top_api = std::string(kube::GetString(top, {"apiVersion"}));
    top_kind = std::string(kube::GetString(top, {"kind"}));
    if (queue.empty()) queue = std::string(kube::Label(top, kQueueLabel).value_or(""));
    ref = ControllerRef(top);
  }
  if (queue.empty()) queue = kDefaultQueue;
  const int32_t min_member = have_object ? MinMemberFor(top) : 1;
  const std::string group = "pg-" + top_name + "-" + top_uid;
  std::string priority_class(kube::GetString(*pod, {"spec", "priorityClassName"}));
  const std::string manifest =
      R"({"apiVersion":"scheduling.run.ai/v2alpha2","kind":"PodGroup","metadata":{"name":)" +
      Quote(group) + R"(,"namespace":)" + Quote(ns) + R"(,"ownerReferences":[{"apiVersion":)" +
      Quote(top_api) + R"(,"kind":)" + Quote(top_kind) + R"(,"name":)" + Quote(top_name) +
      R"(,"uid":)" + Quote(top_uid) + R"(}]},"spec":{"minMember":)" + std::to_string(min_member) +
      R"(,"queue":)" + Quote(queue) +
      (priority_class.empty() ? "" : R"(,"priorityClassName":)" + Quote(priority_class)) + "}}";
  VT_ASSIGN_OR_RETURN(kube::Object pg, kube::ParseJson(manifest));
  Result<kube::Object> created = client_.Create(kube::resources::kPodGroups, ns, pg);
  if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists)
    return created.status().WithContext("creating PodGroup " + group);
  const std::string patch =
      R"({"metadata":{"annotations":{)" + Quote(kPodGroupAnnotation) + ":" + Quote(group) + "}}}";
  Result<kube::Object> patched =
      client_.Patch(kube::resources::kPods, ns, kube::Name(*pod), kube::PatchType::kMerge, patch);
  if (!patched.ok() && patched.status().code() != StatusCode::kNotFound)
    return patched.status().WithContext("annotating pod " + key);
  return kube::ReconcileResult{};
}

}  // namespace vtenant::scheduler
