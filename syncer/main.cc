// vtenant-syncer: one tenant's syncer, as a sidecar of its control plane or
// as a process the local environment supervises. See syncer_app.h for the
// pieces, flags.cc for the command line and syncer.h for what it does.
#include <glog/logging.h>

#include <iostream>
#include <vector>

#include "syncer/flags.h"
#include "syncer/syncer_app.h"

int main(int argc, char** argv) {
  using namespace vtenant;
  FLAGS_logtostderr = true;
  google::InitGoogleLogging(argv[0]);
  Result<syncer::SyncerFlags> flags = syncer::ParseFlags({argv + 1, argv + argc});
  if (!flags.ok()) {
    std::cerr << "vtenant-syncer: " << flags.status().message() << "\n\n" << syncer::Usage();
    return 2;
  }
  if (flags->help) {
    std::cout << syncer::Usage();
    return 0;
  }
  Result<std::unique_ptr<syncer::SyncerApp>> app = syncer::SyncerApp::Create(*flags);
  Status run = app.ok() ? (*app)->Run() : app.status();
  if (!run.ok()) LOG(ERROR) << run.ToString();
  return run.ok() ? 0 : 1;
}
