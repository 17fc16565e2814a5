// vtenant-scheduler: KAI Scheduler's semantics on the host cluster. See
// scheduler/scheduler_app.h for the pieces and `--help` for the flags.
#include "kube/program_main.h"
#include "kube/rest_client.h"
#include "scheduler/scheduler_app.h"

int main(int argc, char** argv) {
  using namespace vtenant;
  return kube::ProgramMain<scheduler::SchedulerFlags>(
      "vtenant-scheduler", argc, argv, scheduler::ParseFlags, scheduler::Usage,
      [](const scheduler::SchedulerFlags& flags) -> Status {
        VT_ASSIGN_OR_RETURN(kube::ClusterConnection host,
                            kube::ConnectToCluster(flags.kubeconfig, "vtenant-scheduler"));
        // The bookkeeping writers' own connection (AppOptions says why).
        VT_ASSIGN_OR_RETURN(std::unique_ptr<kube::RestClient> bookkeeping,
                            kube::RestClient::Create(host.config));
        VT_ASSIGN_OR_RETURN(std::unique_ptr<kube::RestClient> events,
                            kube::RestClient::Create(host.config));
        VT_ASSIGN_OR_RETURN(
            std::unique_ptr<scheduler::SchedulerApp> app,
            scheduler::SchedulerApp::Create(
                *host.client, flags,
                {.bookkeeping_client = bookkeeping.get(), .events_client = events.get()}));
        // The Manager turns SIGTERM/SIGINT into an ordered shutdown.
        return app->Run();
      });
}
