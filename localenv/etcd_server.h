// EtcdServer: a single-member etcd on loopback, the store of local control planes.
//
// Several API servers may share one EtcdServer, each under its own
// --etcd-prefix; that is how the local environment hosts many virtual
// control planes cheaply.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "localenv/process.h"

namespace vtenant::localenv {

struct EtcdOptions {
  std::string dir;  // data and log live here; created if missing
  bool die_with_parent = true;
};

class EtcdServer {
 public:
  // Starts etcd on free loopback ports and waits until /health answers.
  static Result<std::unique_ptr<EtcdServer>> Start(const EtcdOptions& options);
  ~EtcdServer() { Stop(); }

  // "http://127.0.0.1:<port>": plain HTTP is safe because it is loopback only.
  const std::string& client_url() const { return client_url_; }
  const std::string& log_path() const { return log_path_; }
  pid_t pid() const { return process_.pid(); }

  // Stops etcd; the data folder stays. Idempotent.
  void Stop() { process_.Stop(); }

  // Forgets the process without stopping it (daemonised environments).
  pid_t Release() { return process_.Release(); }

 private:
  EtcdServer() = default;
  Process process_;
  std::string client_url_;
  std::string log_path_;
};

}  // namespace vtenant::localenv
