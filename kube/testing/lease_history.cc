#include "kube/testing/lease_history.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>

#include "base/eventually.h"
#include "base/rfc3339.h"

namespace vtenant::kube {

LeaseHistory::LeaseHistory(Client& client, std::string ns, std::string name) {
  thread_ = std::thread([this, &client, ns = std::move(ns), name = std::move(name)] {
    (void)client.Watch(
        resources::kLeases, ns,
        {.field_selector = "metadata.name=" + name, .resource_version = "0"},
        [this](WatchEvent& e) {
          if (e.type == WatchEvent::Type::kBookmark) return true;
          LeaseRecord record{std::string(GetString(e.object, {"spec", "holderIdentity"})),
                             std::string(GetString(e.object, {"spec", "acquireTime"})),
                             std::string(GetString(e.object, {"spec", "renewTime"}))};
          std::lock_guard lock(mu_);
          records_.push_back(std::move(record));
          return true;
        },
        &cancel_);
  });
}

LeaseHistory::~LeaseHistory() {
  cancel_.Cancel();
  thread_.join();
}

std::vector<LeaseRecord> LeaseHistory::Records() const {
  std::lock_guard lock(mu_);
  return records_;
}

std::vector<LeaseRecord> LeaseHistory::RecordsOnceHeldBy(const std::string& holder) const {
  std::vector<LeaseRecord> records;
  EXPECT_TRUE(Eventually([&] {
    records = Records();
    return !records.empty() && records.back().holder == holder;
  })) << "the Lease was never seen held by "
      << holder;
  return records;
}

size_t FirstHeldBy(const std::vector<LeaseRecord>& records, std::string_view holder) {
  size_t i = 0;
  while (i < records.size() && records[i].holder != holder) ++i;
  return i;
}

int64_t MicroTimeMicros(std::string_view text) {
  std::optional<std::chrono::system_clock::time_point> t = ParseRfc3339(text);
  EXPECT_TRUE(t.has_value()) << text;
  if (!t) return 0;
  return std::chrono::duration_cast<std::chrono::microseconds>(t->time_since_epoch()).count();
}

}  // namespace vtenant::kube
