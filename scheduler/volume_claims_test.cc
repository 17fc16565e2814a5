#include "scheduler/volume_claims.h"

#include <gtest/gtest.h>

#include "kube/testing/json.h"

namespace vtenant::scheduler {
namespace {

using kube::Json;

kube::Object Claim(const std::string& name, const std::string& extra_spec = "",
                   const std::string& extra_metadata = "") {
  return Json(R"({"metadata":{"name":")" + name + R"(","namespace":"ml")" + extra_metadata +
              R"(},"spec":{"accessModes":["ReadWriteOnce"])" + extra_spec + "}}");
}

// Which nodes of `labels_by_node` the verdict's affinity admits.
std::vector<std::string> Admitted(const VolumeClaims::Verdict& v,
                                  const std::map<std::string, sched::LabelPairs>& labels_by_node) {
  std::vector<std::string> out;
  for (const auto& [name, labels] : labels_by_node)
    if (v.affinity.empty() || v.affinity.Matches(name, labels)) out.push_back(name);
  return out;
}

const std::map<std::string, sched::LabelPairs> kNodes = {
    {"a1", {{"topology.kubernetes.io/zone", "a"}}},
    {"b1", {{"topology.kubernetes.io/zone", "b"}}},
    {"b2", {{"topology.kubernetes.io/zone", "b"}}},
};

TEST(VolumeClaimsTest, ReadsTheClaimsOfAPodsVolumes) {
  kube::Object pod = Json(R"({"metadata":{"name":"trainer"},"spec":{"volumes":[
      {"name":"data","persistentVolumeClaim":{"claimName":"datasets"}},
      {"name":"cache","emptyDir":{}},
      {"name":"scratch","ephemeral":{"volumeClaimTemplate":{"spec":{}}}}]}})");
  EXPECT_EQ(PodClaims(pod),
            (std::vector<PodClaim>{{"datasets", false}, {"trainer-scratch", true}}));
}

TEST(VolumeClaimsTest, AMissingOrLeavingClaimKeepsThePodWaiting) {
  VolumeClaims v;
  EXPECT_EQ(v.Check("ml", "u1", {{"data"}}).reason, "persistentvolumeclaim \"data\" not found");
  v.UpsertClaim(
      Claim("data", R"(,"volumeName":"pv-1")", R"(,"deletionTimestamp":"2026-12-01T09:00:00Z")"));
  EXPECT_EQ(v.Check("ml", "u1", {{"data"}}).reason,
            "persistentvolumeclaim \"data\" is being deleted");
  EXPECT_EQ(v.Check("other", "u1", {{"data"}}).reason, "persistentvolumeclaim \"data\" not found")
      << "claims are namespaced";
}

TEST(VolumeClaimsTest, ABoundClaimHoldsThePodToItsVolumesNodes) {
  VolumeClaims v;
  v.UpsertClaim(Claim("data", R"(,"volumeName":"pv-1","storageClassName":"zonal")"));
  EXPECT_EQ(v.Check("ml", "u1", {{"data"}}).reason,
            "persistentvolumeclaim \"data\" is bound to PersistentVolume \"pv-1\", which does not "
            "exist");
  v.UpsertVolume(Json(R"({"metadata":{"name":"pv-1"},"spec":{"nodeAffinity":{"required":{
      "nodeSelectorTerms":[{"matchExpressions":[
        {"key":"topology.kubernetes.io/zone","operator":"In","values":["b"]}]}]}}}})"));
  VolumeClaims::Verdict verdict = v.Check("ml", "u1", {{"data"}});
  EXPECT_EQ(verdict.reason, "");
  EXPECT_EQ(Admitted(verdict, kNodes), (std::vector<std::string>{"b1", "b2"}));
  EXPECT_TRUE(verdict.select_node.empty()) << "bound already";

  // A volume with no node affinity admits every node.
  v.UpsertVolume(Json(R"({"metadata":{"name":"pv-1"},"spec":{}})"));
  EXPECT_TRUE(v.Check("ml", "u1", {{"data"}}).affinity.empty());
}

TEST(VolumeClaimsTest, AnUnboundClaimWaitsUnlessItsClassWaitsForTheFirstConsumer) {
  VolumeClaims v;
  v.UpsertClaim(Claim("fast", R"(,"storageClassName":"gp3")"));
  v.UpsertClaim(Claim("none"));
  v.UpsertClaim(Claim("local", R"(,"storageClassName":"local")"));
  v.UpsertClaim(
      Claim("legacy", "", R"(,"annotations":{"volume.beta.kubernetes.io/storage-class":"gp3"})"));
  // No such class yet, and none at all: the volume controller binds them, or nobody.
  EXPECT_EQ(v.Check("ml", "u1", {{"fast"}}).reason,
            "pod has unbound immediate PersistentVolumeClaims: persistentvolumeclaim \"fast\" "
            "waits for the volume controller to bind it");
  EXPECT_NE(v.Check("ml", "u1", {{"none"}}).reason, "");

  v.UpsertClass(Json(R"({"metadata":{"name":"gp3"},"provisioner":"ebs.csi.aws.com",
      "volumeBindingMode":"WaitForFirstConsumer",
      "allowedTopologies":[{"matchLabelExpressions":[
        {"key":"topology.kubernetes.io/zone","values":["a","b"]}]}]})"));
  VolumeClaims::Verdict verdict = v.Check("ml", "u1", {{"fast"}, {"legacy"}});
  EXPECT_EQ(verdict.reason, "");
  EXPECT_EQ(verdict.select_node, (std::vector<std::string>{"fast", "legacy"}));
  EXPECT_EQ(Admitted(verdict, kNodes), (std::vector<std::string>{"a1", "b1", "b2"}));

  // Provisioning asked for on b2 already (an earlier bind): only b2, and
  // the claim is not asked again.
  v.UpsertClaim(Claim("fast", R"(,"storageClassName":"gp3")",
                      R"(,"annotations":{"volume.kubernetes.io/selected-node":"b2"})"));
  verdict = v.Check("ml", "u1", {{"fast"}});
  EXPECT_TRUE(verdict.select_node.empty());
  EXPECT_EQ(Admitted(verdict, kNodes), (std::vector<std::string>{"b2"}));

  // Immediate binding: the claim waits for the volume controller.
  v.UpsertClass(Json(R"({"metadata":{"name":"gp3"},"provisioner":"ebs.csi.aws.com"})"));
  EXPECT_NE(v.Check("ml", "u1", {{"legacy"}}).reason, "");

  // Local volumes are bound by the scheduler that picks the node: not here.
  v.UpsertClass(Json(R"({"metadata":{"name":"local"},"provisioner":"kubernetes.io/no-provisioner",
      "volumeBindingMode":"WaitForFirstConsumer"})"));
  EXPECT_NE(v.Check("ml", "u1", {{"local"}}).reason.find("does not bind"), std::string::npos);
}

TEST(VolumeClaimsTest, AnEphemeralVolumesClaimMustBeThePods) {
  VolumeClaims v;
  v.UpsertClass(Json(R"({"metadata":{"name":"gp3"},"provisioner":"ebs.csi.aws.com",
      "volumeBindingMode":"WaitForFirstConsumer"})"));
  v.UpsertClaim(Claim("trainer-scratch", R"(,"storageClassName":"gp3")",
                      R"(,"ownerReferences":[{"kind":"Pod","name":"trainer","uid":"u1"}])"));
  EXPECT_EQ(v.Check("ml", "u1", {{"trainer-scratch", true}}).reason, "");
  EXPECT_EQ(v.Check("ml", "u2", {{"trainer-scratch", true}}).reason,
            "persistentvolumeclaim \"trainer-scratch\" was not created for this pod's ephemeral "
            "volume (the pod is not its owner)");
}

TEST(VolumeClaimsTest, EveryClaimMustAdmitTheNode) {
  VolumeClaims v;
  v.UpsertClaim(Claim("in-a", R"(,"volumeName":"pv-a")"));
  v.UpsertClaim(Claim("in-b", R"(,"volumeName":"pv-b")"));
  for (const char* zone : {"a", "b"})
    v.UpsertVolume(Json(std::string(R"({"metadata":{"name":"pv-)") + zone +
                        R"("},"spec":{"nodeAffinity":{"required":{"nodeSelectorTerms":[
        {"matchExpressions":[{"key":"topology.kubernetes.io/zone","operator":"In","values":[")" +
                        zone + R"("]}]}]}}}})"));
  EXPECT_EQ(Admitted(v.Check("ml", "u1", {{"in-a"}}), kNodes), (std::vector<std::string>{"a1"}));
  EXPECT_TRUE(Admitted(v.Check("ml", "u1", {{"in-a"}, {"in-b"}}), kNodes).empty());
}

}  // namespace
}  // namespace vtenant::scheduler
