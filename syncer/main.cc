// vtenant-syncer: one tenant's syncer, as a sidecar of its control plane or
// as a process the local environment supervises. See syncer_app.h for the
// pieces, flags.cc for the command line and syncer.h for what it does.
#include "kube/program_main.h"
#include "syncer/flags.h"
#include "syncer/syncer_app.h"

int main(int argc, char** argv) {
  using namespace vtenant;
  return kube::ProgramMain<syncer::SyncerFlags>(
      "vtenant-syncer", argc, argv, syncer::ParseFlags, syncer::Usage,
      [](const syncer::SyncerFlags& flags) -> Status {
        // The syncer connects to both of its clusters itself (two kubeconfigs).
        VT_ASSIGN_OR_RETURN(std::unique_ptr<syncer::SyncerApp> app,
                            syncer::SyncerApp::Create(flags));
        return app->Run();
      });
}
