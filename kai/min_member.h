// The minMember of a workload's gang that its owner asks for with the
// annotation kai.scheduler/batch-min-member: how many of its pods must be
// placed at once. Which workloads read it is each grouper's business (KAI's
// pod grouper: batch Jobs, and JobSets for their minSubGroup and each
// replica's minimum, kai/jobset_gang.h; the syncer: the same, and every
// other workload that is not a Kubeflow job); what the value may be is
// this one rule.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"

namespace vtenant::kai {

// The largest minMember: PodGroup's spec.minMember is an int32.
inline constexpr int64_t kMaxMinMember = 2147483647;

// `text`, the annotation's value, as a minMember: a whole number as KAI's
// strconv.ParseInt reads it ("4", "+4"; not "4.0", " 4" or "four") from 1
// to kMaxMinMember. InvalidArgument naming the annotation, the value and
// what to write.
Result<int32_t> ParseBatchMinMember(std::string_view text);

}  // namespace vtenant::kai
