#include "e2e/support/environment.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "base/eventually.h"
#include "base/secret_file.h"
#include "e2e/support/kubectl.h"
#include "kube/kubeconfig.h"
#include "kube/quantity.h"
#include "kube/rest_client.h"
#include "localenv/environment_processes.h"
#include "localenv/testing/source_tree.h"

namespace vtenant::e2e {
namespace fs = std::filesystem;

std::string Example(const std::string& path) {
  return localenv::SourcePath("examples/tenants/" + path);
}

int64_t MilliGpus(const rapidjson::Value* value) {
  if (value == nullptr) return -1;
  if (value->IsNumber()) return static_cast<int64_t>(value->GetDouble() * 1000 + 0.5);
  if (!value->IsString()) return -1;
  Result<kube::Quantity> q = kube::Quantity::Parse(value->GetString());
  return q.ok() ? q->Milli() : -1;
}

Result<std::unique_ptr<Environment>> Environment::Up(const std::string& vtenant_cli,
                                                     const std::string& name,
                                                     const std::string& nodes_file,
                                                     const std::vector<std::string>& up_args) {
  std::unique_ptr<Environment> env(new Environment());
  env->cli_ = vtenant_cli;
  std::string tmpl = "/tmp/vtenant-e2e-" + name + "-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) return Internal("mkdtemp " + tmpl);
  env->tmp_ = tmpl;
  env->dir_ = tmpl + "/state";
  std::vector<std::string> args = {"up",
                                   "--nodes",
                                   localenv::SourcePath(nodes_file),
                                   "--crds",
                                   localenv::SourcePath("charts/vtenant/crds"),
                                   "--chart",
                                   localenv::SourcePath("charts/vtenant")};
  args.insert(args.end(), up_args.begin(), up_args.end());
  VT_ASSIGN_OR_RETURN(localenv::CommandResult up, env->Vtenant(args));
  env->up_output_ = up.out;
  if (up.exit_code != 0) {
    return FailedPrecondition("vtenant up exited " + std::to_string(up.exit_code) + ":\n" + up.out +
                              up.err);
  }
  const bool cluster_only =
      std::find(up_args.begin(), up_args.end(), "--cluster-only") != up_args.end();
  for (const char* program : {"vtenant-scheduler", "vtenant-operator"}) {
    if (cluster_only) break;  // the chart installs them
    if (up.out.find(std::string(program) + " running") == std::string::npos) {
      return FailedPrecondition(std::string("vtenant up did not start ") + program + ":\n" +
                                up.out);
    }
  }
  VT_ASSIGN_OR_RETURN(localenv::CommandResult host, env->Vtenant({"kubeconfig", "--host"}));
  if (host.exit_code != 0) return FailedPrecondition("vtenant kubeconfig --host: " + host.err);
  env->host_kubeconfig_ = env->tmp_ + "/host.kubeconfig";
  VT_RETURN_IF_ERROR(WriteSecretFile(env->host_kubeconfig_, host.out));
  VT_ASSIGN_OR_RETURN(kube::RestConfig config, kube::ParseKubeconfig(host.out));
  VT_ASSIGN_OR_RETURN(std::unique_ptr<kube::RestClient> client, kube::RestClient::Create(config));
  env->host_ = std::move(client);
  return env;
}

std::vector<std::string> Environment::Down() {
  std::vector<std::string> left;
  if (down_) return left;
  down_ = true;
  Result<localenv::CommandResult> down = Vtenant({"down"});
  if (!down.ok() || down->exit_code != 0) left.push_back("(vtenant down failed)");
  for (const localenv::EnvironmentProcess& p : localenv::FindEnvironmentProcesses(dir_)) {
    left.push_back(p.name + " (pid " + std::to_string(p.pid) + ")");
  }
  return left;
}

Environment::~Environment() {
  for (const std::string& p : Down())
    std::cerr << "e2e: left behind by vtenant down: " << p << "\n";
  if (std::getenv("VTENANT_KEEP_TEST_DIRS") == nullptr) {
    std::error_code ec;
    fs::remove_all(tmp_, ec);
  }
}

Result<localenv::CommandResult> Environment::Vtenant(std::vector<std::string> args) {
  args.insert(args.begin(), {cli_, "--state-dir", dir_});
  return localenv::RunCommand(args);
}

Result<std::string> Environment::HostKubectl(std::vector<std::string> args,
                                             const std::string& input) {
  return KubectlOk(host_kubeconfig_, std::move(args), input);
}

Status Environment::WaitForTeam(const std::string& tenant, std::chrono::seconds limit) {
  std::string phase;
  const bool ready = Eventually(
      [&] {
        Result<kube::Object> t = host_->Get(kube::resources::kTenants, "", tenant);
        phase = t.ok() ? std::string(kube::GetString(*t, {"status", "phase"})) : "absent";
        return phase == "Ready";
      },
      limit, std::chrono::milliseconds(500));
  if (!ready) {
    Result<localenv::CommandResult> tenants = Vtenant({"tenants"});
    return Status(StatusCode::kTimeout, "tenant " + tenant + " not Ready after " +
                                            std::to_string(limit.count()) + "s (phase " + phase +
                                            "):\n" + (tenants.ok() ? tenants->out : ""));
  }
  VT_ASSIGN_OR_RETURN(localenv::CommandResult config, Vtenant({"kubeconfig", tenant}));
  if (config.exit_code != 0) return FailedPrecondition("vtenant kubeconfig: " + config.err);
  VT_RETURN_IF_ERROR(WriteSecretFile(tmp_ + "/" + tenant + ".kubeconfig", config.out));
  return Status::Ok();
}

Result<localenv::CommandResult> Environment::TeamKubectlRaw(const std::string& tenant,
                                                            std::vector<std::string> args,
                                                            const std::string& input) {
  return Kubectl(TeamKubeconfig(tenant), std::move(args), input);
}

Result<std::string> Environment::TeamKubectl(const std::string& tenant,
                                             std::vector<std::string> args,
                                             const std::string& input) {
  return KubectlOk(TeamKubeconfig(tenant), std::move(args), input);
}

Result<kube::Object> Environment::TeamGet(const std::string& tenant,
                                          std::vector<std::string> args) {
  args.insert(args.begin(), "get");
  args.insert(args.end(), {"-o", "json"});
  VT_ASSIGN_OR_RETURN(std::string out, TeamKubectl(tenant, std::move(args)));
  return kube::ParseJson(out);
}

}  // namespace vtenant::e2e
