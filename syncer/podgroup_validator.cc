#include "syncer/podgroup_validator.h"

#include "syncer/gang.h"

namespace vtenant::syncer {

PodGroupValidator::PodGroupValidator(SyncerInformers& informers, const SyncerConfig& config,
                                     kube::EventRecorder& events)
    : informers_(informers), config_(config), events_(events) {}

Result<kube::ReconcileResult> PodGroupValidator::Reconcile(const std::string& key) {
  kube::ObjectPtr pg = informers_.Virtual(kube::resources::kPodGroups).cache().Get(key);
  if (pg == nullptr) {
    std::lock_guard lock(mu_);
    warned_.erase(key);
    return kube::ReconcileResult{};
  }
  Result<Gang> gang = GangOfPodGroup(*pg, kube::Namespace(*pg), config_);
  const std::string version =
      std::string(kube::Uid(*pg)) + "/" + std::string(kube::ResourceVersion(*pg));
  {
    std::lock_guard lock(mu_);
    if (gang.ok()) {
      warned_.erase(key);
      return kube::ReconcileResult{};
    }
    if (auto it = warned_.find(key); it != warned_.end() && it->second == version) {
      return kube::ReconcileResult{};
    }
    warned_[key] = version;
  }
  events_.Warning(*pg, "InvalidGang",
                  gang.status().message() +
                      "; its new pods are not synced to the host until it is fixed, and a host "
                      "PodGroup already made for it keeps its last accepted spec");
  return kube::ReconcileResult{};
}

}  // namespace vtenant::syncer
