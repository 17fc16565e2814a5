// vtenant-gpu-reservation: the program of vtenant-scheduler's reservation
// pods. Publishes the UUID of the GPU the pod holds, then holds it (sleeps)
// until the scheduler deletes the pod.
#include <glog/logging.h>

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "base/flags.h"
#include "kube/kubeconfig.h"
#include "kube/rest_client.h"
#include "scheduler/gpu_reservation/nvml_gpu_info.h"
#include "scheduler/gpu_reservation/publisher.h"

namespace {
volatile std::sig_atomic_t g_stop = 0;
constexpr char kUsage[] =
    "vtenant-gpu-reservation: runs in a GPU reservation pod; writes the UUID of its GPU\n"
    "(NVML) as annotation run.ai/reserve_for_gpu_index on its own pod, then waits.\n\n"
    "Environment: POD_NAME, POD_NAMESPACE (from the downward API); in-cluster credentials.\n"
    "Flags:\n  --kubeconfig PATH   instead of in-cluster credentials\n  -h, --help          this "
    "text\n";
}  // namespace

int main(int argc, char** argv) {
  FLAGS_logtostderr = true;
  google::InitGoogleLogging(argv[0]);
  vtenant::Result<vtenant::SplitCommandLine> split =
      vtenant::SplitFlags({argv + 1, argv + argc}, {{.name = "kubeconfig"}});
  if (!split.ok()) {
    std::cerr << "vtenant-gpu-reservation: " << split.status().message() << "\n" << kUsage;
    return 2;
  }
  if (split->help) {
    std::cout << kUsage;
    return 0;
  }
  std::string kubeconfig;
  for (const vtenant::FlagValue& flag : split->flags) kubeconfig = flag.value;
  const char* name = std::getenv("POD_NAME");
  const char* ns = std::getenv("POD_NAMESPACE");
  if (name == nullptr || ns == nullptr) {
    std::cerr << "vtenant-gpu-reservation: POD_NAME and POD_NAMESPACE must be set\n";
    return 2;
  }
  auto config = vtenant::kube::LoadDefaultConfig(kubeconfig);
  if (!config.ok()) {
    LOG(ERROR) << config.status().ToString();
    return 1;
  }
  auto client = vtenant::kube::RestClient::Create(*config);
  if (!client.ok()) {
    LOG(ERROR) << client.status().ToString();
    return 1;
  }
  vtenant::scheduler::NvmlGpuInfo nvml;
  auto uuid = vtenant::scheduler::PublishReservedGpu(nvml, **client, ns, name);
  if (!uuid.ok()) {
    LOG(ERROR) << uuid.status().ToString();
    return 1;  // restarted by the kubelet; the binder waits meanwhile
  }
  LOG(INFO) << "holding GPU " << *uuid;
  std::signal(SIGTERM, [](int) { g_stop = 1; });
  std::signal(SIGINT, [](int) { g_stop = 1; });
  while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  return 0;
}
