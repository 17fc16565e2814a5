// Client: the Kubernetes API as every vtenant program sees it.
//
// A pure interface so reconcilers can be unit-tested against an in-memory
// implementation (FakeClient, kube/testing/); RestClient (rest_client.h) is
// the real one. All calls are synchronous and thread-safe. API errors come
// back as Status with the code of the server's Status reason (NotFound,
// AlreadyExists, Conflict, Gone, Invalid, Forbidden, TooManyRequests, ...)
// and the server's message.
//
// Every call but Watch takes CallOptions last (call_options.h): a deadline
// that covers its retries, and a Cancellation. A call past its deadline
// returns Timeout; a cancelled one returns Cancelled. Defaulted, so callers
// that need neither write nothing and get the client's default deadline.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "kube/call_options.h"
#include "kube/cancellation.h"
#include "kube/object.h"
#include "kube/resource.h"

namespace vtenant::kube {

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  int64_t limit = 0;  // page size; 0 = server default (everything)
  std::string continue_token;
  std::string resource_version;        // list: consistency; watch: where to resume
  std::string resource_version_match;  // "NotOlderThan" / "Exact"
  int64_t timeout_seconds = 0;         // watch: server ends the stream after this
  bool allow_watch_bookmarks = true;
  // Watch: the handler's first event is a BOOKMARK carrying resource_version,
  // delivered as soon as the server has accepted the watch, so the caller
  // knows the stream is up before anything changes. Not sent to the server.
  bool start_bookmark = false;
};

struct ObjectList {
  std::vector<Object> items;
  std::string resource_version;  // of the list, to start a watch from
  std::string continue_token;    // non-empty when more pages remain
};

enum class PatchType {
  kMerge,           // application/merge-patch+json (RFC 7386)
  kJson,            // application/json-patch+json (RFC 6902)
  kStrategicMerge,  // application/strategic-merge-patch+json (built-in types only)
  kApply,           // server-side apply (application/apply-patch+yaml; JSON is YAML)
};

struct PatchOptions {
  std::string field_manager = "vtenant";  // required by server-side apply
  bool force = false;                     // server-side apply: take over conflicting fields
  std::string subresource;                // "status", or empty
};

struct DeleteOptions {
  std::string precondition_uid;               // delete only this incarnation
  std::string precondition_resource_version;  // delete only this version
  std::string propagation_policy;             // "Foreground", "Background", "Orphan"
  std::optional<int64_t> grace_period_seconds;
};

struct WatchEvent {
  enum class Type { kAdded, kModified, kDeleted, kBookmark };
  Type type;
  Object object;
};

// The name a watch stream gives `type`: "ADDED", "MODIFIED", "DELETED" or
// "BOOKMARK".
std::string_view WatchEventTypeName(WatchEvent::Type type);

// Called for each event as it arrives; return false to end the watch.
using WatchHandler = std::function<bool(WatchEvent& event)>;

class Client {
 public:
  virtual ~Client() = default;

  virtual Result<Object> Get(const ResourceType& type, std::string_view ns, std::string_view name,
                             const CallOptions& call = {}) = 0;

  // One page of a list. ListAll() follows continue tokens.
  virtual Result<ObjectList> List(const ResourceType& type, std::string_view ns,
                                  const ListOptions& options = {},
                                  const CallOptions& call = {}) = 0;

  // POST to the collection, or to a subresource of `object`'s name (e.g.
  // "binding", "eviction") when `subresource` is set.
  virtual Result<Object> Create(const ResourceType& type, std::string_view ns,
                                const rapidjson::Value& object, std::string_view subresource = {},
                                const CallOptions& call = {}) = 0;

  // PUT by metadata.name; the object's resourceVersion makes it conflict-aware.
  // `subresource` "status" writes only the status.
  virtual Result<Object> Update(const ResourceType& type, std::string_view ns,
                                const rapidjson::Value& object, std::string_view subresource = {},
                                const CallOptions& call = {}) = 0;

  virtual Result<Object> Patch(const ResourceType& type, std::string_view ns, std::string_view name,
                               PatchType patch_type, std::string_view patch,
                               const PatchOptions& options = {}, const CallOptions& call = {}) = 0;

  virtual Status Delete(const ResourceType& type, std::string_view ns, std::string_view name,
                        const DeleteOptions& options = {}, const CallOptions& call = {}) = 0;

  // Streams events until the server ends the stream (OK), the handler
  // returns false (OK), `cancel` fires (Cancelled) or the resourceVersion is
  // too old (Gone: relist and start again). Any other failure ends it with
  // its error: a refused watch (the code of the server's answer), an ERROR
  // event, a frame that is not JSON or of an unknown type, a lost
  // connection. No deadline: options.timeout_seconds asks the server to end
  // the stream.
  virtual Status Watch(const ResourceType& type, std::string_view ns, const ListOptions& options,
                       const WatchHandler& handler, Cancellation* cancel = nullptr) = 0;

  // Every item across all pages. `call` applies to each page.
  Result<ObjectList> ListAll(const ResourceType& type, std::string_view ns,
                             ListOptions options = {}, const CallOptions& call = {});

  // Read-modify-write that survives concurrent writers: reads the object,
  // applies `mutate`, writes it back (status subresource if `subresource`),
  // and on 409 Conflict reads again and retries, up to `attempts` times.
  // `mutate` returning a non-OK status aborts without writing. `call`
  // applies to each read and write.
  Result<Object> UpdateWithRetry(const ResourceType& type, std::string_view ns,
                                 std::string_view name,
                                 const std::function<Status(Object&)>& mutate,
                                 std::string_view subresource = {}, int attempts = 8,
                                 const CallOptions& call = {});

  // Binds a pending pod to a node (pods/binding), as a scheduler does. The
  // API server merges `annotations` into the pod's own in the same write,
  // so a pod can be bound and annotated with one event.
  Status Bind(std::string_view ns, std::string_view pod, std::string_view node,
              const std::map<std::string, std::string>& annotations = {},
              const CallOptions& call = {});

  // Evicts a pod through the eviction API, honouring PodDisruptionBudgets.
  // A budget's refusal is TooManyRequests; a caller that acts on it rather
  // than waiting it out sets call.retry_too_many_requests to false.
  Status Evict(std::string_view ns, std::string_view pod, const CallOptions& call = {});
};

}  // namespace vtenant::kube
