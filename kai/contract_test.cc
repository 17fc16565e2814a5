// One table of pods, PodGroups and workloads, each with the verdict KAI's
// contract gives it, read by every program that judges it:
//   (a) this library,
//   (b) the syncer (CheckPod on a tenant's pod; GangOfPodGroup and GangOf
//       on a team's PodGroup and workload),
//   (c) the admission webhook (Review and MutatePod on the host pod),
//   (d) the scheduler's translators (CorePodFromHost, CoreGroupFromHost,
//       PlanPodGroup).
// All agree on every row, and a refusal says the same thing everywhere: a
// pod the syncer passes is a pod the webhook admits and the scheduler reads
// as the syncer did.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kai/gpu_request.h"
#include "kai/min_member.h"
#include "kai/podgroup_spec.h"
#include "kube/json_builder.h"
#include "kube/object.h"
#include "kube/testing/json.h"
#include "scheduler/admission.h"
#include "scheduler/core_pod.h"
#include "scheduler/core_podgroup.h"
#include "scheduler/grouping_rules.h"
#include "syncer/gang.h"
#include "syncer/owner_chain.h"
#include "syncer/pod_policy.h"
#include "syncer/syncer_config.h"

namespace vtenant::kai {
namespace {

using kube::Json;

syncer::SyncerConfig Tenant() {
  syncer::SyncerConfig config;
  config.tenant = "nlp";
  config.queue = "nlp";
  config.host_namespace = "vtenant-nlp";
  config.allowed_priority_classes = {"train", "inference"};
  return config;
}

scheduler::AdmissionOptions Webhook() {
  return {.random_suffix = [] { return std::string("abcdefg"); }};
}

// A container "main" with these resource limits.
kube::JsonObject Main(const kube::JsonObject& limits) {
  return {{"name", "main"},
          {"image", "pytorch:2"},
          {"resources", kube::JsonObject{{"limits", limits}}}};
}

struct PodRow {
  const char* what;
  std::string annotations = "{}";  // JSON object
  kube::JsonArray containers = {Main({})};
  kube::JsonArray init_containers = {};
  bool admitted = true;
  const char* says = "";  // in every program's refusal
};

std::vector<PodRow> PodTable() {
  return {
      {.what = "no GPU"},
      {.what = "fraction", .annotations = R"({"gpu-fraction":"0.5"})"},
      {.what = "fraction of a whole device", .annotations = R"({"gpu-fraction":"1"})"},
      {.what = "tiny fraction, rounded up", .annotations = R"({"gpu-fraction":"0.0001"})"},
      {.what = "fraction with an exponent", .annotations = R"({"gpu-fraction":"1e-1"})"},
      {.what = "fraction above one",
       .annotations = R"({"gpu-fraction":"1.5"})",
       .admitted = false,
       .says = "gpu-fraction \"1.5\" must be a decimal number more than 0 and at most 1"},
      {.what = "zero fraction",
       .annotations = R"({"gpu-fraction":"0"})",
       .admitted = false,
       .says = "gpu-fraction \"0\""},
      {.what = "fraction not a number",
       .annotations = R"({"gpu-fraction":"abc"})",
       .admitted = false,
       .says = "gpu-fraction \"abc\""},
      {.what = "negative fraction",
       .annotations = R"({"gpu-fraction":"-0.5"})",
       .admitted = false,
       .says = "gpu-fraction \"-0.5\""},
      {.what = "fraction as a percentage",
       .annotations = R"({"gpu-fraction":"50%"})",
       .admitted = false,
       .says = "gpu-fraction \"50%\""},
      {.what = "gpu-memory", .annotations = R"({"gpu-memory":"4000"})"},
      {.what = "zero gpu-memory",
       .annotations = R"({"gpu-memory":"0"})",
       .admitted = false,
       .says = "gpu-memory \"0\" must be a whole number of MiB"},
      {.what = "gpu-memory not whole",
       .annotations = R"({"gpu-memory":"4.5"})",
       .admitted = false,
       .says = "gpu-memory \"4.5\" must be a whole number of MiB"},
      {.what = "gpu-memory with a unit",
       .annotations = R"({"gpu-memory":"4Gi"})",
       .admitted = false,
       .says = "gpu-memory \"4Gi\""},
      {.what = "fraction and memory",
       .annotations = R"({"gpu-fraction":"0.5","gpu-memory":"4000"})",
       .admitted = false,
       .says = "are both set"},
      {.what = "fraction on two devices",
       .annotations = R"({"gpu-fraction":"0.5","gpu-fraction-num-devices":"2"})"},
      {.what = "fraction on as many devices as a node has",
       .annotations = R"({"gpu-fraction":"0.5","gpu-fraction-num-devices":"64"})"},
      {.what = "fraction on more devices than a node has",
       .annotations = R"({"gpu-fraction":"0.5","gpu-fraction-num-devices":"65"})",
       .admitted = false,
       .says = "gpu-fraction-num-devices \"65\" must be a whole number from 1 to 64"},
      {.what = "fraction on zero devices",
       .annotations = R"({"gpu-fraction":"0.5","gpu-fraction-num-devices":"0"})",
       .admitted = false,
       .says = "gpu-fraction-num-devices \"0\""},
      {.what = "fraction on devices not counted",
       .annotations = R"({"gpu-fraction":"0.5","gpu-fraction-num-devices":"two"})",
       .admitted = false,
       .says = "gpu-fraction-num-devices \"two\""},
      {.what = "memory on two devices",
       .annotations = R"({"gpu-memory":"4000","gpu-fraction-num-devices":"2"})"},
      {.what = "devices without a share",
       .annotations = R"({"gpu-fraction-num-devices":"2"})",
       .admitted = false,
       .says = "gpu-fraction-num-devices needs gpu-fraction or gpu-memory"},
      {.what = "share taken by a named container",
       .annotations = R"({"gpu-fraction":"0.5","gpu-fraction-container-name":"main"})"},
      {.what = "share taken by a container that is not there",
       .annotations = R"({"gpu-fraction":"0.5","gpu-fraction-container-name":"gpu"})",
       .admitted = false,
       .says = "gpu-fraction-container-name \"gpu\" names no container"},
      {.what = "whole GPUs", .containers = {Main({{"nvidia.com/gpu", "2"}})}},
      {.what = "fraction beside whole GPUs",
       .annotations = R"({"gpu-fraction":"0.5"})",
       .containers = {Main({{"nvidia.com/gpu", "1"}})},
       .admitted = false,
       .says = "gpu-fraction is set together with nvidia.com/gpu 1"},
      {.what = "memory beside whole GPUs of an init container",
       .annotations = R"({"gpu-memory":"4000"})",
       .init_containers = {Main({{"nvidia.com/gpu", "1"}})},
       .admitted = false,
       .says = "gpu-memory is set together with nvidia.com/gpu 1"},
      {.what = "fraction beside a zero nvidia.com/gpu",
       .annotations = R"({"gpu-fraction":"0.5"})",
       .containers = {Main({{"nvidia.com/gpu", "0"}})}},
      {.what = "part of a whole GPU",
       .containers = {Main({{"nvidia.com/gpu", "500m"}})},
       .admitted = false,
       .says = "resources.limits[nvidia.com/gpu] \"500m\" must be a whole number of devices"},
      {.what = "more whole GPUs than a node has",
       .containers = {Main({{"nvidia.com/gpu", "65"}})},
       .admitted = false,
       .says = "at most 64 fit on one node"},
      {.what = "MIG slices", .containers = {Main({{"nvidia.com/mig-1g.10gb", "2"}})}},
      {.what = "MIG beside a fraction",
       .annotations = R"({"gpu-fraction":"0.5"})",
       .containers = {Main({{"nvidia.com/mig-1g.10gb", "1"}})},
       .admitted = false,
       .says = "nvidia.com/mig-1g.10gb is asked for together with gpu-fraction"},
      {.what = "MIG beside whole GPUs",
       .containers = {Main({{"nvidia.com/mig-1g.10gb", "1"}, {"nvidia.com/gpu", "1"}})},
       .admitted = false,
       .says = "together with nvidia.com/gpu"},
      {.what = "two MIG profiles",
       .containers = {Main({{"nvidia.com/mig-1g.10gb", "1"}}),
                      kube::JsonObject{
                          {"name", "side"},
                          {"resources",
                           kube::JsonObject{
                               {"limits", kube::JsonObject{{"nvidia.com/mig-2g.20gb", "1"}}}}}}},
       .admitted = false,
       .says = "all of one profile"},
      {.what = "MIG profile no GPU has",
       .containers = {Main({{"nvidia.com/mig-8g.80gb", "1"}})},
       .admitted = false,
       .says = "with g from 1 to 7"},
  };
}

kube::Object PodOf(const PodRow& row) {
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", kube::JsonObject{{"name", "train"},
                                    {"namespace", "ml"},
                                    {"uid", "u1"},
                                    {"annotations", kube::JsonValue(Json(row.annotations))}}},
      {"spec", kube::JsonObject{{"schedulerName", "kai-scheduler"},
                                {"containers", row.containers},
                                {"initContainers", row.init_containers}}}});
}

std::string AdmissionReviewOf(const kube::Object& pod) {
  return kube::ToJson(kube::BuildJson(kube::JsonObject{
      {"apiVersion", "admission.k8s.io/v1"},
      {"kind", "AdmissionReview"},
      {"request", kube::JsonObject{
                      {"uid", "r1"},
                      {"kind", kube::JsonObject{{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}},
                      {"operation", "CREATE"},
                      {"object", kube::JsonValue(pod)}}}}));
}

TEST(KaiContractTest, EveryProgramGivesAPodTheSameVerdict) {
  for (const PodRow& row : PodTable()) {
    SCOPED_TRACE(row.what);
    const kube::Object pod = PodOf(row);

    // (a) the library.
    Result<GpuRequest> request = ParseGpuRequest(pod);
    ASSERT_EQ(request.ok(), row.admitted) << request.status().ToString();
    const std::string why = request.ok() ? "" : request.status().message();
    EXPECT_NE(why.find(row.says), std::string::npos) << why << "\n  wanted: " << row.says;

    // (b) the syncer, before the pod leaves its virtual cluster.
    std::optional<syncer::Refusal> refusal = syncer::CheckPod(pod, Tenant());
    EXPECT_EQ(!refusal, row.admitted) << (refusal ? refusal->message : "passed");
    if (refusal) {
      EXPECT_EQ(refusal->reason, "InvalidGpuAnnotation");
      EXPECT_EQ(refusal->message, why);
    }

    // (c) the admission webhook, when the host pod is created.
    Result<std::string> patch = scheduler::MutatePod(pod, Webhook());
    EXPECT_EQ(patch.ok(), row.admitted) << patch.status().ToString();
    if (patch.ok()) {
      EXPECT_EQ(patch->empty(), !request->IsShared()) << "a share gets its ConfigMap: " << *patch;
    } else {
      EXPECT_NE(patch.status().message().find(why), std::string::npos) << patch.status().message();
    }
    Result<std::string> review = scheduler::Review(AdmissionReviewOf(pod), Webhook());
    ASSERT_TRUE(review.ok()) << review.status().ToString();
    kube::Object answer = Json(*review);
    EXPECT_EQ(kube::Find(answer, {"response", "allowed"})->GetBool(), row.admitted) << *review;
    if (!row.admitted) {
      EXPECT_NE(kube::GetString(answer, {"response", "status", "message"}).find(why),
                std::string::npos)
          << *review;
    }

    // (d) the scheduler, which places what it reads.
    scheduler::CorePod translated = scheduler::CorePodFromHost(pod, {});
    EXPECT_EQ(translated.problem.ok(), row.admitted) << translated.problem.ToString();
    if (request.ok()) {
      EXPECT_EQ(translated.spec.whole_gpus, request->whole_gpus);
      EXPECT_EQ(translated.spec.gpu_fraction, request->fraction_milli);
      EXPECT_EQ(translated.spec.gpu_memory_mib, request->memory_mib);
      EXPECT_EQ(translated.spec.num_devices, request->num_devices);
      EXPECT_EQ(translated.spec.mig_profile, request->mig_profile);
      EXPECT_EQ(translated.spec.mig_count, request->mig_count);
    } else {
      EXPECT_NE(translated.problem.message().find(why), std::string::npos)
          << translated.problem.message();
    }
  }
}

struct GroupRow {
  const char* what;
  std::string spec;  // JSON object
  bool accepted = true;
  const char* says = "";
};

std::vector<GroupRow> GroupTable() {
  return {
      {.what = "empty spec", .spec = "{}"},
      {.what = "a gang of four", .spec = R"({"minMember":4,"queue":"nlp"})"},
      // KAI's "no gang requirement".
      {.what = "minMember zero", .spec = R"({"minMember":0})"},
      {.what = "minMember negative",
       .spec = R"({"minMember":-2})",
       .accepted = false,
       .says = "spec.minMember -2"},
      {.what = "minMember as text",
       .spec = R"({"minMember":"4"})",
       .accepted = false,
       .says = "spec.minMember \"4\""},
      {.what = "minMember not whole",
       .spec = R"({"minMember":1.5})",
       .accepted = false,
       .says = "spec.minMember 1.5"},
      {.what = "preemptible", .spec = R"({"preemptibility":"preemptible"})"},
      {.what = "non-preemptible", .spec = R"({"preemptibility":"non-preemptible"})"},
      {.what = "preemptibility unset by an empty string", .spec = R"({"preemptibility":""})"},
      {.what = "unknown preemptibility",
       .spec = R"({"preemptibility":"sometimes"})",
       .accepted = false,
       .says = "spec.preemptibility \"sometimes\" must be"},
      {.what = "markUnschedulable", .spec = R"({"markUnschedulable":true})"},
      {.what = "markUnschedulable not a boolean",
       .spec = R"({"markUnschedulable":"yes"})",
       .accepted = false,
       .says = "spec.markUnschedulable \"yes\" must be true or false"},
      {.what = "a priority class the host offers", .spec = R"({"priorityClassName":"train"})"},
      {.what = "a priority class that is no name",
       .spec = R"({"priorityClassName":7})",
       .accepted = false,
       .says = "spec.priorityClassName 7"},
      {.what = "nested sub-groups", .spec = R"({"minMember":3,"subGroups":[{"name":"decode"},
           {"name":"prefill","parent":"decode","minMember":2},{"name":"router","minMember":1}]})"},
      {.what = "sub-groups named twice",
       .spec = R"({"subGroups":[{"name":"a"},{"name":"a"}]})",
       .accepted = false,
       .says = "spec.subGroups[1] repeats the name \"a\""},
      {.what = "sub-group with a missing parent",
       .spec = R"({"subGroups":[{"name":"a","parent":"b"}]})",
       .accepted = false,
       .says = "names parent \"b\""},
      {.what = "sub-groups in a cycle",
       .spec = R"({"subGroups":[{"name":"a","parent":"b"},{"name":"b","parent":"a"}]})",
       .accepted = false,
       .says = "its own ancestor"},
      {.what = "sub-group without a name",
       .spec = R"({"subGroups":[{"minMember":2}]})",
       .accepted = false,
       .says = "spec.subGroups[0] has no name"},
      {.what = "sub-group minMember negative",
       .spec = R"({"subGroups":[{"name":"a","minMember":-1}]})",
       .accepted = false,
       .says = "minMember -1 is negative"},
      {.what = "a sub-group's own topology",
       .spec = R"({"subGroups":[{"name":"a","minMember":2,"topologyConstraint":{
           "topology":"dc","requiredTopologyLevel":"rack"}}]})"},
      {.what = "a sub-group's topology level that is no name",
       .spec = R"({"subGroups":[{"name":"a","topologyConstraint":{"requiredTopologyLevel":3}}]})",
       .accepted = false,
       .says = "topologyConstraint.requiredTopologyLevel is not a string"},
  };
}

TEST(KaiContractTest, EveryProgramGivesAPodGroupTheSameVerdict) {
  for (const GroupRow& row : GroupTable()) {
    SCOPED_TRACE(row.what);
    const kube::Object pg = kube::BuildJson(kube::JsonObject{
        {"apiVersion", "scheduling.run.ai/v2alpha2"},
        {"kind", "PodGroup"},
        {"metadata", kube::JsonObject{{"name", "gang"}, {"namespace", "ml"}, {"uid", "g1"}}},
        {"spec", kube::JsonValue(Json(row.spec))}});

    // (a) the library.
    Result<PodGroupSpec> spec = ReadPodGroupSpec(pg);
    ASSERT_EQ(spec.ok(), row.accepted) << spec.status().ToString();
    const std::string why = spec.ok() ? "" : spec.status().message();
    EXPECT_NE(why.find(row.says), std::string::npos) << why << "\n  wanted: " << row.says;

    // (b) the syncer, before it mirrors the team's PodGroup on the host.
    Result<syncer::Gang> gang = syncer::GangOfPodGroup(pg, "ml", Tenant());
    EXPECT_EQ(gang.ok(), row.accepted) << gang.status().ToString();
    if (gang.ok()) {
      EXPECT_EQ(gang->min_member, spec->min_member);
      EXPECT_EQ(gang->preemptibility, spec->preemptibility);
      EXPECT_EQ(gang->mark_unschedulable, spec->mark_unschedulable);
      const bool any_topology =
          std::any_of(spec->sub_groups.leaves.begin(), spec->sub_groups.leaves.end(),
                      [](const SubGroup& leaf) { return !leaf.topology.empty(); });
      EXPECT_EQ(gang->sub_groups.find("topologyConstraint") != std::string::npos, any_topology)
          << gang->sub_groups;
    } else {
      EXPECT_NE(gang.status().message().find(why), std::string::npos) << gang.status().message();
    }

    // (d) the scheduler, before it schedules the host group.
    Result<scheduler::CoreGroup> group = scheduler::CoreGroupFromHost(pg);
    EXPECT_EQ(group.ok(), row.accepted) << group.status().ToString();
    if (group.ok()) {
      EXPECT_EQ(group->spec.min_member, spec->min_member);
      EXPECT_EQ(group->preemptibility_set, !spec->preemptibility.empty());
      ASSERT_EQ(group->spec.subgroups.size(), spec->sub_groups.leaves.size());
      for (size_t i = 0; i < spec->sub_groups.leaves.size(); ++i) {
        const SubGroup& leaf = spec->sub_groups.leaves[i];
        EXPECT_EQ(group->spec.subgroups[i].name, leaf.name);
        EXPECT_EQ(group->spec.subgroups[i].min_member, leaf.min_member);
        const auto topology = group->subgroup_topology.find(leaf.name);
        EXPECT_EQ(
            topology == group->subgroup_topology.end() ? TopologyConstraint{} : topology->second,
            leaf.topology);
      }
    } else {
      EXPECT_NE(group.status().message().find(why), std::string::npos) << group.status().message();
    }
  }
}

// Virtual objects by kind and name, for the syncer's owner walk.
class MapLookup : public syncer::ObjectLookup {
 public:
  explicit MapLookup(const kube::Object& object)
      : object_(std::make_shared<kube::Object>(kube::Clone(object))) {}
  kube::ObjectPtr Get(std::string_view, std::string_view kind, std::string_view,
                      std::string_view name) override {
    return kind == kube::GetString(*object_, {"kind"}) && name == kube::Name(*object_) ? object_
                                                                                       : nullptr;
  }
  bool Knows(std::string_view, std::string_view) override { return true; }

 private:
  kube::ObjectPtr object_;
};

TEST(KaiContractTest, EveryProgramReadsAWorkloadsMinMemberAlike) {
  struct Row {
    const char* value;
    bool accepted;
  };
  const Row rows[] = {{"4", true},           {"1", true},  {"2147483647", true}, {"0", false},
                      {"-1", false},         {"+4", true}, {"4.0", false},       {"four", false},
                      {"2147483648", false}, {"", false},  {" 4", false}};
  for (const Row& row : rows) {
    SCOPED_TRACE(std::string("batch-min-member \"") + row.value + "\"");
    const kube::Object job = kube::BuildJson(kube::JsonObject{
        {"apiVersion", "batch/v1"},
        {"kind", "Job"},
        {"metadata",
         kube::JsonObject{
             {"name", "ddp"},
             {"namespace", "ml"},
             {"uid", "j1"},
             {"annotations", kube::JsonObject{{"kai.scheduler/batch-min-member", row.value}}}}},
        {"spec", kube::JsonObject{{"parallelism", 4}}}});
    const kube::Object pod = Json(
        R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"ddp-0","namespace":"ml","uid":"p1",)"
        R"("ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"ddp","uid":"j1",)"
        R"("controller":true}]},"spec":{"schedulerName":"kai-scheduler","containers":[]}})");

    // (a) the library.
    Result<int32_t> min_member = ParseBatchMinMember(row.value);
    ASSERT_EQ(min_member.ok(), row.accepted) << min_member.status().ToString();
    const std::string why = min_member.ok() ? "" : min_member.status().message();

    // (b) the syncer, which gangs a team's Job.
    MapLookup lookup(job);
    Result<std::optional<syncer::Gang>> gang =
        syncer::GangOf(pod, syncer::OwnerChain(pod, lookup), lookup, Tenant());
    EXPECT_EQ(gang.ok(), row.accepted) << gang.status().ToString();
    if (gang.ok()) {
      ASSERT_TRUE(gang->has_value());
      EXPECT_EQ((*gang)->min_member, *min_member);
    } else {
      EXPECT_NE(gang.status().message().find(why), std::string::npos) << gang.status().message();
    }

    // (d) the scheduler's pod grouper, which gangs a host Job.
    Result<scheduler::GroupPlan> plan = scheduler::PlanPodGroup({.pod = &pod, .owners = {&job}});
    EXPECT_EQ(plan.ok(), row.accepted) << plan.status().ToString();
    if (plan.ok()) {
      EXPECT_EQ(plan->min_member, *min_member);
    } else {
      EXPECT_NE(plan.status().message().find(why), std::string::npos) << plan.status().message();
    }
  }
}

}  // namespace
}  // namespace vtenant::kai
