#include "kube/testing/lease_history.h"

#include <gtest/gtest.h>

#include <ctime>

#include "base/eventually.h"

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
  std::tm tm{};
  const std::string s(text);
  const char* rest = strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  EXPECT_NE(rest, nullptr) << text;
  if (rest == nullptr) return 0;
  // Up to six digits of fraction, as many as the text has.
  int64_t micros = 0;
  int digits = 0;
  if (*rest == '.') {
    for (++rest; *rest >= '0' && *rest <= '9' && digits < 6; ++rest, ++digits) {
      micros = micros * 10 + (*rest - '0');
    }
  }
  for (; digits < 6; ++digits) micros *= 10;
  return static_cast<int64_t>(timegm(&tm)) * 1000000 + micros;
}

}  // namespace vtenant::kube
