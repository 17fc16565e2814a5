#include "syncer/service_band.h"

#include <gtest/gtest.h>

namespace vtenant::syncer {
namespace {

ServiceBand Band(std::string_view range, std::string_view address) {
  return BandOf(*IpRange::Parse(range), *IpAddress::Parse(address));
}

// The bands kube-apiserver's allocator keeps (KEP-3070): the static band is
// min(max(16, size/16), 256) addresses after the range's first.
TEST(ServiceBandTest, TheLowerBandIsKeptForAddressesGivenByHand) {
  struct Row {
    const char* range;
    const char* address;
    ServiceBand band;
  };
  const Row rows[] = {
      // A /16 (65,536 addresses): a band of 256.
      {"10.96.0.0/16", "10.96.0.0", ServiceBand::kOutside},  // the network's own
      {"10.96.0.0/16", "10.96.0.1", ServiceBand::kStatic},   // the kubernetes Service
      {"10.96.0.0/16", "10.96.0.10", ServiceBand::kStatic},  // the cluster DNS
      {"10.96.0.0/16", "10.96.1.0", ServiceBand::kStatic},   // the 256th
      {"10.96.0.0/16", "10.96.1.1", ServiceBand::kDynamic},  // the 257th
      {"10.96.0.0/16", "10.96.200.7", ServiceBand::kDynamic},
      {"10.96.0.0/16", "10.96.255.255", ServiceBand::kOutside},  // the last
      {"10.96.0.0/16", "10.97.0.5", ServiceBand::kOutside},
      {"10.96.0.0/16", "fd00::5", ServiceBand::kOutside},
      // A /24: 256/16 = 16.
      {"10.0.0.0/24", "10.0.0.16", ServiceBand::kStatic},
      {"10.0.0.0/24", "10.0.0.17", ServiceBand::kDynamic},
      // A /21 (2,048): 128.
      {"10.0.0.0/21", "10.0.0.128", ServiceBand::kStatic},
      {"10.0.0.0/21", "10.0.0.129", ServiceBand::kDynamic},
      // A /28 is all band; a /29 has none.
      {"10.0.0.0/28", "10.0.0.14", ServiceBand::kStatic},
      {"10.0.0.0/29", "10.0.0.1", ServiceBand::kDynamic},
      {"10.0.0.0/29", "10.0.0.7", ServiceBand::kOutside},
      {"10.0.0.5/32", "10.0.0.5", ServiceBand::kOutside},
      // IPv6, as wide as a range gets.
      {"fd00:10:96::/112", "fd00:10:96::100", ServiceBand::kStatic},
      {"fd00:10:96::/112", "fd00:10:96::101", ServiceBand::kDynamic},
      {"fd00::/64", "fd00::ffff:ffff:ffff:fffe", ServiceBand::kDynamic},
      {"fd00::/64", "fd00::ffff:ffff:ffff:ffff", ServiceBand::kOutside},
      {"::/0", "::1", ServiceBand::kStatic},
      {"::/0", "8000::1", ServiceBand::kDynamic},
  };
  for (const Row& row : rows) {
    EXPECT_EQ(Band(row.range, row.address), row.band) << row.range << " " << row.address;
  }
}

}  // namespace
}  // namespace vtenant::syncer
