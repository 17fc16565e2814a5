#include "localenv/tools.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace vtenant::localenv {
namespace fs = std::filesystem;

namespace {

bool IsExecutable(const fs::path& p) {
  return access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p);
}

}  // namespace

Result<std::string> FindTool(const std::string& name) {
  if (const char* dir = std::getenv("VTENANT_TOOLS_BIN"); dir != nullptr && *dir != '\0') {
    if (fs::path p = fs::path(dir) / name; IsExecutable(p)) return p.string();
  }
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (fs::path dir = exe.parent_path(); !ec && !dir.empty() && dir != dir.root_path();
       dir = dir.parent_path()) {
    if (fs::path p = dir / ".tools" / "bin" / name; IsExecutable(p)) return p.string();
  }
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      if (fs::path p = fs::path(dir) / name; !dir.empty() && IsExecutable(p)) return p.string();
    }
  }
  return NotFound(name + " not found in $VTENANT_TOOLS_BIN, .tools/bin or $PATH; build it with " +
                  "`make deps` (hack/build-tools.sh)");
}

}  // namespace vtenant::localenv
