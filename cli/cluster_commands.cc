// `vtenant tenants`, `queues` and `kubeconfig`: reading the host cluster;
// `rotate-credentials`: asking the operator for a team's new credential.
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "cli/host_cluster.h"
#include "cli/queues_view.h"
#include "cli/rotate_credentials.h"
#include "cli/tenant_kubeconfig.h"
#include "cli/tenants_view.h"

namespace vtenant::cli {
namespace {

bool WantsHelp(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "-h" || a == "--help") return true;
  }
  return false;
}

// Prints `usage` for --help (exit 0) or for unexpected arguments (exit 2);
// returns -1 when the arguments are fine.
int CheckNoArgs(const std::string& command, const std::vector<std::string>& args,
                const std::string& usage) {
  if (WantsHelp(args)) {
    std::cout << usage;
    return 0;
  }
  if (!args.empty()) {
    std::cerr << command << ": unexpected argument \"" << args[0] << "\"\n\n" << usage;
    return 2;
  }
  return -1;
}

int Fail(const std::string& command, const Status& status) {
  std::cerr << command << ": " << status.message() << "\n";
  return 1;
}

}  // namespace

int RunTenants(const GlobalOptions& global, const std::vector<std::string>& args) {
  const std::string command = global.program + " tenants";
  const std::string usage = "Usage: " + command + R"(

Lists the Tenants of the host cluster: phase, queue, parent queue, GPU
allocated and the endpoint of each one's virtual API server. For a tenant
that is not Ready, the conditions that say why (e.g. ParentQueueMissing).
)";
  if (int code = CheckNoArgs(command, args, usage); code >= 0) return code;
  Result<std::unique_ptr<kube::Client>> host = ConnectHost(global);
  if (!host.ok()) return Fail(command, host.status());
  Status printed = PrintTenants(**host, std::cout);
  return printed.ok() ? 0 : Fail(command, printed);
}

int RunQueues(const GlobalOptions& global, const std::vector<std::string>& args) {
  const std::string command = global.program + " queues";
  const std::string usage = "Usage: " + command + R"(

Shows the KAI queue tree of the host cluster with each queue's GPU quota,
limit and over-quota weight (spec), fair share (computed by the scheduler),
and the GPUs allocated to and requested by its pods (status). GPU amounts
are quantities: 330m is 0.33 of a GPU.
)";
  if (int code = CheckNoArgs(command, args, usage); code >= 0) return code;
  Result<std::unique_ptr<kube::Client>> host = ConnectHost(global);
  if (!host.ok()) return Fail(command, host.status());
  Status printed = PrintQueues(**host, std::cout);
  return printed.ok() ? 0 : Fail(command, printed);
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
  if (WantsHelp(args)) {
    std::cout << usage;
    return 0;
  }
  if (args.size() != 1) {
    std::cerr << command << ": name one tenant, or --host\n\n" << usage;
    return 2;
  }
  if (args[0] == "--host") {
    Result<std::string> path = HostKubeconfigPath(global);
    if (!path.ok()) return Fail(command, path.status());
    std::ifstream file(*path);
    std::stringstream text;
    text << file.rdbuf();
    if (!file) return Fail(command, Internal("cannot read " + *path));
    std::cout << text.str();
    return 0;
  }
  if (args[0].starts_with("-")) {
    std::cerr << command << ": unknown option \"" << args[0] << "\"\n\n" << usage;
    return 2;
  }
  Result<std::unique_ptr<kube::Client>> host = ConnectHost(global);
  if (!host.ok()) return Fail(command, host.status());
  Result<std::string> config = TenantKubeconfig(**host, args[0]);
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
  if (WantsHelp(args)) {
    std::cout << usage;
    return 0;
  }
  std::string tenant;
  bool wait = true;
  for (const std::string& a : args) {
    if (a == "--no-wait") {
      wait = false;
    } else if (a.starts_with("-") || !tenant.empty()) {
      std::cerr << command << ": unexpected argument \"" << a << "\"\n\n" << usage;
      return 2;
    } else {
      tenant = a;
    }
  }
  if (tenant.empty()) {
    std::cerr << command << ": name the tenant\n\n" << usage;
    return 2;
  }
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
