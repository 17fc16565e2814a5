#include "kube/owner_reference.h"

#include <gtest/gtest.h>

namespace vtenant::kube {
namespace {

Object Parse(const char* json) {
  Object o;
  o.Parse(json);
  EXPECT_FALSE(o.HasParseError()) << json;
  return o;
}

TEST(OwnerReferenceTest, TheControllerIsTheEntryMarkedSoAndNoOther) {
  Object pod = Parse(R"({"metadata": {"ownerReferences": [
      {"apiVersion": "v1", "kind": "ConfigMap", "name": "cfg", "uid": "1"},
      {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d", "uid": "2",
       "controller": true}]}})");
  const rapidjson::Value* controller = ControllerReference(pod);
  ASSERT_NE(controller, nullptr);
  EXPECT_EQ(ReadOwnerReference(*controller),
            (OwnerReference{"apps/v1", "ReplicaSet", "web-5d", "2"}));

  // An owner that is not the controller (a sole one included), a
  // "controller" that is not a boolean true, or none at all: no controller.
  for (const char* json : {
           R"({"metadata": {"ownerReferences": [{"kind": "ConfigMap", "name": "cfg"}]}})",
           R"({"metadata": {"ownerReferences": [{"kind": "Job", "controller": "true"}]}})",
           R"({"metadata": {"ownerReferences": [{"kind": "Job", "controller": false}]}})",
           R"({"metadata": {"ownerReferences": {}}})",
           R"({"metadata": {}})",
       }) {
    EXPECT_EQ(ControllerReference(Parse(json)), nullptr) << json;
  }
}

TEST(OwnerReferenceTest, AReferenceToAnObjectTakesItsNameAndUid) {
  Object group = Parse(R"({"metadata": {"name": "pg-1", "uid": "u-9"}})");
  EXPECT_EQ(ReferenceTo(group, "scheduling.run.ai/v2alpha2", "PodGroup"),
            (OwnerReference{"scheduling.run.ai/v2alpha2", "PodGroup", "pg-1", "u-9"}));
  // Missing fields read as empty rather than failing.
  EXPECT_EQ(ReadOwnerReference(Parse(R"({"kind": 3})")), OwnerReference{});
}

}  // namespace
}  // namespace vtenant::kube
