// ApiServer: a real kube-apiserver on loopback with TLS and client-certificate auth.
//
// Start() makes (or reuses, on restart) a CA, a serving certificate for
// 127.0.0.1/localhost, an admin client certificate in system:masters and a
// service-account signing key under `<dir>/pki` (owner-only), writes
// `<dir>/admin.kubeconfig`, and waits for /readyz. The serving certificate
// also names the `kubernetes` Service's address (the first of
// service_cidr), where pods of a real node reach it.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "kube/rest_config.h"
#include "localenv/etcd_server.h"
#include "localenv/health_probe.h"
#include "localenv/process.h"

namespace vtenant::localenv {

struct ApiServerOptions {
  std::string dir;                        // pki, kubeconfig and log live here
  std::string etcd_url;                   // from EtcdServer::client_url()
  EtcdClientTls etcd_tls;                 // its credentials there (client_tls(), or a user's)
  std::string etcd_prefix = "/registry";  // distinct per API server sharing one etcd
  std::string name = "vtenant";           // cluster/context name in the kubeconfig
  int port = 0;                           // 0: pick a free loopback port
  // Extra identities that get a client certificate: {user, group} pairs
  // (group "": none), written as <dir>/<user>.kubeconfig.
  std::vector<std::pair<std::string, std::string>> extra_users;
  // Without a kubelet nothing mounts service-account tokens, so the
  // ServiceAccount admission plugin would only make pod creation race the
  // controller that creates `default` accounts. Off unless asked for.
  bool service_account_admission = false;
  // The CAs trusted for client certificates; empty: <dir>/pki/ca.crt. The
  // API server reloads the file when it changes, so replacing a CA in it
  // revokes what that CA signed without a restart.
  std::string client_ca_file;
  // --service-cluster-ip-range. A tenant's virtual API server gets the
  // host's, so its Services can take their host copies' addresses.
  std::string service_cidr = "10.96.0.0/16";
  std::vector<std::string> extra_args;
  std::map<std::string, std::string> env;  // e.g. GOMEMLIMIT
  bool die_with_parent = true;
  // How long Start waits for /readyz before it gives up and stops the
  // server. Many servers starting at once on a loaded machine need longer.
  std::chrono::milliseconds ready_timeout = std::chrono::seconds(120);
};

class ApiServer : public ServerProcess {
 public:
  // Starts it as the file comment says. With port 0 a free port is picked,
  // and up to three are tried (another process may take one first); a port
  // given is tried once. An identity added to extra_users since the PKI was
  // made gets its certificate from the same CA (FailedPrecondition when the
  // CA's key is gone). InvalidArgument without a folder or an etcd URL; the
  // last start's error (Unavailable, Timeout) otherwise.
  static Result<std::unique_ptr<ApiServer>> Start(const ApiServerOptions& options);

  // Admin (system:masters) connection settings.
  const kube::RestConfig& admin_config() const { return admin_; }
  std::string kubeconfig_path() const { return options_.dir + "/admin.kubeconfig"; }
  std::string pki_dir() const { return options_.dir + "/pki"; }
  int port() const { return options_.port; }

  // Kills the process without waiting for a graceful shutdown, like a crash
  // (SIGTERM, then SIGKILL at once).
  void Kill() { process_.Stop(std::chrono::milliseconds(0)); }
  // Stops it (gracefully) and starts it again on the same port with the
  // same certificates and data, waiting for /readyz; on failure it is left
  // stopped.
  Status Restart();
  // /readyz with the admin kubeconfig.
  HealthProbe Health() const;

 private:
  ApiServer() = default;
  Status Launch();

  ApiServerOptions options_;
  kube::RestConfig admin_;
};

}  // namespace vtenant::localenv
