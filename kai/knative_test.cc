// The Knative rules of KAI's pod grouper: a Service's pods grouped by
// Revision, minMember the Revision's min-scale.
#include "kai/knative.h"

#include <gtest/gtest.h>

#include "kube/object.h"
#include "kube/testing/json.h"

namespace vtenant::kai {
namespace {

using kube::Json;

TEST(KnativeTest, ServicesAndRevisionsOfAnyVersion) {
  EXPECT_TRUE(IsKnativeService("serving.knative.dev/v1", "Service"));
  EXPECT_FALSE(IsKnativeService("v1", "Service")) << "a core Service owns no pods";
  EXPECT_TRUE(IsKnativeRevision("serving.knative.dev/v1beta1", "Revision"));
  EXPECT_FALSE(IsKnativeRevision("serving.knative.dev/v1", "Configuration"));
}

TEST(KnativeTest, MinMemberIsTheRevisionsMinScaleReadAsKaiReadsIt) {
  auto revision = [](const char* annotations) {
    return Json(std::string(R"({"metadata":{"name":"r","annotations":)") + annotations + "}}");
  };
  EXPECT_EQ(KnativeRevisionMinMember(revision(R"({"autoscaling.knative.dev/min-scale":"3"})")), 3);
  EXPECT_EQ(KnativeRevisionMinMember(revision(R"({"autoscaling.knative.dev/min-scale":"+2"})")), 2)
      << "Go's Atoi takes a sign";
  EXPECT_EQ(KnativeRevisionMinMember(revision("{}")), 1) << "absent";
  EXPECT_EQ(KnativeRevisionMinMember(revision(R"({"autoscaling.knative.dev/min-scale":"two"})")), 1)
      << "not a number";
  EXPECT_EQ(KnativeRevisionMinMember(revision(R"({"autoscaling.knative.dev/min-scale":"0"})")), 1)
      << "scales to zero: a pod at a time";
}

}  // namespace
}  // namespace vtenant::kai
