#include "localenv/etcd_server.h"

#include <filesystem>

#include "base/secret_file.h"
#include "localenv/tools.h"
#include "localenv/wait.h"

namespace vtenant::localenv {

Result<std::unique_ptr<EtcdServer>> EtcdServer::Start(const EtcdOptions& options) {
  VT_ASSIGN_OR_RETURN(std::string binary, FindTool("etcd"));
  // Every tenant's data, and later its credentials: owner-only.
  VT_RETURN_IF_ERROR(EnsurePrivateDirectory(options.dir));
  std::unique_ptr<EtcdServer> server(new EtcdServer());
  server->log_path_ = options.dir + "/etcd.log";
  Status last_error;
  // A picked port can be taken before etcd binds it; a few tries make that rare race harmless.
  for (int attempt = 0; attempt < 3; ++attempt) {
    VT_ASSIGN_OR_RETURN(int client_port, PickFreeLoopbackPort());
    VT_ASSIGN_OR_RETURN(int peer_port, PickFreeLoopbackPort());
    server->client_url_ = "http://127.0.0.1:" + std::to_string(client_port);
    const std::string peer_url = "http://127.0.0.1:" + std::to_string(peer_port);
    ProcessOptions process;
    process.argv = {binary, "--name=vtenant", "--data-dir=" + options.dir + "/data",
                    "--listen-client-urls=" + server->client_url_,
                    "--advertise-client-urls=" + server->client_url_,
                    "--listen-peer-urls=" + peer_url, "--initial-advertise-peer-urls=" + peer_url,
                    "--initial-cluster=vtenant=" + peer_url, "--listen-metrics-urls=",
                    // Local, disposable state: durability is not worth fsync latency.
                    "--unsafe-no-fsync=true", "--quota-backend-bytes=4294967296",
                    "--log-level=warn"};
    process.log_path = server->log_path_;
    process.die_with_parent = options.die_with_parent;
    VT_ASSIGN_OR_RETURN(server->process_, Process::Start(process));
    kube::RestConfig probe;
    probe.server = server->client_url_;
    last_error = WaitForHttpOk(probe, "/health", std::chrono::seconds(30), &server->process_,
                               server->log_path_);
    if (last_error.ok()) return server;
    server->process_.Stop();
  }
  return last_error.WithContext("starting etcd");
}

}  // namespace vtenant::localenv
