#pragma once

#include <chrono>

#include "kube/manager.h"

namespace vtenant::kube {

// Keeping a long-running program's resident memory near what it uses.
//
// glibc gives groups of threads arenas of their own (up to 8 per core) and
// keeps freed pages inside them. A controller's bursts (a thousand pods
// created, then deleted) leave many such pages, spread over many arenas,
// and they show as resident memory that never goes back.

// Caps the arenas malloc may create at `arenas`. Call it first in a
// program, before its threads start: arenas already made stay.
void LimitMallocArenas(int arenas);

// Adds to `manager` a runnable (leader or not) that hands free heap pages
// back to the system every `period` until the manager stops.
void AddHeapTrimmer(Manager& manager, std::chrono::milliseconds period);

}  // namespace vtenant::kube
