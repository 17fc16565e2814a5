#include "e2e/support/kubectl.h"

#include "localenv/tools.h"

namespace vtenant::e2e {

Result<localenv::CommandResult> Kubectl(const std::string& kubeconfig,
                                        std::vector<std::string> args, const std::string& input) {
  VT_ASSIGN_OR_RETURN(std::string kubectl, localenv::FindTool("kubectl"));
  args.insert(args.begin(), {kubectl, "--kubeconfig", kubeconfig});
  return localenv::RunCommand(args, input);
}

Result<localenv::CommandResult> Helm(const std::string& kubeconfig, std::vector<std::string> args) {
  VT_ASSIGN_OR_RETURN(std::string helm, localenv::FindTool("helm"));
  std::vector<std::string> argv = {"/usr/bin/env"};
  if (!kubeconfig.empty()) argv.push_back("KUBECONFIG=" + kubeconfig);
  // helm keeps caches and config under $HOME; a test must not touch the user's.
  argv.push_back("HELM_CACHE_HOME=/tmp/vtenant-helm/cache");
  argv.push_back("HELM_CONFIG_HOME=/tmp/vtenant-helm/config");
  argv.push_back("HELM_DATA_HOME=/tmp/vtenant-helm/data");
  argv.push_back(helm);
  argv.insert(argv.end(), args.begin(), args.end());
  return localenv::RunCommand(argv);
}

Result<std::string> KubectlOk(const std::string& kubeconfig, std::vector<std::string> args,
                              const std::string& input) {
  std::string what = "kubectl";
  for (const std::string& a : args) what += " " + a;
  VT_ASSIGN_OR_RETURN(localenv::CommandResult r, Kubectl(kubeconfig, std::move(args), input));
  if (r.exit_code != 0) {
    return Status(StatusCode::kFailedPrecondition,
                  what + " exited " + std::to_string(r.exit_code) + ": " + r.err + r.out);
  }
  return r.out;
}

Status InstallCrds(const std::string& kubeconfig, const std::string& dir) {
  VT_RETURN_IF_ERROR(KubectlOk(kubeconfig, {"apply", "--server-side", "-f", dir}).status());
  return KubectlOk(kubeconfig,
                   {"wait", "--for=condition=Established", "crd", "--all", "--timeout=60s"})
      .status();
}

}  // namespace vtenant::e2e
