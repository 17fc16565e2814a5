// FakeClient: an in-memory API server behind the Client interface, for unit
// tests of informers, reconcilers and anything else that talks to Kubernetes.
//
// It keeps what a real server keeps for the behaviour controllers depend on:
// a global resourceVersion that grows with every write, uids, generation
// (bumped when anything but metadata and status changes), optimistic
// concurrency (a stale resourceVersion on update is a Conflict), delete
// preconditions, finalizers (delete marks deletionTimestamp; the object goes
// when its last finalizer is removed), the status subresource (updates of
// the main resource keep the stored status; "status" updates change only
// status), pods/binding and pods/eviction, paginated lists, label and field
// selectors, and watches that replay history from a resourceVersion, deliver
// new events as they happen and answer Gone once history is compacted.
//
// What it does not do: validation, defaulting, admission, garbage collection
// by owner references, field ownership. Server-side apply and strategic
// merge patches are applied as JSON merge patches (apply creates a missing
// object). A watch with a label selector sees the events of matching objects
// only; an object that stops matching is not reported as deleted. Tests that
// depend on any of these use a real API server (localenv/).
//
// Every call honours its CallOptions: a cancelled call returns Cancelled and
// one past its deadline (on the clock given at construction) returns
// Timeout; they only wait while HoldCalls is on, as calls to a hung server
// do (hung_server.h, as FakeTransport::Hang). Without a deadline or timeout
// in its CallOptions a call has none.
//
// Test controls inject errors, hold calls, end or hold watch streams,
// compact history and count calls. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "kube/client.h"
#include "kube/clock.h"

namespace vtenant::kube {

class FakeClient final : public Client {
 public:
  // `clock` times the calls' deadlines; it must outlive the client.
  explicit FakeClient(Clock* clock = &DefaultClock());
  // Ends open watches; no call may still be running.
  ~FakeClient() override;

  // kube::Client's calls, declared again as every implementation
  // (RestClient too) must.
  Result<Object> Get(const ResourceType& type, std::string_view ns, std::string_view name,
                     const CallOptions& call = {}) override;
  Result<ObjectList> List(const ResourceType& type, std::string_view ns,
                          const ListOptions& options = {}, const CallOptions& call = {}) override;
  Result<Object> Create(const ResourceType& type, std::string_view ns,
                        const rapidjson::Value& object, std::string_view subresource = {},
                        const CallOptions& call = {}) override;
  Result<Object> Update(const ResourceType& type, std::string_view ns,
                        const rapidjson::Value& object, std::string_view subresource = {},
                        const CallOptions& call = {}) override;
  Result<Object> Patch(const ResourceType& type, std::string_view ns, std::string_view name,
                       PatchType patch_type, std::string_view patch,
                       const PatchOptions& options = {}, const CallOptions& call = {}) override;
  Status Delete(const ResourceType& type, std::string_view ns, std::string_view name,
                const DeleteOptions& options = {}, const CallOptions& call = {}) override;
  // Blocks like a real watch. With resource_version "" or "0" it starts with
  // an ADDED event per existing object; otherwise it replays the events after
  // that version (Gone if they were compacted) and then follows new ones.
  // Ends OK after options.timeout_seconds of real time, on EndWatches(), or
  // when the handler returns false; Cancelled when `cancel` fires.
  Status Watch(const ResourceType& type, std::string_view ns, const ListOptions& options,
               const WatchHandler& handler, Cancellation* cancel = nullptr) override;

  // ---- test controls

  // Answers a create of `subresource` of an existing object of `resource`
  // (plural), e.g. ("serviceaccounts", "token"), which the fake does not
  // model itself: `handler` gets the namespace, the object's name and the
  // request body, and its result is the call's. It runs with the client's
  // lock held, so it must not call the client. Replaces an earlier handler.
  using SubresourceHandler = std::function<Result<Object>(
      std::string_view ns, std::string_view name, const rapidjson::Value& body)>;
  void HandleSubresource(std::string resource, std::string subresource, SubresourceHandler handler);

  // The next `times` calls of `verb` ("get", "list", "create", "update",
  // "patch", "delete", "watch") on `resource` (plural; "" for any) fail with
  // `status` before doing anything. times < 0: until ClearErrors().
  void InjectError(std::string verb, std::string resource, Status status, int times = 1);
  void ClearErrors();

  // While held, every call but Watch waits, as calls to a server that
  // accepts connections and never answers: until released (then it runs),
  // cancelled (Cancelled) or past its deadline (Timeout). The wait happens
  // before the call is counted or any injected error applies.
  void HoldCalls(bool hold);

  // Calls waiting because of HoldCalls now.
  int HeldCalls() const;

  // Ends every open watch stream normally, as a server does at its timeout.
  void EndWatches();

  // Forgets the event history up to now: a watch resuming from an older
  // version gets Gone, as after etcd compaction or an API server restart.
  void Compact();

  // While held, open watches deliver nothing and new watches wait; events
  // are kept and delivered on release (unless compacted and ended first).
  void HoldWatches(bool hold);

  // Sends a BOOKMARK with the current resourceVersion to every open watch
  // that allows bookmarks.
  void SendBookmarks();

  // How many calls of `verb` (as in InjectError) were made, errors included.
  int Calls(std::string_view verb) const;

  // The latest resourceVersion handed out.
  int64_t CurrentResourceVersion() const;

  // Watches currently open (waiting for or delivering events).
  int OpenWatches() const;

 private:
  struct State;
  struct Event;

  std::shared_ptr<State> state_;
  Clock* clock_;
  uint64_t waker_;
};

// Applies JSON Patch `patch` (RFC 6902: add, remove, replace, move, copy,
// test) to `doc` as the fake server applies a PatchType::kJson: all of it
// or, on the first failing operation, none (Invalid or BadRequest).
Status ApplyJsonPatch(Object& doc, const rapidjson::Value& patch);

}  // namespace vtenant::kube
