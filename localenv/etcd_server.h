// EtcdServer: a single-member etcd on loopback, the store of local control planes.
//
// Several API servers may share one EtcdServer, each under its own
// --etcd-prefix; that is how the local environment hosts many virtual
// control planes cheaply. It serves TLS and takes only clients with a
// certificate of its own CA (peers likewise), so the data of every cluster
// in it is out of reach of whoever merely reaches the loopback port. The
// CA, the server's certificates, the administrator's client certificate
// and root's password are made on first start under <dir>/pki (owner-only)
// and reused after. It runs with --unsafe-no-fsync: the state is local and
// disposable, and a crash of the machine may lose the last writes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "kube/rest_config.h"
#include "localenv/health_probe.h"
#include "localenv/process.h"

namespace vtenant::localenv {

// A client's TLS material for an etcd, as files (owner-only).
struct EtcdClientTls {
  std::string ca_file;    // the etcd's CA, which the client verifies the server with
  std::string cert_file;  // the client's certificate; once authentication is on, its
                          // common name is its etcd user on the gRPC port
  std::string key_file;
  // Root only: its password, for etcd's JSON gateway, which ignores the
  // names in certificates.
  std::string password_file;
};

// A client configuration for the etcd at `url` with `tls` (read from its
// files; empty fields where a file is missing).
kube::RestConfig EtcdClientConfig(const std::string& url, const EtcdClientTls& tls);

struct EtcdOptions {
  std::string dir;  // data, PKI and log live here; created if missing
  bool die_with_parent = true;
  std::vector<std::string> extra_args;
};

class EtcdServer : public ServerProcess {
 public:
  // Starts etcd on free loopback ports and waits until /health answers (30 s
  // per attempt; up to three attempts on new ports, as a picked port can be
  // taken before etcd binds it). The last attempt's error, with context.
  static Result<std::unique_ptr<EtcdServer>> Start(const EtcdOptions& options);

  // "https://127.0.0.1:<port>".
  const std::string& client_url() const { return client_url_; }
  // The administrator's credentials: everything, until authentication is
  // enabled, and then, as root with its password, still everything
  // (EtcdAdmin).
  const EtcdClientTls& client_tls() const { return root_; }
  // /health with the administrator's credentials.
  HealthProbe Health() const;

  // The administrator's credentials of the etcd whose folder is `dir` (one
  // that runs already, for a program that adopts it): the paths only, not
  // checked.
  static EtcdClientTls RootTls(const std::string& dir);

  // Issues a client certificate for etcd user `user` from the CA of the etcd
  // in `dir`, written as <out_dir>/etcd-client.crt and .key beside a copy
  // of the CA (etcd-ca.crt), owner-only; no password. FailedPrecondition
  // when that etcd has no CA.
  static Result<EtcdClientTls> IssueClient(const std::string& dir, const std::string& user,
                                           const std::string& out_dir);

 private:
  EtcdServer() = default;
  std::string dir_;
  std::string client_url_;
  EtcdClientTls root_;
};

}  // namespace vtenant::localenv
