// Running a short command (kubectl, helm) to completion and capturing its output.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace vtenant::localenv {

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs argv (argv[0] is a path) with `input` on stdin and waits for it.
// A non-zero exit is reported in the result, not as an error; errors are
// for commands that could not run at all.
Result<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                 const std::string& input = {});

}  // namespace vtenant::localenv
