#include "kube/heap_trimmer.h"

#include <malloc.h>

#include "kube/cancellation.h"

namespace vtenant::kube {

void LimitMallocArenas(int arenas) { mallopt(M_ARENA_MAX, arenas); }

void AddHeapTrimmer(Manager& manager, std::chrono::milliseconds period) {
  manager.AddRunnable(
      "heap-trimmer",
      [period](Cancellation& stop) {
        while (!stop.WaitFor(period)) malloc_trim(0);
      },
      /*needs_leader=*/false);
}

}  // namespace vtenant::kube
