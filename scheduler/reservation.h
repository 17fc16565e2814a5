// Reservation pods: one per shared GPU, requesting `nvidia.com/gpu: 1` on
// that GPU's node, so the device plugin and every other scheduler see the
// GPU as taken while pods share it. Its program (gpu_reservation/) learns which
// physical GPU the device plugin gave it and publishes the UUID as the
// annotation run.ai/reserve_for_gpu_index, which the binder hands to the
// sharing pods as NVIDIA_VISIBLE_DEVICES. As in KAI Scheduler.
//
// Names are deterministic (node and device index), so a restarted
// scheduler finds the reservation it made instead of making another.
#pragma once

#include <chrono>
#include <string>

#include "base/status.h"
#include "kube/client.h"
#include "scheduler/kai_names.h"

namespace vtenant::scheduler {

struct ReservationOptions {
  std::string ns = "vtenant-reservation";
  std::string image = "ghcr.io/vtenant/gpu-reservation:latest";
  // The pods' ServiceAccount: it may annotate pods of the namespace and do
  // nothing else. Empty: the namespace's default.
  std::string service_account;
  // Nodes with this label set to "true" have no GPUs or kubelet (kwok); their
  // reservation pods cannot run a program, so the scheduler publishes a
  // stable fake UUID for them at creation instead.
  std::string simulated_node_label = kSimulatedNodeLabel;
  // How long a bind waits for a new reservation pod's UUID.
  std::chrono::milliseconds uuid_timeout{60000};
};

// "gpu-reservation-<node>-<index>" (hashed when too long for a name).
std::string ReservationPodName(std::string_view node, int index);
// The runai-gpu-group value of the shared GPU (node, index): a label value.
std::string GpuGroupName(std::string_view node, int index);
// The UUID a simulated GPU reports: "GPU-" and a stable hash.
std::string FakeGpuUuid(std::string_view node, int index);

// The reservation pod manifest.
kube::Object ReservationPodManifest(const ReservationOptions& options, std::string_view node,
                                    int index, bool simulated);

class Reservations {
 public:
  Reservations(kube::Client& client, ReservationOptions options)
      : client_(client), options_(std::move(options)) {}

  // Makes sure the reservation pod of (node, index) exists and returns its
  // GPU's UUID, polling (on the calling thread, real time) up to uuid_timeout
  // for the program to publish it. Timeout when it does not; the pod is left
  // for the next try. FailedPrecondition when a pod of that name lacks the
  // reservation label (its annotation is not trusted); Unavailable while it
  // is being deleted; the API error when reading or creating it fails.
  Result<std::string> Ensure(std::string_view node, int index, bool simulated_node);

  // Deletes the reservation pod `name` (its GPU has emptied). NotFound is OK.
  Status Release(std::string_view name);

  // Creates the reservation namespace when missing. An existing one is only
  // read, so where it exists (the chart makes it) the scheduler needs no
  // right to create namespaces.
  Status EnsureNamespace();

  const ReservationOptions& options() const { return options_; }

 private:
  kube::Client& client_;
  const ReservationOptions options_;
};

}  // namespace vtenant::scheduler
