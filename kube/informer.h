// SharedInformer: a local, always-converging copy of one resource type, and
// the events that tell controllers what changed.
//
// It lists the objects (page by page), then watches from the list's
// resourceVersion, keeping a thread-safe cache keyed "namespace/name" (KeyOf)
// of immutable objects. Bookmarks move the resume point forward without an
// event. When the watch ends, normally or with an error (connection lost,
// server unavailable, throttled), it watches again from the last
// resourceVersion, with backoff while the server is unreachable: a blip
// costs no relist. Only on 410 Gone (history compacted, API server restarted
// on a fresh etcd), or an error that re-watching cannot cure (Forbidden,
// BadRequest, ...), does it list again and diff the new list against the
// cache, so handlers see the adds, updates and deletes they missed; a delete
// found that way is marked final_state_unknown. The cache and the handlers
// therefore converge to the server's state even across API server restarts.
// A list that fails is tried again with backoff, each failure logged, but
// a kind the server does not serve (404: a CRD not installed) is logged
// once, looked for quietly until it is served, and its arrival logged.
//
// Handlers run on one dispatcher thread, in the order the changes reached the
// cache, never concurrently with each other: a thread of the informer's own,
// or an EventDispatcher's shared with other informers
// (InformerOptions::dispatcher). Notifications wait in a queue
// of at most InformerOptions::max_backlog; when it is full the watch and the
// relist wait for the handlers (back-pressure, nothing dropped), so a slow
// handler slows the informer rather than growing memory without bound. The
// queue's length is the gauge vtenant_informer_backlog{resource}. Handlers
// should only record the change (typically `queue.Add(KeyOf(*obj))` on a
// WorkQueue) and leave the work to workers.
//
// Typical use, several controllers sharing one informer:
//   SharedInformer pods(client, resources::kPods, {.resync_period = 10min});
//   pods.AddIndexer("node", [](const Object& o) { ... return {nodeName}; });
//   pods.AddEventHandler({.on_add = [&](const ObjectPtr& o) { q.Add(KeyOf(*o)); }, ...});
//   pods.Run();
//   if (!pods.WaitForSynced(std::chrono::minutes(1))) ...;
//   ObjectPtr pod = pods.cache().Get("default/trainer");
//   ...
//   pods.Stop();
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "kube/cancellation.h"
#include "kube/client.h"
#include "kube/clock.h"
#include "kube/event_dispatcher.h"
#include "kube/metrics.h"
#include "kube/object.h"
#include "kube/resource.h"

namespace vtenant::kube {

// Rewrites an object before the informer caches it (client-go's
// SetTransform), typically to drop fields no reader of the cache needs, such
// as metadata.managedFields, so a cache of many objects costs less memory.
// Must be a pure function of the object and keep metadata.name, namespace
// and resourceVersion.
using TransformFunc = std::function<void(Object&)>;

// The transform most caches want: removes metadata.managedFields (often a
// third of a pod's JSON), which only server-side apply reads. Safe for
// objects later written back whole with Update: a PUT without managedFields
// leaves the server's own unchanged.
void DropManagedFields(Object& object);

// Maps an object to the values it is indexed under (e.g. a pod to its node
// name). Must be a pure function of the object; may return no values.
using IndexFunc = std::function<std::vector<std::string>(const Object&)>;

// How a Cache holds its objects.
enum class CacheStorage {
  // Parsed documents, handed to readers as they are: a read costs nothing.
  kDocuments,
  // Compact JSON text, parsed again on every read (Get, List, ByIndex, the
  // objects Upsert and Remove return). A RapidJSON document takes about 1.8
  // times its text, so a cache of many objects read now and then (a
  // per-tenant process caching every pod) holds them in about half the
  // memory, for a few microseconds per object read. Each read returns a
  // fresh copy: compare objects by content, never by pointer.
  kJsonText,
  // The same text deflated against the first object the cache stored
  // (kube/deflate.h): objects of one kind share most of their bytes, so a
  // pod's 1.4 KiB of text keeps about 150 bytes. A read inflates, then
  // parses, a few microseconds more than kJsonText; a store deflates.
  kCompressedJsonText,
};

// A thread-safe map from KeyOf(object) to the object, with secondary indices.
// Objects are shared and immutable: readers keep an ObjectPtr as long as they
// like while the cache moves on.
class Cache {
 public:
  explicit Cache(CacheStorage storage = CacheStorage::kDocuments) : storage_(storage) {}

  // Adds the index `name`. Fails with AlreadyExists for a duplicate name.
  // Objects already cached are indexed at once.
  Status AddIndexer(const std::string& name, IndexFunc fn);

  // The object stored under `key`, or nullptr.
  ObjectPtr Get(std::string_view key) const;
  // Every object, in key order.
  std::vector<ObjectPtr> List() const;
  // Every key, in order.
  std::vector<std::string> ListKeys() const;
  size_t Size() const;

  // The objects whose index `index` produced `value`, in key order. Fails
  // with NotFound when no such index was added.
  Result<std::vector<ObjectPtr>> ByIndex(std::string_view index, std::string_view value) const;
  // How many objects ByIndex would return, without reading them. NotFound
  // as above.
  Result<size_t> CountByIndex(std::string_view index, std::string_view value) const;
  // The values index `index` currently holds, sorted. NotFound as above.
  Result<std::vector<std::string>> IndexValues(std::string_view index) const;

  // Stores `object` under its key; returns the object it replaced (or nullptr).
  ObjectPtr Upsert(ObjectPtr object);
  // Removes `key`; returns the removed object (or nullptr when absent).
  ObjectPtr Remove(std::string_view key);

 private:
  // One cached object: `object` with kDocuments, `text` otherwise (deflated
  // with kCompressedJsonText).
  struct Entry {
    ObjectPtr object;
    std::string text;
  };

  Entry Store(ObjectPtr object) const;
  // The object of `entry`; parses its text with kJsonText.
  ObjectPtr Read(const Entry& entry) const;
  void IndexLocked(const std::string& key, const Object& object);
  void UnindexLocked(const std::string& key, const Object& object);

  struct Index {
    IndexFunc fn;
    std::map<std::string, std::set<std::string>, std::less<>> keys_by_value;
  };

  const CacheStorage storage_;
  // kCompressedJsonText: the first stored object's text, set once before
  // any entry that needs it is stored and never changed.
  mutable std::once_flag dictionary_once_;
  mutable std::string dictionary_;
  mutable std::shared_mutex mu_;
  std::map<std::string, Entry, std::less<>> items_;
  std::map<std::string, Index, std::less<>> indices_;
};

// A delete as the informer learned of it.
struct Deletion {
  // The last state the informer saw.
  ObjectPtr object;
  // True when no watch event reported the delete: a relist found the object
  // gone (its DELETED event fell into a gap in the watch). `object` is then
  // the last cached state, which may be older than the object's final state
  // on the server (client-go's DeletedFinalStateUnknown).
  bool final_state_unknown = false;
};

// What a controller wants to hear about. Any member may be empty.
struct EventHandler {
  // A new object, from the initial list, a watch or a relist.
  std::function<void(const ObjectPtr& object)> on_add;
  // A changed object; also every cached object (old == now) on each resync.
  std::function<void(const ObjectPtr& old, const ObjectPtr& now)> on_update;
  // A deleted object, as last seen. After a relist this is the last cached
  // state, which may be older than the object's final state on the server.
  std::function<void(const ObjectPtr& object)> on_delete;
  // The same delete with how it was learned (see Deletion); called after
  // on_delete when both are set.
  std::function<void(const Deletion& deletion)> on_deletion;
};

struct InformerOptions {
  std::string ns;  // empty: all namespaces (or a cluster-scoped type)
  std::string label_selector;
  std::string field_selector;
  // Every period, on_update(o, o) for every cached object, so level-triggered
  // controllers revisit everything even if an event was lost to a bug.
  // Zero disables it.
  Clock::Duration resync_period = Clock::Duration::zero();
  // Page size of lists; 0 lists everything at once.
  int64_t page_size = 500;
  // The server ends each watch after between this and twice this long
  // (random, so many informers do not reconnect at once) and it is resumed,
  // which keeps a stuck connection from going unnoticed forever.
  std::chrono::seconds watch_timeout = std::chrono::minutes(5);
  // Backoff between failed list-and-watch rounds: doubles from initial up to
  // max, and starts again once a list succeeds or a watch is accepted.
  std::chrono::milliseconds initial_backoff = std::chrono::milliseconds(200);
  std::chrono::milliseconds max_backoff = std::chrono::seconds(10);
  // Most notifications waiting for the handlers; at the bound the watch and
  // relists wait (see the header comment). At least 1.
  size_t max_backlog = 10000;
  // Times resyncs. Must outlive the informer.
  Clock* clock = &DefaultClock();
  // Where the backlog gauge is registered. Must outlive the informer.
  Registry* registry = &DefaultRegistry();
  // Applied to every listed and watched object before it is cached and
  // handed to handlers (see TransformFunc). Empty: objects are cached as the
  // server sent them.
  TransformFunc transform;
  // How the cache holds objects (see CacheStorage).
  CacheStorage cache_storage = CacheStorage::kDocuments;
  // Delivers the events on this shared thread instead of one of the
  // informer's own (see EventDispatcher). Must outlive the informer and use
  // the same clock. nullptr: a thread of its own.
  EventDispatcher* dispatcher = nullptr;
};

class SharedInformer {
 public:
  // `client` must outlive the informer.
  SharedInformer(Client& client, ResourceType type, InformerOptions options = {});
  // Stops.
  ~SharedInformer();

  SharedInformer(const SharedInformer&) = delete;
  SharedInformer& operator=(const SharedInformer&) = delete;

  // Adds a custom index to the cache (see Cache::AddIndexer).
  Status AddIndexer(const std::string& name, IndexFunc fn) { return cache_.AddIndexer(name, fn); }

  // Registers a handler. Added after Run, it first gets on_add for every
  // object already cached, then the changes that follow, in order.
  void AddEventHandler(EventHandler handler);

  // Starts listing and watching on threads of its own and returns at once.
  // Fails with FailedPrecondition when called twice, or when its dispatcher
  // uses another clock.
  Status Run();

  // Stops the watch, the relists and the dispatcher promptly and joins their
  // threads; notifications not yet delivered are dropped. Waits for a
  // running handler to return, so it must not be called from a handler.
  // Idempotent.
  void Stop();

  // True once the first list is in the cache and every handler registered
  // before it has been given its objects. Stays true across relists.
  bool HasSynced() const;

  // Waits until HasSynced() or `timeout` passes (or Stop); returns HasSynced().
  bool WaitForSynced(std::chrono::milliseconds timeout) const;

  // Whether the last list or watch of the server succeeded: false from the
  // moment a list or watch fails (the API server went away) until a list
  // succeeds or a watch is accepted again. The cache keeps serving meanwhile; this is what a
  // readiness check reports.
  bool Connected() const { return connected_.load(); }

  // The cache, for reads. Changes only through the informer.
  const Cache& cache() const { return cache_; }

  // The resourceVersion the watch resumes from ("" before the first list).
  std::string LastSyncResourceVersion() const;

 private:
  friend class EventDispatcher;

  // What one EventDispatcher turn left: whether notifications still wait,
  // and when the informer resyncs next (nullopt: never, or stopping).
  struct DispatchTurn {
    bool more = false;
    std::optional<Clock::TimePoint> next_resync;
  };

  struct Notification {
    enum class Kind { kAdd, kUpdate, kDelete } kind;
    ObjectPtr old_object;
    ObjectPtr object;
    uint64_t sequence;
    // Handler index for a handler's catch-up adds; -1 for everyone.
    int only_handler;
    // kDelete only: found by a relist, not reported by a watch.
    bool final_state_unknown = false;
  };
  struct Registration {
    EventHandler handler;
    uint64_t first_sequence;  // broadcasts before this were before its time
  };

  void ReflectorLoop();
  // Lists everything into the cache (Replace).
  Status List();
  // Watches from the last resourceVersion until an error or Stop; resumes
  // after streams the server ends normally. Sets `*progress` once a watch was
  // accepted.
  Status Watch(bool* progress);
  // Makes the cache equal to `items`, queueing the differences.
  void Replace(std::vector<Object> items, const std::string& resource_version);
  // Applies one watch event to the cache and queues its notification.
  void Apply(WatchEvent& event);
  void EnqueueLocked(Notification::Kind kind, ObjectPtr old_object, ObjectPtr object,
                     int only_handler = -1, bool final_state_unknown = false);
  // Waits while the queue is at max_backlog (or until Stop).
  void WaitForRoomLocked(std::unique_lock<std::mutex>& lock);
  void DispatchLoop();
  // Delivers up to `max` notifications (and a resync that is due) on the
  // calling EventDispatcher thread.
  DispatchTurn DispatchSome(size_t max);
  // Takes the queue's front off and delivers it, with `lock` (on mu_)
  // released meanwhile.
  void DeliverOne(std::unique_lock<std::mutex>& lock);
  void Deliver(const Notification& n, const std::vector<std::shared_ptr<Registration>>& regs);

  Client& client_;
  const ResourceType type_;
  const InformerOptions options_;
  Cache cache_;
  Cancellation cancel_;

  // Guards the notification queue, handlers, the resume point and the sync
  // state. Cache writes happen under it too, so a resync snapshot and the
  // queue agree on order.
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::deque<Notification> queue_;
  std::vector<std::shared_ptr<Registration>> registrations_;
  uint64_t next_sequence_ = 0;
  uint64_t delivered_through_ = 0;     // every notification below this was delivered
  std::optional<uint64_t> synced_at_;  // sequence that ends the first list
  std::string resource_version_;
  bool running_ = false;
  bool stopping_ = false;
  uint64_t waker_ = 0;
  std::atomic<bool> connected_{false};
  Clock::TimePoint next_resync_;  // with options_.dispatcher only
  Gauge* backlog_ = nullptr;      // queue_.size() of every informer of this resource

  std::thread reflector_;
  std::thread dispatcher_;
};

}  // namespace vtenant::kube
