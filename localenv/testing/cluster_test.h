// ClusterTest: a gtest fixture whose suite shares one real host cluster.
//
// Starting etcd and kube-apiserver takes seconds, so a suite starts one in
// SetUpTestSuite and its tests share it (each test uses its own namespace or
// names). Derived suites:
//
//   class MyTest : public localenv::ClusterTest {
//    protected:
//     static void SetUpTestSuite() { StartCluster("my", {.node_agent = false}, {"ns-a"}); }
//     static void TearDownTestSuite() { StopCluster(); }
//   };
//
// The folder is removed afterwards unless VTENANT_KEEP_TEST_DIRS is set.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "base/testing/temp_dir.h"
#include "kube/object.h"
#include "kube/testing/json.h"
#include "localenv/local_cluster.h"
#include "localenv/testing/virtual_cluster.h"

namespace vtenant::localenv {

class ClusterTest : public testing::Test {
 protected:
  // Starts the suite's cluster in a fresh TempDir vtenant-<name>-XXXXXX (the
  // `dir` of `options` is filled in) and creates `namespaces`. A failure
  // fails the suite and every test in it.
  static void StartCluster(const std::string& name, LocalClusterOptions options,
                           const std::vector<std::string>& namespaces = {});
  static void StopCluster();

  void SetUp() override { ASSERT_NE(cluster_, nullptr) << "the suite's cluster did not start"; }

  static LocalCluster& cluster() { return *cluster_; }
  static kube::Client& client() { return cluster_->client(); }
  // Options for a second API server of the cluster's data: on its etcd,
  // with the prefix LocalCluster gives its own ("/host"), in `subdir` of the
  // suite's folder.
  static ApiServerOptions SecondApiServerOptions(const std::string& subdir);
  // Options for `tenant`'s virtual cluster on the suite's etcd, in
  // vc-<tenant> of the suite's folder.
  static VirtualClusterOptions VirtualClusterOptionsFor(const std::string& tenant);

 private:
  static inline LocalCluster* cluster_ = nullptr;
  static inline TempDir* dir_ = nullptr;
};

// Parses JSON written in a test; a typo fails the test instead of crashing
// it. kube::Json (kube/testing/json.h), under the name these tests know.
inline kube::Object ParseTestJson(const std::string& json) { return kube::Json(json); }

}  // namespace vtenant::localenv
