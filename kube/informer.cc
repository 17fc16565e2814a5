#include "kube/informer.h"

#include <glog/logging.h>

#include <algorithm>
#include <random>
#include <unordered_set>

#include "kube/api_error.h"
#include "kube/deflate.h"

namespace vtenant::kube {

void DropManagedFields(Object& object) { RemoveMember(object, {"metadata"}, "managedFields"); }

// ---------------------------------------------------------------- Cache

Cache::Entry Cache::Store(ObjectPtr object) const {
  if (storage_ == CacheStorage::kDocuments) return {std::move(object), {}};
  std::string text = ToJson(*object);
  if (storage_ == CacheStorage::kJsonText) return {nullptr, std::move(text)};
  std::call_once(dictionary_once_, [&] { dictionary_ = text; });
  return {nullptr, DeflateWithDictionary(text, dictionary_)};
}

ObjectPtr Cache::Read(const Entry& entry) const {
  if (storage_ == CacheStorage::kDocuments) return entry.object;
  // The text is what ToJson wrote (and Deflate kept), so it inflates and
  // parses unless memory ran out.
  std::string inflated;
  if (storage_ == CacheStorage::kCompressedJsonText) {
    Result<std::string> text = InflateWithDictionary(entry.text, dictionary_);
    CHECK(text.ok()) << "cached object no longer inflates: " << text.status().ToString();
    inflated = std::move(*text);
  }
  Result<ObjectPtr> object =
      ParseShared(storage_ == CacheStorage::kCompressedJsonText ? inflated : entry.text);
  CHECK(object.ok()) << "cached object no longer parses: " << object.status().ToString();
  return std::move(*object);
}

Status Cache::AddIndexer(const std::string& name, IndexFunc fn) {
  std::unique_lock lock(mu_);
  if (indices_.count(name) != 0) {
    return {StatusCode::kAlreadyExists, "index \"" + name + "\" already exists"};
  }
  Index& index = indices_[name];
  index.fn = std::move(fn);
  for (const auto& [key, entry] : items_) {
    for (std::string& value : index.fn(*Read(entry))) index.keys_by_value[value].insert(key);
  }
  return Status::Ok();
}

ObjectPtr Cache::Get(std::string_view key) const {
  std::shared_lock lock(mu_);
  auto it = items_.find(key);
  return it == items_.end() ? nullptr : Read(it->second);
}

std::vector<ObjectPtr> Cache::List() const {
  std::shared_lock lock(mu_);
  std::vector<ObjectPtr> out;
  out.reserve(items_.size());
  for (const auto& [key, entry] : items_) out.push_back(Read(entry));
  return out;
}

std::vector<std::string> Cache::ListKeys() const {
  std::shared_lock lock(mu_);
  std::vector<std::string> out;
  out.reserve(items_.size());
  for (const auto& [key, entry] : items_) out.push_back(key);
  return out;
}

size_t Cache::Size() const {
  std::shared_lock lock(mu_);
  return items_.size();
}

Result<std::vector<ObjectPtr>> Cache::ByIndex(std::string_view index,
                                              std::string_view value) const {
  std::shared_lock lock(mu_);
  auto idx = indices_.find(index);
  if (idx == indices_.end()) return NotFound("no index \"" + std::string(index) + "\"");
  std::vector<ObjectPtr> out;
  auto keys = idx->second.keys_by_value.find(value);
  if (keys == idx->second.keys_by_value.end()) return out;
  out.reserve(keys->second.size());
  for (const std::string& key : keys->second) out.push_back(Read(items_.find(key)->second));
  return out;
}

Result<size_t> Cache::CountByIndex(std::string_view index, std::string_view value) const {
  std::shared_lock lock(mu_);
  auto idx = indices_.find(index);
  if (idx == indices_.end()) return NotFound("no index \"" + std::string(index) + "\"");
  auto keys = idx->second.keys_by_value.find(value);
  return keys == idx->second.keys_by_value.end() ? 0 : keys->second.size();
}

Result<std::vector<std::string>> Cache::IndexValues(std::string_view index) const {
  std::shared_lock lock(mu_);
  auto idx = indices_.find(index);
  if (idx == indices_.end()) return NotFound("no index \"" + std::string(index) + "\"");
  std::vector<std::string> out;
  for (const auto& [value, keys] : idx->second.keys_by_value) out.push_back(value);
  return out;
}

ObjectPtr Cache::Upsert(ObjectPtr object) {
  std::string key = KeyOf(*object);
  Entry entry = Store(object);
  std::unique_lock lock(mu_);
  auto it = items_.find(key);
  ObjectPtr old;
  if (it != items_.end()) {
    old = Read(it->second);
    UnindexLocked(key, *old);
    it->second = std::move(entry);
  } else {
    it = items_.emplace(key, std::move(entry)).first;
  }
  IndexLocked(key, *object);
  return old;
}

ObjectPtr Cache::Remove(std::string_view key) {
  std::unique_lock lock(mu_);
  auto it = items_.find(key);
  if (it == items_.end()) return nullptr;
  ObjectPtr old = Read(it->second);
  UnindexLocked(it->first, *old);
  items_.erase(it);
  return old;
}

void Cache::IndexLocked(const std::string& key, const Object& object) {
  for (auto& [name, index] : indices_) {
    for (std::string& value : index.fn(object)) index.keys_by_value[value].insert(key);
  }
}

void Cache::UnindexLocked(const std::string& key, const Object& object) {
  for (auto& [name, index] : indices_) {
    for (const std::string& value : index.fn(object)) {
      auto it = index.keys_by_value.find(value);
      if (it == index.keys_by_value.end()) continue;
      it->second.erase(key);
      if (it->second.empty()) index.keys_by_value.erase(it);
    }
  }
}

// ---------------------------------------------------------------- SharedInformer

SharedInformer::SharedInformer(Client& client, ResourceType type, InformerOptions options)
    : client_(client),
      type_(std::move(type)),
      options_(std::move(options)),
      cache_(options_.cache_storage) {
  Result<Family<Gauge>*> backlog = options_.registry->AddGauge(
      "vtenant_informer_backlog", "Informer notifications waiting for event handlers.",
      {"resource"});
  CHECK(backlog.ok()) << backlog.status().ToString();
  backlog_ = &(*backlog)->WithLabelValues({type_.resource});
}

SharedInformer::~SharedInformer() { Stop(); }

void SharedInformer::AddEventHandler(EventHandler handler) {
  std::lock_guard lock(mu_);
  auto registration = std::make_shared<Registration>();
  registration->handler = std::move(handler);
  registrations_.push_back(registration);
  // A late handler catches up on the cache as it is now; queued broadcasts
  // describe changes the cache already contains, so it skips them.
  const int index = static_cast<int>(registrations_.size()) - 1;
  if (running_) {
    for (ObjectPtr& object : cache_.List()) {
      EnqueueLocked(Notification::Kind::kAdd, nullptr, std::move(object), index);
    }
  }
  registration->first_sequence = next_sequence_;
  cv_.notify_all();
}

Status SharedInformer::Run() {
  std::lock_guard lock(mu_);
  if (running_ || stopping_) {
    return FailedPrecondition("informer for " + type_.resource + " was already started");
  }
  if (options_.dispatcher != nullptr && options_.dispatcher->clock() != options_.clock) {
    return FailedPrecondition("informer for " + type_.resource +
                              " uses another clock than its event dispatcher");
  }
  running_ = true;
  waker_ = options_.clock->AddWaker([this] {
    std::lock_guard wake_lock(mu_);
    cv_.notify_all();
  });
  if (options_.dispatcher != nullptr) {
    std::optional<Clock::TimePoint> first_resync;
    if (options_.resync_period > Clock::Duration::zero()) {
      next_resync_ = options_.clock->Now() + options_.resync_period;
      first_resync = next_resync_;
    }
    options_.dispatcher->Attach(this, first_resync);
  } else {
    dispatcher_ = std::thread([this] { DispatchLoop(); });
  }
  reflector_ = std::thread([this] { ReflectorLoop(); });
  return Status::Ok();
}

void SharedInformer::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    cv_.notify_all();
  }
  cancel_.Cancel();
  if (reflector_.joinable()) reflector_.join();
  if (dispatcher_.joinable()) dispatcher_.join();
  bool attached = false;
  {
    std::lock_guard lock(mu_);
    attached = running_ && options_.dispatcher != nullptr;
  }
  if (attached) options_.dispatcher->Detach(this);
  {
    std::lock_guard lock(mu_);
    backlog_->Dec(static_cast<double>(queue_.size()));
    queue_.clear();
  }
  uint64_t waker = 0;
  bool registered = false;
  {
    std::lock_guard lock(mu_);
    registered = running_;
    running_ = false;
    waker = waker_;
  }
  if (registered) options_.clock->RemoveWaker(waker);
}

bool SharedInformer::HasSynced() const {
  std::lock_guard lock(mu_);
  return synced_at_.has_value() && delivered_through_ >= *synced_at_;
}

bool SharedInformer::WaitForSynced(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [&] {
    return stopping_ || (synced_at_.has_value() && delivered_through_ >= *synced_at_);
  });
  return synced_at_.has_value() && delivered_through_ >= *synced_at_;
}

std::string SharedInformer::LastSyncResourceVersion() const {
  std::lock_guard lock(mu_);
  return resource_version_;
}

void SharedInformer::ReflectorLoop() {
  std::chrono::milliseconds backoff = options_.initial_backoff;
  bool need_list = true;
  // Whether the last list found the kind not served (see below).
  bool not_served = false;
  while (!cancel_.cancelled()) {
    Status status;
    bool progress = false;
    if (need_list) {
      status = List();
      if (status.ok()) {
        need_list = false;
        progress = true;
        if (not_served) LOG(INFO) << type_.resource << " are served now; listed them";
        not_served = false;
      }
    }
    if (!need_list) status = Watch(&progress);
    if (cancel_.cancelled()) break;
    connected_ = false;
    if (progress) backoff = options_.initial_backoff;
    if (status.code() == StatusCode::kGone) {
      LOG(INFO) << "watch of " << type_.resource << " expired (" << status.message()
                << "); relisting";
      need_list = true;
    } else if (need_list && status.code() == StatusCode::kNotFound) {
      // The API server does not serve the kind: a CRD nobody installed,
      // which may never be. It is looked for at every backoff, so that it
      // is picked up when installed, but said once: a line every few
      // seconds for the life of the process would tell nothing new.
      if (!not_served)
        LOG(WARNING) << "list of " << type_.resource << " failed: " << status.ToString()
                     << "; not served by this API server, looking again every "
                     << options_.max_backoff.count() << " ms without saying so";
      else
        VLOG(1) << "list of " << type_.resource << " still not served: " << status.ToString();
      not_served = true;
    } else if (need_list) {
      LOG(WARNING) << "list of " << type_.resource << " failed: " << status.ToString()
                   << "; retrying in " << backoff.count() << " ms";
    } else if (IsRetryable(status)) {
      // Watching again from the same resourceVersion may succeed: the stream
      // broke, the server is away or busy. Anything else (Forbidden,
      // BadRequest, NotFound for a CRD that went away, an unparsable frame)
      // is cured, if at all, by listing again.
      LOG(WARNING) << "watch of " << type_.resource << " failed: " << status.ToString()
                   << "; watching again from resourceVersion " << LastSyncResourceVersion()
                   << " in " << backoff.count() << " ms";
    } else {
      LOG(WARNING) << "watch of " << type_.resource << " failed: " << status.ToString()
                   << "; relisting in " << backoff.count() << " ms";
      need_list = true;
    }
    if (cancel_.WaitFor(backoff)) break;
    backoff = std::min(backoff * 2, options_.max_backoff);
  }
}

Status SharedInformer::List() {
  ListOptions list_options;
  list_options.label_selector = options_.label_selector;
  list_options.field_selector = options_.field_selector;
  list_options.limit = options_.page_size;
  Result<ObjectList> list = client_.ListAll(type_, options_.ns, list_options, {.cancel = &cancel_});
  if (!list.ok()) return list.status().WithContext("list " + type_.resource);
  if (cancel_.cancelled()) return {StatusCode::kCancelled, "stopped"};
  // Before Replace, so that HasSynced() never reads true while Connected()
  // still reads false.
  connected_ = true;
  Replace(std::move(list->items), list->resource_version);
  return Status::Ok();
}

Status SharedInformer::Watch(bool* progress) {
  // Spread the servers' watch endings so many informers do not all
  // reconnect at once.
  std::mt19937_64 random(std::random_device{}());
  const int64_t min_timeout = std::max<int64_t>(1, options_.watch_timeout.count());
  while (true) {
    ListOptions watch_options;
    watch_options.label_selector = options_.label_selector;
    watch_options.field_selector = options_.field_selector;
    watch_options.resource_version = LastSyncResourceVersion();
    watch_options.allow_watch_bookmarks = true;
    watch_options.start_bookmark = true;  // tells us the server took the watch
    watch_options.timeout_seconds =
        min_timeout + static_cast<int64_t>(random() % static_cast<uint64_t>(min_timeout));
    Status status = client_.Watch(
        type_, options_.ns, watch_options,
        [this, progress](WatchEvent& event) {
          *progress = true;
          connected_ = true;
          Apply(event);
          return true;
        },
        &cancel_);
    if (cancel_.cancelled()) return {StatusCode::kCancelled, "stopped"};
    if (!status.ok()) return status.WithContext("watch " + type_.resource);
    VLOG(1) << "watch of " << type_.resource << " ended; resuming at " << LastSyncResourceVersion();
  }
}

void SharedInformer::WaitForRoomLocked(std::unique_lock<std::mutex>& lock) {
  const size_t bound = std::max<size_t>(1, options_.max_backlog);
  cv_.wait(lock, [&] { return queue_.size() < bound || stopping_; });
}

void SharedInformer::Replace(std::vector<Object> items, const std::string& resource_version) {
  std::unique_lock lock(mu_);
  std::unordered_set<std::string> listed;
  listed.reserve(items.size());
  for (Object& item : items) {
    WaitForRoomLocked(lock);
    if (options_.transform) options_.transform(item);
    ObjectPtr object = ShareCompact(item);
    item = Object();  // the list's copy goes as soon as the cache has its own
    std::string key = KeyOf(*object);
    ObjectPtr old = cache_.Get(key);
    listed.insert(std::move(key));
    if (old == nullptr) {
      cache_.Upsert(object);
      EnqueueLocked(Notification::Kind::kAdd, nullptr, std::move(object));
    } else if (ResourceVersion(*old) != ResourceVersion(*object)) {
      cache_.Upsert(object);
      EnqueueLocked(Notification::Kind::kUpdate, std::move(old), std::move(object));
    }
  }
  for (const std::string& key : cache_.ListKeys()) {
    if (listed.count(key) != 0) continue;
    WaitForRoomLocked(lock);
    ObjectPtr gone = cache_.Remove(key);
    if (gone == nullptr) continue;
    EnqueueLocked(Notification::Kind::kDelete, nullptr, std::move(gone), -1,
                  /*final_state_unknown=*/true);
  }
  resource_version_ = resource_version;
  if (!synced_at_) synced_at_ = next_sequence_;
  cv_.notify_all();
}

void SharedInformer::Apply(WatchEvent& event) {
  std::string version(GetString(event.object, {"metadata", "resourceVersion"}));
  if (event.type == WatchEvent::Type::kBookmark) {
    std::lock_guard lock(mu_);
    if (!version.empty()) resource_version_ = std::move(version);
    return;
  }
  if (options_.transform) options_.transform(event.object);
  ObjectPtr object = ShareCompact(event.object);
  std::unique_lock lock(mu_);
  WaitForRoomLocked(lock);
  if (event.type == WatchEvent::Type::kDeleted) {
    if (cache_.Remove(KeyOf(*object)) != nullptr) {
      EnqueueLocked(Notification::Kind::kDelete, nullptr, object);
    }
  } else if (ObjectPtr old = cache_.Upsert(object)) {
    EnqueueLocked(Notification::Kind::kUpdate, std::move(old), object);
  } else {
    EnqueueLocked(Notification::Kind::kAdd, nullptr, object);
  }
  if (!version.empty()) resource_version_ = std::move(version);
  cv_.notify_all();
}

void SharedInformer::EnqueueLocked(Notification::Kind kind, ObjectPtr old_object, ObjectPtr object,
                                   int only_handler, bool final_state_unknown) {
  const bool was_empty = queue_.empty();
  queue_.push_back({kind, std::move(old_object), std::move(object), next_sequence_++, only_handler,
                    final_state_unknown});
  backlog_->Inc();
  // A shared dispatcher hears of an informer only when its queue stops being
  // empty; it keeps taking turns on it until the queue is empty again.
  if (was_empty && running_ && options_.dispatcher != nullptr) options_.dispatcher->Wake(this);
}

void SharedInformer::DispatchLoop() {
  const bool resync = options_.resync_period > Clock::Duration::zero();
  Clock& clock = *options_.clock;
  std::unique_lock lock(mu_);
  Clock::TimePoint next_resync = clock.Now() + options_.resync_period;
  while (!stopping_) {
    if (!queue_.empty()) {
      DeliverOne(lock);
      continue;
    }
    if (resync && clock.Now() >= next_resync) {
      // The queue is empty, so the cache is exactly what handlers have seen.
      if (synced_at_) {
        for (ObjectPtr& object : cache_.List()) {
          EnqueueLocked(Notification::Kind::kUpdate, object, object);
        }
      }
      next_resync = clock.Now() + options_.resync_period;
      continue;
    }
    if (resync) {
      clock.WaitUntil(cv_, lock, next_resync);
    } else {
      cv_.wait(lock);
    }
  }
}

void SharedInformer::DeliverOne(std::unique_lock<std::mutex>& lock) {
  Notification n = std::move(queue_.front());
  queue_.pop_front();
  backlog_->Dec();
  cv_.notify_all();  // room in the queue for a waiting watch or relist
  std::vector<std::shared_ptr<Registration>> registrations = registrations_;
  lock.unlock();
  Deliver(n, registrations);
  lock.lock();
  delivered_through_ = n.sequence + 1;
  cv_.notify_all();
}

SharedInformer::DispatchTurn SharedInformer::DispatchSome(size_t max) {
  const bool resync = options_.resync_period > Clock::Duration::zero();
  Clock& clock = *options_.clock;
  std::unique_lock lock(mu_);
  for (size_t delivered = 0; !stopping_ && delivered < max;) {
    if (!queue_.empty()) {
      DeliverOne(lock);
      ++delivered;
      continue;
    }
    if (!resync || clock.Now() < next_resync_) break;
    // As in DispatchLoop: the queue is empty, so the cache is what handlers
    // have seen.
    if (synced_at_) {
      for (ObjectPtr& object : cache_.List()) {
        EnqueueLocked(Notification::Kind::kUpdate, object, object);
      }
    }
    next_resync_ = clock.Now() + options_.resync_period;
  }
  DispatchTurn turn;
  if (stopping_) return turn;
  turn.more = !queue_.empty();
  if (resync) turn.next_resync = next_resync_;
  return turn;
}

void SharedInformer::Deliver(const Notification& n,
                             const std::vector<std::shared_ptr<Registration>>& registrations) {
  for (size_t i = 0; i < registrations.size(); ++i) {
    const Registration& r = *registrations[i];
    if (n.only_handler >= 0 ? n.only_handler != static_cast<int>(i)
                            : n.sequence < r.first_sequence) {
      continue;
    }
    switch (n.kind) {
      case Notification::Kind::kAdd:
        if (r.handler.on_add) r.handler.on_add(n.object);
        break;
      case Notification::Kind::kUpdate:
        if (r.handler.on_update) r.handler.on_update(n.old_object, n.object);
        break;
      case Notification::Kind::kDelete:
        if (r.handler.on_delete) r.handler.on_delete(n.object);
        if (r.handler.on_deletion) r.handler.on_deletion({n.object, n.final_state_unknown});
        break;
    }
  }
}

}  // namespace vtenant::kube
