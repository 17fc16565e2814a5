// Where tests and benchmarks find the source tree's files: examples, the
// chart's CRDs, recorded data.
#pragma once

#include <string>
#include <vector>

namespace vtenant::localenv {

// The source tree: $VTENANT_SOURCE_DIR (ctest sets it), or else the tree
// this was built from, so a test or benchmark run by hand finds it from
// any folder.
std::string SourceRoot();
// `relative` under SourceRoot().
std::string SourcePath(const std::string& relative);

// The folder of the CRDs vtenant installs, under SourceRoot().
inline constexpr char kCrdFolder[] = "charts/vtenant/crds";
// One CRD vtenant installs: kCrdFolder/`file`, for example
// "scheduling.run.ai_podgroups.yaml".
std::string CrdManifest(const std::string& file);
// Every CRD vtenant installs (kCrdFolder/*.yaml), sorted: pass as
// LocalClusterOptions::manifests.
std::vector<std::string> CrdManifests();

}  // namespace vtenant::localenv
