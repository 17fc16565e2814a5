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

class NodeAgent : public ServerProcess {
 public:
  // Writes the stages to <dir>/kwok.yaml, starts kwok against `api_server`
  // (its HOME is `dir`, where it keeps its own files) and, as kwok has no
  // readiness endpoint, waits half a second: Unavailable when it has exited
  // by then (a configuration error), naming the log. FindTool's NotFound
  // when kwok is not built.
  static Result<std::unique_ptr<NodeAgent>> Start(const ApiServer& api_server,
                                                  const NodeAgentOptions& options);
  // Whether kwok still runs. It has no readiness endpoint: a running
  // process is its health (what a supervisor given TakeProcess checks).
  bool Running() { return process_.Running(); }

 private:
  NodeAgent() = default;
};

}  // namespace vtenant::localenv
