#include "localenv/testing/source_tree.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace vtenant::localenv {

std::string SourceRoot() {
  const char* root = std::getenv("VTENANT_SOURCE_DIR");
  return root != nullptr ? root : VTENANT_SOURCE_ROOT;
}

std::string SourcePath(const std::string& relative) { return SourceRoot() + "/" + relative; }

std::string CrdManifest(const std::string& file) {
  return SourcePath(std::string(kCrdFolder) + "/" + file);
}

std::vector<std::string> CrdManifests() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(SourcePath(kCrdFolder))) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace vtenant::localenv
