// The vtenant CLI's subcommands. Each returns the process exit code and
// writes its own output; errors go to stderr with what to do about them.
#pragma once

#include <string>
#include <vector>

namespace vtenant::cli {

struct GlobalOptions {
  std::string state_dir = ".vtenant";  // where `up` keeps the local environment
};

int RunUp(const GlobalOptions& global, const std::vector<std::string>& args);
int RunDown(const GlobalOptions& global, const std::vector<std::string>& args);
int RunStatus(const GlobalOptions& global, const std::vector<std::string>& args);

}  // namespace vtenant::cli
