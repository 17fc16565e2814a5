#include "scheduler/gpu_reservation/nvml_gpu_info.h"

#include <dlfcn.h>

namespace vtenant::scheduler {
namespace {

// The few NVML entry points used, with NVML's C signatures (nvml.h).
using NvmlReturn = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
using NvmlDevice = void*;
using InitFn = NvmlReturn (*)();
using ShutdownFn = NvmlReturn (*)();
using CountFn = NvmlReturn (*)(unsigned int*);
using HandleFn = NvmlReturn (*)(unsigned int, NvmlDevice*);
using UuidFn = NvmlReturn (*)(NvmlDevice, char*, unsigned int);
using ErrorFn = const char* (*)(NvmlReturn);

struct Library {
  void* handle = nullptr;
  ~Library() {
    if (handle != nullptr) dlclose(handle);
  }
};

}  // namespace

Result<std::vector<std::string>> NvmlGpuInfo::VisibleGpuUuids() {
  Library lib;
  lib.handle = dlopen(library_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib.handle == nullptr)
    return Unavailable("cannot load " + library_ + " (" + dlerror() +
                       "); is the NVIDIA driver mounted into this container?");
  auto sym = [&](const char* name) { return dlsym(lib.handle, name); };
  auto init = reinterpret_cast<InitFn>(sym("nvmlInit_v2"));
  auto shutdown = reinterpret_cast<ShutdownFn>(sym("nvmlShutdown"));
  auto count = reinterpret_cast<CountFn>(sym("nvmlDeviceGetCount_v2"));
  auto handle = reinterpret_cast<HandleFn>(sym("nvmlDeviceGetHandleByIndex_v2"));
  auto uuid = reinterpret_cast<UuidFn>(sym("nvmlDeviceGetUUID"));
  auto error = reinterpret_cast<ErrorFn>(sym("nvmlErrorString"));
  if (!init || !shutdown || !count || !handle || !uuid)
    return Unavailable(library_ +
                       " lacks the NVML functions needed (nvmlInit_v2, nvmlDeviceGetUUID, ...)");
  auto fail = [&](const char* what, NvmlReturn r) {
    return Unavailable(std::string(what) + ": " +
                       (error ? error(r) : "NVML error " + std::to_string(r)));
  };
  if (NvmlReturn r = init(); r != 0) return fail("nvmlInit", r);
  std::vector<std::string> out;
  unsigned int n = 0;
  NvmlReturn r = count(&n);
  for (unsigned int i = 0; r == 0 && i < n; ++i) {
    NvmlDevice dev = nullptr;
    r = handle(i, &dev);
    if (r != 0) break;
    char buf[96] = {};
    r = uuid(dev, buf, sizeof buf);
    if (r == 0) out.emplace_back(buf);
  }
  shutdown();
  if (r != 0) return fail("reading the GPUs", r);
  return out;
}

}  // namespace vtenant::scheduler
