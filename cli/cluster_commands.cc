// `vtenant tenants`, `queues` and `kubeconfig`: reading the host cluster;
// `rotate-credentials`: asking the operator for a team's new credential.
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/host_cluster.h"
#include "cli/queues_view.h"
#include "cli/rotate_credentials.h"
#include "cli/tenant_kubeconfig.h"
#include "cli/tenants_view.h"

namespace vtenant::cli {
namespace {

int Fail(const std::string& command, const Status& status) {
  std::cerr << command << ": " << status.message() << "\n";
  return 1;
}

// A command that takes no arguments and prints what `print` reads from the
// host cluster.
int PrintView(const GlobalOptions& global, const std::vector<std::string>& args,
              const std::string& command, const std::string& usage,
              Status (*print)(kube::Client& client, std::ostream& out)) {
  if (int code = CheckNoArgs(command, args, usage); code >= 0) return code;
  Result<std::unique_ptr<kube::Client>> host = ConnectHost(global);
  if (!host.ok()) return Fail(command, host.status());
  Status printed = print(**host, std::cout);
  return printed.ok() ? 0 : Fail(command, printed);
}

}  // namespace

int RunTenants(const GlobalOptions& global, const std::vector<std::string>& args) {
  const std::string command = global.program + " tenants";
  const std::string usage = "Usage: " + command + R"(

Lists the Tenants of the host cluster: phase, queue, parent queue, GPU
allocated and the endpoint of each one's virtual API server. For a tenant
that is not Ready, the conditions that say why (e.g. ParentQueueMissing).
)";
  return PrintView(global, args, command, usage, PrintTenants);
}

int RunQueues(const GlobalOptions& global, const std::vector<std::string>& args) {
  const std::string command = global.program + " queues";
  const std::string usage = "Usage: " + command + R"(

Shows the KAI queue tree of the host cluster with each queue's GPU quota,
limit and over-quota weight (spec), fair share (computed by the scheduler),
and the GPUs allocated to and requested by its pods (status). GPU amounts
are quantities: 330m is 0.33 of a GPU.
)";
  return PrintView(global, args, command, usage, PrintQueues);
}

int RunKubeconfig(const GlobalOptions& global, const std::vector<std::string>& args) {
  const std::string command = global.program + " kubeconfig";
  const std::string usage = "Usage: " + command + " TENANT | --host" + R"(

Prints a kubeconfig to stdout:
  TENANT   the team's own virtual cluster (it is cluster-admin there), from
           Secret vc-TENANT (key config) in namespace vtenant-TENANT
  --host   the host cluster's admin kubeconfig

  )" + global.program + R"( kubeconfig nlp > nlp.kubeconfig
  kubectl --kubeconfig nlp.kubeconfig get pods -A
)";
  SplitCommandLine split;
  bool host_config = false;
  if (int code =
          ReadFlags(command, args, {SwitchFlag("host", &host_config)}, Words::kKeep, usage, split);
      code >= 0) {
    return code;
  }
  if (split.words.size() != (host_config ? 0u : 1u)) {
    return UsageError(command, "name one tenant, or --host", usage);
  }
  if (host_config) {
    Result<std::string> path = HostKubeconfigPath(global);
    if (!path.ok()) return Fail(command, path.status());
    std::ifstream file(*path);
    std::stringstream text;
    text << file.rdbuf();
    if (!file) return Fail(command, Internal("cannot read " + *path));
    std::cout << text.str();
    return 0;
  }
  Result<std::unique_ptr<kube::Client>> host = ConnectHost(global);
  if (!host.ok()) return Fail(command, host.status());
  Result<std::string> config = TenantKubeconfig(**host, split.words[0]);
  if (!config.ok()) return Fail(command, config.status());
  std::cout << *config;
  if (!config->ends_with("\n")) std::cout << "\n";
  return 0;
}

int RunRotateCredentials(const GlobalOptions& global, const std::vector<std::string>& args) {
  const std::string command = global.program + " rotate-credentials";
  const std::string usage = "Usage: " + command + " TENANT [--no-wait]" + R"(

Revokes the team's kubeconfig and has vtenant-operator issue a new one: the
operator replaces the CA that signs the team's credential, writes the new
kubeconfig to Secret vc-TENANT, and the virtual API server refuses the old
one within a minute. Waits (up to two minutes) until the new kubeconfig is
there, unless --no-wait. Get it with `)" +
                            global.program + R"( kubeconfig TENANT`.

Needs the right to patch the Tenant on the host (a platform admin's).
)";
  SplitCommandLine split;
  bool no_wait = false;
  if (int code =
          ReadFlags(command, args, {SwitchFlag("no-wait", &no_wait)}, Words::kKeep, usage, split);
      code >= 0) {
    return code;
  }
  const bool wait = !no_wait;
  if (split.words.empty()) return UsageError(command, "name the tenant", usage);
  if (split.words.size() > 1) {
    return UsageError(command, "unexpected argument \"" + split.words[1] + "\"", usage);
  }
  const std::string& tenant = split.words[0];
  Result<std::unique_ptr<kube::Client>> host = ConnectHost(global);
  if (!host.ok()) return Fail(command, host.status());
  const std::string request = NewRotationRequest();
  if (Status s = RequestRotation(**host, tenant, request); !s.ok()) return Fail(command, s);
  if (!wait) {
    std::cout << "rotation " << request << " of " << tenant << "'s credential asked for\n";
    return 0;
  }
  if (Status s = WaitForRotation(**host, tenant, request, std::chrono::minutes(2)); !s.ok()) {
    return Fail(command, s);
  }
  std::cout << tenant << "'s credential rotated (" << request
            << "): the old kubeconfig stops working within a minute; `" << global.program
            << " kubeconfig " << tenant << "` prints the new one\n";
  return 0;
}

}  // namespace vtenant::cli
