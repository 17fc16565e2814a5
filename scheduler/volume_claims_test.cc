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
  Result<std::vector<VolumeClaims::ClaimBinding>> plan =
      v.PlanBinding("ml", {{"data"}}, "b1", kNodes.at("b1"));
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->empty()) << "bound already";

  // A volume with no node affinity admits every node.
  v.UpsertVolume(Json(R"({"metadata":{"name":"pv-1"},"spec":{}})"));
  EXPECT_TRUE(v.Check("ml", "u1", {{"data"}}).affinity.empty());
}

// kube-scheduler's VolumeZone: a volume's zone and region labels hold the
// pod to nodes of those zones (several joined by "__"), a beta label read
// on a node by its GA key when the node lacks the beta one; a node with no
// such label is admitted.
TEST(VolumeClaimsTest, AVolumesZoneLabelsHoldThePodToTheirZones) {
  VolumeClaims v;
  v.UpsertClaim(Claim("data", R"(,"volumeName":"pv-z")"));
  v.UpsertVolume(Json(R"({"metadata":{"name":"pv-z","labels":{
      "topology.kubernetes.io/zone":"a__c","topology.kubernetes.io/region":"eu"}},"spec":{}})"));
  const std::map<std::string, sched::LabelPairs> nodes = {
      {"a-eu", {{"topology.kubernetes.io/zone", "a"}, {"topology.kubernetes.io/region", "eu"}}},
      {"a-us", {{"topology.kubernetes.io/zone", "a"}, {"topology.kubernetes.io/region", "us"}}},
      {"b-eu", {{"topology.kubernetes.io/zone", "b"}, {"topology.kubernetes.io/region", "eu"}}},
      {"c", {{"topology.kubernetes.io/zone", "c"}}},
      {"plain", {{"kubernetes.io/hostname", "plain"}}},
  };
  EXPECT_EQ(Admitted(v.Check("ml", "u1", {{"data"}}), nodes),
            (std::vector<std::string>{"a-eu", "plain"}))
      << "c lacks the region the volume names";

  v.UpsertVolume(Json(R"({"metadata":{"name":"pv-z","labels":{
      "failure-domain.beta.kubernetes.io/zone":"b"}},"spec":{}})"));
  const std::map<std::string, sched::LabelPairs> beta = {
      {"beta-b", {{"failure-domain.beta.kubernetes.io/zone", "b"}}},
      {"beta-a-ga-b",
       {{"failure-domain.beta.kubernetes.io/zone", "a"}, {"topology.kubernetes.io/zone", "b"}}},
      {"ga-b", {{"topology.kubernetes.io/zone", "b"}}},
      {"ga-a", {{"topology.kubernetes.io/zone", "a"}}},
  };
  EXPECT_EQ(Admitted(v.Check("ml", "u1", {{"data"}}), beta),
            (std::vector<std::string>{"beta-b", "ga-b"}));
}

TEST(VolumeClaimsTest, ReadWriteOncePodClaimsAreKnownAndCounted) {
  VolumeClaims v;
  const kube::Object solo = Json(R"({"metadata":{"name":"solo","namespace":"ml"},
      "spec":{"accessModes":["ReadWriteOncePod"]}})");
  v.UpsertClaim(Claim("shared"));
  EXPECT_FALSE(v.AnyOnePodOnly());
  v.UpsertClaim(solo);
  v.UpsertClaim(solo);
  EXPECT_TRUE(v.OnePodOnly("ml", "solo"));
  EXPECT_FALSE(v.OnePodOnly("ml", "shared"));
  EXPECT_FALSE(v.OnePodOnly("other", "solo"));
  v.UpsertClaim(Claim("solo"));  // its access modes are immutable; counted as written
  EXPECT_FALSE(v.AnyOnePodOnly());
  v.UpsertClaim(solo);
  v.DeleteClaim(solo);
  v.DeleteClaim(solo);
  EXPECT_FALSE(v.AnyOnePodOnly());
  EXPECT_FALSE(v.OnePodOnly("ml", "solo"));
}

TEST(VolumeClaimsTest, AnUnboundClaimWaitsUnlessItsClassWaitsForTheFirstConsumer) {
  VolumeClaims v;
  v.UpsertClaim(Claim("fast", R"(,"storageClassName":"gp3")"));
  v.UpsertClaim(Claim("none"));
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
  EXPECT_EQ(Admitted(verdict, kNodes), (std::vector<std::string>{"a1", "b1", "b2"}));
  // Both are provisioned where the pod goes: told the node at bind.
  EXPECT_EQ(v.PlanBinding("ml", {{"fast"}, {"legacy"}}, "b1", kNodes.at("b1")).value(),
            (std::vector<VolumeClaims::ClaimBinding>{{.claim = "fast"}, {.claim = "legacy"}}));

  // Provisioning asked for on b2 already (an earlier bind): only b2, and
  // the claim is not asked again.
  v.UpsertClaim(Claim("fast", R"(,"storageClassName":"gp3")",
                      R"(,"annotations":{"volume.kubernetes.io/selected-node":"b2"})"));
  verdict = v.Check("ml", "u1", {{"fast"}});
  EXPECT_EQ(Admitted(verdict, kNodes), (std::vector<std::string>{"b2"}));
  EXPECT_TRUE(v.PlanBinding("ml", {{"fast"}}, "b2", kNodes.at("b2")).value().empty());

  // Immediate binding: the claim waits for the volume controller.
  v.UpsertClass(Json(R"({"metadata":{"name":"gp3"},"provisioner":"ebs.csi.aws.com"})"));
  EXPECT_NE(v.Check("ml", "u1", {{"legacy"}}).reason, "");
}

// A class whose CSI driver tracks storage capacity makes a volume only where
// a CSIStorageCapacity of the class with room for the claim selects the
// node, as kube-scheduler checks: maximumVolumeSize before capacity, and a
// capacity without nodeTopology reaches no node.
TEST(VolumeClaimsTest, ADriverThatTracksCapacityProvisionsOnlyWhereThereIsRoom) {
  VolumeClaims v;
  v.UpsertClass(Json(R"({"metadata":{"name":"lvm"},"provisioner":"local.csi.openebs.io",
      "volumeBindingMode":"WaitForFirstConsumer"})"));
  v.UpsertClaim(Json(R"({"metadata":{"name":"data","namespace":"ml","uid":"c1"},
      "spec":{"storageClassName":"lvm","resources":{"requests":{"storage":"20Gi"}}}})"));
  auto capacity = [](const std::string& name, const std::string& fields) {
    return Json(R"({"metadata":{"name":")" + name +
                R"(","namespace":"openebs"},"storageClassName":"lvm")" + fields + "}");
  };
  v.UpsertCapacity(capacity("zone-a", R"(,"capacity":"100Gi","nodeTopology":{"matchLabels":{
      "topology.kubernetes.io/zone":"a"}})"));
  v.UpsertCapacity(capacity("zone-b", R"(,"capacity":"100Gi","maximumVolumeSize":"10Gi",
      "nodeTopology":{"matchExpressions":[{"key":"topology.kubernetes.io/zone","operator":"In",
      "values":["b"]}]})"));
  v.UpsertCapacity(capacity("nowhere", R"(,"capacity":"1Ti")"));
  v.UpsertCapacity(Json(R"({"metadata":{"name":"other","namespace":"openebs"},
      "storageClassName":"ssd","capacity":"1Ti","nodeTopology":{}})"));

  // The driver does not say it tracks capacity (or is unknown): no check.
  EXPECT_EQ(Admitted(v.Check("ml", "u1", {{"data"}}), kNodes),
            (std::vector<std::string>{"a1", "b1", "b2"}));
  v.UpsertDriver(Json(R"({"metadata":{"name":"local.csi.openebs.io"},"spec":{}})"));
  EXPECT_EQ(Admitted(v.Check("ml", "u1", {{"data"}}), kNodes),
            (std::vector<std::string>{"a1", "b1", "b2"}));

  v.UpsertDriver(
      Json(R"({"metadata":{"name":"local.csi.openebs.io"},"spec":{"storageCapacity":true}})"));
  VolumeClaims::Verdict verdict = v.Check("ml", "u1", {{"data"}});
  EXPECT_EQ(verdict.reason, "");
  EXPECT_EQ(Admitted(verdict, kNodes), (std::vector<std::string>{"a1"}))
      << "zone b's largest volume is 10Gi";
  EXPECT_TRUE(v.PlanBinding("ml", {{"data"}}, "a1", kNodes.at("a1")).ok());
  EXPECT_FALSE(v.PlanBinding("ml", {{"data"}}, "b1", kNodes.at("b1")).ok());

  // More than any capacity has: the pod waits and says why.
  v.UpsertClaim(Json(R"({"metadata":{"name":"data","namespace":"ml","uid":"c1"},
      "spec":{"storageClassName":"lvm","resources":{"requests":{"storage":"200Gi"}}}})"));
  EXPECT_NE(v.Check("ml", "u1", {{"data"}}).reason.find("did not have enough free storage"),
            std::string::npos)
      << v.Check("ml", "u1", {{"data"}}).reason;

  // Gone: the capacity and then the driver's tracking.
  v.DeleteCapacity(capacity("zone-a", ""));
  v.UpsertClaim(Json(R"({"metadata":{"name":"data","namespace":"ml","uid":"c1"},
      "spec":{"storageClassName":"lvm","resources":{"requests":{"storage":"5Gi"}}}})"));
  EXPECT_EQ(Admitted(v.Check("ml", "u1", {{"data"}}), kNodes),
            (std::vector<std::string>{"b1", "b2"}));
  v.DeleteDriver(Json(R"({"metadata":{"name":"local.csi.openebs.io"}})"));
  EXPECT_EQ(Admitted(v.Check("ml", "u1", {{"data"}}), kNodes),
            (std::vector<std::string>{"a1", "b1", "b2"}));
}

// Local disks: a class that makes no volume, and volumes, each on its node,
// for the scheduler to bind the claim to on the node it picks.
TEST(VolumeClaimsTest, AClaimOfLocalVolumesGoesWhereOneFitsAndIsBoundToTheSmallest) {
  VolumeClaims v;
  v.UpsertClass(Json(R"({"metadata":{"name":"local"},"provisioner":"kubernetes.io/no-provisioner",
      "volumeBindingMode":"WaitForFirstConsumer"})"));
  v.UpsertClaim(Json(R"({"metadata":{"name":"scratch","namespace":"ml","uid":"c1"},
      "spec":{"accessModes":["ReadWriteOnce"],"storageClassName":"local",
              "resources":{"requests":{"storage":"100Gi"}}}})"));
  v.UpsertClaim(Json(R"({"metadata":{"name":"cache","namespace":"ml","uid":"c2"},
      "spec":{"accessModes":["ReadWriteOnce"],"storageClassName":"local",
              "resources":{"requests":{"storage":"100Gi"}}}})"));
  EXPECT_EQ(v.Check("ml", "u1", {{"scratch"}}).reason,
            "persistentvolumeclaim \"scratch\" has no available PersistentVolume of StorageClass "
            "\"local\" that fits it, and the class (kubernetes.io/no-provisioner) makes none");
  // Disks on b1 (two) and a1 (too small); one on b2 already claimed.
  auto disk = [&](const std::string& name, const std::string& node, const std::string& size,
                  bool claimed = false) {
    v.UpsertVolume(Json(R"({"metadata":{"name":")" + name + R"(","resourceVersion":"7"},
        "spec":{"capacity":{"storage":")" +
                        size + R"("},"accessModes":["ReadWriteOnce"],
          "storageClassName":"local",)" +
                        (claimed ? R"("claimRef":{"name":"x"},)" : "") +
                        R"("nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchFields":[
            {"key":"metadata.name","operator":"In","values":[")" +
                        node + R"("]}]}]}}},
        "status":{"phase":"Available"}})"));
  };
  disk("b1-large", "b1", "1Ti");
  disk("b1-small", "b1", "200Gi");
  disk("a1-tiny", "a1", "10Gi");
  disk("b2-taken", "b2", "1Ti", /*claimed=*/true);
  EXPECT_EQ(Admitted(v.Check("ml", "u1", {{"scratch"}}), kNodes), (std::vector<std::string>{"b1"}));
  // Two claims take two disks, smallest first.
  EXPECT_EQ(
      v.PlanBinding("ml", {{"scratch"}, {"cache"}}, "b1", kNodes.at("b1")).value(),
      (std::vector<VolumeClaims::ClaimBinding>{
          {.claim = "scratch", .claim_uid = "c1", .volume = "b1-small", .volume_version = "7"},
          {.claim = "cache", .claim_uid = "c2", .volume = "b1-large", .volume_version = "7"}}));
  EXPECT_EQ(v.PlanBinding("ml", {{"scratch"}}, "a1", kNodes.at("a1")).status().code(),
            StatusCode::kFailedPrecondition);
}

// A claim's selector, matchLabels and matchExpressions alike, picks among
// the volumes by their labels.
TEST(VolumeClaimsTest, AClaimsSelectorPicksVolumesByTheirLabels) {
  VolumeClaims v;
  v.UpsertClass(Json(R"({"metadata":{"name":"local"},"provisioner":"kubernetes.io/no-provisioner",
      "volumeBindingMode":"WaitForFirstConsumer"})"));
  for (auto [node, disk] : {std::pair{"b1", "nvme"}, {"b2", "hdd"}, {"a1", "nvme-old"}})
    v.UpsertVolume(Json(std::string(R"({"metadata":{"name":"pv-)") + node +
                        R"(","labels":{"disk":")" + disk + R"("}},
        "spec":{"capacity":{"storage":"1Ti"},"accessModes":["ReadWriteOnce"],
          "storageClassName":"local","nodeAffinity":{"required":{"nodeSelectorTerms":[
            {"matchFields":[{"key":"metadata.name","operator":"In","values":[")" +
                        node + R"("]}]}]}}},"status":{"phase":"Available"}})"));
  auto claim = [&](const std::string& name, const std::string& selector) {
    v.UpsertClaim(Json(R"({"metadata":{"name":")" + name + R"(","namespace":"ml","uid":"u-)" +
                       name + R"("},"spec":{"accessModes":["ReadWriteOnce"],
        "storageClassName":"local","resources":{"requests":{"storage":"1Gi"}},
        "selector":)" + selector +
                       "}}"));
    return v.Check("ml", "u1", {{name}});
  };
  auto admitted = [&](const std::string& name, const std::string& selector) {
    return Admitted(claim(name, selector), kNodes);
  };
  EXPECT_EQ(admitted("fast", R"({"matchExpressions":[{"key":"disk","operator":"In",
      "values":["nvme","nvme-old"]}]})"),
            (std::vector<std::string>{"a1", "b1"}));
  EXPECT_EQ(admitted("new", R"({"matchLabels":{"disk":"nvme"}})"),
            (std::vector<std::string>{"b1"}));
  EXPECT_EQ(admitted("slow", R"({"matchExpressions":[{"key":"disk","operator":"NotIn",
      "values":["nvme","nvme-old"]}]})"),
            (std::vector<std::string>{"b2"}));
  EXPECT_NE(claim("odd", R"({"matchExpressions":[{"key":"disk","operator":"Gt",
      "values":["1"]}]})")
                .reason.find("has no available PersistentVolume"),
            std::string::npos)
      << "a selector the API server refuses selects no volume";
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
