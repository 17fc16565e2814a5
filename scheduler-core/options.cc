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
  }
  return "unknown";
}

Result<PlacementPolicy> ParsePolicy(std::string_view name) {
  for (PlacementPolicy p : {PlacementPolicy::kBinpack, PlacementPolicy::kSpread,
                            PlacementPolicy::kBestFit, PlacementPolicy::kRandomFit}) {
    if (PolicyName(p) == name) return p;
  }
  return InvalidArgument("unknown placement policy \"" + std::string(name) +
                         "\"; use binpack, spread, best-fit or random-fit");
}

}  // namespace vtenant::sched
