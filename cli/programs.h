// Where the vtenant programs that `vtenant up` runs beside the host cluster
// (vtenant-scheduler, vtenant-operator, vtenant-syncer) are built.
#pragma once

#include <string>

#include "base/status.h"

namespace vtenant::cli {

// The binary `name` built in `build_subdir` of the build tree this vtenant
// binary belongs to (<build>/cli/vtenant -> <build>/<build_subdir>/<name>),
// or `override` when set. NotFound, with the path looked at and the build
// command, when it is not an executable file there (or, for `override`,
// when that is not one).
Result<std::string> FindVtenantProgram(const std::string& override, const std::string& build_subdir,
                                       const std::string& name);

// The last `lines` lines of the file at `path`, each indented four spaces
// and ending in a newline, for an error message that quotes a log; "" when
// the file cannot be read.
std::string LogTail(const std::string& path, size_t lines);

}  // namespace vtenant::cli
