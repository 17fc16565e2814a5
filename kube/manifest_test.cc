#include "kube/manifest.h"

#include <gtest/gtest.h>

#include "kube/testing/fake_client.h"

namespace vtenant::kube {
namespace {

constexpr char kManifest[] = R"(
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: team-a}
data: {mode: "fast"}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: ml-org}
spec:
  resources:
    gpu: {quota: 1, limit: 1, overQuotaWeight: 1}
)";

TEST(ManifestTest, AppliesEveryDocumentInItsNamespace) {
  FakeClient client;
  ASSERT_TRUE(ApplyManifest(client, kManifest).ok());
  EXPECT_TRUE(client.Get(resources::kNamespaces, "", "team-a").ok());
  Result<Object> cm = client.Get(resources::kConfigMaps, "team-a", "settings");
  ASSERT_TRUE(cm.ok());
  EXPECT_EQ(GetString(*cm, {"data", "mode"}), "fast");
  Result<Object> queue = client.Get(resources::kQueues, "", "ml-org");
  ASSERT_TRUE(queue.ok());
  EXPECT_EQ(GetInt(*queue, {"spec", "resources", "gpu", "quota"}), 1);
}

TEST(ManifestTest, ApplyingTwiceChangesNothing) {
  FakeClient client;
  ASSERT_TRUE(ApplyManifest(client, kManifest).ok());
  Result<Object> first = client.Get(resources::kConfigMaps, "team-a", "settings");
  ASSERT_TRUE(ApplyManifest(client, kManifest).ok());
  Result<Object> second = client.Get(resources::kConfigMaps, "team-a", "settings");
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(ToJson((*first)["data"]), ToJson((*second)["data"]));
}

TEST(ManifestTest, DefaultNamespaceForNamespacedObjectsOnly) {
  FakeClient client;
  ASSERT_TRUE(ApplyManifest(client, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
                            {.default_namespace = "here"})
                  .ok());
  EXPECT_TRUE(client.Get(resources::kConfigMaps, "here", "c").ok());
}

TEST(ManifestTest, UnknownKindAndMissingNameAreClearErrors) {
  FakeClient client;
  Status unknown =
      ApplyManifest(client, "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\n");
  EXPECT_EQ(unknown.code(), StatusCode::kNotFound);
  EXPECT_NE(unknown.message().find("Gadget"), std::string::npos);
  Status nameless = ApplyManifest(client, "apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n");
  EXPECT_EQ(nameless.code(), StatusCode::kInvalidArgument);
}

TEST(ManifestTest, FailureNamesTheObject) {
  FakeClient client;
  client.InjectError("patch", "configmaps", Status(StatusCode::kForbidden, "no"));
  Status status = ApplyManifest(client, kManifest);
  EXPECT_EQ(status.code(), StatusCode::kForbidden);
  EXPECT_NE(status.message().find("ConfigMap team-a/settings"), std::string::npos)
      << status.ToString();
}

TEST(ManifestTest, MissingFileIsNotFound) {
  FakeClient client;
  EXPECT_EQ(ApplyManifestFiles(client, {"/nonexistent/x.yaml"}).code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace vtenant::kube
