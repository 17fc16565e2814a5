#include "kube/pod_address.h"

#include <gtest/gtest.h>

#include "kube/testing/json.h"

namespace vtenant::kube {
namespace {

TEST(PodAddressTest, ARunningPodHoldsItsAddresses) {
  EXPECT_EQ(PodAddressesOf(Json(R"({"status":{"phase":"Running","podIP":"10.244.0.5",
      "podIPs":[{"ip":"10.244.0.5"},{"ip":"fd00::5"}]}})")),
            (std::vector<std::string>{"10.244.0.5", "fd00::5"}));
  // A server older than podIPs, or a status written by hand.
  EXPECT_EQ(PodAddressesOf(Json(R"({"status":{"phase":"Pending","podIP":"10.244.0.6"}})")),
            (std::vector<std::string>{"10.244.0.6"}));
}

TEST(PodAddressTest, AFinishedOrUnplacedPodHoldsNone) {
  for (const char* phase : {"Succeeded", "Failed"}) {
    EXPECT_TRUE(PodAddressesOf(Json(std::string(R"({"status":{"phase":")") + phase +
                                    R"(","podIP":"10.244.0.5"}})"))
                    .empty())
        << phase;
  }
  EXPECT_TRUE(PodAddressesOf(Json(R"({"status":{"phase":"Pending"}})")).empty());
  EXPECT_TRUE(PodAddressesOf(Json(R"({"metadata":{"name":"p"}})")).empty());
}

}  // namespace
}  // namespace vtenant::kube
