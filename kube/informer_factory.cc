#include "kube/informer_factory.h"

#include <glog/logging.h>

namespace vtenant::kube {

InformerFactory::InformerFactory(Client& client, InformerOptions defaults)
    : client_(client), defaults_(std::move(defaults)) {}

InformerFactory::~InformerFactory() { Stop(); }

InformerFactory::Key InformerFactory::KeyFor(const ResourceType& type,
                                             const InformerOptions& options) {
  return {type.group + "/" + type.version, type.resource, options.ns, options.label_selector,
          options.field_selector};
}

std::string InformerFactory::Describe(const Key& key) {
  const auto& [group_version, resource, ns, labels, fields] = key;
  std::string out = resource;
  if (!ns.empty()) out += " in " + ns;
  if (!labels.empty()) out += " [" + labels + "]";
  if (!fields.empty()) out += " [" + fields + "]";
  return out;
}

SharedInformer& InformerFactory::Get(const ResourceType& type, const InformerOptions& options) {
  std::lock_guard lock(mu_);
  optional_.erase(KeyFor(type, options));
  return GetLocked(type, options);
}

SharedInformer& InformerFactory::GetOptional(const ResourceType& type,
                                             const InformerOptions& options) {
  std::lock_guard lock(mu_);
  Key key = KeyFor(type, options);
  if (!informers_.contains(key)) optional_.insert(key);
  return GetLocked(type, options);
}

SharedInformer& InformerFactory::GetLocked(const ResourceType& type,
                                           const InformerOptions& options) {
  Key key = KeyFor(type, options);
  auto it = informers_.find(key);
  if (it != informers_.end()) return *it->second;
  InformerOptions merged = defaults_;
  merged.ns = options.ns;
  merged.label_selector = options.label_selector;
  merged.field_selector = options.field_selector;
  if (options.resync_period != Clock::Duration::zero())
    merged.resync_period = options.resync_period;
  if (options.transform) merged.transform = options.transform;
  auto informer = std::make_unique<SharedInformer>(client_, type, merged);
  SharedInformer& ref = *informer;
  informers_.emplace(std::move(key), std::move(informer));
  if (started_) {
    Status status = ref.Run();
    if (!status.ok()) LOG(ERROR) << "informer for " << type.resource << ": " << status.ToString();
  }
  return ref;
}

Status InformerFactory::Start() {
  std::lock_guard lock(mu_);
  started_ = true;
  for (auto& [key, informer] : informers_) {
    Status status = informer->Run();
    // Run refuses a second start; that is what makes Start idempotent.
    if (!status.ok() && status.code() != StatusCode::kFailedPrecondition) return status;
  }
  return Status::Ok();
}

void InformerFactory::Stop() {
  std::vector<SharedInformer*> all;
  {
    std::lock_guard lock(mu_);
    for (auto& [key, informer] : informers_) all.push_back(informer.get());
  }
  for (SharedInformer* informer : all) informer->Stop();
}

bool InformerFactory::WaitForSynced(std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<SharedInformer*> all;
  {
    std::lock_guard lock(mu_);
    for (const auto& [key, informer] : informers_) {
      if (!optional_.contains(key)) all.push_back(informer.get());
    }
  }
  for (SharedInformer* informer : all) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (!informer->WaitForSynced(std::max(left, std::chrono::milliseconds(0)))) return false;
  }
  return true;
}

Status InformerFactory::Healthy() const {
  std::lock_guard lock(mu_);
  std::string not_ready;
  for (const auto& [key, informer] : informers_) {
    if (optional_.contains(key)) continue;
    const char* why = !informer->HasSynced()   ? "not synced"
                      : !informer->Connected() ? "disconnected"
                                               : nullptr;
    if (why == nullptr) continue;
    if (!not_ready.empty()) not_ready += ", ";
    not_ready += Describe(key) + " " + why;
  }
  if (not_ready.empty()) return Status::Ok();
  return Unavailable(not_ready);
}

size_t InformerFactory::size() const {
  std::lock_guard lock(mu_);
  return informers_.size();
}

std::map<std::string, size_t> InformerFactory::CachedObjects() const {
  std::lock_guard lock(mu_);
  std::map<std::string, size_t> objects;
  for (const auto& [key, informer] : informers_) {
    objects[std::get<1>(key)] += informer->cache().Size();
  }
  return objects;
}

}  // namespace vtenant::kube
