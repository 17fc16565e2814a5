// `vtenant load-image TARBALL...`: puts images into the real node's
// containerd, as `kind load image-archive` does for kind. There is no
// registry; hack/build-images.py writes the tarballs (`--programs` makes the
// image of vtenant's programs and the control plane that the chart and the
// StatefulSet backend run).
#include <iostream>

#include "cli/commands.h"
#include "localenv/real_node.h"

namespace vtenant::cli {

int RunLoadImage(const GlobalOptions& global, const std::vector<std::string>& args) {
  const std::string usage = "usage: " + global.program +
                            " load-image TARBALL...\n\n"
                            "Imports image tarballs (docker save layout, as hack/build-images.py "
                            "writes them)\ninto the real node of the local environment "
                            "(vtenant up --real-node).\n";
  if (args.empty()) {
    std::cerr << usage;
    return 2;
  }
  for (const std::string& arg : args) {
    if (arg == "-h" || arg == "--help") {
      std::cout << usage;
      return 0;
    }
  }
  const std::string dir = StateDir(global);
  for (const std::string& tarball : args) {
    if (Status s = localenv::ImportImage(dir, tarball); !s.ok()) {
      std::cerr << global.program << " load-image: " << s.message() << "\n";
      return 1;
    }
    std::cout << "loaded " << tarball << "\n";
  }
  return 0;
}

}  // namespace vtenant::cli
