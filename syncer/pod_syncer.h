// PodSyncer: the reconciler that makes each virtual pod real on the host
// and tells the virtual cluster what became of it. Keys are virtual
// "namespace/name"; virtual pods and host pods (through their annotations)
// enqueue them.
//
// One Reconcile moves a pod one step:
//   host pod is another's     → refused with HostNameClash, looked at again
//                               later; never written or deleted (rule 5);
//   virtual pod gone          → delete its host pod (and its token Secret);
//   host pod of an older UID  → delete it; the new pod is created next;
//   virtual pod terminating   → delete the host pod with the same grace
//                               period; once it is gone, finish the virtual
//                               pod (no kubelet there does it);
//   no host pod, pod finished → nothing (a finished pod never runs again);
//   no host pod, pod had run  → the host lost it (evicted, node gone): a
//                               pod with a controller is deleted so the
//                               controller replaces it, a bare pod is Failed
//                               with the reason;
//   no host pod, refused      → Event and PodScheduled=False with the reason
//                               on the virtual pod; nothing reaches the host;
//   no host pod               → PodGroup, references and token first, then
//                               the host pod;
//   both exist                → updates down; once the host pod is
//                               scheduled, the virtual Node, then the
//                               virtual binding, then status up; a token
//                               past 80 % of its lifetime is re-requested
//                               and its host Secret updated in place (the
//                               kubelet refreshes the mounted file), and
//                               the key comes back when the next one is due.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "kube/controller.h"
#include "kube/event_recorder.h"
#include "kube/wall_time.h"
#include "syncer/copy_syncer.h"
#include "syncer/node_syncer.h"
#include "syncer/pod_policy.h"
#include "syncer/pod_translator.h"
#include "syncer/podgroup_syncer.h"
#include "syncer/sync_metrics.h"
#include "syncer/syncer_informers.h"

namespace vtenant::syncer {

// The reference syncers a pod needs before it can be created.
struct PodDependencies {
  CopySyncer& config_maps;
  CopySyncer& secrets;
  CopySyncer& claims;
  // Null when the Tenant lists no device classes (CheckPod then refuses
  // pods that name claims).
  CopySyncer* resource_claims;
  CopySyncer* claim_templates;
  NodeSyncer& nodes;
  PodGroupSyncer& pod_groups;
};

class PodSyncer : public kube::Reconciler {
 public:
  // Everything must outlive the syncer. `events` records on virtual pods;
  // `wall_clock` is the calendar time tokens expire against. A running pod
  // with a token is looked at again when its token is due, or after
  // `token_recheck` if that is sooner: the token expires by the calendar
  // while the queue waits by the monotonic clock, so a wall clock stepped
  // forward (NTP, a resumed VM) is noticed within `token_recheck`, not after
  // the rest of a 48-minute wait. A look before the token is due reads one
  // cache and writes nothing.
  PodSyncer(SyncerInformers& informers, const SyncerConfig& config, PodDependencies deps,
            kube::EventRecorder& events, SyncMetrics& metrics,
            kube::WallClock wall_clock = kube::SystemNow,
            std::chrono::milliseconds token_recheck = std::chrono::minutes(10));

  Result<kube::ReconcileResult> Reconcile(const std::string& key) override;

  // Informer hooks: a virtual pod first seen (starts its latency clock); a
  // virtual pod deleted (what was kept for it goes); a host pod deleted
  // while its virtual pod lives on (its last state says why, for the
  // virtual pod). What the hooks keep is bounded by the virtual pods that
  // exist: a latency clock goes when its pod's host pod exists, its pod is
  // refused or finished, or its pod is deleted; a loss's reason when the
  // virtual pod has heard of it or is deleted.
  void VirtualPodSeen(const rapidjson::Value& pod);
  void VirtualPodDeleted(const rapidjson::Value& pod);
  void HostPodDeleted(const rapidjson::Value& host_pod);

 private:
  Status DeleteHostPod(const rapidjson::Value& host, std::optional<int64_t> grace_seconds);
  Status DeleteTokenSecret(std::string_view ns, std::string_view name);
  Result<kube::ReconcileResult> CreateHostPod(const rapidjson::Value& pod);
  Status Refuse(const rapidjson::Value& pod, const Refusal& refusal);
  // Refuses `pod` for `clash` (an AlreadyExists from host_identity.h) and
  // looks again later.
  Result<kube::ReconcileResult> Clash(const rapidjson::Value& pod, const Status& clash);
  Status HostPodLost(const rapidjson::Value& pod);
  Status SyncExisting(const rapidjson::Value& pod, const rapidjson::Value& host);
  Result<PodContext> ContextOf(const rapidjson::Value& pod);
  // Creates the pod's token Secret, or re-requests its token once the
  // refresh time recorded on it has come. Returns how long until the next
  // refresh is due.
  Result<std::chrono::seconds> EnsureTokenSecret(const rapidjson::Value& pod,
                                                 const std::string& secret_name);
  Status WriteVirtualStatus(const kube::Object& pod);
  // Stops `uid`'s latency clock without observing it; the second with mu_ held.
  void ForgetFirstSeen(std::string_view uid);
  void ForgetFirstSeenLocked(std::string_view uid);

  SyncerInformers& informers_;
  const SyncerConfig& config_;
  PodDependencies deps_;
  kube::EventRecorder& events_;
  SyncMetrics& metrics_;
  PodTranslator translator_;
  kube::WallClock wall_clock_;
  std::chrono::milliseconds token_recheck_;

  std::mutex mu_;
  // Virtual pod UID → when first seen, until its host pod exists.
  std::map<std::string, std::chrono::steady_clock::time_point, std::less<>> first_seen_;
  // Virtual pod UID → why its host pod went ("Evicted: ..."), until the
  // virtual pod hears of it.
  std::map<std::string, std::string, std::less<>> lost_reasons_;
  // Token Secret name → the refresh time this syncer just wrote on it, and
  // when: the host cache shows a write only after its watch event, and a
  // reconcile in between must not request a second token.
  struct WrittenToken {
    std::chrono::system_clock::time_point refresh_after;
    std::chrono::steady_clock::time_point written;
  };
  std::map<std::string, WrittenToken> written_tokens_;
};

}  // namespace vtenant::syncer
