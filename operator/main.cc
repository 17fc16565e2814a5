// vtenant-operator: reconciles Tenants. See operator/operator_app.h for the
// pieces and `--help` for the flags.
#include <sys/stat.h>

#include "kube/program_main.h"
#include "operator/operator_app.h"

int main(int argc, char** argv) {
  using namespace vtenant;
  return kube::ProgramMain<op::OperatorFlags>(
      "vtenant-operator", argc, argv, op::ParseOperatorFlags, op::OperatorUsage,
      [](const op::OperatorFlags& flags) -> Status {
        // The state folder holds tenants' keys and data: owner-only, whatever the umask.
        umask(077);
        VT_ASSIGN_OR_RETURN(kube::ClusterConnection host,
                            kube::ConnectToCluster(flags.kubeconfig, "vtenant-operator"));
        VT_ASSIGN_OR_RETURN(std::unique_ptr<op::OperatorApp> app,
                            op::OperatorApp::Create(*host.client, host.config, flags));
        return app->Run();
      });
}
