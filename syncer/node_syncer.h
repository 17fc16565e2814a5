// NodeSyncer: a virtual Node for each host node a tenant pod runs on, and
// only those (keys are node names).
//
// The pod syncer calls EnsureExists before binding a virtual pod, as the
// virtual cluster's pod garbage collector deletes pods bound to a Node that
// does not exist. Reconcile keeps the mirror's labels, taints and status
// equal to the host node's, and deletes a mirror once no virtual pod is
// bound to it and no host pod of the tenant runs there (a pod about to be
// bound counts), never a Node the syncer did not create.
#pragma once

#include <string>

#include "kube/controller.h"
#include "syncer/node_translator.h"
#include "syncer/sync_metrics.h"
#include "syncer/syncer_informers.h"

namespace vtenant::syncer {

// A kube::Reconciler as every syncer of syncer.h is: alike in form on
// purpose, the rules are each kind's own.
class NodeSyncer : public kube::Reconciler {
 public:
  // Virtual Nodes point at `config`'s kubelet endpoint, when it has one.
  NodeSyncer(SyncerInformers& informers, const SyncerConfig& config, SyncMetrics& metrics);

  Result<kube::ReconcileResult> Reconcile(const std::string& key) override;

  // The virtual Node `name` exists and mirrors the host node (read from the
  // host when its cache lacks it). NotFound when the host has no such node.
  Status Ensure(const std::string& name);

  // The virtual Node `name` exists (created as a mirror if it did not);
  // keeping it current is Reconcile's job. For the pod syncer's bind path,
  // which must not race the node controller's updates.
  Status EnsureExists(const std::string& name);

 private:
  SyncerInformers& informers_;
  SyncMetrics& metrics_;
  NodeTranslator translator_;
};

}  // namespace vtenant::syncer
