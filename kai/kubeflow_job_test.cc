#include "kai/kubeflow_job.h"

#include <gtest/gtest.h>

#include "kube/testing/json.h"

namespace vtenant::kai {
namespace {

using kube::Json;

// KAI's pod grouper's Kubeflow rules, one row each; the scheduler's grouper
// reads them through scheduler/grouping_rules.cc (grouping_rules_test).
TEST(KubeflowJobTest, MinMemberByKaisRules) {
  struct Row {
    const char* what;
    const char* job;
    bool launcher_exists;
    int64_t min_member;
  };
  const Row rows[] = {
      {"PyTorchJob: every role's replicas",
       R"({"kind":"PyTorchJob","spec":{"pytorchReplicaSpecs":{"Master":{"replicas":1},
           "Worker":{"replicas":3}}}})",
       false, 4},
      {"PyTorchJob: the scheduling policy first",
       R"({"kind":"PyTorchJob","spec":{"runPolicy":{"schedulingPolicy":{"minAvailable":2}},
           "elasticPolicy":{"minReplicas":3},"pytorchReplicaSpecs":{"Worker":{"replicas":8}}}})",
       false, 2},
      {"PyTorchJob: elastic minReplicas, even without replica specs",
       R"({"kind":"PyTorchJob","spec":{"elasticPolicy":{"minReplicas":3}}})", false, 3},
      {"TFJob", R"({"kind":"TFJob","spec":{"tfReplicaSpecs":{"Chief":{"replicas":1},
           "PS":{"replicas":2},"Worker":{"replicas":2}}}})",
       false, 5},
      {"XGBoostJob", R"({"kind":"XGBoostJob","spec":{"xgbReplicaSpecs":{"Master":{"replicas":1},
           "Worker":{"replicas":2}}}})",
       false, 3},
      {"JAXJob", R"({"kind":"JAXJob","spec":{"jaxReplicaSpecs":{"Worker":{"replicas":4}}}})", false,
       4},
      {"MPIJob: launcher and workers",
       R"({"kind":"MPIJob","spec":{"mpiReplicaSpecs":{"Launcher":{"replicas":1},
           "Worker":{"replicas":4}}}})",
       false, 5},
      {"MPIJob waiting for its workers, before its launcher",
       R"({"kind":"MPIJob","spec":{"launcherCreationPolicy":"WaitForWorkersReady",
           "mpiReplicaSpecs":{"Launcher":{"replicas":1},"Worker":{"replicas":4}}}})",
       false, 4},
      {"MPIJob waiting for its workers, once its launcher exists",
       R"({"kind":"MPIJob","spec":{"launcherCreationPolicy":"WaitForWorkersReady",
           "mpiReplicaSpecs":{"Launcher":{"replicas":1},"Worker":{"replicas":4}}}})",
       true, 5},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.what);
    Result<int64_t> m = KubeflowJobMinMember(Json(row.job), row.launcher_exists);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    EXPECT_EQ(*m, row.min_member);
  }
}

TEST(KubeflowJobTest, SpecsThatAskForNoPodsAreRefusedByName) {
  struct Row {
    const char* job;
    const char* message;
  };
  const Row rows[] = {
      {R"({"kind":"TFJob","metadata":{"name":"t"},"spec":{}})",
       "TFJob t: spec.tfReplicaSpecs is missing"},
      {R"({"kind":"JAXJob","metadata":{"name":"j"},"spec":{"jaxReplicaSpecs":{"Worker":{}}}})",
       "JAXJob j: spec.jaxReplicaSpecs.Worker.replicas must be at least 1"},
      {R"({"kind":"MPIJob","metadata":{"name":"m"},"spec":{"mpiReplicaSpecs":{
           "Worker":{"replicas":2}}}})",
       "MPIJob m: spec.mpiReplicaSpecs.Launcher is required"},
      {R"({"kind":"Notebook","metadata":{"name":"n"}})", "Notebook n: not a Kubeflow training job"},
  };
  for (const Row& row : rows) {
    Result<int64_t> m = KubeflowJobMinMember(Json(row.job), false);
    EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument) << row.job;
    EXPECT_EQ(m.status().message(), row.message);
  }
}

TEST(KubeflowJobTest, TheListNamesEachKindsResource) {
  const KubeflowJobKind* mpi = FindKubeflowJobKind("MPIJob");
  ASSERT_NE(mpi, nullptr);
  EXPECT_EQ(mpi->resource, "mpijobs");
  EXPECT_EQ(FindKubeflowJobKind("Notebook"), nullptr);
  EXPECT_EQ(KubeflowJobKinds().size(), 5u);
}

}  // namespace
}  // namespace vtenant::kai
