// vtenant-scheduler: KAI Scheduler's semantics on the host cluster. See
// scheduler/scheduler_app.h for the pieces and `--help` for the flags.
#include <glog/logging.h>

#include <iostream>

#include "kube/kubeconfig.h"
#include "kube/rest_client.h"
#include "scheduler/scheduler_app.h"

int main(int argc, char** argv) {
  FLAGS_logtostderr = true;
  google::InitGoogleLogging(argv[0]);
  using namespace vtenant;
  Result<scheduler::SchedulerFlags> flags =
      scheduler::ParseFlags(std::vector<std::string>(argv + 1, argv + argc));
  if (!flags.ok()) {
    std::cerr << "vtenant-scheduler: " << flags.status().message() << "\n";
    return 2;
  }
  if (flags->help) {
    std::cout << scheduler::Usage();
    return 0;
  }
  Result<kube::RestConfig> config = kube::LoadDefaultConfig(flags->kubeconfig);
  if (!config.ok()) {
    std::cerr << "vtenant-scheduler: " << config.status().ToString() << "\n";
    return 1;
  }
  config->user_agent = "vtenant-scheduler";
  Result<std::unique_ptr<kube::RestClient>> client = kube::RestClient::Create(*config);
  if (!client.ok()) {
    std::cerr << "vtenant-scheduler: " << client.status().ToString() << "\n";
    return 1;
  }
  Result<std::unique_ptr<scheduler::SchedulerApp>> app =
      scheduler::SchedulerApp::Create(**client, *flags);
  if (!app.ok()) {
    std::cerr << "vtenant-scheduler: " << app.status().message() << "\n";
    return 2;
  }
  // The Manager turns SIGTERM/SIGINT into an ordered shutdown.
  Status run = (*app)->Run();
  if (!run.ok()) {
    LOG(ERROR) << run.ToString();
    return 1;
  }
  return 0;
}
