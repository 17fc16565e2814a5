// The reservation program publishes its one GPU's UUID on its own pod.
#include "scheduler/gpu_reservation/publisher.h"

#include <gtest/gtest.h>

#include "kube/testing/fake_client.h"
#include "scheduler/gpu_reservation/nvml_gpu_info.h"
#include "scheduler/kai_names.h"

namespace vtenant::scheduler {
namespace {

class FakeGpus : public GpuInfo {
 public:
  explicit FakeGpus(Result<std::vector<std::string>> answer) : answer_(std::move(answer)) {}
  Result<std::vector<std::string>> VisibleGpuUuids() override { return answer_; }

 private:
  Result<std::vector<std::string>> answer_;
};

class PublisherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(
        client_
            .Create(
                kube::resources::kPods, "r",
                kube::ParseJson(R"({"metadata":{"name":"res","namespace":"r"},"spec":{}})").value())
            .ok());
  }
  kube::FakeClient client_;
};

TEST_F(PublisherTest, WritesTheUuidAnnotation) {
  FakeGpus gpus(std::vector<std::string>{"GPU-1234"});
  Result<std::string> uuid = PublishReservedGpu(gpus, client_, "r", "res");
  ASSERT_TRUE(uuid.ok()) << uuid.status().ToString();
  EXPECT_EQ(*uuid, "GPU-1234");
  kube::Object pod = client_.Get(kube::resources::kPods, "r", "res").value();
  EXPECT_EQ(kube::Annotation(pod, kReservedGpuAnnotation).value_or(""), "GPU-1234");
}

TEST_F(PublisherTest, RefusesToGuessAmongSeveralGpusOrNone) {
  FakeGpus two(std::vector<std::string>{"GPU-1", "GPU-2"});
  EXPECT_EQ(PublishReservedGpu(two, client_, "r", "res").status().code(),
            StatusCode::kFailedPrecondition);
  FakeGpus none(std::vector<std::string>{});
  EXPECT_EQ(PublishReservedGpu(none, client_, "r", "res").status().code(),
            StatusCode::kFailedPrecondition);
  FakeGpus broken(Unavailable("no driver"));
  EXPECT_EQ(PublishReservedGpu(broken, client_, "r", "res").status().code(),
            StatusCode::kUnavailable);
  EXPECT_FALSE(kube::Annotation(client_.Get(kube::resources::kPods, "r", "res").value(),
                                kReservedGpuAnnotation));
}

TEST(NvmlGpuInfoTest, AMissingDriverIsAClearError) {
  NvmlGpuInfo nvml("libnvidia-ml-that-does-not-exist.so");
  Result<std::vector<std::string>> r = nvml.VisibleGpuUuids();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("NVIDIA driver"), std::string::npos) << r.status().ToString();
}

}  // namespace
}  // namespace vtenant::scheduler
