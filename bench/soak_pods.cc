#include "bench/soak_pods.h"

#include <set>

#include "kube/object.h"
#include "syncer/names.h"

namespace vtenant::bench {
namespace {

// The label selector of the host pods the syncer made.
std::string SyncedSelector() {
  return std::string(syncer::kManagedByLabel) + "=" + syncer::kManagedByValue;
}

}  // namespace

PodTracker::~PodTracker() { Stop(); }

Status PodTracker::Start() {
  std::string resource_version;
  VT_RETURN_IF_ERROR(Relist(&resource_version));
  thread_ = std::thread([this, resource_version] { Run(resource_version); });
  return Status::Ok();
}

void PodTracker::Stop() {
  cancel_.Cancel();
  if (thread_.joinable()) thread_.join();
}

void PodTracker::Created(const std::string& uid, Clock::time_point at) {
  std::lock_guard lock(mu_);
  pods_[uid].created = at;
}

void PodTracker::Observe(const rapidjson::Value& pod, bool deleted) {
  const auto now = Clock::now();
  const std::string uid(kube::Annotation(pod, syncer::kVirtualUidAnnotation).value_or(""));
  if (uid.empty()) return;
  {
    std::lock_guard lock(mu_);
    auto it = pods_.find(uid);
    // A deletion of a pod already forgotten, or of one from before the run.
    if (it == pods_.end() && deleted) return;
    Pod& p = it != pods_.end() ? it->second : pods_[uid];  // seen before its create returned
    p.seen = true;
    if (!p.seen_at) p.seen_at = now;
    if (!p.bound && !kube::GetString(pod, {"spec", "nodeName"}).empty()) p.bound = now;
    if (kube::GetString(pod, {"status", "phase"}) == "Running") p.running = true;
    if (deleted) p.gone = true;
  }
  changed_.notify_all();
}

Status PodTracker::Relist(std::string* resource_version) {
  kube::ListOptions options;
  options.label_selector = SyncedSelector();
  VT_ASSIGN_OR_RETURN(kube::ObjectList list, host_.ListAll(kube::resources::kPods, "", options));
  std::set<std::string> listed;
  for (const kube::Object& pod : list.items) {
    listed.insert(std::string(kube::Annotation(pod, syncer::kVirtualUidAnnotation).value_or("")));
    Observe(pod, false);
  }
  {
    // Deletions the broken watch did not deliver.
    std::lock_guard lock(mu_);
    for (auto& [uid, p] : pods_) {
      if (p.seen && !listed.contains(uid)) p.gone = true;
    }
  }
  changed_.notify_all();
  *resource_version = list.resource_version;
  return Status::Ok();
}

void PodTracker::Run(std::string resource_version) {
  while (!cancel_.cancelled()) {
    if (resource_version.empty() && !Relist(&resource_version).ok()) {
      cancel_.WaitFor(std::chrono::seconds(1));
      continue;
    }
    kube::ListOptions options;
    options.label_selector = SyncedSelector();
    options.resource_version = resource_version;
    options.timeout_seconds = 300;
    const Status watched = host_.Watch(
        kube::resources::kPods, "", options,
        [&](kube::WatchEvent& event) {
          const std::string_view rv = kube::ResourceVersion(event.object);
          if (!rv.empty()) resource_version = rv;
          if (event.type != kube::WatchEvent::Type::kBookmark) {
            Observe(event.object, event.type == kube::WatchEvent::Type::kDeleted);
          }
          return true;
        },
        &cancel_);
    if (watched.ok() || cancel_.cancelled()) continue;  // the server ended it: resume
    ++watch_restarts_;
    if (watched.code() == StatusCode::kGone) {
      resource_version.clear();
    } else {
      cancel_.WaitFor(std::chrono::seconds(1));
    }
  }
}

int PodTracker::WaitForNone(const std::vector<std::string>& uids, Clock::time_point deadline,
                            const std::function<bool(const Pod*)>& waiting) {
  std::unique_lock lock(mu_);
  auto count = [&] {
    int n = 0;
    for (const std::string& uid : uids) {
      auto it = pods_.find(uid);
      n += waiting(it == pods_.end() ? nullptr : &it->second) ? 1 : 0;
    }
    return n;
  };
  changed_.wait_until(lock, deadline, [&] { return count() == 0; });
  return count();
}

int PodTracker::WaitRunning(const std::vector<std::string>& uids, Clock::time_point deadline) {
  return WaitForNone(uids, deadline,
                     [](const Pod* pod) { return pod == nullptr || !pod->running || !pod->bound; });
}

int PodTracker::WaitGone(const std::vector<std::string>& uids, Clock::time_point deadline) {
  return WaitForNone(uids, deadline,
                     [](const Pod* pod) { return pod != nullptr && pod->seen && !pod->gone; });
}

std::optional<PodTracker::Latency> PodTracker::BoundLatency(const std::string& uid) const {
  std::lock_guard lock(mu_);
  auto it = pods_.find(uid);
  if (it == pods_.end() || !it->second.created || !it->second.bound) return std::nullopt;
  // A watch event that beat the create call's return counts as no wait.
  auto since_created = [&](Clock::time_point t) {
    return std::max(0.0,
                    std::chrono::duration<double, std::milli>(t - *it->second.created).count());
  };
  const Pod& p = it->second;
  return Latency{*p.created, since_created(*p.bound), since_created(p.seen_at.value_or(*p.bound))};
}

void PodTracker::Forget(const std::vector<std::string>& uids) {
  std::lock_guard lock(mu_);
  for (const std::string& uid : uids) pods_.erase(uid);
}

}  // namespace vtenant::bench
