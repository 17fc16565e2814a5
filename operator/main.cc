// vtenant-operator: reconciles Tenants. See operator/operator_app.h for the
// pieces and `--help` for the flags.
#include <glog/logging.h>
#include <signal.h>
#include <sys/stat.h>

#include <iostream>

#include "kube/kubeconfig.h"
#include "kube/rest_client.h"
#include "operator/operator_app.h"

namespace {

vtenant::Status Run(const vtenant::op::OperatorFlags& flags) {
  using namespace vtenant;
  VT_ASSIGN_OR_RETURN(kube::RestConfig config, kube::LoadDefaultConfig(flags.kubeconfig));
  config.user_agent = "vtenant-operator";
  VT_ASSIGN_OR_RETURN(std::unique_ptr<kube::RestClient> host, kube::RestClient::Create(config));
  VT_ASSIGN_OR_RETURN(std::unique_ptr<op::OperatorApp> app,
                      op::OperatorApp::Create(*host, config, flags));
  return app->Run();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace vtenant;
  Result<op::OperatorFlags> flags = op::ParseOperatorFlags({argv + 1, argv + argc});
  if (!flags.ok()) {
    std::cerr << "vtenant-operator: " << flags.status().message() << "\n\n" << op::OperatorUsage();
    return 2;
  }
  if (flags->help) {
    std::cout << op::OperatorUsage();
    return 0;
  }
  FLAGS_logtostderr = true;
  google::InitGoogleLogging(argv[0]);
  signal(SIGPIPE, SIG_IGN);
  // The state folder holds tenants' keys and data: owner-only, whatever the umask.
  umask(077);
  Status run = Run(*flags);
  if (!run.ok()) LOG(ERROR) << "vtenant-operator: " << run.ToString();
  return run.ok() ? 0 : 1;
}
