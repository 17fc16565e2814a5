#include "kube/pod_object_refs.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vtenant::kube {
namespace {

// A spec naming one object in each place the Pod API allows, each name
// saying where it is.
constexpr char kSpec[] = R"({
  "initContainers":[{"name":"i","env":[{"name":"A","valueFrom":{"configMapKeyRef":
      {"name":"init-env-cm","key":"k","optional":true}}}]}],
  "containers":[{"name":"c",
    "env":[{"name":"B","value":"plain"},
           {"name":"C","valueFrom":{"secretKeyRef":{"name":"env-secret","key":"k"}}},
           {"name":"D","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],
    "envFrom":[{"configMapRef":{"name":"envfrom-cm"}},{"secretRef":{"name":"envfrom-secret"},
               "prefix":"S_"}]}],
  "ephemeralContainers":[{"name":"e","envFrom":[{"configMapRef":{"name":"ephemeral-cm"}}]}],
  "volumes":[
    {"name":"v-cm","configMap":{"name":"volume-cm","optional":false}},
    {"name":"v-secret","secret":{"secretName":"volume-secret","optional":true}},
    {"name":"v-claim","persistentVolumeClaim":{"claimName":"volume-claim"}},
    {"name":"v-csi","csi":{"driver":"d","nodePublishSecretRef":{"name":"csi-secret"}}},
    {"name":"v-azure","azureFile":{"secretName":"azure-secret","shareName":"s"}},
    {"name":"v-empty","emptyDir":{}},
    {"name":"v-projected","projected":{"sources":[{"configMap":{"name":"projected-cm"}},
        {"secret":{"name":"projected-secret"}},{"serviceAccountToken":{"path":"t"}}]}}],
  "imagePullSecrets":[{"name":"pull-secret"}],
  "resourceClaims":[{"name":"gpu","resourceClaimName":"named-claim"},
                    {"name":"nic","resourceClaimTemplateName":"claim-template"}]})";

std::string Describe(const PodObjectRef<const rapidjson::Value>& ref) {
  const char* kind = ref.kind == ObjectRefKind::kConfigMap       ? "ConfigMap"
                     : ref.kind == ObjectRefKind::kSecret        ? "Secret"
                     : ref.kind == ObjectRefKind::kClaim         ? "Claim"
                     : ref.kind == ObjectRefKind::kResourceClaim ? "ResourceClaim"
                                                                 : "ResourceClaimTemplate";
  return std::string(kind) + " " + std::string(ref.Name()) + (ref.optional ? " optional" : "") +
         (ref.volume.empty() ? "" : " in " + std::string(ref.volume));
}

TEST(PodObjectRefsTest, VisitsEveryPlaceInOrder) {
  const Object spec = ParseJson(kSpec).value();
  std::vector<std::string> seen;
  ForEachObjectRef(spec, [&](const PodObjectRef<const rapidjson::Value>& ref) {
    seen.push_back(Describe(ref));
  });
  EXPECT_EQ(seen, (std::vector<std::string>{
                      "ConfigMap init-env-cm optional",
                      "Secret env-secret",
                      "ConfigMap envfrom-cm",
                      "Secret envfrom-secret",
                      "ConfigMap ephemeral-cm",
                      "ConfigMap volume-cm in v-cm",
                      "Secret volume-secret optional in v-secret",
                      "Claim volume-claim in v-claim",
                      "Secret csi-secret in v-csi",
                      "Secret azure-secret in v-azure",
                      "ConfigMap projected-cm in v-projected",
                      "Secret projected-secret in v-projected",
                      "Secret pull-secret",
                      "ResourceClaim named-claim",
                      "ResourceClaimTemplate claim-template",
                  }));
}

TEST(PodObjectRefsTest, RenamesInPlace) {
  Object spec = ParseJson(kSpec).value();
  ForEachObjectRef(spec, [&](const PodObjectRef<rapidjson::Value>& ref) {
    auto name = ref.holder->FindMember(
        rapidjson::Value(rapidjson::StringRef(ref.member.data(), ref.member.size())));
    ASSERT_NE(name, ref.holder->MemberEnd());
    const std::string host = "host-" + std::string(name->value.GetString());
    name->value.SetString(host.c_str(), host.size(), spec.GetAllocator());
  });
  EXPECT_EQ(GetString(spec["volumes"][3], {"csi", "nodePublishSecretRef", "name"}),
            "host-csi-secret");
  EXPECT_EQ(GetString(spec["containers"][0]["envFrom"][1], {"secretRef", "name"}),
            "host-envfrom-secret");
  EXPECT_EQ(GetString(spec["containers"][0]["envFrom"][1], {"prefix"}), "S_");
  EXPECT_EQ(GetString(spec["imagePullSecrets"][0], {"name"}), "host-pull-secret");
  EXPECT_EQ(GetString(spec["volumes"][4], {"azureFile", "shareName"}), "s");
  EXPECT_EQ(GetString(spec["resourceClaims"][0], {"resourceClaimName"}), "host-named-claim");
  EXPECT_EQ(GetString(spec["resourceClaims"][1], {"resourceClaimTemplateName"}),
            "host-claim-template");
}

TEST(PodObjectRefsTest, MalformedPlacesAreSkipped) {
  const Object spec = ParseJson(R"({"containers":"x","volumes":[3,{"name":"v","configMap":"x"}],
      "imagePullSecrets":["pull"]})")
                          .value();
  int visits = 0;
  ForEachObjectRef(spec, [&](const PodObjectRef<const rapidjson::Value>&) { ++visits; });
  EXPECT_EQ(visits, 0);
}

}  // namespace
}  // namespace vtenant::kube
