#include "syncer/node_syncer.h"

namespace vtenant::syncer {

using kube::resources::kNodes;

NodeSyncer::NodeSyncer(SyncerInformers& informers, const SyncerConfig& config, SyncMetrics& metrics)
    : informers_(informers),
      metrics_(metrics),
      translator_(config.kubelet_address, config.kubelet_port) {}

Result<kube::ReconcileResult> NodeSyncer::Reconcile(const std::string& key) {
  Result<size_t> pods =
      informers_.Virtual(kube::resources::kPods).cache().CountByIndex(kNodeIndex, key);
  Result<size_t> host_pods =
      informers_.Host(kube::resources::kPods).cache().CountByIndex(kNodeIndex, key);
  bool used = (pods.ok() && *pods > 0) || (host_pods.ok() && *host_pods > 0);
  kube::ObjectPtr host = informers_.Host(kNodes).cache().Get(key);
  kube::ObjectPtr virt = informers_.Virtual(kNodes).cache().Get(key);
  if (used && host != nullptr) {
    VT_RETURN_IF_ERROR(Ensure(key));
    return kube::ReconcileResult{};
  }
  // Unused, or gone from the host: the mirror goes (pods still bound to a
  // node the host lost are failed by the pod syncer first).
  if (virt != nullptr && IsManagedNode(*virt) && !used) {
    Status s = informers_.virtual_client().Delete(
        kNodes, "", key, {.precondition_uid = std::string(kube::Uid(*virt))});
    if (!s.ok() && s.code() != StatusCode::kNotFound) {
      metrics_.Error("Node", s);
      return s;
    }
    metrics_.Synced("Node", "delete");
  }
  return kube::ReconcileResult{};
}

Status NodeSyncer::EnsureExists(const std::string& name) {
  if (informers_.Virtual(kNodes).cache().Get(name) != nullptr) return Status::Ok();
  return Ensure(name);
}

Status NodeSyncer::Ensure(const std::string& name) {
  kube::Client& virt_client = informers_.virtual_client();
  kube::ObjectPtr host = informers_.Host(kNodes).cache().Get(name);
  if (host == nullptr) {
    Result<kube::Object> fetched = informers_.host_client().Get(kNodes, "", name);
    if (!fetched.ok()) return fetched.status().WithContext("host node " + name);
    host = std::make_shared<const kube::Object>(std::move(*fetched));
  }
  kube::ObjectPtr virt = informers_.Virtual(kNodes).cache().Get(name);
  kube::Object current;
  if (virt == nullptr) {
    Result<kube::Object> created = virt_client.Create(kNodes, "", translator_.FromHost(*host));
    if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
      metrics_.Error("Node", created.status());
      return created.status();
    }
    if (created.ok()) {
      metrics_.Synced("Node", "create");
      current = std::move(*created);
    } else {
      VT_ASSIGN_OR_RETURN(current, virt_client.Get(kNodes, "", name));
    }
  } else {
    current = kube::Clone(*virt);
    if (std::optional<kube::Object> update = translator_.Update(*host, current)) {
      Result<kube::Object> updated = virt_client.Update(kNodes, "", *update);
      if (!updated.ok()) {
        metrics_.Error("Node", updated.status());
        return updated.status();
      }
      metrics_.Synced("Node", "update");
      current = std::move(*updated);
    }
  }
  // Create ignores status on some servers; the status subresource is what counts.
  if (std::optional<kube::Object> status = translator_.StatusUpdate(*host, current)) {
    Result<kube::Object> updated = virt_client.Update(kNodes, "", *status, "status");
    if (!updated.ok()) {
      metrics_.Error("Node", updated.status());
      return updated.status();
    }
    metrics_.Synced("Node", "status");
  }
  return Status::Ok();
}

}  // namespace vtenant::syncer
