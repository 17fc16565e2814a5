// `vtenant load-image TARBALL...`: puts images into the real node's
// containerd, as `kind load image-archive` does for kind. There is no
// registry; hack/build-images.py writes the tarballs (`--programs` makes the
// image of vtenant's programs and the control plane that the chart and the
// StatefulSet backend run).
#include <iostream>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "localenv/real_node.h"

namespace vtenant::cli {

int RunLoadImage(const GlobalOptions& global, const std::vector<std::string>& args) {
  const std::string command = global.program + " load-image";
  const std::string usage = "usage: " + command +
                            " TARBALL...\n\n"
                            "Imports image tarballs (docker save layout, as hack/build-images.py "
                            "writes them)\ninto the real node of the local environment "
                            "(vtenant up --real-node).\n";
  SplitCommandLine split;
  if (int code = ReadFlags(command, args, {}, Words::kKeep, usage, split); code >= 0) return code;
  if (split.words.empty()) return UsageError(command, "name an image tarball", usage);
  const std::string dir = StateDir(global);
  for (const std::string& tarball : split.words) {
    if (Status s = localenv::ImportImage(dir, tarball); !s.ok()) {
      std::cerr << command << ": " << s.message() << "\n";
      return 1;
    }
    std::cout << "loaded " << tarball << "\n";
  }
  return 0;
}

}  // namespace vtenant::cli
