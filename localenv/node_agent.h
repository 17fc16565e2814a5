// NodeAgent: kwok playing the kubelet of every simulated node.
//
// It manages only nodes labelled vtenant.dev/simulated-node=true, keeps
// their leases fresh, and drives their pods through the stages in
// kwok_stages.h.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "localenv/api_server.h"
#include "localenv/process.h"

namespace vtenant::localenv {

struct NodeAgentOptions {
  std::string dir;  // stage configuration and log
  bool die_with_parent = true;
};

class NodeAgent {
 public:
  static Result<std::unique_ptr<NodeAgent>> Start(const ApiServer& api_server,
                                                  const NodeAgentOptions& options);
  ~NodeAgent() { Stop(); }

  const std::string& log_path() const { return log_path_; }
  pid_t pid() const { return process_.pid(); }
  bool Running() { return process_.Running(); }
  void Stop() { process_.Stop(); }
  pid_t Release() { return process_.Release(); }
  // Hands the process to a supervisor; Stop() no longer touches it. kwok
  // has no readiness endpoint: a running process is its health.
  Process TakeProcess() { return std::move(process_); }

 private:
  NodeAgent() = default;
  Process process_;
  std::string log_path_;
};

}  // namespace vtenant::localenv
