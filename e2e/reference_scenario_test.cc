// End to end, the reference setup: `vtenant up` with one NVIDIA L40S, the
// GitOps examples applied (ml-org, nlp, vision, recsys), and each team
// acting through the real kubectl with its own kubeconfig. The environment
// is the binary's shared one (reference_fixture.h); each test removes the
// workloads it started.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "base/eventually.h"
#include "e2e/reference_fixture.h"
#include "e2e/support/environment.h"
#include "e2e/support/kubectl.h"
#include "localenv/environment_processes.h"

namespace vtenant::e2e {
namespace {

namespace res = kube::resources;
using std::chrono::seconds;

const std::vector<std::string>& kTeams = ReferenceTeams();
constexpr char kNode[] = "l40s-node";

using ReferenceScenarioTest = ReferenceEnvironmentTest;

TEST_F(ReferenceScenarioTest, ThreeTeamsShareOneL40sAt330mEach) {
  StartTrainPods();
  for (const std::string& team : kTeams) {
    SCOPED_TRACE(team);
    std::vector<kube::Object> pods = HostPods(team, "app=" + team + "-train");
    ASSERT_EQ(pods.size(), 1u);
    const kube::Object& pod = pods[0];
    EXPECT_EQ(kube::Name(pod), team + "-train-x-default-x-" + team);
    EXPECT_EQ(kube::GetString(pod, {"spec", "nodeName"}), kNode);
    EXPECT_EQ(kube::GetString(pod, {"status", "phase"}), "Running");
    EXPECT_EQ(kube::Find(pod, {"metadata", "ownerReferences"}), nullptr)
        << "a host pod must not point at owners the host cannot see";
    EXPECT_EQ(kube::Label(pod, "kai.scheduler/queue").value_or(""), team);
    EXPECT_EQ(kube::Label(pod, "vtenant.io/tenant").value_or(""), team);
    EXPECT_EQ(kube::Annotation(pod, "vtenant.io/virtual-name").value_or(""), team + "-train");
    EXPECT_TRUE(Eventually([&] { return QueueAllocated(team) == 330; }, seconds(60)))
        << "queue " << team << " never showed 330m allocated, last " << QueueAllocated(team);
  }
  Result<localenv::CommandResult> queues = env().Vtenant({"queues"});
  ASSERT_TRUE(queues.ok());
  EXPECT_EQ(queues->exit_code, 0) << queues->err;
  for (const std::string& team : kTeams) {
    EXPECT_NE(queues->out.find(team), std::string::npos) << queues->out;
  }
  Result<localenv::CommandResult> tenants = env().Vtenant({"tenants"});
  ASSERT_TRUE(tenants.ok());
  EXPECT_EQ(tenants->exit_code, 0) << tenants->err;
  EXPECT_EQ(tenants->out.find("Conditions:"), std::string::npos) << tenants->out;
}

TEST_F(ReferenceScenarioTest, TeamsCannotSeeEachOthersPodsNorTheHost) {
  StartTrainPods();
  Result<std::string> all = env().TeamKubectl("nlp", {"get", "pods", "-A", "-o", "name"});
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_NE(all->find("pod/nlp-train"), std::string::npos) << *all;
  EXPECT_EQ(all->find("vision"), std::string::npos) << *all;
  EXPECT_EQ(all->find("recsys"), std::string::npos) << *all;

  Result<localenv::CommandResult> other =
      env().TeamKubectlRaw("nlp", {"get", "pod", "vision-train"});
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->exit_code, 0);
  EXPECT_NE(other->err.find("NotFound"), std::string::npos) << other->err;

  Result<std::string> namespaces = env().TeamKubectl("nlp", {"get", "namespaces", "-o", "name"});
  ASSERT_TRUE(namespaces.ok()) << namespaces.status().ToString();
  EXPECT_EQ(namespaces->find("vtenant-"), std::string::npos)
      << "nlp's cluster shows host namespaces: " << *namespaces;

  // A team cannot charge its pods to another team's queue.
  Result<std::string> sneaky =
      env().TeamKubectl("nlp", {"run", "sneaky", "--image=busybox", "--restart=Never",
                                "--labels=kai.scheduler/queue=vision,app=sneaky",
                                "--overrides={\"spec\":{\"schedulerName\":\"kai-scheduler\"}}"});
  ASSERT_TRUE(sneaky.ok()) << sneaky.status().ToString();
  EXPECT_TRUE(Eventually([&] { return HostPods("nlp", "app=sneaky").size() == 1; }, seconds(60)));
  for (const kube::Object& pod : HostPods("nlp", "app=sneaky")) {
    EXPECT_EQ(kube::Label(pod, "kai.scheduler/queue").value_or(""), "nlp");
  }
  EXPECT_TRUE(env().TeamKubectl("nlp", {"delete", "pod", "sneaky", "--wait=true"}).ok());
}

TEST_F(ReferenceScenarioTest, BurstTakesTheIdleGpuThenIsReclaimed) {
  for (const std::string& team : kTeams) {
    DeleteWorkloads(team, team + "/workloads", "app=" + team + "-train");
  }
  Status burst = ApplyExample("nlp", "scenarios/burst");
  ASSERT_TRUE(burst.ok()) << burst.ToString();
  EXPECT_TRUE(EventuallyRunning("nlp", "app=nlp-burst", 3))
      << "nlp did not burst to three pods on the idle GPU";
  EXPECT_TRUE(Eventually([&] { return QueueAllocated("nlp") == 990; }, seconds(60)))
      << "nlp allocated " << QueueAllocated("nlp");

  Status vision = ApplyExample("vision", "vision/workloads");
  ASSERT_TRUE(vision.ok()) << vision.ToString();
  EXPECT_TRUE(EventuallyRunning("vision", "app=vision-train", 1, seconds(180)))
      << "vision's pod within its quota never reclaimed its share";
  EXPECT_TRUE(Eventually(
      [&] {
        std::map<std::string, std::string> phases = VirtualPhases("nlp", "app=nlp-burst");
        return CountPhase(phases, "Running") == 2 && CountPhase(phases, "Pending") == 1;
      },
      seconds(120), std::chrono::milliseconds(500)))
      << "nlp should keep two pods and wait with the third";
  EXPECT_TRUE(
      Eventually([&] { return QueueAllocated("nlp") == 660 && QueueAllocated("vision") == 330; },
                 seconds(60)));
  // nlp reads why its pod went, with its own kubectl: reclaimed because its
  // queue was above its fair share, and nothing of vision or the host.
  std::string reclaimed;
  EXPECT_TRUE(Eventually(
      [&] {
        Result<std::string> got = env().TeamKubectl(
            "nlp", {"get", "events", "-n", "default", "--field-selector", "reason=Reclaimed"});
        reclaimed = got.ok() ? *got : got.status().ToString();
        return got.ok() && got->find("pod/nlp-burst-") != std::string::npos &&
               got->find("queue nlp was above its fair share") != std::string::npos;
      },
      seconds(60), std::chrono::milliseconds(500)))
      << reclaimed;
  EXPECT_EQ(reclaimed.find("vtenant-"), std::string::npos) << reclaimed;
  EXPECT_EQ(reclaimed.find("-x-"), std::string::npos) << reclaimed;
  EXPECT_EQ(reclaimed.find("vision"), std::string::npos) << reclaimed;

  DeleteWorkloads("nlp", "scenarios/burst", "app=nlp-burst");
  DeleteWorkloads("vision", "vision/workloads", "app=vision-train");
}

TEST_F(ReferenceScenarioTest, GpuMemoryPodsShareTheGpuWithAFractionPod) {
  Status applied = ApplyExample("vision", "scenarios/gpu-memory");
  ASSERT_TRUE(applied.ok()) << applied.ToString();
  EXPECT_TRUE(EventuallyRunning("vision", "app in (vision-infer,vision-finetune)", 4))
      << "three 4000 MiB pods and a 0.5 pod should all fit on one 46068 MiB GPU";
  std::set<std::string> gpus;
  for (const kube::Object& pod : HostPods("vision", "app in (vision-infer,vision-finetune)")) {
    EXPECT_EQ(kube::GetString(pod, {"spec", "nodeName"}), kNode);
    gpus.insert(std::string(kube::Annotation(pod, "runai-gpu").value_or("?")));
  }
  EXPECT_EQ(gpus, std::set<std::string>{"0"}) << "all four share device 0";
  DeleteWorkloads("vision", "scenarios/gpu-memory", "app in (vision-infer,vision-finetune)");
}

TEST_F(ReferenceScenarioTest, AGangJobCrossesTheBoundaryAsOnePodGroup) {
  Status applied = ApplyExample("recsys", "scenarios/gang");
  ASSERT_TRUE(applied.ok()) << applied.ToString();
  EXPECT_TRUE(EventuallyRunning("recsys", "app=recsys-allreduce", 4));
  // The host namespace also holds the one-pod groups the scheduler makes for
  // the tenant's other (owner-less) host pods; the gang's group is the one
  // its pods name.
  std::vector<kube::Object> pods = HostPods("recsys", "app=recsys-allreduce");
  ASSERT_EQ(pods.size(), 4u);
  const std::string name(kube::Annotation(pods[0], "pod-group-name").value_or(""));
  ASSERT_FALSE(name.empty());
  Result<kube::Object> found = env().host().Get(res::kPodGroups, "vtenant-recsys", name);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  const kube::Object& group = *found;
  EXPECT_EQ(kube::GetInt(group, {"spec", "minMember"}), 4);
  EXPECT_EQ(kube::GetString(group, {"spec", "queue"}), "recsys");
  for (const kube::Object& pod : pods) {
    EXPECT_EQ(kube::Annotation(pod, "pod-group-name").value_or(""), kube::Name(group));
    EXPECT_EQ(kube::Find(pod, {"metadata", "ownerReferences"}), nullptr);
    EXPECT_NE(kube::Annotation(pod, "vtenant.io/owner-chain").value_or("").find("recsys-allreduce"),
              std::string::npos);
  }
  DeleteWorkloads("recsys", "scenarios/gang", "app=recsys-allreduce");
}

// A team whose Tenant lists a device class claims a host GPU by DRA in its
// own cluster, as it would in any cluster: the claim's host copy is
// allocated by the scheduler and charged to the team's queue, the pod runs,
// and the team's claim shows the device. A class its Tenant does not list
// is refused on the claim, where the team looks.
TEST_F(ReferenceScenarioTest, ATeamClaimsAHostGpuByDraWithinItsTenantsClasses) {
  Result<std::string> host_objects = env().HostKubectl({"apply", "-f", "-"}, R"(
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.dra.example.com}
spec:
  selectors: [{cel: {expression: "device.driver == 'gpu.dra.example.com'"}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: l40s-node-dra}
spec:
  driver: gpu.dra.example.com
  nodeName: l40s-node
  pool: {name: l40s-node, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}]
)");
  ASSERT_TRUE(host_objects.ok()) << host_objects.status().ToString();
  Result<std::string> allowed = env().HostKubectl(
      {"patch", "tenant.vtenant.io", "nlp", "--type=merge", "-p",
       R"({"spec":{"isolation":{"allowedDeviceClasses":["gpu.dra.example.com"]}}})"});
  ASSERT_TRUE(allowed.ok()) << allowed.status().ToString();

  // What a team writes for a DRA GPU anywhere (the syncer, restarted by the
  // operator with the new class, may first refuse the pod; it takes it
  // once it runs with the class). The second claim and pod are the first's
  // twins on purpose, but for a class nlp may not use.
  Result<std::string> applied = env().TeamKubectl("nlp", {"apply", "-f", "-"}, R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: dra-gpu}
spec:
  devices:
    requests: [{name: gpu, exactly: {deviceClassName: gpu.dra.example.com}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: other-device}
spec:
  devices:
    requests: [{name: dev, exactly: {deviceClassName: fpga.example.com}}]
---
apiVersion: v1
kind: Pod
metadata: {name: dra-train, labels: {app: dra-train}}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: dra-gpu}]
  containers:
  - name: train
    image: registry.example.com/nlp/train:1
    resources: {claims: [{name: gpu}]}
---
apiVersion: v1
kind: Pod
metadata: {name: dra-other, labels: {app: dra-other}}
spec:
  resourceClaims: [{name: dev, resourceClaimName: other-device}]
  containers:
  - name: c
    image: registry.example.com/nlp/train:1
    resources: {claims: [{name: dev}]}
)");
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_TRUE(EventuallyRunning("nlp", "app=dra-train", 1, seconds(180)));
  Result<kube::Object> copy =
      env().host().Get(res::kResourceClaims, "vtenant-nlp", "dra-gpu-x-default-x-nlp");
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  EXPECT_EQ(kube::Label(*copy, "kai.scheduler/queue").value_or(""), "nlp");
  const rapidjson::Value* results =
      kube::Find(*copy, {"status", "allocation", "devices", "results"});
  ASSERT_TRUE(results != nullptr && results->IsArray() && results->Size() == 1)
      << kube::ToJson(*copy);
  EXPECT_EQ(kube::GetString((*results)[0], {"device"}), "gpu-0");
  EXPECT_TRUE(Eventually([&] { return QueueAllocated("nlp") == 1000; }, seconds(60)))
      << "the claim's GPU is nlp's; allocated " << QueueAllocated("nlp");
  std::string shown;
  EXPECT_TRUE(Eventually(
      [&] {
        Result<kube::Object> claim = env().TeamGet("nlp", {"resourceclaim", "dra-gpu"});
        shown = claim.ok() ? kube::ToJson(*claim) : claim.status().ToString();
        const rapidjson::Value* given =
            claim.ok() ? kube::Find(*claim, {"status", "allocation", "devices", "results"})
                       : nullptr;
        return given != nullptr && given->IsArray() && given->Size() == 1 &&
               kube::GetString((*given)[0], {"device"}) == "gpu-0";
      },
      seconds(60)))
      << shown;
  // The claim of a class nlp may not use never reaches the host; its pod
  // waits there, and the claim says why in the team's cluster.
  std::string events;
  EXPECT_TRUE(Eventually(
      [&] {
        Result<std::string> out = env().TeamKubectl(
            "nlp", {"get", "events", "--field-selector",
                    "involvedObject.kind=ResourceClaim,involvedObject.name=other-device", "-o",
                    "jsonpath={.items[*].reason}"});
        events = out.ok() ? *out : out.status().ToString();
        return events.find("DeviceClaimNotAllowed") != std::string::npos;
      },
      seconds(60)))
      << events;
  EXPECT_FALSE(
      env().host().Get(res::kResourceClaims, "vtenant-nlp", "other-device-x-default-x-nlp").ok());
  std::map<std::string, std::string> other = VirtualPhases("nlp", "app=dra-other");
  EXPECT_EQ(other.size(), 1u);
  EXPECT_NE(other["dra-other"], "Running");

  // The Tenant stops listing the class: the syncer, restarted without it,
  // deletes the copy, which the API server keeps while the running pod
  // holds it; the pod keeps its GPU, and the copy goes with the pod.
  EXPECT_TRUE(env()
                  .HostKubectl({"patch", "tenant.vtenant.io", "nlp", "--type=merge", "-p",
                                R"({"spec":{"isolation":{"allowedDeviceClasses":null}}})"})
                  .ok());
  EXPECT_TRUE(Eventually(
      [&] {
        Result<kube::Object> held =
            env().host().Get(res::kResourceClaims, "vtenant-nlp", "dra-gpu-x-default-x-nlp");
        return held.ok() && kube::Find(*held, {"metadata", "deletionTimestamp"}) != nullptr;
      },
      seconds(180)))
      << "the copy of a claim whose class the Tenant no longer lists stays";
  EXPECT_EQ(VirtualPhases("nlp", "app=dra-train")["dra-train"], "Running");
  Result<std::string> deleted =
      env().TeamKubectl("nlp", {"delete", "pod/dra-train", "pod/dra-other", "resourceclaim/dra-gpu",
                                "resourceclaim/other-device", "--wait=true"});
  EXPECT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_TRUE(Eventually(
      [&] {
        Result<kube::ObjectList> claims = env().host().List(res::kResourceClaims, "vtenant-nlp");
        return claims.ok() && claims->items.empty();
      },
      seconds(120)));
  EXPECT_TRUE(env()
                  .HostKubectl({"delete", "resourceslice/l40s-node-dra",
                                "deviceclass/gpu.dra.example.com", "--wait=true"})
                  .ok());
}

TEST_F(ReferenceScenarioTest, BadInputIsExplainedWhereThePersonLooks) {
  Result<localenv::CommandResult> unknown = env().Vtenant({"kubeconfig", "nosuchteam"});
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown->exit_code, 1);
  EXPECT_NE(unknown->err.find("tenant \"nosuchteam\" does not exist; tenants: nlp recsys vision"),
            std::string::npos)
      << unknown->err;

  Result<std::string> orphan = env().HostKubectl({"apply", "-f", "-"}, R"(
apiVersion: vtenant.io/v1alpha1
kind: Tenant
metadata: {name: orphan}
spec:
  queue:
    parentQueue: no-such-org
    resources: {gpu: {quota: 0, limit: 1, overQuotaWeight: 1}}
)");
  ASSERT_TRUE(orphan.ok()) << orphan.status().ToString();
  std::string out;
  EXPECT_TRUE(Eventually(
      [&] {
        Result<localenv::CommandResult> tenants = env().Vtenant({"tenants"});
        out = tenants.ok() ? tenants->out : "";
        return out.find("orphan: ParentQueueMissing") != std::string::npos;
      },
      seconds(60), std::chrono::milliseconds(500)))
      << out;
  EXPECT_TRUE(env().HostKubectl({"delete", "tenant.vtenant.io", "orphan", "--wait=true"}).ok());
}

TEST_F(ReferenceScenarioTest, ReapplyingTheGitOpsFoldersChangesNothing) {
  Result<std::string> again = env().HostKubectl({"apply", "-k", Example("")});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  std::istringstream lines(*again);
  int unchanged = 0;
  for (std::string line; std::getline(lines, line);) {
    EXPECT_TRUE(line.ends_with(" unchanged")) << line;
    ++unchanged;
  }
  EXPECT_EQ(unchanged, 4);
  for (const std::string& team : kTeams) {
    Result<kube::Object> t = env().host().Get(res::kTenants, "", team);
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(kube::GetString(*t, {"status", "phase"}), "Ready") << team;
  }
}

// After `vtenant up` and three Tenants, nothing in the state folder (keys,
// certificates, tokens, kubeconfigs, etcd's data, logs) can be read by a
// group or by other users, and no folder can be entered by them.
TEST_F(ReferenceScenarioTest, StateFolderHoldsNothingOthersCanRead) {
  namespace fs = std::filesystem;
  std::vector<std::string> open_to_others;
  int files = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(env().dir(), ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0) continue;  // gone since it was listed
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) continue;
    files += S_ISREG(st.st_mode) ? 1 : 0;
    if ((st.st_mode & 077) != 0) {
      char mode[8];
      std::snprintf(mode, sizeof(mode), "%04o", st.st_mode & 07777);
      open_to_others.push_back(std::string(mode) + " " + it->path().string());
    }
  }
  ASSERT_FALSE(ec) << ec.message();
  struct stat root {};
  ASSERT_EQ(::stat(env().dir().c_str(), &root), 0);
  EXPECT_EQ(root.st_mode & 077, 0u) << "the state folder itself";
  // The walk saw the tenants' PKI and kubeconfigs, not an empty folder.
  EXPECT_GT(files, 50);
  for (const std::string& team : kTeams) {
    EXPECT_TRUE(
        fs::exists(env().dir() + "/operator/tenants/" + team + "/apiserver/admin.kubeconfig"))
        << team;
  }
  EXPECT_TRUE(open_to_others.empty())
      << open_to_others.size() << " readable by others, e.g. " << open_to_others[0];
  for (size_t i = 0; i < open_to_others.size() && i < 20; ++i) {
    ADD_FAILURE() << "readable by others: " << open_to_others[i];
  }
}

// Last: it deletes a tenant.
TEST_F(ReferenceScenarioTest, DeletingATenantLeavesNothingBehind) {
  Result<std::string> created = env().HostKubectl({"apply", "-f", "-"}, R"(
apiVersion: vtenant.io/v1alpha1
kind: Tenant
metadata: {name: scratch}
spec:
  queue:
    parentQueue: ml-org
    resources: {gpu: {quota: 0, limit: 1, overQuotaWeight: 1}}
  controlPlane: {backend: process}
)");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Status ready = env().WaitForTeam("scratch");
  ASSERT_TRUE(ready.ok()) << ready.ToString();
  Result<std::string> pod = env().TeamKubectl(
      "scratch", {"run", "hello", "--image=busybox", "--restart=Never",
                  "--overrides={\"spec\":{\"schedulerName\":\"kai-scheduler\"}}"});
  ASSERT_TRUE(pod.ok()) << pod.status().ToString();
  EXPECT_TRUE(Eventually([&] { return !HostPods("scratch").empty(); }, seconds(60)));
  const std::string tenant_dir = env().dir() + "/operator/tenants/scratch";
  EXPECT_FALSE(localenv::FindEnvironmentProcesses(tenant_dir).empty())
      << "no processes in " << tenant_dir;

  Result<std::string> deleted = env().HostKubectl(
      {"delete", "tenant.vtenant.io", "scratch", "--wait=true", "--timeout=180s"});
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_TRUE(Eventually(
      [&] {
        return env().host().Get(res::kNamespaces, "", "vtenant-scratch").status().code() ==
               StatusCode::kNotFound;
      },
      seconds(180), std::chrono::milliseconds(500)))
      << "namespace vtenant-scratch stays";
  EXPECT_EQ(env().host().Get(res::kQueues, "", "scratch").status().code(), StatusCode::kNotFound);
  kube::ListOptions by_tenant;
  by_tenant.label_selector = "vtenant.io/tenant=scratch";
  Result<kube::ObjectList> pods = env().host().ListAll(res::kPods, "", by_tenant);
  ASSERT_TRUE(pods.ok());
  EXPECT_TRUE(pods->items.empty());
  EXPECT_TRUE(Eventually([&] { return localenv::FindEnvironmentProcesses(tenant_dir).empty(); },
                         seconds(60)))
      << "scratch's control plane outlived its Tenant";
  EXPECT_EQ(
      env().host().Get(res::kClusterRoleBindings, "", "vtenant:syncer:scratch").status().code(),
      StatusCode::kNotFound);
}

}  // namespace
}  // namespace vtenant::e2e
