// Device taints and tolerations, as Kubernetes' ToleratesTaint and the
// structured allocator match them.
#include "scheduler/device_taints.h"

#include <gtest/gtest.h>

#include "kube/testing/json.h"
#include "scheduler/dra_device.h"

namespace vtenant::scheduler {
namespace {

using kube::Json;

TEST(DeviceTaintsTest, TolerationsMatchAsKubernetesMatchesThem) {
  const DeviceTaint taint{"gpu.example.com/unhealthy", "xid-79", "NoSchedule"};
  struct Case {
    DeviceToleration toleration;
    bool tolerates;
  };
  const Case cases[] = {
      {{"gpu.example.com/unhealthy", false, "xid-79", "NoSchedule"}, true},
      {{"gpu.example.com/unhealthy", false, "xid-79", ""}, true},     // every effect
      {{"gpu.example.com/unhealthy", false, "xid-48", ""}, false},    // Equal: the value
      {{"gpu.example.com/unhealthy", true, "", ""}, true},            // Exists: any value
      {{"gpu.example.com/unhealthy", true, "", "NoExecute"}, false},  // another effect
      {{"", true, "", ""}, true},                                     // everything
      {{"other", true, "", ""}, false},                               // another key
  };
  for (const Case& c : cases)
    EXPECT_EQ(Tolerates(c.toleration, taint), c.tolerates)
        << c.toleration.key << " " << c.toleration.exists << " " << c.toleration.value << " "
        << c.toleration.effect;
}

TEST(DeviceTaintsTest, OnlyNoScheduleAndNoExecuteKeepADeviceAway) {
  for (const char* effect : {"NoSchedule", "NoExecute"})
    EXPECT_TRUE(PreventsAllocation({"k", "", effect}, {})) << effect;
  for (const char* effect : {"None", "PreferNoSchedule", "SomethingNew"})
    EXPECT_FALSE(PreventsAllocation({"k", "", effect}, {})) << effect;
  EXPECT_FALSE(PreventsAllocation({"k", "", "NoExecute"}, {{"k", true, "", ""}}));
  EXPECT_TRUE(PreventsAllocation({"k", "", "NoExecute"}, {{"other", true, "", ""}}));
}

TEST(DeviceTaintsTest, ARuleTaintsTheDevicesItsSelectorNames) {
  const Device gpu{.driver = "gpu.example.com", .pool = "node0", .name = "gpu-0"};
  std::optional<DeviceTaintRule> rule = ReadDeviceTaintRule(Json(R"({"spec":{
      "deviceSelector":{"driver":"gpu.example.com","pool":"node0"},
      "taint":{"key":"example.com/drain","value":"now","effect":"NoExecute"}}})"));
  ASSERT_TRUE(rule);
  EXPECT_EQ(rule->taint, (DeviceTaint{"example.com/drain", "now", "NoExecute"}));
  EXPECT_TRUE(Applies(*rule, gpu));
  EXPECT_FALSE(Applies(*rule, {.driver = "gpu.example.com", .pool = "node1", .name = "gpu-0"}));
  rule = ReadDeviceTaintRule(Json(R"({"spec":{"deviceSelector":{"device":"gpu-1"},
      "taint":{"key":"k","effect":"NoSchedule"}}})"));
  ASSERT_TRUE(rule);
  EXPECT_FALSE(Applies(*rule, gpu));
  EXPECT_TRUE(Applies(*rule, {.driver = "other", .pool = "p", .name = "gpu-1"}));
  EXPECT_FALSE(ReadDeviceTaintRule(Json(R"({"spec":{"taint":{"key":"k","effect":"NoSchedule"}}})")))
      << "no selector, no device";
}

TEST(DeviceTaintsTest, ASlicesDevicesCarryTheirTaints) {
  Result<std::vector<Device>> devices = ReadSliceDevices(Json(R"({"metadata":{"name":"s"},
      "spec":{"driver":"gpu.example.com","pool":{"name":"node0"},"devices":[
      {"name":"gpu-0","taints":[{"key":"k","value":"v","effect":"NoSchedule",
        "timeAdded":"2026-12-07T10:00:00Z"}]},{"name":"gpu-1"}]}})"));
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  ASSERT_EQ(devices->size(), 2u);
  EXPECT_EQ((*devices)[0].taints, (std::vector<DeviceTaint>{{"k", "v", "NoSchedule"}}));
  EXPECT_TRUE((*devices)[1].taints.empty());
}

}  // namespace
}  // namespace vtenant::scheduler
