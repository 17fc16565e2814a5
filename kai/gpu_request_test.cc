// What ParseGpuRequest reads from a pod, and how its refusals read.
// kai/contract_test.cc holds the syncer, the webhook and the scheduler to
// the same verdicts.
#include "kai/gpu_request.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string_view>

#include "kube/json_builder.h"
#include "kube/testing/json.h"

namespace vtenant::kai {
namespace {

using kube::Json;

// A pod with these annotations (a JSON object), containers and init containers.
rapidjson::Document Pod(const std::string& annotations, const kube::JsonArray& containers = {},
                        const kube::JsonArray& init_containers = {}) {
  return kube::BuildJson(kube::JsonObject{
      {"metadata",
       kube::JsonObject{{"name", "p"}, {"annotations", kube::JsonValue(Json(annotations))}}},
      {"spec", kube::JsonObject{{"containers", containers}, {"initContainers", init_containers}}}});
}

// A container `name` with these resource limits.
kube::JsonObject Limits(const std::string& name, const kube::JsonObject& limits) {
  return {{"name", name}, {"resources", kube::JsonObject{{"limits", limits}}}};
}

// A container `name` and nothing else.
kube::JsonObject Named(const std::string& name) { return {{"name", name}}; }

TEST(ParseGpuFractionTest, AcceptsMoreThanZeroUpToOne) {
  EXPECT_EQ(*ParseGpuFraction("0.5"), 500);
  EXPECT_EQ(*ParseGpuFraction("1"), 1000);
  EXPECT_EQ(*ParseGpuFraction("0.001"), 1);
  EXPECT_EQ(*ParseGpuFraction("0.0001"), 1) << "rounded up, never to zero";
  EXPECT_EQ(*ParseGpuFraction("0.3333"), 334) << "as kube::Quantity reads it";
  EXPECT_EQ(*ParseGpuFraction("1e-1"), 100);
}

TEST(ParseGpuFractionTest, RejectsOutOfRangeWithAReason) {
  for (const char* text : {"1.5", "0", "-0.5", "0.0", "2", "abc", "", "0.5 ", "50%"}) {
    Result<int64_t> got = ParseGpuFraction(text);
    ASSERT_FALSE(got.ok()) << text;
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(got.status().message().find(std::string("gpu-fraction \"") + text + "\""),
              std::string::npos)
        << got.status().message();
    EXPECT_NE(got.status().message().find("at most 1"), std::string::npos);
  }
}

// `parse` refuses each of `texts` with a message that holds `says`.
void ExpectEachRefused(Result<int32_t> (*parse)(std::string_view),
                       std::initializer_list<const char*> texts, std::string_view says) {
  for (const char* text : texts) {
    Result<int32_t> got = parse(text);
    ASSERT_FALSE(got.ok()) << text;
    EXPECT_NE(got.status().message().find(says), std::string::npos) << text;
  }
}

TEST(ParseGpuMemoryTest, PositiveWholeMiB) {
  EXPECT_EQ(*ParseGpuMemoryMib("4000"), 4000);
  // More than any GPU holds is still a request (KAI's own suite asks for
  // 500000000 and expects the pod admitted and waiting).
  EXPECT_EQ(*ParseGpuMemoryMib("500000000"), 500000000);
  EXPECT_EQ(*ParseGpuMemoryMib("2147483647"), 2147483647);
  ExpectEachRefused(ParseGpuMemoryMib,
                    {"0", "4000.5", "4.5", "-3", "+3", "4Gi", " 4", "", "2147483648"},
                    "whole number of MiB");
}

TEST(ParseNumDevicesTest, PositiveAndBoundedByANode) {
  EXPECT_EQ(*ParseNumDevices("2"), 2);
  EXPECT_EQ(*ParseNumDevices("64"), 64);
  ExpectEachRefused(ParseNumDevices, {"0", "65", "-1", "2.0", "x"}, "from 1 to 64");
}

TEST(MigComputeSlicesTest, ProfilesAsTheSchedulerPricesThem) {
  EXPECT_EQ(*MigComputeSlices("1g.10gb"), 1);
  EXPECT_EQ(*MigComputeSlices("7g.80gb"), 7);
  for (const char* profile : {"8g.80gb", "0g.5gb", "g.5gb", "1g.5", "big", ""}) {
    EXPECT_FALSE(MigComputeSlices(profile).ok()) << profile;
  }
}

TEST(ParseGpuRequestTest, ReadsEachKindOfRequest) {
  Result<GpuRequest> none =
      ParseGpuRequest(Pod("{}", kube::JsonArray{Limits("a", {{"cpu", "1"}})}));
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->NeedsGpu());

  Result<GpuRequest> whole =
      ParseGpuRequest(Pod("{}",
                          kube::JsonArray{Limits("a", {{"nvidia.com/gpu", "2"}}),
                                          Limits("b", {{"nvidia.com/gpu", "1"}})},
                          kube::JsonArray{Limits("init", {{"nvidia.com/gpu", "4"}})}));
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(whole->whole_gpus, 4) << "at least the largest init container";
  EXPECT_FALSE(whole->IsShared());

  Result<GpuRequest> fraction =
      ParseGpuRequest(Pod(R"({"gpu-fraction":"0.33","gpu-fraction-num-devices":"2"})"));
  ASSERT_TRUE(fraction.ok()) << fraction.status().ToString();
  EXPECT_EQ(fraction->fraction_milli, 330);
  EXPECT_EQ(fraction->num_devices, 2);
  EXPECT_TRUE(fraction->IsShared());

  Result<GpuRequest> memory =
      ParseGpuRequest(Pod(R"({"gpu-memory":"4000","gpu-fraction-num-devices":"2"})"));
  ASSERT_TRUE(memory.ok()) << memory.status().ToString();
  EXPECT_EQ(memory->memory_mib, 4000);
  EXPECT_EQ(memory->num_devices, 2) << "KAI takes several devices of memory too";

  Result<GpuRequest> mig =
      ParseGpuRequest(Pod("{}", kube::JsonArray{Limits("a", {{"nvidia.com/mig-1g.10gb", "2"}}),
                                                Limits("b", {{"nvidia.com/mig-1g.10gb", "1"}})}));
  ASSERT_TRUE(mig.ok()) << mig.status().ToString();
  EXPECT_EQ(mig->mig_profile, "1g.10gb");
  EXPECT_EQ(mig->mig_count, 3);
}

TEST(ParseGpuRequestTest, LimitsElseRequestsInTheirQuantityNotation) {
  auto whole = [](const std::string& resources) {
    Result<GpuRequest> r = ParseGpuRequest(
        Pod("{}", kube::JsonArray{kube::JsonObject{
                      {"name", "a"}, {"resources", kube::JsonValue(Json(resources))}}}));
    EXPECT_TRUE(r.ok()) << resources << ": " << r.status().ToString();
    return r.ok() ? r->whole_gpus : -1;
  };
  EXPECT_EQ(whole(R"({"requests":{"nvidia.com/gpu":"2"}})"), 2);
  EXPECT_EQ(whole(R"({"limits":{"nvidia.com/gpu":"0"},"requests":{"nvidia.com/gpu":"1"}})"), 1);
  EXPECT_EQ(whole(R"({"limits":{"nvidia.com/gpu":"1000m"}})"), 1);
  EXPECT_EQ(whole(R"({"limits":{"nvidia.com/gpu":2}})"), 2) << "a number, as YAML writes it";
}

// KAI counts AMD's device plugin's GPUs as GPUs, summed with NVIDIA's.
TEST(ParseGpuRequestTest, AmdGpusAreWholeGpus) {
  auto whole = [](const kube::JsonObject& limits) {
    Result<GpuRequest> r = ParseGpuRequest(Pod("{}", kube::JsonArray{Limits("a", limits)}));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->whole_gpus : -1;
  };
  EXPECT_EQ(whole({{"amd.com/gpu", "2"}}), 2);
  EXPECT_EQ(whole({{"amd.com/gpu", "1"}, {"nvidia.com/gpu", "1"}}), 2);
  Result<GpuRequest> half =
      ParseGpuRequest(Pod("{}", kube::JsonArray{Limits("a", {{"amd.com/gpu", "500m"}})}));
  ASSERT_FALSE(half.ok());
  EXPECT_NE(half.status().message().find("amd.com/gpu"), std::string::npos)
      << half.status().message();
}

TEST(ParseGpuRequestTest, RefusalsNameTheFieldAndWhatToChange) {
  struct Case {
    std::string annotations;
    kube::JsonArray containers;
    const char* says;
  };
  const Case cases[] = {
      {R"({"gpu-fraction":"0.5","gpu-memory":"100"})", {}, "not both: remove one"},
      {R"({"gpu-fraction":"0.5"})", kube::JsonArray{Limits("a", {{"nvidia.com/gpu", "1"}})},
       "remove the annotation or the limit"},
      {R"({"gpu-memory":"100"})", kube::JsonArray{Limits("a", {{"nvidia.com/gpu", "1"}})},
       "gpu-memory is set together with nvidia.com/gpu 1"},
      {R"({"gpu-fraction-num-devices":"2"})", {}, "needs gpu-fraction or gpu-memory"},
      {R"({"gpu-fraction":"0.5","gpu-fraction-num-devices":"65"})",
       {},
       "gpu-fraction-num-devices \"65\" must be a whole number from 1 to 64"},
      {"{}", kube::JsonArray{Limits("a", {{"nvidia.com/gpu", "500m"}})},
       "container a resources.limits[nvidia.com/gpu] \"500m\" must be a whole number"},
      {"{}", kube::JsonArray{Limits("a", {{"nvidia.com/gpu", "-1"}})}, "0 or more"},
      {"{}", kube::JsonArray{Limits("a", {{"nvidia.com/gpu", "lots"}})},
       "container a resources.limits[nvidia.com/gpu]: quantity \"lots\""},
      {"{}", kube::JsonArray{Limits("a", {{"nvidia.com/gpu", "65"}})},
       "at most 64 fit on one node"},
      {"{}", kube::JsonArray{Limits("a", {{"nvidia.com/gpu", true}})}, "is not a quantity"},
      {R"({"gpu-fraction":"0.5"})", kube::JsonArray{Limits("a", {{"nvidia.com/mig-1g.10gb", "1"}})},
       "MIG slices, whole GPUs or a share, one of them"},
      {"{}",
       kube::JsonArray{Limits("a", {{"nvidia.com/mig-1g.10gb", "1"}, {"nvidia.com/gpu", "1"}})},
       "together with nvidia.com/gpu"},
      {"{}",
       kube::JsonArray{Limits("a", {{"nvidia.com/mig-1g.10gb", "1"}}),
                       Limits("b", {{"nvidia.com/mig-2g.20gb", "1"}})},
       "all of one profile"},
      {"{}", kube::JsonArray{Limits("a", {{"nvidia.com/mig-9g.90gb", "1"}})},
       "nvidia.com/mig-<g>g.<m>gb with g from 1 to 7"},
      {"{}", kube::JsonArray{Limits("a", {{"nvidia.com/mig-1g.10gb", "1.5"}})},
       "must be a whole number"},
      {R"({"gpu-fraction":"0.5","gpu-fraction-container-name":"gpu"})",
       {Named("app")},
       "gpu-fraction-container-name \"gpu\" names no container or init container"},
  };
  for (const Case& c : cases) {
    Result<GpuRequest> got = ParseGpuRequest(Pod(c.annotations, c.containers));
    ASSERT_FALSE(got.ok()) << c.annotations << " " << kube::ToJson(kube::BuildJson(c.containers));
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(got.status().message().find(c.says), std::string::npos)
        << got.status().message() << "\n  wanted: " << c.says;
  }
}

TEST(ShareContainerTest, TheNamedContainerInitContainersFirstElseTheFirst) {
  const kube::JsonArray containers{Named("side"), Named("gpu"), Named("both")};
  const kube::JsonArray init{Named("prepare"), Named("both")};
  auto ref = [&](const std::string& annotations) {
    return ShareContainer(Pod(annotations, containers, init));
  };
  ASSERT_TRUE(ref("{}").ok());
  EXPECT_FALSE(ref("{}")->init);
  EXPECT_EQ(ref("{}")->index, 0);
  Result<ContainerRef> gpu = ref(R"({"gpu-fraction-container-name":"gpu"})");
  ASSERT_TRUE(gpu.ok());
  EXPECT_FALSE(gpu->init);
  EXPECT_EQ(gpu->index, 1);
  // A name held by an init container and a container is the init one, as
  // KAI's webhook looks.
  Result<ContainerRef> both = ref(R"({"gpu-fraction-container-name":"both"})");
  ASSERT_TRUE(both.ok());
  EXPECT_TRUE(both->init);
  EXPECT_EQ(both->index, 1);
  EXPECT_EQ(ref(R"({"gpu-fraction-container-name":"nope"})").status().code(),
            StatusCode::kInvalidArgument);
}

TEST(ParseGpuRequestTest, TheShareContainerIsReadOnlyBesideAShare) {
  const kube::JsonArray containers{Named("side"), Named("gpu")};
  Result<GpuRequest> shared = ParseGpuRequest(
      Pod(R"({"gpu-memory":"4000","gpu-fraction-container-name":"gpu"})", containers));
  ASSERT_TRUE(shared.ok()) << shared.status().ToString();
  EXPECT_EQ(shared->share_container.index, 1);
  // Without a share the annotation means nothing, as in KAI.
  EXPECT_TRUE(ParseGpuRequest(Pod(R"({"gpu-fraction-container-name":"nope"})", containers)).ok());
}

TEST(ParseGpuRequestTest, MigInInitContainersCountsAsWholeGpusDo) {
  Result<GpuRequest> r = ParseGpuRequest(
      Pod("{}", {}, kube::JsonArray{Limits("i", {{"nvidia.com/mig-3g.40gb", "2"}})}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->mig_count, 2);
  EXPECT_EQ(r->mig_profile, "3g.40gb");
}

}  // namespace
}  // namespace vtenant::kai
