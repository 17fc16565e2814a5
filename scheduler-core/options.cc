#include "scheduler-core/options.h"

#include <string>

namespace vtenant::sched {

std::string_view PolicyName(PlacementPolicy policy) {
  switch (policy) {
    case PlacementPolicy::kBinpack:
      return "binpack";
    case PlacementPolicy::kSpread:
      return "spread";
    case PlacementPolicy::kBestFit:
      return "best-fit";
    case PlacementPolicy::kRandomFit:
      return "random-fit";
    case PlacementPolicy::kFgd:
      return "fgd";
  }
  return "unknown";
}

Result<PlacementPolicy> ParsePolicy(std::string_view name) {
  for (PlacementPolicy p :
       {PlacementPolicy::kBinpack, PlacementPolicy::kSpread, PlacementPolicy::kBestFit,
        PlacementPolicy::kRandomFit, PlacementPolicy::kFgd}) {
    if (PolicyName(p) == name) return p;
  }
  return InvalidArgument("unknown placement policy \"" + std::string(name) +
                         "\"; use binpack, spread, best-fit, random-fit or fgd");
}

}  // namespace vtenant::sched
