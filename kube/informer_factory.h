// InformerFactory: the informers of one API server, shared by every
// controller of a program that asks for the same thing.
//
// Two controllers that both watch pods in namespace "team-a" get the same
// SharedInformer, so the program lists and watches once and keeps one copy
// of each object. An informer is identified by its resource type, namespace,
// label selector and field selector. Its other options are the factory's
// defaults, but for a non-zero resync period, which the first caller's sets;
// a later caller's resync period is ignored. Thread-safe.
//
// Typical use (a Manager owns one factory per cluster):
//   InformerFactory factory(client);
//   SharedInformer& pods = factory.Get(resources::kPods, {.ns = "team-a"});
//   controller.Watch(pods);
//   factory.Start();
//   factory.WaitForSynced(std::chrono::minutes(1));
//   ...
//   factory.Stop();
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "base/status.h"
#include "kube/client.h"
#include "kube/informer.h"
#include "kube/resource.h"

namespace vtenant::kube {

class InformerFactory {
 public:
  // `client` must outlive the factory. `defaults` fills the options of
  // informers created by Get (their namespace, selectors, and a non-zero
  // resync period or a transform when given, come from the caller; the
  // first request of an informer decides its transform).
  explicit InformerFactory(Client& client, InformerOptions defaults = {});
  // Stops every informer.
  ~InformerFactory();

  InformerFactory(const InformerFactory&) = delete;
  InformerFactory& operator=(const InformerFactory&) = delete;

  // The informer of `type` for the namespace and selectors of `options`,
  // created on first request and shared afterwards. Requested after Start,
  // it is started at once (a failure to start is logged). The reference
  // stays valid until the factory is destroyed.
  SharedInformer& Get(const ResourceType& type, const InformerOptions& options = {});

  // Get for a resource that may not be served yet, or ever (a CRD installed
  // later, or not at all): the informer lists until it is there, and does
  // not count for WaitForSynced or Healthy, so its absence holds back no
  // program. One also asked for with Get counts.
  SharedInformer& GetOptional(const ResourceType& type, const InformerOptions& options = {});

  // Starts every informer not yet running. Idempotent.
  Status Start();

  // Stops every informer (see SharedInformer::Stop). Idempotent.
  void Stop();

  // Waits until every informer has synced, at most `timeout` in all; returns
  // whether they all did.
  bool WaitForSynced(std::chrono::milliseconds timeout) const;

  // OK when every informer has synced and its last list or watch succeeded;
  // otherwise Unavailable naming the informers that are not (what /readyz
  // reports while an API server is away).
  Status Healthy() const;

  // How many distinct informers exist.
  size_t size() const;

  // The objects the caches hold now, by resource (plural, as in the API),
  // summed over that resource's informers.
  std::map<std::string, size_t> CachedObjects() const;

  Client& client() { return client_; }

 private:
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string>;
  static Key KeyFor(const ResourceType& type, const InformerOptions& options);
  static std::string Describe(const Key& key);
  // Get and GetOptional's common part; mu_ held.
  SharedInformer& GetLocked(const ResourceType& type, const InformerOptions& options);

  Client& client_;
  const InformerOptions defaults_;
  mutable std::mutex mu_;
  std::map<Key, std::unique_ptr<SharedInformer>> informers_;
  // Informers only ever asked for with GetOptional.
  std::set<Key> optional_;
  bool started_ = false;
};

}  // namespace vtenant::kube
