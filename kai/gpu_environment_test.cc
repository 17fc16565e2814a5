// The names and values of a sharing pod's environment, as KAI writes them.
#include "kai/gpu_environment.h"

#include <gtest/gtest.h>

namespace vtenant::kai {
namespace {

TEST(GpuConfigMapNameTest, ContainerIndexAndInitMarker) {
  EXPECT_EQ(GpuConfigMapName("job-abcdefg-shared-gpu", {}), "job-abcdefg-shared-gpu-0");
  EXPECT_EQ(GpuConfigMapName("p", {.init = false, .index = 2}), "p-2");
  EXPECT_EQ(GpuConfigMapName("p", {.init = true, .index = 0}), "p-i0");
  EXPECT_EQ(DirectEnvConfigMapName("p", {.init = true, .index = 1}), "p-i1-evar");
  EXPECT_EQ(GpuConfigMapVolumeName("p", {}), "p-0-vol");
}

// A pod's name may have dots, which a volume's may not: the pod would be
// refused at creation.
TEST(GpuConfigMapNameTest, TheVolumeNameIsADnsLabel) {
  EXPECT_EQ(GpuConfigMapVolumeName("train.v2-abcdefg-shared-gpu", {}),
            "train-v2-abcdefg-shared-gpu-0-vol");
  EXPECT_EQ(GpuConfigMapVolumeName("a..b-c", {}), "a-b-c-0-vol");
  EXPECT_EQ(GpuConfigMapVolumeName(".Web", {.init = true, .index = 1}), "web-i1-vol");
}

TEST(FormatGpuPortionTest, TwoDecimalsAsKaiSchedulerWritesThem) {
  EXPECT_EQ(FormatGpuPortion(500), "0.50");
  EXPECT_EQ(FormatGpuPortion(330), "0.33");
  EXPECT_EQ(FormatGpuPortion(333), "0.33");
  EXPECT_EQ(FormatGpuPortion(87), "0.09");
  EXPECT_EQ(FormatGpuPortion(1), "0.00");
  EXPECT_EQ(FormatGpuPortion(1000), "1.00");
  EXPECT_EQ(FormatGpuPortion(995), "1.00");
}

TEST(GpuConfigMapDataTest, DevicesJoinedAndOnePortionPerDevice) {
  auto data = GpuConfigMapData({"GPU-a", "GPU-b"}, 250);
  ASSERT_EQ(data.size(), 3u);
  EXPECT_EQ(data[0],
            (std::pair<std::string, std::string>{"NVIDIA_VISIBLE_DEVICES", "GPU-a,GPU-b"}));
  EXPECT_EQ(data[1], (std::pair<std::string, std::string>{"RUNAI_NUM_OF_GPUS", "0.25"}));
  EXPECT_EQ(data[2], (std::pair<std::string, std::string>{"GPU_PORTION", "0.25"}));
}

// As KAI's hamicore binder plugin writes it: the label times the portion's
// two-decimal text, truncated.
TEST(CudaDeviceMemoryLimitTest, TheLabelTimesThePortionAsKaiComputesIt) {
  EXPECT_EQ(CudaDeviceMemoryLimit("46068", 330), "15202m");
  EXPECT_EQ(CudaDeviceMemoryLimit("46068", 500), "23034m");
  EXPECT_EQ(CudaDeviceMemoryLimit("40960", 87), "3686m") << "0.09 of the device";
  EXPECT_EQ(CudaDeviceMemoryLimit("", 500), "");
  EXPECT_EQ(CudaDeviceMemoryLimit("lots", 500), "");
  EXPECT_EQ(CudaDeviceMemoryLimit("0", 500), "");
  EXPECT_EQ(CudaDeviceMemoryLimit("-46068", 500), "");
  EXPECT_EQ(CudaDeviceMemoryLimit("+46068", 500), "23034m") << "as strconv.ParseInt reads it";
}

}  // namespace
}  // namespace vtenant::kai
