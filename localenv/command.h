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

// Runs argv (argv[0] is a path) with `input` on stdin and waits for it,
// however long it takes. A non-zero exit is reported in the result (a
// command killed by signal N as 128+N, one that could not exec as 127), not
// as an error; errors are for commands that could not run at all:
// InvalidArgument for an empty argv, FailedPrecondition when argv[0] is not
// executable, Internal when no pipe or process can be made.
// Side effect: SIGPIPE is ignored in this process from then on, so a
// command that exits before reading its input cannot kill the caller.
Result<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                 const std::string& input = {});

}  // namespace vtenant::localenv
