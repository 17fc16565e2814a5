#include "cli/programs.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <vector>

namespace vtenant::cli {
namespace fs = std::filesystem;

Result<std::string> FindVtenantProgram(const std::string& override, const std::string& build_subdir,
                                       const std::string& name) {
  if (!override.empty()) {
    if (access(override.c_str(), X_OK) == 0) return override;
    return NotFound(override + " is not an executable file");
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const fs::path path = exe.parent_path().parent_path() / build_subdir / name;
  if (!ec && access(path.c_str(), X_OK) == 0) return path.string();
  return NotFound(name + " is not built (looked for " + path.string() +
                  "); build it with `cmake --build " + exe.parent_path().parent_path().string() +
                  " --target " + name + "`");
}

std::string LogTail(const std::string& path, size_t lines) {
  std::ifstream in(path);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(line);
  std::string out;
  for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) {
    out += "    " + all[i] + "\n";
  }
  return out;
}

}  // namespace vtenant::cli
