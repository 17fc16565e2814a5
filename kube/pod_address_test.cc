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

// Servers ask the index by the address a packet came from.
TEST(PodAddressTest, PodsAtFindsThePodsHoldingAnAddress) {
  Cache cache;
  ASSERT_TRUE(cache.AddIndexer(kPodAddressIndex, PodAddressesOf).ok());
  cache.Upsert(std::make_shared<Object>(Json(R"({"metadata":{"name":"a","namespace":"t"},
      "status":{"phase":"Running","podIP":"10.244.0.5"}})")));
  cache.Upsert(std::make_shared<Object>(Json(R"({"metadata":{"name":"old","namespace":"t"},
      "status":{"phase":"Succeeded","podIP":"10.244.0.6"}})")));
  const std::vector<ObjectPtr> at = PodsAt(cache, "10.244.0.5");
  ASSERT_EQ(at.size(), 1u);
  EXPECT_EQ(Name(*at[0]), "a");
  EXPECT_TRUE(PodsAt(cache, "10.244.0.6").empty());
  EXPECT_TRUE(PodsAt(Cache(), "10.244.0.5").empty());  // no such index
}

}  // namespace
}  // namespace vtenant::kube
