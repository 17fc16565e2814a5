// PodGroupSyncer: the host PodGroups of tenant gangs (gang.h). The pod
// syncer calls Ensure before creating a gang's first host pod; Reconcile
// (keys are host PodGroup names) deletes a PodGroup once no host pod names
// it and no virtual pod belongs to its workload any more.
#pragma once

#include <string>

#include "kube/controller.h"
#include "syncer/gang.h"
#include "syncer/sync_metrics.h"
#include "syncer/syncer_informers.h"

namespace vtenant::syncer {

class PodGroupSyncer : public kube::Reconciler {
 public:
  PodGroupSyncer(SyncerInformers& informers, const SyncerConfig& config, SyncMetrics& metrics);

  Result<kube::ReconcileResult> Reconcile(const std::string& key) override;

  // The host PodGroup of `gang` exists with its minMember.
  Status Ensure(const Gang& gang, std::string_view ns, std::string_view priority_class);

 private:
  SyncerInformers& informers_;
  const SyncerConfig& config_;
  SyncMetrics& metrics_;
};

}  // namespace vtenant::syncer
