// vtenant-gpu-reservation: the program of vtenant-scheduler's reservation
// pods. Publishes the UUID of the GPU the pod holds, then holds it (sleeps)
// until the scheduler deletes the pod.
#include <glog/logging.h>

#include <csignal>
#include <cstdlib>
#include <thread>

#include "base/flags.h"
#include "kube/program_main.h"
#include "scheduler/gpu_reservation/nvml_gpu_info.h"
#include "scheduler/gpu_reservation/publisher.h"

namespace {

using namespace vtenant;

volatile std::sig_atomic_t g_stop = 0;

struct ReservationFlags {
  std::string kubeconfig;
  bool help = false;
};

Result<ReservationFlags> ParseReservationFlags(const std::vector<std::string>& args) {
  ReservationFlags flags;
  VT_ASSIGN_OR_RETURN(SplitCommandLine split,
                      ApplyFlags(args, {TextFlag("kubeconfig", &flags.kubeconfig)}));
  flags.help = split.help;
  return flags;
}

std::string ReservationUsage() {
  return "vtenant-gpu-reservation: runs in a GPU reservation pod; writes the UUID of its GPU\n"
         "(NVML) as annotation run.ai/reserve_for_gpu_index on its own pod, then waits.\n\n"
         "Environment: POD_NAME, POD_NAMESPACE (from the downward API); in-cluster "
         "credentials.\n"
         "Flags:\n"
         "  --kubeconfig PATH   instead of in-cluster credentials\n"
         "  -h, --help          this text\n";
}

// An error makes the kubelet restart the pod; the binder waits meanwhile.
Status HoldTheReservedGpu(const ReservationFlags& flags) {
  const char* name = std::getenv("POD_NAME");
  const char* ns = std::getenv("POD_NAMESPACE");
  if (name == nullptr || ns == nullptr) {
    return InvalidArgument("POD_NAME and POD_NAMESPACE must be set");
  }
  VT_ASSIGN_OR_RETURN(kube::ClusterConnection cluster,
                      kube::ConnectToCluster(flags.kubeconfig, "vtenant-gpu-reservation"));
  scheduler::NvmlGpuInfo nvml;
  VT_ASSIGN_OR_RETURN(std::string uuid,
                      scheduler::PublishReservedGpu(nvml, *cluster.client, ns, name));
  LOG(INFO) << "holding GPU " << uuid;
  std::signal(SIGTERM, [](int) { g_stop = 1; });
  std::signal(SIGINT, [](int) { g_stop = 1; });
  while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  return Status::Ok();
}

}  // namespace

int main(int argc, char** argv) {
  return kube::ProgramMain<ReservationFlags>("vtenant-gpu-reservation", argc, argv,
                                             ParseReservationFlags, ReservationUsage,
                                             HoldTheReservedGpu);
}
