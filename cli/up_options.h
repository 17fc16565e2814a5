// `vtenant up`'s options. `up` checks them and hands them on, as arguments,
// to the supervisor it starts (`vtenant supervise`), which builds the
// environment with them; both parse them here.
#pragma once

#include <string>
#include <vector>

namespace vtenant::cli {

extern const char kUpUsage[];

struct UpOptions {
  std::string nodes_path = "examples/nodes/l40s.yaml";
  int port = 0;
  std::string crds_dir;
  std::string chart_dir;
  std::string operator_binary, scheduler_binary, syncer_binary;
  // Handed to vtenant-scheduler after the environment's own arguments, in
  // order: its options that the chart sets as values (--hami-core, ...).
  std::vector<std::string> scheduler_args;
  // One real node (localenv/real_node.h) beside the simulated ones.
  bool real_node = false;
  bool real_node_gpu = false;  // ... advertising one simulated GPU
  // The cluster alone: no CRDs, scheduler or operator, for installing
  // vtenant with its Helm chart as on any cluster.
  bool cluster_only = false;
  std::string images_script;  // hack/build-images.py (found, not an option)
};

// Parses `args` into `options` (paths made absolute, the CRDs, the chart and
// hack/build-images.py found in the current folder or above the binary when
// not given; --real-node-gpu implies --real-node). Returns an exit code when the
// command should end now (0 after --help, 2 after a usage error, both
// printed), -1 otherwise. `command` names the command in messages.
int ParseUpOptions(const std::string& command, const std::vector<std::string>& args,
                   UpOptions& options);

// `options` as arguments that ParseUpOptions reads back to the same options.
std::vector<std::string> UpArguments(const UpOptions& options);

}  // namespace vtenant::cli
