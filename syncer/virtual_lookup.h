// VirtualLookup: the ObjectLookup owner chains and gangs read, over the
// virtual informer caches (ReplicaSets, Deployments, Jobs, CronJobs,
// StatefulSets, JobSets, LeaderWorkerSets, KAI PodGroups, and pods: a
// LeaderWorkerSet's workers are owned through their leader's StatefulSet
// by the leader pod) and, for what no cache holds (a
// PodGroup the cache has not seen yet or whose CRD came late; a Kubeflow
// training job of kai/kubeflow_job.h's list, a KubeRay RayCluster, RayJob
// or RayService, a Knative Revision, Configuration or Service, or a Grove
// kind or PodGang, at its reference's version, whose CRD a virtual cluster
// may not have), a GET on the virtual API server.
// The workload kinds a team may label with KAI's preemptibility are cached,
// so a gang reads it from them without an API call; a Kubeflow, KubeRay or
// Knative owner is fetched from the virtual API server.
// JobSets and LeaderWorkerSets are known only once their CRD has been
// listed: pods of a cluster without it do not wait for one that cannot be
// cached. Until then, one is read from the virtual API server, so a pod of
// one created just after its CRD still gets its gang.
#pragma once

#include "syncer/owner_chain.h"
#include "syncer/syncer_informers.h"

namespace vtenant::syncer {

class VirtualLookup : public ObjectLookup {
 public:
  // With `live_reads` off, only cached kinds are found: for paths that run
  // on every status change and must not cost an API call.
  explicit VirtualLookup(SyncerInformers& informers, bool live_reads = true)
      : informers_(informers), live_reads_(live_reads) {}
  kube::ObjectPtr Get(std::string_view api_version, std::string_view kind, std::string_view ns,
                      std::string_view name) override;
  bool Knows(std::string_view api_version, std::string_view kind) override;

 private:
  SyncerInformers& informers_;
  const bool live_reads_;
};

}  // namespace vtenant::syncer
