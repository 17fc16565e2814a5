// The vtenant CLI's subcommands. Each returns the process exit code and
// writes its own output; errors go to stderr with what to do about them.
#pragma once

#include <string>
#include <vector>

namespace vtenant::cli {

struct GlobalOptions {
  std::string state_dir = ".vtenant";  // where `up` keeps the local environment
  std::string kubeconfig;              // host cluster; empty: see host_cluster.h
  std::string program = "vtenant";     // "kubectl vtenant" when run as a kubectl plugin
};

// The local environment's folder: global.state_dir made absolute.
std::string StateDir(const GlobalOptions& global);

// The operator's --state-dir in the local environment's folder `dir`.
std::string OperatorStateDir(const std::string& dir);

int RunUp(const GlobalOptions& global, const std::vector<std::string>& args);
int RunDown(const GlobalOptions& global, const std::vector<std::string>& args);
int RunDelete(const GlobalOptions& global, const std::vector<std::string>& args);
// The supervisor `up` leaves running (supervise.cc); not for direct use.
int RunSupervise(const GlobalOptions& global, const std::vector<std::string>& args);
// A relay between the real node's network namespace and loopback
// (relay.cc, localenv/netns_relay.h); the supervisor runs it.
int RunRelay(const GlobalOptions& global, const std::vector<std::string>& args);
// The host cluster's DNS for the real node's pods (cluster_dns.cc); the
// supervisor runs it.
int RunClusterDns(const GlobalOptions& global, const std::vector<std::string>& args);
int RunStatus(const GlobalOptions& global, const std::vector<std::string>& args);
int RunTenants(const GlobalOptions& global, const std::vector<std::string>& args);
int RunQueues(const GlobalOptions& global, const std::vector<std::string>& args);
int RunKubeconfig(const GlobalOptions& global, const std::vector<std::string>& args);
int RunRotateCredentials(const GlobalOptions& global, const std::vector<std::string>& args);
// Image tarballs into the real node's containerd (load_image.cc).
int RunLoadImage(const GlobalOptions& global, const std::vector<std::string>& args);

}  // namespace vtenant::cli
