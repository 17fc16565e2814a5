#include "kube/event_recorder.h"

#include <glog/logging.h>

#include <chrono>
#include <cstdio>

#include "base/rfc3339.h"
#include "kube/json_builder.h"

namespace vtenant::kube {
namespace {

// An Event is worth a few seconds, not the reconcile that records it: a
// hung API server costs a reconcile at most this long per Event.
constexpr std::chrono::seconds kEventCallTimeout{5};

// Past this many distinct events the correlation memory starts over; the cost
// is an occasional duplicate Event, never a lost one.
constexpr size_t kMaxRemembered = 4096;

}  // namespace

EventRecorder::EventRecorder(Client& client, std::string component, WallClock now)
    : client_(client), component_(std::move(component)), now_(std::move(now)) {}

void EventRecorder::Record(const rapidjson::Value& object, std::string_view type,
                           std::string_view reason, std::string_view message) {
  const std::string now = FormatRfc3339(now_());
  const std::string ns = Namespace(object).empty() ? "default" : std::string(Namespace(object));
  std::string key = std::string(Uid(object)) + "\x1f" + std::string(type) + "\x1f" +
                    std::string(reason) + "\x1f" + std::string(message);
  if (Uid(object).empty()) key = KeyOf(object) + key;

  std::unique_lock lock(mu_);
  if (auto it = seen_.find(key); it != seen_.end()) {
    Seen seen = it->second;
    lock.unlock();
    const std::string patch =
        ToJson(BuildJson(JsonObject{{"count", seen.count + 1}, {"lastTimestamp", now}}));
    Result<Object> patched =
        client_.Patch(resources::kEvents, seen.ns, seen.name, PatchType::kMerge, patch,
                      {.field_manager = ""}, {.timeout = kEventCallTimeout});
    if (patched.ok()) {
      std::lock_guard again(mu_);
      seen_[key].count = seen.count + 1;
      return;
    }
    if (patched.status().code() != StatusCode::kNotFound) {
      LOG(WARNING) << "event " << reason << " on " << KeyOf(object) << ": "
                   << patched.status().ToString();
      return;
    }
    lock.lock();  // the Event expired: create a new one below
  }
  if (seen_.size() >= kMaxRemembered) seen_.clear();
  char suffix[32];
  std::snprintf(suffix, sizeof(suffix), ".%llx%04llx",
                static_cast<unsigned long long>(now_().time_since_epoch().count()),
                static_cast<unsigned long long>(sequence_++ & 0xffff));
  const std::string name = std::string(Name(object)) + suffix;
  lock.unlock();

  Object event(rapidjson::kObjectType);
  auto& alloc = event.GetAllocator();
  SetString(event, {}, "apiVersion", "v1");
  SetString(event, {}, "kind", "Event");
  SetString(event, {"metadata"}, "name", name);
  SetString(event, {"metadata"}, "namespace", ns);
  SetString(event, {"involvedObject"}, "apiVersion", GetString(object, {"apiVersion"}));
  SetString(event, {"involvedObject"}, "kind", GetString(object, {"kind"}));
  SetString(event, {"involvedObject"}, "name", Name(object));
  if (!Namespace(object).empty()) SetString(event, {"involvedObject"}, "namespace", ns);
  SetString(event, {"involvedObject"}, "uid", Uid(object));
  SetString(event, {"involvedObject"}, "resourceVersion", ResourceVersion(object));
  SetString(event, {}, "type", type);
  SetString(event, {}, "reason", reason);
  SetString(event, {}, "message", message);
  SetString(event, {"source"}, "component", component_);
  SetString(event, {}, "reportingComponent", component_);
  SetString(event, {}, "firstTimestamp", now);
  SetString(event, {}, "lastTimestamp", now);
  event.AddMember("count", 1, alloc);
  Result<Object> created =
      client_.Create(resources::kEvents, ns, event, {}, {.timeout = kEventCallTimeout});
  if (!created.ok()) {
    LOG(WARNING) << "event " << reason << " on " << KeyOf(object) << ": "
                 << created.status().ToString();
    return;
  }
  std::lock_guard again(mu_);
  seen_[key] = Seen{ns, name, 1};
}

}  // namespace vtenant::kube
