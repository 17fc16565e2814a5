#include "scheduler/status_writer.h"

#include <glog/logging.h>

#include "base/rfc3339.h"
#include "kube/quantity.h"
#include "kube/wall_time.h"
#include "scheduler/kai_names.h"

namespace vtenant::scheduler {
namespace {

std::string GpuText(sched::Milli m) { return kube::Quantity::FromMilli(m).ToString(); }

}  // namespace

kube::JsonObject ResourceList(const sched::ResourceVector& r) {
  Result<kube::Quantity> memory =
      kube::Quantity::FromValue(r[sched::kMemory], kube::Quantity::Format::kBinarySI);
  return {{kGpuResource, GpuText(r[sched::kGpu])},
          {"cpu", kube::Quantity::FromMilli(r[sched::kCpu]).ToString()},
          {"memory", memory.ok() ? memory->ToString() : std::to_string(r[sched::kMemory])}};
}

// childQueues as the status shows it: null (left out) when there are none.
kube::JsonValue ChildQueues(const std::vector<std::string>& children) {
  if (children.empty()) return kube::JsonValue();
  return kube::StringArray(children);
}

namespace {

// Whether `live` shows `want` as the resource list at `path`.
bool ListShows(const rapidjson::Value& live, std::initializer_list<std::string_view> path,
               const sched::ResourceVector& want) {
  const rapidjson::Value* have = kube::Find(live, path);
  return have != nullptr && *have == kube::BuildJson(ResourceList(want));
}

}  // namespace

bool QueueShows(const rapidjson::Value& live, const QueueStatus& s) {
  auto list_is = [&](const char* field, const sched::ResourceVector& want) {
    return ListShows(live, {"status", field}, want);
  };
  // Absent shows "none" as the null that WriteQueue sends does.
  const rapidjson::Value* children = kube::Find(live, {"status", "childQueues"});
  const kube::Object want_children = kube::BuildJson(ChildQueues(s.child_queues));
  const bool children_shown =
      children == nullptr ? want_children.IsNull() : *children == want_children;
  return children_shown && list_is("allocated", s.allocated) &&
         list_is("allocatedNonPreemptible", s.allocated_non_preemptible) &&
         list_is("requested", s.requested) &&
         kube::Annotation(live, kFairShareAnnotation) == GpuText(s.gpu_fair_share);
}

namespace {

// The timestamp annotations of PodGroup `live` that `s` changes, as a merge
// patch's metadata.annotations: RFC 3339 text, or null to remove one.
kube::JsonObject TimestampChanges(const rapidjson::Value& live, const PodGroupStatus& s) {
  kube::JsonObject changes;
  if (!s.stale_since) return changes;
  auto text = [](int64_t seconds) {
    return FormatRfc3339(std::chrono::system_clock::time_point(std::chrono::seconds(seconds)));
  };
  const std::optional<std::string_view> stale =
      kube::Annotation(live, kStalePodGroupTimestampAnnotation);
  if (*s.stale_since < 0) {
    if (stale) changes.Set(kStalePodGroupTimestampAnnotation, nullptr);
  } else if (stale != text(*s.stale_since)) {
    changes.Set(kStalePodGroupTimestampAnnotation, text(*s.stale_since));
  }
  if (s.last_eviction > 0 &&
      kube::Annotation(live, kLastEvictionTimestampAnnotation) != text(s.last_eviction))
    changes.Set(kLastEvictionTimestampAnnotation, text(s.last_eviction));
  if (s.last_start > 0 &&
      kube::Annotation(live, kLastStartTimestampAnnotation) != text(s.last_start))
    changes.Set(kLastStartTimestampAnnotation, text(s.last_start));
  return changes;
}

}  // namespace

bool PodGroupShows(const rapidjson::Value& live, const PodGroupStatus& s) {
  // KAI's own PodGroup CRD has no status.phase, running or pending, and the
  // API server drops them on every write. A live object that shows
  // resourcesStatus, which each write sends beside them, but no phase has
  // such a schema: comparing them there would rewrite the group each flush.
  const bool counts_kept = kube::Find(live, {"status", "phase"}) != nullptr ||
                           kube::Find(live, {"status", "resourcesStatus"}) == nullptr;
  if (counts_kept && (kube::GetString(live, {"status", "phase"}) != s.phase ||
                      kube::GetInt(live, {"status", "running"}, -1) != s.running ||
                      kube::GetInt(live, {"status", "pending"}, -1) != s.pending))
    return false;
  if (!ListShows(live, {"status", "resourcesStatus", "allocated"}, s.allocated) ||
      !ListShows(live, {"status", "resourcesStatus", "allocatedNonPreemptible"},
                 s.allocated_non_preemptible) ||
      !ListShows(live, {"status", "resourcesStatus", "requested"}, s.requested))
    return false;
  if (!TimestampChanges(live, s).empty()) return false;
  const rapidjson::Value* conditions = kube::Find(live, {"status", "schedulingConditions"});
  if (conditions == nullptr || !conditions->IsArray()) return false;
  if (s.reason.empty()) return conditions->Empty();
  if (conditions->Size() != 1 || kube::GetString((*conditions)[0], {"message"}) != s.reason)
    return false;
  const rapidjson::Value* reasons = kube::Find((*conditions)[0], {"reasons"});
  return reasons != nullptr && reasons->IsArray() && reasons->Size() == 1 &&
         kube::GetString((*reasons)[0], {"reason"}) == s.kind;
}

StatusWriter::StatusWriter(kube::Client& client, LiveLookup queues, LiveLookup podgroups,
                           kube::Registry* registry, std::string node_pool)
    : client_(client),
      live_queues_(std::move(queues)),
      live_podgroups_(std::move(podgroups)),
      node_pool_(std::move(node_pool)) {
  writes_ =
      registry
          ->AddCounter("vtenant_scheduler_status_writes_total",
                       "Queue and PodGroup status writes by kind and result.", {"kind", "result"})
          .value();
}

void StatusWriter::SetQueue(const std::string& name, const QueueStatus& status) {
  std::lock_guard lock(mu_);
  queues_[name].status = status;
}

void StatusWriter::SetPodGroup(const std::string& key, const PodGroupStatus& status) {
  std::lock_guard lock(mu_);
  groups_[key].status = status;
}

template <typename S, typename Shows>
std::vector<std::tuple<std::string, S, kube::ObjectPtr>> StatusWriter::Stale(
    std::map<std::string, Want<S>>& wants, const LiveLookup& lookup, Shows shows) {
  std::map<std::string, Want<S>> copy;
  {
    std::lock_guard lock(mu_);
    copy = wants;
  }
  std::vector<std::tuple<std::string, S, kube::ObjectPtr>> out;
  std::vector<std::string> gone;
  for (const auto& [key, want] : copy) {
    kube::ObjectPtr live = lookup(key);
    if (live == nullptr) {
      gone.push_back(key);
      continue;
    }
    if (shows(*live, want.status)) continue;
    // Written against this very copy: the informer has not brought the
    // write back yet.
    if (want.written_status == want.status && want.written.uid == kube::Uid(*live) &&
        want.written.resource_version == kube::ResourceVersion(*live))
      continue;
    out.emplace_back(key, want.status, std::move(live));
  }
  std::lock_guard lock(mu_);
  for (const std::string& key : gone) wants.erase(key);
  return out;
}

template <typename S>
void StatusWriter::Record(std::map<std::string, Want<S>>& wants, const std::string& key,
                          const S& status, const rapidjson::Value& live) {
  std::lock_guard lock(mu_);
  auto it = wants.find(key);
  if (it == wants.end()) return;
  it->second.written_status = status;
  it->second.written = {std::string(kube::Uid(live)), std::string(kube::ResourceVersion(live))};
}

int StatusWriter::Flush() {
  int writes = 0;
  for (const auto& [name, s, live] : Stale(queues_, live_queues_, QueueShows)) {
    Status w = WriteQueue(name, s, *live);
    ++writes;
    writes_->WithLabelValues({"queue", w.ok() ? "ok" : "error"}).Inc();
    if (!w.ok()) {
      LOG(WARNING) << "queue " << name << " status: " << w.ToString();
      continue;
    }
    Record(queues_, name, s, *live);
  }
  for (const auto& [key, s, live] : Stale(groups_, live_podgroups_, PodGroupShows)) {
    Status w = WritePodGroup(key, s, *live);
    ++writes;
    writes_->WithLabelValues({"podgroup", w.ok() ? "ok" : "error"}).Inc();
    if (!w.ok()) {
      // Gone since the informer saw it: the next flush drops it.
      if (w.code() != StatusCode::kNotFound)
        LOG(WARNING) << "podgroup " << key << " status: " << w.ToString();
      continue;
    }
    Record(groups_, key, s, *live);
  }
  return writes;
}

Status StatusWriter::WriteQueue(const std::string& name, const QueueStatus& s,
                                const rapidjson::Value& live) {
  const std::string status = kube::ToJson(kube::BuildJson(kube::JsonObject{
      {"status",
       kube::JsonObject{{"allocated", ResourceList(s.allocated)},
                        {"allocatedNonPreemptible", ResourceList(s.allocated_non_preemptible)},
                        {"requested", ResourceList(s.requested)},
                        {"childQueues", ChildQueues(s.child_queues)}}}}));
  kube::PatchOptions opts;
  opts.subresource = "status";
  Result<kube::Object> r =
      client_.Patch(kube::resources::kQueues, "", name, kube::PatchType::kMerge, status, opts);
  if (!r.ok()) return r.status();
  if (kube::Annotation(live, kFairShareAnnotation) != GpuText(s.gpu_fair_share)) {
    const std::string annotation = kube::ToJson(kube::BuildJson(kube::JsonObject{
        {"metadata", kube::JsonObject{
                         {"annotations",
                          kube::JsonObject{{kFairShareAnnotation, GpuText(s.gpu_fair_share)}}}}}}));
    r = client_.Patch(kube::resources::kQueues, "", name, kube::PatchType::kMerge, annotation);
    if (!r.ok()) return r.status();
  }
  return Status::Ok();
}

Status StatusWriter::WritePodGroup(const std::string& key, const PodGroupStatus& s,
                                   const rapidjson::Value& live) {
  auto [ns, name] = kube::SplitKey(key);
  kube::JsonArray conditions;
  if (!s.reason.empty()) {
    conditions.Add(kube::JsonObject{
        {"type", "UnschedulableOnNodePool"},
        {"nodePool", node_pool_},
        {"status", "True"},
        {"reason", "Unschedulable"},
        {"message", s.reason},
        {"reasons", kube::JsonArray{kube::JsonObject{{"reason", s.kind}, {"message", s.reason}}}},
        {"lastTransitionTime", FormatRfc3339(kube::SystemNow())}});
  }
  const std::string patch = kube::ToJson(kube::BuildJson(kube::JsonObject{
      {"status", kube::JsonObject{{"phase", s.phase},
                                  {"running", s.running},
                                  {"pending", s.pending},
                                  {"resourcesStatus",
                                   kube::JsonObject{{"allocated", ResourceList(s.allocated)},
                                                    {"allocatedNonPreemptible",
                                                     ResourceList(s.allocated_non_preemptible)},
                                                    {"requested", ResourceList(s.requested)}}},
                                  {"schedulingConditions", std::move(conditions)}}}}));
  kube::PatchOptions opts;
  opts.subresource = "status";
  Result<kube::Object> r =
      client_.Patch(kube::resources::kPodGroups, ns, name, kube::PatchType::kMerge, patch, opts);
  if (!r.ok()) return r.status();
  // The timestamps are annotations, outside the status subresource.
  kube::JsonObject changes = TimestampChanges(live, s);
  if (changes.empty()) return Status::Ok();
  const std::string annotations = kube::ToJson(kube::BuildJson(
      kube::JsonObject{{"metadata", kube::JsonObject{{"annotations", std::move(changes)}}}}));
  return client_.Patch(kube::resources::kPodGroups, ns, name, kube::PatchType::kMerge, annotations)
      .status();
}

void StatusWriter::Run(kube::Cancellation& cancel, std::chrono::milliseconds period) {
  while (!cancel.WaitFor(period)) Flush();
  Flush();
}

}  // namespace vtenant::scheduler
