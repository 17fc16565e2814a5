// Binder: puts the scheduler's decisions on the cluster, as KAI's binder does.
//
// First, a pod's claims that wait for their first consumer are bound to the
// PersistentVolume chosen on its node, or told the node (BindClaims), and
// its resource claims are given their devices (BindDevices). A
// whole-GPU or CPU pod is then bound through pods/binding. A GPU-sharing pod
// first gets, for each of its devices, the reservation pod that pins the GPU
// (reservation.h); then its two ConfigMaps (kai/gpu_environment.h, named
// from annotation runai/shared-gpu-configmap, which the admission webhook
// set), the first holding NVIDIA_VISIBLE_DEVICES, RUNAI_NUM_OF_GPUS and
// GPU_PORTION, both owned by the pod so they go with it; then, as KAI's
// binder does, the label of each GPU's group (the one its reservation pod
// carries; see GpuGroupLabels); then the binding, which carries the chosen
// GPU as annotation runai-gpu (the API server puts a binding's annotations
// on the pod as it binds it). A failed step deletes the ConfigMaps and
// removes the labels again, and the pod waits for the next cycle: nothing
// is left half-bound (ConfigMaps left by a crash are taken over by the next
// try, or collected with their pod). The binder writes and deletes only a
// ConfigMap it made for that pod (label vtenant.io/gpu-environment=<pod
// UID> and the pod as owner): one of that name that is anything else is
// left alone and the bind fails, saying so. An emptied GPU's reservation
// pod is removed by the cycle, not here.
//
// Binds run on a pool of workers; the view holds each placement (assumed)
// from the moment Bind() returns until the informer shows the result.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "kube/async_event_recorder.h"
#include "kube/client.h"
#include "kube/event_recorder.h"
#include "kube/json_builder.h"
#include "kube/metrics.h"
#include "scheduler/cluster_view.h"
#include "scheduler/reservation.h"

namespace vtenant::scheduler {

// The labels that tie a sharing pod to the GPUs it shares on `node`, as
// KAI writes them: runai-gpu-group=<group> for one device, and
// runai-gpu-group/<group>=<group> for each of several. <group> is
// GpuGroupName's, the label of the device's reservation pod, so the pods
// that share a GPU are found by one selector.
std::map<std::string, std::string> GpuGroupLabels(std::string_view node,
                                                  const std::vector<int>& devices);

struct BinderOptions {
  int workers = 16;
  kube::Registry* registry = &kube::DefaultRegistry();
  // Where each bound pod's Normal Event "Scheduled" goes, in KAI's words
  // ("Successfully assigned pod <ns>/<name> to node <node> at node-pool
  // <node_pool>"); null: none. Asynchronous, so that an Event never holds
  // a bind.
  kube::AsyncEventRecorder* scheduled_events = nullptr;
  std::string node_pool = "default";  // NodePool::Name
  // KAI's hamicore binder plugin: a sharing pod's GPU ConfigMap also holds
  // CUDA_DEVICE_MEMORY_LIMIT (kai::CudaDeviceMemoryLimit).
  bool hami_core = false;
};

class Binder {
 public:
  // Everything must outlive the binder.
  Binder(kube::Client& client, ClusterView& view, Reservations& reservations,
         kube::EventRecorder& events, BinderOptions options = {});
  // Waits until every queued bind has run, then stops the workers.
  ~Binder();

  // Assumes `placement` for `key` in the view and queues the bind. A bind
  // that fails is logged and its assumption forgotten, so the pod is
  // pending again for the next cycle. Thread-safe.
  void Bind(const std::string& key, Placement placement);

  // Blocks until no bind is queued or running.
  void WaitIdle();

  // One bind, start to end, on the calling thread (the workers' body).
  // NotFound when the view no longer has the pod; on any other failure the
  // pod gets a Warning Event FailedBinding and the error is returned. The
  // view's assumption is left to the caller.
  Status BindNow(const std::string& key, const Placement& placement);

 private:
  // A ConfigMap the bind made or took over, by name and UID.
  struct MadeConfigMap {
    std::string name;
    std::string uid;
  };

  // Before pod `key` is bound to `node`, as kube-scheduler's volume
  // binding does: each of its claims that waits for its first consumer
  // (ClusterView::ClaimBindings) is bound to the PersistentVolume chosen
  // there (its claimRef) or annotated with `node` for its provisioner.
  Status BindClaims(const std::string& key, const std::string& node);
  // Then, as kube-scheduler's DynamicResources does, each of its resource
  // claims is given its devices on `node` (ClusterView::AllocateDevices):
  // the claim gets kClaimFinalizer, then its status the devices and the
  // pod (status.reservedFor).
  Status BindDevices(const CorePod& pod, const std::string& node);
  Status BindShared(const CorePod& pod, const Placement& placement);
  // Creates ConfigMap `configmap` for `pod` with `data`, or takes over the
  // one an earlier try for it left; returns its UID. FailedPrecondition
  // when one of that name exists and is not the binder's for this pod.
  Result<std::string> WriteConfigMap(const CorePod& pod, const std::string& configmap,
                                     kube::JsonObject data);
  // Deletes `configmaps` (each only while it has that UID) and removes
  // `group_labels` from the pod.
  void Rollback(const CorePod& pod, const std::vector<MadeConfigMap>& configmaps,
                const std::map<std::string, std::string>& group_labels);
  void Work();

  kube::Client& client_;
  ClusterView& view_;
  Reservations& reservations_;
  kube::EventRecorder& events_;
  const BinderOptions options_;
  kube::Family<kube::Histogram>* latency_ = nullptr;
  kube::Family<kube::Counter>* results_ = nullptr;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<std::string, Placement>> queue_;
  size_t running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace vtenant::scheduler
