// LeaseHistory: every version of one Lease as a watch sees it, so a test of
// leader election checks a handover after the fact (who held it, when it
// was renewed and taken over) instead of timing it. For FakeClient and a
// real API server alike.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "kube/cancellation.h"
#include "kube/client.h"

namespace vtenant::kube {

// One version of a Lease: spec.holderIdentity, spec.acquireTime and
// spec.renewTime ("" where absent).
struct LeaseRecord {
  std::string holder;
  std::string acquire_time;
  std::string renew_time;
};

class LeaseHistory {
 public:
  // Watches Lease `ns`/`name` through `client`, which must outlive the
  // history, from resourceVersion "0" (its current version first, if any).
  LeaseHistory(Client& client, std::string ns, std::string name);
  // Ends the watch and joins its thread.
  ~LeaseHistory();

  LeaseHistory(const LeaseHistory&) = delete;
  LeaseHistory& operator=(const LeaseHistory&) = delete;

  // The versions seen so far, oldest first. Thread-safe.
  std::vector<LeaseRecord> Records() const;

  // Waits (base/eventually.h) until the latest version seen is held by
  // `holder`, then returns every version seen; a failure of the running
  // test, and what was seen, when that never happens.
  std::vector<LeaseRecord> RecordsOnceHeldBy(const std::string& holder) const;

 private:
  Cancellation cancel_;
  mutable std::mutex mu_;
  std::vector<LeaseRecord> records_;
  std::thread thread_;
};

// The index of the first record held by `holder`; records.size() if none.
size_t FirstHeldBy(const std::vector<LeaseRecord>& records, std::string_view holder);

// Microseconds since the epoch of a metav1.MicroTime such as
// "2024-05-01T12:00:00.123456Z". Text of another form fails the running
// test and reads as 0.
int64_t MicroTimeMicros(std::string_view text);

}  // namespace vtenant::kube
