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

}  // namespace
}  // namespace vtenant::kai
