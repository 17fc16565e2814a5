// The registry of placement rules: one line per policy.
#include "scheduler-core/classic_rules.h"
#include "scheduler-core/fgd_rule.h"

namespace vtenant::sched {

std::unique_ptr<PlacementRule> MakePlacementRule(const ClusterState& state, const Options& o) {
  switch (o.policy) {
    case PlacementPolicy::kBinpack:
      return std::make_unique<BinpackRule>();
    case PlacementPolicy::kSpread:
      return std::make_unique<SpreadRule>();
    case PlacementPolicy::kBestFit:
      return std::make_unique<BestFitRule>();
    case PlacementPolicy::kRandomFit:
      return std::make_unique<RandomFitRule>(o.seed);
    case PlacementPolicy::kFgd:
      return std::make_unique<FgdRule>(state, o.workload, o.fgd_max_candidates);
  }
  return std::make_unique<BinpackRule>();
}

}  // namespace vtenant::sched
