#include "syncer/kubelet_request.h"

#include <gtest/gtest.h>

namespace vtenant::syncer {
namespace {

std::string HostTarget(std::string_view kubelet_target) {
  Result<KubeletRequest> request = ParseKubeletRequest(kubelet_target);
  if (!request.ok()) return "error: " + request.status().message();
  return HostRequestTarget(*request, "vtenant-nlp", "web-x-ml-x-nlp");
}

// The paths kube-apiserver sends a kubelet (pkg/registry/core/pod/
// strategy.go: LogLocation, streamLocation, PortForwardLocation and
// streamParams, Kubernetes v1.37), and the host API request for each.
TEST(KubeletRequestTest, EachKubeletPathBecomesTheHostPodsSubresource) {
  EXPECT_EQ(HostTarget("/containerLogs/ml/web/app?follow=true&tailLines=10&timestamps=true"),
            "/api/v1/namespaces/vtenant-nlp/pods/web-x-ml-x-nlp/log?container=app&follow=true&"
            "tailLines=10&timestamps=true");
  EXPECT_EQ(HostTarget("/exec/ml/web/app?command=sh&command=-c&command=echo+hi%3B+id&input=1&"
                       "output=1&tty=1"),
            "/api/v1/namespaces/vtenant-nlp/pods/web-x-ml-x-nlp/exec?container=app&command=sh&"
            "command=-c&command=echo%20hi%3B%20id&stdin=true&stdout=true&tty=true");
  EXPECT_EQ(HostTarget("/exec/ml/web/0b1c-uid/app?command=ls&output=1&error=1"),
            "/api/v1/namespaces/vtenant-nlp/pods/web-x-ml-x-nlp/exec?container=app&command=ls&"
            "stdout=true&stderr=true");
  EXPECT_EQ(HostTarget("/attach/ml/web/app?input=1&output=1&tty=0"),
            "/api/v1/namespaces/vtenant-nlp/pods/web-x-ml-x-nlp/attach?container=app&"
            "stdin=true&stdout=true");
  EXPECT_EQ(HostTarget("/portForward/ml/web?port=8080,9090"),
            "/api/v1/namespaces/vtenant-nlp/pods/web-x-ml-x-nlp/portforward?ports=8080&ports=9090");
  EXPECT_EQ(HostTarget("/portForward/ml/web"),
            "/api/v1/namespaces/vtenant-nlp/pods/web-x-ml-x-nlp/portforward");
}

TEST(KubeletRequestTest, ParametersOutsideTheAllowlistAreDropped) {
  // A container or pod named in the query, impersonation, a second
  // namespace: none of it reaches the host request.
  EXPECT_EQ(HostTarget("/containerLogs/ml/web/app?container=other&pod=x&namespace=kube-system&"
                       "insecureSkipTLSVerifyBackend=true&follow=true"),
            "/api/v1/namespaces/vtenant-nlp/pods/web-x-ml-x-nlp/log?container=app&follow=true");
  EXPECT_EQ(HostTarget("/exec/ml/web/app?command=id&container=other&stdin=true"),
            "/api/v1/namespaces/vtenant-nlp/pods/web-x-ml-x-nlp/exec?container=app&command=id");
  EXPECT_EQ(HostTarget("/attach/ml/web/app?command=id&output=1"),
            "/api/v1/namespaces/vtenant-nlp/pods/web-x-ml-x-nlp/attach?container=app&stdout=true");
}

TEST(KubeletRequestTest, OtherKubeletPathsAreNotServed) {
  for (const char* path : {"/pods", "/stats/summary", "/metrics", "/configz", "/run/ml/web/app",
                           "/healthz", "/", "", "exec/ml/web/app", "/debug/pprof/"}) {
    Result<KubeletRequest> request = ParseKubeletRequest(path);
    ASSERT_FALSE(request.ok()) << path;
    EXPECT_EQ(request.status().code(), StatusCode::kNotFound) << path;
  }
}

TEST(KubeletRequestTest, NamesMustBeKubernetesNamesSoNoPathCanEscape) {
  for (const char* path :
       {"/exec/ml/../app", "/exec/ml/web/..", "/containerLogs/ml/%2e%2e/app",
        "/containerLogs/ml/web%2Fx/app", "/containerLogs/ML/web/app", "/containerLogs//web/app",
        "/exec/ml/web/a b", "/portForward/ml/.", "/exec/ml/web/uid/../app"}) {
    Result<KubeletRequest> request = ParseKubeletRequest(path);
    EXPECT_FALSE(request.ok()) << path;
  }
  // Too many or too few segments are not kubelet paths at all.
  EXPECT_EQ(ParseKubeletRequest("/containerLogs/ml/web/uid/app").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(ParseKubeletRequest("/exec/ml/web").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ParseKubeletRequest("/portForward/ml/web/uid/extra").status().code(),
            StatusCode::kNotFound);
}

TEST(KubeletRequestTest, MalformedQueriesAreRefused) {
  for (const char* path : {"/exec/ml/web/app?command=%zz", "/exec/ml/web/app?command=%4",
                           "/portForward/ml/web?port=0", "/portForward/ml/web?port=65536",
                           "/portForward/ml/web?port=80,x", "/portForward/ml/web?port=80%26a"}) {
    Result<KubeletRequest> request = ParseKubeletRequest(path);
    ASSERT_FALSE(request.ok()) << path;
    EXPECT_EQ(request.status().code(), StatusCode::kInvalidArgument) << path;
  }
}

TEST(KubeletRequestTest, ValuesAreEncodedSoTheyCannotAddParameters) {
  Result<KubeletRequest> request =
      ParseKubeletRequest("/exec/ml/web/app?command=a%26container%3Dother%23");
  ASSERT_TRUE(request.ok()) << request.status().message();
  EXPECT_EQ(HostRequestTarget(*request, "vtenant-nlp", "web-x-ml-x-nlp"),
            "/api/v1/namespaces/vtenant-nlp/pods/web-x-ml-x-nlp/exec?container=app&"
            "command=a%26container%3Dother%23");
}

}  // namespace
}  // namespace vtenant::syncer
