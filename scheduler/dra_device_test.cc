// The devices a ResourceSlice publishes, as selectors see them.
#include "scheduler/dra_device.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kube/testing/json.h"
#include "scheduler/device_selector.h"

namespace vtenant::scheduler {
namespace {

using kube::Json;
using ::testing::HasSubstr;

kube::Quantity Q(std::string_view text) { return kube::Quantity::Parse(text).value(); }

// A resource.k8s.io/v1 ResourceSlice of gpu.nvidia.com with `devices`.
kube::Object Slice(const std::string& devices) {
  return Json(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice",
      "metadata":{"name":"node-a-gpu.nvidia.com-x"},
      "spec":{"driver":"gpu.nvidia.com","nodeName":"node-a",
        "pool":{"name":"node-a","generation":1,"resourceSliceCount":1},
        "devices":)" +
              devices + "}}");
}

// The error reading a slice with `devices` gives; none fails the test.
std::string ReadError(const std::string& devices) {
  Result<std::vector<Device>> r = ReadSliceDevices(Slice(devices));
  EXPECT_FALSE(r.ok()) << devices;
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  return r.status().message();
}

TEST(ReadSliceDevicesTest, DevicesCarryTheDriverThePoolAndTheirProperties) {
  Result<std::vector<Device>> devices = ReadSliceDevices(Slice(R"([
      {"name":"gpu-0",
       "attributes":{
         "type":{"string":"gpu"},
         "index":{"int":0},
         "driverVersion":{"version":"550.54.15"},
         "gpu.nvidia.com/nvlink":{"bool":true},
         "resource.kubernetes.io/pcieRoot":{"string":"pci0000:00"}},
       "capacity":{"memory":{"value":"80Gi"},
         "example.com/slices":{"value":"7","requestPolicy":{"default":"1"}}}},
      {"name":"gpu-1","allowMultipleAllocations":true}])"));
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  ASSERT_EQ(devices->size(), 2u);

  const Device& d = (*devices)[0];
  EXPECT_EQ(d.driver, "gpu.nvidia.com");
  EXPECT_EQ(d.pool, "node-a");
  EXPECT_EQ(d.name, "gpu-0");
  EXPECT_FALSE(d.allow_multiple_allocations);
  using Attributes = std::map<std::string, DeviceAttribute>;
  EXPECT_EQ(d.attributes.at("gpu.nvidia.com"),
            (Attributes{{"type", std::string("gpu")},
                        {"index", int64_t{0}},
                        {"driverVersion", DeviceVersion{"550.54.15"}},
                        {"nvlink", true}}))
      << "an unqualified name is in the driver's domain";
  EXPECT_EQ(d.attributes.at("resource.kubernetes.io"),
            (Attributes{{"pcieRoot", std::string("pci0000:00")}}));
  EXPECT_EQ(d.attributes.size(), 2u);
  EXPECT_EQ(d.capacity.at("gpu.nvidia.com"),
            (std::map<std::string, kube::Quantity>{{"memory", Q("80Gi")}}));
  EXPECT_EQ(d.capacity.at("example.com"),
            (std::map<std::string, kube::Quantity>{{"slices", Q("7")}}));

  const Device& shared = (*devices)[1];
  EXPECT_EQ(shared.name, "gpu-1");
  EXPECT_TRUE(shared.allow_multiple_allocations);
  EXPECT_TRUE(shared.attributes.empty());
  EXPECT_TRUE(shared.capacity.empty());
}

TEST(ReadSliceDevicesTest, ASliceDeviceMeetsTheNvidiaClassSelectors) {
  Result<std::vector<Device>> devices = ReadSliceDevices(Slice(R"([
      {"name":"gpu-0","attributes":{"type":{"string":"gpu"}},
       "capacity":{"memory":{"value":"80Gi"}}},
      {"name":"gpu-0-mig-1g.10gb-0","attributes":{"type":{"string":"mig"}},
       "capacity":{"memory":{"value":"10Gi"}}}])"));
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  Result<DeviceSelector> gpu = DeviceSelector::Parse(
      "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'");
  Result<DeviceSelector> big = DeviceSelector::Parse(
      "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0");
  ASSERT_TRUE(gpu.ok() && big.ok());
  EXPECT_EQ(gpu->Matches((*devices)[0]).value_or(false), true);
  EXPECT_EQ(gpu->Matches((*devices)[1]).value_or(true), false);
  EXPECT_EQ(big->Matches((*devices)[0]).value_or(false), true);
  EXPECT_EQ(big->Matches((*devices)[1]).value_or(true), false);
}

TEST(ReadSliceDevicesTest, AnAttributeNeedsExactlyOneValue) {
  EXPECT_THAT(ReadError(R"([{"name":"gpu-0","attributes":{"model":{}}}])"),
              HasSubstr("device gpu-0: attribute model: no value"));
  EXPECT_THAT(ReadError(R"([{"name":"gpu-0","attributes":{"model":{"string":"a","int":1}}}])"),
              HasSubstr("device gpu-0: attribute model: more than one"));
  EXPECT_THAT(ReadError(R"([{"name":"gpu-0","attributes":{"index":{"int":"0"}}}])"),
              HasSubstr("attribute index: int value of the wrong type"));
  EXPECT_THAT(ReadError(R"([{"name":"gpu-0","attributes":{"model":"a"}}])"),
              HasSubstr("attribute model: not an object"));
  EXPECT_THAT(ReadError(R"([{"name":"gpu-0","attributes":{
      "model":{"string":"a"},"gpu.nvidia.com/model":{"string":"b"}}}])"),
              HasSubstr("given twice"));
}

TEST(ReadSliceDevicesTest, AnUnreadableCapacityIsAnError) {
  EXPECT_THAT(ReadError(R"([{"name":"gpu-0","capacity":{"memory":{"value":"80 Gi"}}}])"),
              HasSubstr("device gpu-0: capacity memory: "));
  EXPECT_THAT(ReadError(R"([{"name":"gpu-0","capacity":{"memory":{}}}])"),
              HasSubstr("capacity memory: no value"));
}

TEST(ReadSliceDevicesTest, AMalformedSliceIsAnError) {
  EXPECT_THAT(ReadError(R"([{"attributes":{}}])"), HasSubstr("a device without a name"));
  EXPECT_THAT(ReadError(R"({"name":"gpu-0"})"), HasSubstr("spec.devices is not a list"));
  EXPECT_THAT(ReadError(R"([{"name":"gpu-0","allowMultipleAllocations":"yes"}])"),
              HasSubstr("allowMultipleAllocations is not a bool"));
  Result<std::vector<Device>> r =
      ReadSliceDevices(Json(R"({"metadata":{"name":"s"},"spec":{"devices":[{"name":"gpu-0"}]}})"));
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("ResourceSlice s: no spec.driver"));
}

TEST(ReadSliceDevicesTest, ASliceWithoutDevicesHasNone) {
  Result<std::vector<Device>> r = ReadSliceDevices(Json(R"({"spec":{"driver":"gpu.nvidia.com",
      "pool":{"name":"p"},"sharedCounters":[]}})"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->empty());
}

TEST(ReadSliceDevicesTest, AV1beta1DeviceIsReadFromItsBasicProperties) {
  Result<std::vector<Device>> r = ReadSliceDevices(Slice(R"([{"name":"gpu-0","basic":{
      "attributes":{"type":{"string":"gpu"}},"capacity":{"memory":{"value":"40Gi"}}}}])"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].attributes.at("gpu.nvidia.com").at("type"),
            DeviceAttribute(std::string("gpu")));
  EXPECT_EQ((*r)[0].capacity.at("gpu.nvidia.com").at("memory"), Q("40Gi"));
}

}  // namespace
}  // namespace vtenant::scheduler
