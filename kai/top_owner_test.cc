// PassesOverTopOwner: which top owners a pod is grouped past.
#include "kai/top_owner.h"

#include <gtest/gtest.h>

namespace vtenant::kai {
namespace {

TEST(PassesOverTopOwnerTest, ATrainJobAndARayJobAboveNoCluster) {
  EXPECT_TRUE(PassesOverTopOwner("trainer.kubeflow.org/v1alpha1", "TrainJob", false));
  EXPECT_FALSE(PassesOverTopOwner("example.com/v1", "TrainJob", false));
  EXPECT_TRUE(PassesOverTopOwner("ray.io/v1", "RayJob", false)) << "its submitter";
  EXPECT_FALSE(PassesOverTopOwner("ray.io/v1", "RayJob", true)) << "its cluster's pods";
  EXPECT_TRUE(PassesOverTopOwner("ray.io/v1", "RayService", false));
  EXPECT_FALSE(PassesOverTopOwner("ray.io/v1", "RayCluster", false));
  EXPECT_FALSE(PassesOverTopOwner("batch/v1", "Job", false));
  EXPECT_FALSE(PassesOverTopOwner("jobset.x-k8s.io/v1alpha2", "JobSet", false));
}

TEST(PassesOverTopOwnerTest, KaisOtherSkippedKindsOfAnyVersion) {
  EXPECT_TRUE(PassesOverTopOwner("argoproj.io/v1alpha1", "Workflow", false));
  EXPECT_FALSE(PassesOverTopOwner("example.com/v1", "Workflow", false));
  for (const char* kind : {"TrainingWorkload", "InteractiveWorkload", "DistributedWorkload",
                           "InferenceWorkload", "DistributedInferenceWorkload"}) {
    EXPECT_TRUE(PassesOverTopOwner("run.ai/v2alpha1", kind, false)) << kind;
  }
  EXPECT_FALSE(PassesOverTopOwner("run.ai/v1", "RunaiJob", false)) << "grouped as itself";
  EXPECT_TRUE(PassesOverTopOwner("nvidia.com/v1beta1", "DynamoGraphDeployment", false));
  EXPECT_FALSE(PassesOverTopOwner("nvidia.com/v1", "Other", false));
}

}  // namespace
}  // namespace vtenant::kai
