// Integration: the syncer between a real host cluster (kube-apiserver,
// controller manager, kwok running simulated GPU nodes) and a real virtual
// control plane (its own kube-apiserver and controller manager, so
// Deployments and Jobs make pods). No GPU scheduler runs here: a tiny binder
// in the test binds host pods through pods/binding, as the scheduler would.
// syncer_e2e_test.cc sets up alike clusters for the vtenant-syncer program,
// which it kills and restarts; here the Syncer runs in the test's process.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "base/ascii.h"
#include "base/eventually.h"
#include "kai/names.h"
#include "kube/json_builder.h"
#include "kube/manifest.h"
#include "kube/owner_reference.h"
#include "kube/rest_client.h"
#include "kube/testing/events.h"
#include "localenv/kwok_stages.h"
#include "localenv/testing/cluster_test.h"
#include "localenv/testing/source_tree.h"
#include "localenv/testing/virtual_cluster.h"
#include "syncer/device_claim_sweep.h"
#include "syncer/names.h"
#include "syncer/pod_translator.h"
#include "syncer/resources.h"
#include "syncer/syncer.h"

namespace vtenant::syncer {
namespace {

using kube::resources::kDeployments;
using kube::resources::kEvents;
using kube::resources::kJobs;
using kube::resources::kPodGroups;
using kube::resources::kPods;
using localenv::ParseTestJson;

constexpr char kHostNs[] = "vtenant-nlp";

class SyncerIntegrationTest : public localenv::ClusterTest {
 protected:
  static void SetUpTestSuite() {
    Result<std::vector<localenv::SimulatedNode>> nodes = localenv::ParseNodeInventory(R"(
nodes:
- {name: l40s-0, cpu: "32", memory: 256Gi, gpus: 1, gpuProduct: NVIDIA-L40S, gpuMemoryMiB: 46068}
)",
                                                                                      "test");
    ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
    StartCluster("syncer", {.nodes = *nodes, .manifests = {PodGroupCrd()}}, {kHostNs});
    Result<std::unique_ptr<localenv::VirtualCluster>> vc =
        localenv::VirtualCluster::Start(VirtualClusterOptionsFor("nlp"));
    ASSERT_TRUE(vc.ok()) << vc.status().ToString();
    virtual_cluster_ = vc->release();
    ASSERT_TRUE(virtual_cluster_->client()
                    .Create(kube::resources::kNamespaces, "",
                            ParseTestJson(R"({"apiVersion":"v1","kind":"Namespace",
                                "metadata":{"name":"ml","labels":{"team":"nlp"}}})"))
                    .ok());
    SyncerConfig config;
    config.tenant = "nlp";
    config.queue = "nlp";
    config.host_namespace = kHostNs;
    config.virtual_service_host = "127.0.0.1";
    config.virtual_service_port = virtual_cluster_->api_server().port();
    config.sync_endpoints = true;
    // Both API servers' Service range, as the operator passes it.
    config.service_range = IpRange::Parse("10.96.0.0/16");
    // As the operator passes them for a host that has these classes.
    config.allowed_priority_classes = {"train", "build", "inference"};
    // A Tenant that may claim the host's GPUs by DRA, and nothing else.
    config.allowed_device_classes = {"gpu.example.com"};
    registry_ = new kube::Registry();
    // As vtenant-syncer --leader-elect runs it, with a Lease lost after 3 s
    // without renewal so that an outage test need not wait long.
    kube::ManagerOptions options = SyncerManagerOptions(config, /*leader_elect=*/true);
    options.handle_signals = false;
    options.registry = registry_;
    options.leader_election->lease_duration = std::chrono::seconds(4);
    options.leader_election->renew_deadline = std::chrono::seconds(3);
    options.leader_election->retry_period = std::chrono::milliseconds(500);
    Result<std::unique_ptr<kube::Manager>> manager = kube::Manager::Create(client(), options);
    ASSERT_TRUE(manager.ok()) << manager.status().ToString();
    manager_ = manager->release();
    syncer_ =
        new Syncer(*manager_, manager_->AddCluster("virtual", virtual_cluster_->client()), config);
    run_ = new std::thread([] { run_status_ = manager_->Run(); });
    ASSERT_TRUE(Eventually([] { return manager_->IsLeader(); }, std::chrono::seconds(60)));
    // As the operator does, the virtual cluster gets KAI's PodGroup CRD only
    // after the syncer runs: its PodGroup informer must pick it up late.
    InstallPodGroupCrd(virtual_cluster_->client());
    binder_ = new std::thread(BindLoop);
  }

  static void TearDownTestSuite() {
    stop_binder_ = true;
    if (binder_ != nullptr) binder_->join();
    delete binder_;
    if (run_ != nullptr) {
      manager_->Stop();
      run_->join();
      EXPECT_TRUE(run_status_.ok()) << run_status_.ToString();
    }
    delete run_;
    delete syncer_;
    delete manager_;
    delete registry_;
    delete virtual_cluster_;
    StopCluster();
  }

  // Waits until virtual Service ml/`name` and its host copy have one
  // cluster IP, and returns it; "" (and a failure) when they never do.
  static std::string OneAddress(const std::string& name) {
    const std::string host_name = HostName(name, "ml", "nlp");
    std::string host_ip, virtual_ip;
    const bool one = Eventually(
        [&] {
          Result<kube::Object> copy = client().Get(kube::resources::kServices, kHostNs, host_name);
          Result<kube::Object> svc = virt().Get(kube::resources::kServices, "ml", name);
          host_ip = copy.ok() ? std::string(kube::GetString(*copy, {"spec", "clusterIP"})) : "";
          virtual_ip = svc.ok() ? std::string(kube::GetString(*svc, {"spec", "clusterIP"})) : "";
          return !host_ip.empty() && virtual_ip == host_ip;
        },
        std::chrono::seconds(60));
    EXPECT_TRUE(one) << "Service " << name << ": virtual " << virtual_ip << ", host " << host_ip;
    return one ? host_ip : "";
  }

  // KAI's PodGroup CRD as the chart ships it.
  static std::string PodGroupCrd() {
    return localenv::CrdManifest("scheduling.run.ai_podgroups.yaml");
  }
  // Installs it in `client`'s cluster; served when this returns.
  static void InstallPodGroupCrd(kube::Client& client) {
    Status installed = kube::ApplyManifestFiles(client, {PodGroupCrd()});
    ASSERT_TRUE(installed.ok()) << installed.ToString();
  }

  // The stand-in for the GPU scheduler: every unbound host pod goes to l40s-0.
  static void BindLoop() {
    while (!stop_binder_) {
      Result<kube::ObjectList> pods = client().List(kPods, kHostNs);
      if (pods.ok()) {
        for (const kube::Object& pod : pods->items) {
          if (kube::GetString(pod, {"spec", "nodeName"}).empty() && !kube::IsBeingDeleted(pod)) {
            (void)client().Bind(kHostNs, kube::Name(pod), "l40s-0");
          }
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  static kube::Client& virt() { return virtual_cluster_->client(); }

  // What a failed wait on a Service's slice shows: each side's Service, its
  // address, the virtual slices with their owners, and the virtual Events, so
  // a failure tells the syncer's re-creation apart from the slice controller.
  static std::string DescribeServiceAndSlices(const std::string& name) {
    static const std::vector<kube::Object> kNone;
    std::string out;
    Result<kube::Object> service = virt().Get(kube::resources::kServices, "ml", name);
    out += "\nvirtual Service: " +
           (service.ok() ? std::string(kube::Uid(*service)) + " at " +
                               std::string(kube::GetString(*service, {"spec", "clusterIP"}))
                         : service.status().ToString());
    Result<kube::Object> host =
        client().Get(kube::resources::kServices, kHostNs, HostName(name, "ml", "nlp"));
    out +=
        "\nhost Service: " + (host.ok() ? std::string(kube::GetString(*host, {"spec", "clusterIP"}))
                                        : host.status().ToString());
    Result<kube::ObjectList> slices = virt().List(
        resources::kEndpointSlices, "ml", {.label_selector = "kubernetes.io/service-name=" + name});
    for (const kube::Object& slice : slices.ok() ? slices->items : kNone) {
      const rapidjson::Value* owner = kube::ControllerReference(slice);
      out += "\nvirtual slice " + std::string(kube::Name(slice)) + " owned by " +
             (owner != nullptr ? kube::ReadOwnerReference(*owner).uid : std::string("nobody"));
    }
    Result<kube::ObjectList> events = virt().List(kube::resources::kEvents, "ml", {});
    for (const kube::Object& event : events.ok() ? events->items : kNone) {
      out += "\nvirtual Event " + std::string(kube::GetString(event, {"reason"})) + ": " +
             std::string(kube::GetString(event, {"message"}));
    }
    return out;
  }

  // PodGroup ml/`group` with `spec` (JSON) and its one pod, `group`-0,
  // made in the team's cluster: the first error, if any.
  static Status CreateGroupAndItsPod(const std::string& group, const std::string& spec) {
    const kube::Object pod_group = kube::BuildJson(
        kube::JsonObject{{"apiVersion", "scheduling.run.ai/v2alpha2"},
                         {"kind", "PodGroup"},
                         {"metadata", kube::JsonObject{{"name", group}, {"namespace", "ml"}}},
                         {"spec", kube::JsonValue(ParseTestJson(spec))}});
    const kube::Object pod = kube::BuildJson(kube::JsonObject{
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata",
         kube::JsonObject{{"name", group + "-0"},
                          {"namespace", "ml"},
                          {"annotations", kube::JsonObject{{"pod-group-name", group}}}}},
        {"spec", kube::JsonObject{{"schedulerName", "kai-scheduler"},
                                  {"containers", kube::JsonArray{kube::JsonObject{
                                                     {"name", "c"}, {"image", "i"}}}}}}});
    Result<kube::Object> made = virt().Create(kPodGroups, "ml", pod_group);
    if (!made.ok()) return made.status();
    made = virt().Create(kPods, "ml", pod);
    return made.ok() ? Status::Ok() : made.status();
  }

  // EndpointSlice ml/`name` of Service `service` (TCP 5432), written by
  // the team (managed by team.example.com, not the slice controller), with
  // `endpoints` (a JSON array).
  static kube::Object HandWrittenSlice(const std::string& name, const std::string& service,
                                       const std::string& endpoints) {
    return kube::BuildJson(kube::JsonObject{
        {"apiVersion", "discovery.k8s.io/v1"},
        {"kind", "EndpointSlice"},
        {"metadata",
         kube::JsonObject{{"name", name},
                          {"namespace", "ml"},
                          {"labels", kube::JsonObject{{"kubernetes.io/service-name", service},
                                                      {"endpointslice.kubernetes.io/managed-by",
                                                       "team.example.com"}}}}},
        {"addressType", "IPv4"},
        {"ports", kube::JsonArray{kube::JsonObject{{"port", 5432}, {"protocol", "TCP"}}}},
        {"endpoints", kube::JsonValue(ParseTestJson(endpoints))}});
  }

  // Installs in the team's cluster the CRD of `type` (any shape, one
  // version), as a team installs a workload controller's, and creates
  // `json` of it in namespace ml once the CRD is served.
  static Result<kube::Object> CreateWithItsCrd(const kube::ResourceType& type,
                                               const std::string& json) {
    const std::string singular = AsciiLower(type.kind);
    Status crd = virt()
                     .Create(kube::resources::kCustomResourceDefinitions, "",
                             ParseTestJson(R"({
        "apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
        "metadata":{"name":")" + type.resource +
                                           "." + type.group + R"("},
        "spec":{"group":")" + type.group + R"(","scope":"Namespaced",
          "names":{"kind":")" + type.kind + R"(","listKind":")" +
                                           type.kind + R"(List","plural":")" + type.resource +
                                           R"(","singular":")" + singular + R"("},
          "versions":[{"name":")" + type.version +
                                           R"(","served":true,"storage":true,
            "schema":{"openAPIV3Schema":{"type":"object",
                                         "x-kubernetes-preserve-unknown-fields":true}}}]}})"))
                     .status();
    if (!crd.ok() && crd.code() != StatusCode::kAlreadyExists) return crd;
    Result<kube::Object> made = Unavailable("not created yet");
    Eventually(
        [&] {
          made = virt().Create(type, "ml", ParseTestJson(json));
          return made.ok();
        },
        std::chrono::seconds(60));
    return made;
  }

  // Whether host PodGroup `name` comes to have minMember `min_member` and
  // spec.subGroups `sub_groups` (JSON) within 120 s; what it has when not.
  static ::testing::AssertionResult HostGroupBecomes(const std::string& name, int64_t min_member,
                                                     const std::string& sub_groups) {
    const kube::Object want = ParseTestJson(sub_groups);
    Result<kube::Object> pg = NotFound("not read yet");
    const bool became = Eventually(
        [&] {
          pg = client().Get(kPodGroups, kHostNs, name);
          const rapidjson::Value* subs = pg.ok() ? kube::Find(*pg, {"spec", "subGroups"}) : nullptr;
          return pg.ok() && kube::GetInt(*pg, {"spec", "minMember"}) == min_member &&
                 subs != nullptr && *subs == want;
        },
        std::chrono::seconds(120));
    if (became) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << (pg.ok() ? kube::ToJson(*pg) : pg.status().ToString());
  }

  // The sub-group labels of the host pods `label_selector` selects that
  // name host group `group`, once they are `want` (within 120 s).
  static std::multiset<std::string> SubGroupsOfHostPods(const std::string& label_selector,
                                                        const std::string& group,
                                                        const std::multiset<std::string>& want) {
    std::multiset<std::string> leaves;
    Eventually(
        [&] {
          leaves.clear();
          for (const kube::Object& pod : HostPodsOf(label_selector))
            if (kube::Annotation(pod, kai::kPodGroupAnnotation) == std::string_view(group))
              leaves.insert(std::string(kube::Label(pod, kai::kSubGroupLabel).value_or("")));
          return leaves == want;
        },
        std::chrono::seconds(120));
    return leaves;
  }

  static std::vector<kube::Object> HostPodsOf(const std::string& label_selector) {
    Result<kube::ObjectList> pods =
        client().List(kPods, kHostNs, {.label_selector = label_selector});
    return pods.ok() ? std::move(pods->items) : std::vector<kube::Object>{};
  }

  static inline localenv::VirtualCluster* virtual_cluster_ = nullptr;
  static inline kube::Registry* registry_ = nullptr;
  static inline kube::Manager* manager_ = nullptr;
  static inline Syncer* syncer_ = nullptr;
  static inline std::thread* run_ = nullptr;
  static inline Status run_status_;
  static inline std::thread* binder_ = nullptr;
  static inline std::atomic<bool> stop_binder_{false};
};

TEST_F(SyncerIntegrationTest, DeploymentAndJobRunOnTheHost) {
  ASSERT_TRUE(virt()
                  .Create(kDeployments, "ml", ParseTestJson(R"({"apiVersion":"apps/v1",
      "kind":"Deployment","metadata":{"name":"web","namespace":"ml",
        "labels":{"kai.scheduler/preemptibility":"non-preemptible"}},
      "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},
        "template":{"metadata":{"labels":{"app":"web","kai.scheduler/queue":"vision"}},
          "spec":{"schedulerName":"kai-scheduler",
                  "containers":[{"name":"c","image":"nginx"}]}}}})"))
                  .ok());
  // Its pod runs 2 s on kwok's node, as the run-duration annotation says.
  kube::Object once = ParseTestJson(R"({"apiVersion":"batch/v1",
      "kind":"Job","metadata":{"name":"once","namespace":"ml"},
      "spec":{"template":{"metadata":{"annotations":{}},
          "spec":{"restartPolicy":"Never","schedulerName":"kai-scheduler",
                  "containers":[{"name":"c","image":"busybox"}]}}}})");
  kube::SetString(once, {"spec", "template", "metadata", "annotations"},
                  localenv::kRunDurationAnnotation, "2s");
  ASSERT_TRUE(virt().Create(kJobs, "ml", once).ok());

  // Three Deployment pods on the host, translated, with the tenant's queue.
  ASSERT_TRUE(
      Eventually([] { return HostPodsOf("app=web").size() == 3; }, std::chrono::seconds(120)));
  for (const kube::Object& pod : HostPodsOf("app=web")) {
    EXPECT_EQ(kube::Label(pod, kQueueLabel), "nlp");
    EXPECT_EQ(kube::Label(pod, kTenantLabel), "nlp");
    EXPECT_EQ(kube::Label(pod, "vtenant.io/ns-label.team"), "nlp");
    EXPECT_EQ(kube::Annotation(pod, kVirtualNamespaceAnnotation), "ml");
    EXPECT_FALSE(kube::Find(pod, {"metadata", "ownerReferences"}));
    std::string vname(kube::Annotation(pod, kVirtualNameAnnotation).value_or(""));
    EXPECT_EQ(kube::Name(pod), HostName(vname, "ml", "nlp"));
    EXPECT_EQ(kube::GetString(pod, {"spec", "hostname"}), vname);
    // The Deployment's own label, which the pods do not carry, decides
    // the preemptibility of its ReplicaSet's gang.
    std::string group(kube::Annotation(pod, kPodGroupAnnotation).value_or(""));
    Result<kube::Object> pg = client().Get(kPodGroups, kHostNs, group);
    ASSERT_TRUE(pg.ok()) << group << ": " << pg.status().ToString();
    EXPECT_EQ(kube::GetString(*pg, {"spec", "preemptibility"}), "non-preemptible");
  }
  // The virtual pods run, on the host's node, which the tenant now sees.
  EXPECT_TRUE(Eventually(
      [] {
        Result<kube::ObjectList> pods = virt().List(kPods, "ml", {.label_selector = "app=web"});
        if (!pods.ok() || pods->items.size() != 3) return false;
        for (const kube::Object& pod : pods->items) {
          if (kube::GetString(pod, {"status", "phase"}) != "Running" ||
              kube::GetString(pod, {"spec", "nodeName"}) != "l40s-0") {
            return false;
          }
        }
        return true;
      },
      std::chrono::seconds(120)));
  Result<kube::Object> node = virt().Get(kube::resources::kNodes, "", "l40s-0");
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  EXPECT_EQ(kube::GetString(*node, {"status", "capacity", "nvidia.com/gpu"}), "1");
  // The Job's pod finishes on the host and the virtual Job completes.
  EXPECT_TRUE(Eventually(
      [] {
        Result<kube::Object> job = virt().Get(kJobs, "ml", "once");
        return job.ok() && kube::GetInt(*job, {"status", "succeeded"}) == 1;
      },
      std::chrono::seconds(120)));
}

TEST_F(SyncerIntegrationTest, GangJobBecomesOneHostPodGroup) {
  ASSERT_TRUE(virt()
                  .Create(kJobs, "ml", ParseTestJson(R"({"apiVersion":"batch/v1","kind":"Job",
      "metadata":{"name":"ddp","namespace":"ml","annotations":{"kai.scheduler/batch-min-member":"4"}},
      "spec":{"parallelism":4,"completions":4,"template":{"metadata":{"labels":{"job":"ddp"}},
        "spec":{"restartPolicy":"Never","schedulerName":"kai-scheduler",
                "containers":[{"name":"c","image":"pytorch"}]}}}})"))
                  .ok());
  ASSERT_TRUE(
      Eventually([] { return HostPodsOf("job=ddp").size() == 4; }, std::chrono::seconds(120)));
  Result<kube::ObjectList> groups = client().List(kPodGroups, kHostNs);
  ASSERT_TRUE(groups.ok()) << groups.status().ToString();
  std::vector<const kube::Object*> ddp;
  for (const kube::Object& pg : groups->items) {
    if (kube::Annotation(pg, kVirtualNameAnnotation) == std::string_view("ddp")) ddp.push_back(&pg);
  }
  ASSERT_EQ(ddp.size(), 1u);
  EXPECT_EQ(kube::GetInt(*ddp[0], {"spec", "minMember"}), 4);
  EXPECT_EQ(kube::GetString(*ddp[0], {"spec", "queue"}), "nlp");
  for (const kube::Object& pod : HostPodsOf("job=ddp")) {
    EXPECT_EQ(kube::Annotation(pod, kPodGroupAnnotation), kube::Name(*ddp[0]));
  }
}

// A JobSet in the team's cluster (its CRD installed there after the syncer
// started; no JobSet controller: its Jobs are written as the controller
// writes them) becomes one host PodGroup of its replicas, as KAI's newest
// grouper makes it, and each host pod carries its replica's sub-group.
TEST_F(SyncerIntegrationTest, AJobSetBecomesOneHostGroupOfItsReplicas) {
  Result<kube::Object> jobset = CreateWithItsCrd(resources::kJobSets, R"({
            "apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet",
            "metadata":{"name":"js","namespace":"ml"},
            "spec":{"replicatedJobs":[{"name":"w","replicas":2,
                "template":{"metadata":{"annotations":{"kai.scheduler/topology":"dc",
                    "kai.scheduler/topology-required-placement":"rack"}},
                            "spec":{"parallelism":1}}}]}})");
  ASSERT_TRUE(jobset.ok()) << jobset.status().ToString();
  for (const char* index : {"0", "1"}) {
    kube::Object job = ParseTestJson(R"({"apiVersion":"batch/v1","kind":"Job",
        "metadata":{"name":"js-w-)" + std::string(index) +
                                     R"(","namespace":"ml",
          "ownerReferences":[{"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet",
                              "name":"js","uid":")" +
                                     std::string(kube::Uid(*jobset)) +
                                     R"(","controller":true}]},
        "spec":{"parallelism":1,"completions":1,"template":{"metadata":{"labels":{"job":"js",
            "jobset.sigs.k8s.io/replicatedjob-name":"w",
            "jobset.sigs.k8s.io/job-index":")" +
                                     index + R"("}},
          "spec":{"restartPolicy":"Never","schedulerName":"kai-scheduler",
                  "containers":[{"name":"c","image":"trainer"}]}}}})");
    ASSERT_TRUE(virt().Create(kJobs, "ml", job).ok());
  }
  // The host group, read by the host scheduler's rules.
  auto host_group = [] {
    Result<kube::ObjectList> groups = client().List(kPodGroups, kHostNs);
    if (groups.ok())
      for (kube::Object& pg : groups->items)
        if (kube::Annotation(pg, kVirtualNameAnnotation) == std::string_view("js"))
          return std::optional<kube::Object>(std::move(pg));
    return std::optional<kube::Object>();
  };
  EXPECT_TRUE(Eventually(
      [&] {
        std::optional<kube::Object> pg = host_group();
        const rapidjson::Value* subs = pg ? kube::Find(*pg, {"spec", "subGroups"}) : nullptr;
        return pg && kube::GetInt(*pg, {"spec", "minSubGroup"}) == 1 &&
               kube::Find(*pg, {"spec", "minMember"}) == nullptr && subs != nullptr &&
               subs->IsArray() && subs->Size() == 3;
      },
      std::chrono::seconds(120)))
      << (host_group() ? kube::ToJson(*host_group()) : "no host group");
  // Each replica keeps its template's topology: it shares a rack of its own.
  std::optional<kube::Object> pg = host_group();
  ASSERT_TRUE(pg.has_value());
  const rapidjson::Value* subs = kube::Find(*pg, {"spec", "subGroups"});
  ASSERT_TRUE(subs != nullptr && subs->IsArray() && subs->Size() == 3);
  const kube::Object want =
      ParseTestJson(R"({"name":"w-replica-0","parent":"w","minMember":1,)"
                    R"("topologyConstraint":{"topology":"dc","requiredTopologyLevel":"rack"}})");
  EXPECT_TRUE((*subs)[1] == want) << kube::ToJson((*subs)[1]);
  EXPECT_TRUE(Eventually(
      [] {
        std::set<std::string> leaves;
        for (const kube::Object& pod : HostPodsOf("job=js"))
          leaves.insert(std::string(kube::Label(pod, kai::kSubGroupLabel).value_or("")));
        return leaves == std::set<std::string>{"w-replica-0", "w-replica-1"};
      },
      std::chrono::seconds(120)));
}

// A Grove workload in the team's cluster (its CRDs installed there; no
// Grove operator: its PodClique, PodGang and pods are written as Grove
// writes them) becomes one host PodGroup of its PodGang, as KAI's grove
// grouper makes it, each host pod carrying its podgroup's sub-group and the
// group the class its PodCliqueSet's label names. A PodGang that names
// another namespace's pod is refused on the pod; a PodCliqueSet labelled
// with the host's highest class, which the Tenant does not list, gets a
// host group without it.
TEST_F(SyncerIntegrationTest, AGroveWorkloadBecomesOneHostGroupOfItsPodGang) {
  const kube::ResourceType cliquesets{"grove.io", "v1alpha1", "podcliquesets", "PodCliqueSet",
                                      true};
  const kube::ResourceType cliques{"grove.io", "v1alpha1", "podcliques", "PodClique", true};
  const kube::ResourceType gangs{"scheduler.grove.io", "v1alpha1", "podgangs", "PodGang", true};
  // The ownerReferences member naming `owner` as controller.
  auto owned_by = [](const kube::Object& owner) {
    return std::string(R"("ownerReferences":[{"apiVersion":")") +
           std::string(kube::GetString(owner, {"apiVersion"})) + R"(","kind":")" +
           std::string(kube::GetString(owner, {"kind"})) + R"(","name":")" +
           std::string(kube::Name(owner)) + R"(","uid":")" + std::string(kube::Uid(owner)) +
           R"(","controller":true}])";
  };
  // A PodCliqueSet labelled with `priority_class`, and its PodClique.
  auto grove_set = [&](const std::string& name, const std::string& priority_class) {
    Result<kube::Object> set = CreateWithItsCrd(cliquesets, R"({"apiVersion":"grove.io/v1alpha1",
        "kind":"PodCliqueSet","metadata":{"name":")" + name + R"(","namespace":"ml",
        "labels":{"priorityClassName":")" + priority_class + R"("}},"spec":{}})");
    EXPECT_TRUE(set.ok()) << set.status().ToString();
    if (!set.ok()) return set;
    return CreateWithItsCrd(cliques, R"({"apiVersion":"grove.io/v1alpha1",
        "kind":"PodClique","metadata":{"name":")" +
                                         name + R"(-0","namespace":"ml",)" + owned_by(*set) +
                                         R"(},"spec":{}})");
  };
  Result<kube::Object> clique = grove_set("serve", "inference");
  ASSERT_TRUE(clique.ok()) << clique.status().ToString();
  Result<kube::Object> rogue_clique = grove_set("rogue", "system-node-critical");
  ASSERT_TRUE(rogue_clique.ok()) << rogue_clique.status().ToString();
  Result<kube::Object> gang =
      CreateWithItsCrd(gangs, R"({"apiVersion":"scheduler.grove.io/v1alpha1",
      "kind":"PodGang","metadata":{"name":"serve-0","namespace":"ml"},"spec":{"podgroups":[
      {"name":"prefill","minReplicas":1,"podReferences":[{"namespace":"ml","name":"prefill-0"}]},
      {"name":"decode","minReplicas":2,"podReferences":[{"namespace":"ml","name":"decode-0"},
        {"namespace":"ml","name":"decode-1"}]}]}})");
  ASSERT_TRUE(gang.ok()) << gang.status().ToString();
  Result<kube::Object> reaching = CreateWithItsCrd(gangs, R"({
      "apiVersion":"scheduler.grove.io/v1alpha1","kind":"PodGang",
      "metadata":{"name":"reach","namespace":"ml"},"spec":{"podgroups":[
      {"name":"a","minReplicas":1,"podReferences":[{"namespace":"ml","name":"reacher"},
        {"namespace":"vision","name":"theirs"}]}]}})");
  ASSERT_TRUE(reaching.ok()) << reaching.status().ToString();
  Result<kube::Object> rogue = CreateWithItsCrd(gangs, R"({
      "apiVersion":"scheduler.grove.io/v1alpha1","kind":"PodGang",
      "metadata":{"name":"rogue-0","namespace":"ml"},"spec":{"podgroups":[
      {"name":"a","minReplicas":1,"podReferences":[{"namespace":"ml","name":"rogue-a"}]}]}})");
  ASSERT_TRUE(rogue.ok()) << rogue.status().ToString();
  auto pod = [&](const std::string& name, const std::string& gang_name, const kube::Object& owner) {
    return virt()
        .Create(kPods, "ml",
                ParseTestJson(R"({"apiVersion":"v1","kind":"Pod",
        "metadata":{"name":")" +
                              name + R"(","namespace":"ml",
          "labels":{"job":"grove","grove.io/podgang":")" +
                              gang_name + R"("},)" + owned_by(owner) + R"(},
        "spec":{"schedulerName":"kai-scheduler","containers":[{"name":"c","image":"serve"}]}})"))
        .ok();
  };
  for (const char* name : {"prefill-0", "decode-0", "decode-1"})
    ASSERT_TRUE(pod(name, "serve-0", *clique));
  ASSERT_TRUE(pod("reacher", "reach", *clique));
  ASSERT_TRUE(pod("rogue-a", "rogue-0", *rogue_clique));

  const std::string group =
      WorkloadPodGroupName("serve-0", std::string(kube::Uid(*gang)), "ml", "nlp");
  EXPECT_TRUE(HostGroupBecomes(
      group, 3, R"([{"name":"prefill","minMember":1},{"name":"decode","minMember":2}])"));
  Result<kube::Object> serving = client().Get(kPodGroups, kHostNs, group);
  ASSERT_TRUE(serving.ok()) << serving.status().ToString();
  EXPECT_EQ(kube::GetString(*serving, {"spec", "priorityClassName"}), "inference")
      << "the PodCliqueSet's label, a class the Tenant lists";
  const std::string rogue_group =
      WorkloadPodGroupName("rogue-0", std::string(kube::Uid(*rogue)), "ml", "nlp");
  ASSERT_TRUE(HostGroupBecomes(rogue_group, 1, R"([{"name":"a","minMember":1}])"));
  Result<kube::Object> rogue_pg = client().Get(kPodGroups, kHostNs, rogue_group);
  ASSERT_TRUE(rogue_pg.ok()) << rogue_pg.status().ToString();
  EXPECT_NE(kube::GetString(*rogue_pg, {"spec", "priorityClassName"}), "system-node-critical");
  EXPECT_TRUE(Eventually(
      [] {
        std::map<std::string, std::string> leaves;
        for (const kube::Object& p : HostPodsOf("job=grove"))
          leaves[std::string(kube::Annotation(p, kVirtualNameAnnotation).value_or(""))] =
              std::string(kube::Label(p, kai::kSubGroupLabel).value_or(""));
        return leaves == std::map<std::string, std::string>{{"prefill-0", "prefill"},
                                                            {"decode-0", "decode"},
                                                            {"decode-1", "decode"},
                                                            {"rogue-a", "a"}};
      },
      std::chrono::seconds(120)));
  EXPECT_TRUE(Eventually(
      [] {
        return kube::FindEvent(virt(), "ml", "involvedObject.name=reacher", "InvalidGang")
            .has_value();
      },
      std::chrono::seconds(60)));
  for (const kube::Object& p : HostPodsOf("job=grove"))
    EXPECT_NE(kube::Annotation(p, kVirtualNameAnnotation), std::string_view("reacher"));
}

// KAI passes over an Argo Workflow: each step's pod is a job of its own,
// so the syncer makes no gang of the workflow, and each host pod is left
// to the host's pod grouper as a bare pod.
TEST_F(SyncerIntegrationTest, AnArgoWorkflowsStepsAreJobsOfTheirOwn) {
  const kube::ResourceType workflows{"argoproj.io", "v1alpha1", "workflows", "Workflow", true};
  Result<kube::Object> wf = CreateWithItsCrd(workflows, R"({
      "apiVersion":"argoproj.io/v1alpha1","kind":"Workflow",
      "metadata":{"name":"wf","namespace":"ml"},"spec":{"entrypoint":"main"}})");
  ASSERT_TRUE(wf.ok()) << wf.status().ToString();
  for (const char* step : {"wf-a", "wf-b"}) {
    ASSERT_TRUE(virt()
                    .Create(kPods, "ml",
                            ParseTestJson(R"({"apiVersion":"v1","kind":"Pod",
        "metadata":{"name":")" + std::string(step) +
                                          R"(","namespace":"ml",
          "labels":{"job":"wf-steps"},
          "ownerReferences":[{"apiVersion":"argoproj.io/v1alpha1","kind":"Workflow",
                              "name":"wf","uid":")" +
                                          std::string(kube::Uid(*wf)) +
                                          R"(","controller":true}]},
        "spec":{"schedulerName":"kai-scheduler","containers":[{"name":"c","image":"step"}]}})"))
                    .ok());
  }
  ASSERT_TRUE(
      Eventually([] { return HostPodsOf("job=wf-steps").size() == 2; }, std::chrono::seconds(120)));
  for (const kube::Object& pod : HostPodsOf("job=wf-steps"))
    EXPECT_FALSE(kube::Annotation(pod, kai::kPodGroupAnnotation).has_value()) << kube::Name(pod);
}

// A Knative Service as Knative lays it out (Service, Configuration,
// Revision, and the Revision's Deployment, whose pods the team's
// controller manager makes): one host group for the Revision, minMember
// its min-scale, as KAI groups a Service's pods.
TEST_F(SyncerIntegrationTest, AKnativeServicesPodsBecomeTheirRevisionsHostGroup) {
  const auto knative = [](const char* resource, const char* kind) {
    return kube::ResourceType{"serving.knative.dev", "v1", resource, kind, true};
  };
  // Each object owned by the one before it; `extra` is more of its metadata.
  const auto owned_by = [](const char* kind, const char* name, const kube::Object* owner,
                           const char* owner_kind, const std::string& extra = "") {
    std::string refs;
    if (owner != nullptr)
      refs = R"(,"ownerReferences":[{"apiVersion":"serving.knative.dev/v1","kind":")" +
             std::string(owner_kind) + R"(","name":")" + std::string(kube::Name(*owner)) +
             R"(","uid":")" + std::string(kube::Uid(*owner)) + R"(","controller":true}])";
    return std::string(R"({"apiVersion":"serving.knative.dev/v1","kind":")") + kind +
           R"(","metadata":{"name":")" + name + R"(","namespace":"ml")" + extra + refs + "}}";
  };
  Result<kube::Object> service =
      CreateWithItsCrd(knative("services", "Service"), owned_by("Service", "llm", nullptr, ""));
  ASSERT_TRUE(service.ok()) << service.status().ToString();
  Result<kube::Object> config =
      CreateWithItsCrd(knative("configurations", "Configuration"),
                       owned_by("Configuration", "llm", &*service, "Service"));
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  Result<kube::Object> revision =
      CreateWithItsCrd(knative("revisions", "Revision"),
                       owned_by("Revision", "llm-00001", &*config, "Configuration",
                                R"(,"annotations":{"autoscaling.knative.dev/min-scale":"2"})"));
  ASSERT_TRUE(revision.ok()) << revision.status().ToString();
  ASSERT_TRUE(virt()
                  .Create(kDeployments, "ml",
                          ParseTestJson(R"({"apiVersion":"apps/v1",
      "kind":"Deployment","metadata":{"name":"llm-00001-deployment","namespace":"ml",
        "ownerReferences":[{"apiVersion":"serving.knative.dev/v1","kind":"Revision",
                            "name":"llm-00001","uid":")" +
                                        std::string(kube::Uid(*revision)) +
                                        R"(","controller":true}]},
      "spec":{"replicas":2,"selector":{"matchLabels":{"app":"llm"}},
        "template":{"metadata":{"labels":{"app":"llm"}},
          "spec":{"schedulerName":"kai-scheduler",
                  "containers":[{"name":"c","image":"server"}]}}}})"))
                  .ok());
  std::optional<kube::Object> group;
  EXPECT_TRUE(Eventually(
      [&] {
        Result<kube::ObjectList> groups = client().List(kPodGroups, kHostNs);
        if (groups.ok())
          for (kube::Object& pg : groups->items)
            if (kube::Annotation(pg, kVirtualNameAnnotation) == std::string_view("llm-00001"))
              group = std::move(pg);
        return group && HostPodsOf("app=llm").size() == 2;
      },
      std::chrono::seconds(120)));
  ASSERT_TRUE(group.has_value()) << "no host group for the Revision";
  EXPECT_EQ(kube::GetInt(*group, {"spec", "minMember"}), 2) << kube::ToJson(*group);
}

// A LeaderWorkerSet as its controller lays it out: a StatefulSet of
// leaders owned by it, and per leader pod a StatefulSet of workers owned by
// that pod (the team's virtual controller manager makes the pods). The
// leader and its worker become one host group, named for the replica
// group, each host pod in its sub-group.
TEST_F(SyncerIntegrationTest, ALeaderWorkerSetsLeaderAndWorkersBecomeOneHostGroup) {
  Result<kube::Object> lws = CreateWithItsCrd(resources::kLeaderWorkerSets, R"({
            "apiVersion":"leaderworkerset.x-k8s.io/v1","kind":"LeaderWorkerSet",
            "metadata":{"name":"serve","namespace":"ml"},
            "spec":{"replicas":1,"leaderWorkerTemplate":{"size":2}}})");
  ASSERT_TRUE(lws.ok()) << lws.status().ToString();
  // A StatefulSet of one pod, owned by `owner`, whose pod is worker
  // `worker` of replica group 0.
  auto statefulset = [](const std::string& name, const kube::Object& owner, const char* worker) {
    return ParseTestJson(R"({"apiVersion":"apps/v1","kind":"StatefulSet",
        "metadata":{"name":")" +
                         name + R"(","namespace":"ml",
          "ownerReferences":[{"apiVersion":")" +
                         std::string(kube::GetString(owner, {"apiVersion"})) + R"(","kind":")" +
                         std::string(kube::GetString(owner, {"kind"})) + R"(","name":")" +
                         std::string(kube::Name(owner)) + R"(","uid":")" +
                         std::string(kube::Uid(owner)) + R"(","controller":true}]},
        "spec":{"replicas":1,"serviceName":"serve","selector":{"matchLabels":{"sts":")" +
                         name +
                         R"("}},
          "template":{"metadata":{"labels":{"sts":")" +
                         name + R"(","lws":"serve",
              "leaderworkerset.sigs.k8s.io/group-index":"0",
              "leaderworkerset.sigs.k8s.io/worker-index":")" +
                         worker + R"("}},
            "spec":{"schedulerName":"kai-scheduler",
                    "containers":[{"name":"c","image":"server"}]}}}})");
  };
  ASSERT_TRUE(virt().Create(resources::kStatefulSets, "ml", statefulset("serve", *lws, "0")).ok());
  Result<kube::Object> leader = Unavailable("not made yet");
  ASSERT_TRUE(Eventually(
      [&] {
        leader = virt().Get(kPods, "ml", "serve-0");
        return leader.ok();
      },
      std::chrono::seconds(60)))
      << leader.status().ToString();
  ASSERT_TRUE(
      virt().Create(resources::kStatefulSets, "ml", statefulset("serve-0", *leader, "1")).ok());

  const std::string group = WorkloadPodGroupName("serve-group-0", kube::Uid(*lws), "ml", "nlp");
  EXPECT_TRUE(HostGroupBecomes(group, 2, R"([{"name":"leader","minMember":1},
                                             {"name":"workers","minMember":1}])"));
  EXPECT_EQ(SubGroupsOfHostPods("lws=serve", group, {"leader", "workers"}),
            (std::multiset<std::string>{"leader", "workers"}));
}

// A KubeRay cluster in a team's cluster (its CRD installed by the team,
// its pods made here as KubeRay makes them): one host group of its head and
// worker group, read from the virtual API server, each host pod in its
// group's sub-group.
TEST_F(SyncerIntegrationTest, ARayClusterBecomesOneHostGroupOfItsHeadAndWorkers) {
  const kube::ResourceType kRayClusters{"ray.io", "v1", "rayclusters", "RayCluster", true};
  Result<kube::Object> cluster = CreateWithItsCrd(kRayClusters, R"({
            "apiVersion":"ray.io/v1","kind":"RayCluster","metadata":{"name":"rc","namespace":"ml"},
            "spec":{"workerGroupSpecs":[{"groupName":"gpu","replicas":1}]}})");
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  for (const auto& [name, group] : std::vector<std::pair<std::string, std::string>>{
           {"rc-head", "headgroup"}, {"rc-gpu-0", "gpu"}}) {
    ASSERT_TRUE(virt()
                    .Create(kPods, "ml",
                            ParseTestJson(R"({"apiVersion":"v1","kind":"Pod",
        "metadata":{"name":")" + name + R"(","namespace":"ml",
          "labels":{"ray":"rc","ray.io/group":")" +
                                          group + R"("},
          "ownerReferences":[{"apiVersion":"ray.io/v1","kind":"RayCluster","name":"rc",
                              "uid":")" + std::string(kube::Uid(*cluster)) +
                                          R"(","controller":true}]},
        "spec":{"schedulerName":"kai-scheduler","containers":[{"name":"c","image":"ray"}]}})"))
                    .ok());
  }
  const std::string group = WorkloadPodGroupName("rc", kube::Uid(*cluster), "ml", "nlp");
  EXPECT_TRUE(HostGroupBecomes(group, 2, R"([{"name":"headgroup","minMember":1},
                                             {"name":"gpu","minMember":1}])"));
  EXPECT_EQ(SubGroupsOfHostPods("ray=rc", group, {"headgroup", "gpu"}),
            (std::multiset<std::string>{"headgroup", "gpu"}));
}

// An elastic PyTorchJob in a team's cluster (its CRD installed by the
// team, its pods made here as the training operator makes them): one host
// group whose minimum of 2 is split between the master and one worker, so
// it never starts with workers alone; each host pod in its role's
// sub-group.
TEST_F(SyncerIntegrationTest, AnElasticPyTorchJobsGroupNeedsItsMaster) {
  const kube::ResourceType kPyTorchJobs{"kubeflow.org", "v1", "pytorchjobs", "PyTorchJob", true};
  Result<kube::Object> job = CreateWithItsCrd(kPyTorchJobs, R"({
            "apiVersion":"kubeflow.org/v1","kind":"PyTorchJob",
            "metadata":{"name":"ddp","namespace":"ml"},
            "spec":{"elasticPolicy":{"minReplicas":2,"maxReplicas":4},"pytorchReplicaSpecs":{
              "Master":{"replicas":1},"Worker":{"replicas":3}}}})");
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  for (const auto& [name, role] : std::vector<std::pair<std::string, std::string>>{
           {"ddp-master-0", "master"}, {"ddp-worker-0", "worker"}, {"ddp-worker-1", "worker"}}) {
    ASSERT_TRUE(virt()
                    .Create(kPods, "ml",
                            ParseTestJson(R"({"apiVersion":"v1","kind":"Pod",
        "metadata":{"name":")" + name + R"(","namespace":"ml",
          "labels":{"job":"ddp","training.kubeflow.org/replica-type":")" +
                                          role +
                                          R"(",
                    "training.kubeflow.org/replica-index":")" +
                                          name.substr(name.size() - 1) +
                                          R"("},
          "ownerReferences":[{"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob","name":"ddp",
                              "uid":")" + std::string(kube::Uid(*job)) +
                                          R"(","controller":true}]},
        "spec":{"schedulerName":"kai-scheduler","containers":[{"name":"c","image":"torch"}]}})"))
                    .ok());
  }
  const std::string group = WorkloadPodGroupName("ddp", kube::Uid(*job), "ml", "nlp");
  EXPECT_TRUE(HostGroupBecomes(group, 2, R"([{"name":"master","minMember":1},
                                             {"name":"worker","minMember":1}])"));
  EXPECT_EQ(SubGroupsOfHostPods("job=ddp", group, {"master", "worker", "worker"}),
            (std::multiset<std::string>{"master", "worker", "worker"}));
}

TEST_F(SyncerIntegrationTest, VirtualPodGroupChangeReachesTheHostGroup) {
  const Status created = CreateGroupAndItsPod("pair", R"({"minMember":1})");
  ASSERT_TRUE(created.ok()) << created.ToString();
  const std::string host_group = HostName("pair", "ml", "nlp");
  auto host_min_member = [&] {
    Result<kube::Object> pg = client().Get(kPodGroups, kHostNs, host_group);
    return pg.ok() ? kube::GetInt(*pg, {"spec", "minMember"}) : int64_t{-1};
  };
  ASSERT_TRUE(Eventually([&] { return host_min_member() == 1; }, std::chrono::seconds(60)));
  // No pod changes: the PodGroup's own event carries the new minimum.
  ASSERT_TRUE(
      virt()
          .Patch(kPodGroups, "ml", "pair", kube::PatchType::kMerge, R"({"spec":{"minMember":2}})")
          .ok());
  EXPECT_TRUE(Eventually([&] { return host_min_member() == 2; }, std::chrono::seconds(60)));
  // KAI's minSubGroup in place of minMember (never both, which KAI refuses),
  // with a parent's own minSubGroup, through both clusters' CRDs.
  ASSERT_TRUE(virt()
                  .Patch(kPodGroups, "ml", "pair", kube::PatchType::kMerge,
                         R"({"spec":{"minMember":null,"minSubGroup":1,"subGroups":[
                               {"name":"replicas","minSubGroup":1},
                               {"name":"r0","parent":"replicas","minMember":1}]}})")
                  .ok());
  auto host_spec = [&] {
    Result<kube::Object> pg = client().Get(kPodGroups, kHostNs, host_group);
    return pg.ok() ? kube::ToJson((*pg)["spec"]) : std::string();
  };
  EXPECT_TRUE(Eventually(
      [&] {
        Result<kube::Object> pg = client().Get(kPodGroups, kHostNs, host_group);
        if (!pg.ok()) return false;
        const rapidjson::Value* subs = kube::Find(*pg, {"spec", "subGroups"});
        return kube::GetInt(*pg, {"spec", "minSubGroup"}) == 1 &&
               kube::Find(*pg, {"spec", "minMember"}) == nullptr && subs != nullptr &&
               subs->IsArray() && subs->Size() == 2 &&
               kube::GetInt((*subs)[0], {"minSubGroup"}) == 1;
      },
      std::chrono::seconds(60)))
      << host_spec();
}

TEST_F(SyncerIntegrationTest, VirtualPodGroupFieldsFollowAndARefusedSpecIsAnEventOnIt) {
  const Status created = CreateGroupAndItsPod(
      "kept", R"({"minMember":1,"priorityClassName":"train","preemptibility":"non-preemptible"})");
  ASSERT_TRUE(created.ok()) << created.ToString();
  auto host_spec = [&] {
    Result<kube::Object> pg = client().Get(kPodGroups, kHostNs, HostName("kept", "ml", "nlp"));
    return pg.ok() ? kube::ToJson((*pg)["spec"]) : std::string();
  };
  ASSERT_TRUE(Eventually(
      [&] {
        return host_spec().find(R"("preemptibility":"non-preemptible")") != std::string::npos;
      },
      std::chrono::seconds(60)))
      << host_spec();
  // Removed and added through the real CRD schemas (nothing pruned). The
  // team also writes the host scheduler's own state annotations, as if its
  // gang had been short since 2000 (to have it evicted) or evicted in 2100
  // (to stretch its delay): those stay on its side.
  ASSERT_TRUE(virt()
                  .Patch(kPodGroups, "ml", "kept", kube::PatchType::kMerge,
                         R"({"metadata":{"annotations":{
                               "kai.scheduler/stale-podgroup-timestamp":"2000-01-01T00:00:00Z",
                               "kai.scheduler/last-eviction-timestamp":"2100-01-01T00:00:00Z"}},
                             "spec":{"priorityClassName":null,"preemptibility":null,
                                     "markUnschedulable":false,"preemptionDelay":"30s",
                                     "stalenessGracePeriod":"-1s"}})")
                  .ok());
  EXPECT_TRUE(Eventually(
      [&] {
        const std::string spec = host_spec();
        return spec.find(R"("markUnschedulable":false)") != std::string::npos &&
               spec.find(R"("preemptionDelay":"30s")") != std::string::npos &&
               spec.find(R"("stalenessGracePeriod":"-1s")") != std::string::npos &&
               spec.find("priorityClassName") == std::string::npos &&
               spec.find(R"("preemptibility")") == std::string::npos;
      },
      std::chrono::seconds(60)))
      << host_spec();
  Result<kube::Object> host_group =
      client().Get(kPodGroups, kHostNs, HostName("kept", "ml", "nlp"));
  ASSERT_TRUE(host_group.ok());
  EXPECT_FALSE(kube::Annotation(*host_group, "kai.scheduler/stale-podgroup-timestamp"));
  EXPECT_FALSE(kube::Annotation(*host_group, "kai.scheduler/last-eviction-timestamp"));
  // A class the host does not offer: the team hears it on the PodGroup.
  ASSERT_TRUE(virt()
                  .Patch(kPodGroups, "ml", "kept", kube::PatchType::kMerge,
                         R"({"spec":{"priorityClassName":"vip"}})")
                  .ok());
  EXPECT_TRUE(Eventually(
      [&] {
        return kube::FindEvent(virt(), "ml",
                               "involvedObject.kind=PodGroup,involvedObject.name=kept",
                               "InvalidGang", {"vip"})
            .has_value();
      },
      std::chrono::seconds(60)));
}

// One address per Service, through real API servers with the same Service
// range: the team's Service takes its host copy's cluster IP, and a pod's
// environment gives that address too.
TEST_F(SyncerIntegrationTest, AServiceHasOneAddressOnBothSidesAndInThePodsEnvironment) {
  ASSERT_TRUE(virt()
                  .Create(kube::resources::kServices, "ml", ParseTestJson(R"({"apiVersion":"v1",
      "kind":"Service","metadata":{"name":"one-addr","namespace":"ml"},
      "spec":{"selector":{"app":"one-addr"},"ports":[{"name":"http","port":8080}]}})"))
                  .ok());
  Result<kube::Object> made = virt().Get(kube::resources::kServices, "ml", "one-addr");
  ASSERT_TRUE(made.ok());
  const std::string made_ip(kube::GetString(*made, {"spec", "clusterIP"}));
  const std::string host_ip = OneAddress("one-addr");
  ASSERT_FALSE(host_ip.empty());
  ASSERT_TRUE(virt()
                  .Create(kPods, "ml", ParseTestJson(R"({"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"one-addr-client","namespace":"ml"},
      "spec":{"schedulerName":"kai-scheduler","containers":[{"name":"c","image":"i"}]}})"))
                  .ok());
  std::string env_ip;
  EXPECT_TRUE(Eventually(
      [&] {
        Result<kube::Object> pod =
            client().Get(kPods, kHostNs, HostName("one-addr-client", "ml", "nlp"));
        if (!pod.ok()) return false;
        const rapidjson::Value* env = kube::Find((*pod)["spec"]["containers"][0], {"env"});
        if (env == nullptr || !env->IsArray()) return false;
        for (const rapidjson::Value& e : env->GetArray()) {
          if (kube::GetString(e, {"name"}) == "ONE_ADDR_SERVICE_HOST") {
            env_ip = kube::GetString(e, {"value"});
          }
        }
        return !env_ip.empty();
      },
      std::chrono::seconds(60)));
  EXPECT_EQ(env_ip, host_ip);
  // The copy asked for the Service's own address and got it: the team's
  // Service was never deleted and created again.
  EXPECT_EQ(host_ip, made_ip);
  Result<kube::Object> svc = virt().Get(kube::resources::kServices, "ml", "one-addr");
  ASSERT_TRUE(svc.ok());
  EXPECT_EQ(kube::Uid(*svc), kube::Uid(*made));
}

// An address another Service holds on the host is not the team's to take:
// the copy gets one the host picks, and the team's Service takes that one
// (deleted and created again; a cluster IP never changes in place).
TEST_F(SyncerIntegrationTest, AnAddressHeldOnTheHostIsLeftToTheHost) {
  ASSERT_TRUE(client()
                  .Create(kube::resources::kServices, kHostNs, ParseTestJson(R"({"apiVersion":"v1",
      "kind":"Service","metadata":{"name":"platform-held","namespace":"vtenant-nlp"},
      "spec":{"clusterIP":"10.96.77.77","ports":[{"port":80}]}})"))
                  .ok());
  ASSERT_TRUE(virt()
                  .Create(kube::resources::kServices, "ml", ParseTestJson(R"({"apiVersion":"v1",
      "kind":"Service","metadata":{"name":"wants-held","namespace":"ml"},
      "spec":{"clusterIP":"10.96.77.77","ports":[{"port":80}]}})"))
                  .ok());
  const std::string address = OneAddress("wants-held");
  ASSERT_FALSE(address.empty());
  EXPECT_NE(address, "10.96.77.77");
  ASSERT_TRUE(virt().Delete(kube::resources::kServices, "ml", "wants-held").ok());
  ASSERT_TRUE(client().Delete(kube::resources::kServices, kHostNs, "platform-held").ok());
}

// What the host's scheduler writes about a host pod reaches the team, on
// its pod, in its names, through real API servers.
TEST_F(SyncerIntegrationTest, HostEventsReachTheTeamsPod) {
  ASSERT_TRUE(virt()
                  .Create(kPods, "ml", ParseTestJson(R"({"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"told","namespace":"ml"},
      "spec":{"schedulerName":"kai-scheduler","containers":[{"name":"c","image":"i"}]}})"))
                  .ok());
  const std::string host_name = HostName("told", "ml", "nlp");
  Result<kube::Object> host_pod = NotFound("not yet");
  ASSERT_TRUE(Eventually(
      [&] {
        host_pod = client().Get(kPods, kHostNs, host_name);
        return host_pod.ok();
      },
      std::chrono::seconds(60)));
  kube::Object event = ParseTestJson(R"({"apiVersion":"v1","kind":"Event",
      "metadata":{"name":"told.1","namespace":"vtenant-nlp"},
      "involvedObject":{"apiVersion":"v1","kind":"Pod","namespace":"vtenant-nlp"},
      "type":"Warning","reason":"Unschedulable","count":1,
      "firstTimestamp":"2026-12-02T11:00:00Z","lastTimestamp":"2026-12-02T11:00:00Z",
      "source":{"component":"vtenant-scheduler"}})");
  kube::SetString(event, {"involvedObject"}, "name", host_name);
  kube::SetString(event, {"involvedObject"}, "uid", kube::Uid(*host_pod));
  kube::SetString(event, {}, "message",
                  "0/1 nodes fit: 1 not enough shared GPU room (needs 500m of one device); "
                  "no reclaim: the jobs that would make room (queue vision) are non-preemptible; "
                  "pod vtenant-nlp/" +
                      host_name + " waits");
  ASSERT_TRUE(client().Create(kEvents, kHostNs, event).ok());
  std::optional<std::string> message;
  EXPECT_TRUE(Eventually(
      [&] {
        message = kube::FindEvent(virt(), "ml", "involvedObject.kind=Pod,involvedObject.name=told",
                                  "Unschedulable");
        return message.has_value();
      },
      std::chrono::seconds(60)));
  EXPECT_EQ(message.value_or(""),
            "0/1 nodes fit: 1 not enough shared GPU room (needs 500m of one device); no reclaim: "
            "the jobs that would make room (another queue) are non-preemptible; pod ml/told waits");
}

TEST_F(SyncerIntegrationTest, HandWrittenEndpointSliceReachesTheHostAndGoes) {
  const kube::ResourceType& slices = resources::kEndpointSlices;
  // A Service with a selector: the virtual endpointslice controller makes
  // its slice, which must stay behind (the host makes its own).
  ASSERT_TRUE(virt()
                  .Create(kube::resources::kServices, "ml", ParseTestJson(R"({"apiVersion":"v1",
      "kind":"Service","metadata":{"name":"api","namespace":"ml"},
      "spec":{"selector":{"app":"api"},"ports":[{"port":80,"protocol":"TCP"}]}})"))
                  .ok());
  // The controller's slice of the Service, once its address has settled:
  // the host copy asks for the Service's own, so the Service and its slice
  // stay as they were made.
  std::string controller_slice;
  ASSERT_TRUE(Eventually(
      [&] {
        Result<kube::Object> service = virt().Get(kube::resources::kServices, "ml", "api");
        Result<kube::Object> host_service =
            client().Get(kube::resources::kServices, kHostNs, HostName("api", "ml", "nlp"));
        if (!service.ok() || !host_service.ok() ||
            kube::GetString(*service, {"spec", "clusterIP"}) !=
                kube::GetString(*host_service, {"spec", "clusterIP"})) {
          return false;
        }
        Result<kube::ObjectList> made =
            virt().List(slices, "ml", {.label_selector = "kubernetes.io/service-name=api"});
        if (!made.ok()) return false;
        for (const kube::Object& slice : made->items) {
          const rapidjson::Value* owner = kube::ControllerReference(slice);
          if (owner != nullptr && kube::ReadOwnerReference(*owner).uid == kube::Uid(*service)) {
            controller_slice = std::string(kube::Name(slice));
            return true;
          }
        }
        return false;
      },
      std::chrono::seconds(60), std::chrono::milliseconds(500)))
      << DescribeServiceAndSlices("api");
  // In the syncer's cache, so its key is queued before the hand-written one.
  ASSERT_TRUE(Eventually([&] {
    return syncer_->informers().Virtual(slices).cache().Get("ml/" + controller_slice) != nullptr;
  }));
  ASSERT_TRUE(virt()
                  .Create(kube::resources::kServices, "ml", ParseTestJson(R"({"apiVersion":"v1",
      "kind":"Service","metadata":{"name":"db","namespace":"ml"},
      "spec":{"ports":[{"port":5432,"protocol":"TCP"}]}})"))
                  .ok());
  ASSERT_TRUE(virt()
                  .Create(slices, "ml",
                          HandWrittenSlice("db-external", "db",
                                           R"([{"addresses":["192.168.5.10"],
                                                "conditions":{"ready":true}}])"))
                  .ok());
  const std::string host_slice = HostName("db-external", "ml", "nlp");
  ASSERT_TRUE(Eventually([&] { return client().Get(slices, kHostNs, host_slice).ok(); },
                         std::chrono::seconds(60)));
  EXPECT_FALSE(client().Get(slices, kHostNs, HostName(controller_slice, "ml", "nlp")).ok());
  Result<kube::Object> copy = client().Get(slices, kHostNs, host_slice);
  ASSERT_TRUE(copy.ok());
  EXPECT_EQ(kube::Label(*copy, "kubernetes.io/service-name"), HostName("db", "ml", "nlp"));
  EXPECT_EQ(kube::GetString((*copy)["endpoints"][0]["addresses"][0], {}), "192.168.5.10");
  // The host Service it belongs to is there too.
  EXPECT_TRUE(Eventually([] {
    return client().Get(kube::resources::kServices, kHostNs, HostName("db", "ml", "nlp")).ok();
  }));
  ASSERT_TRUE(virt().Delete(slices, "ml", "db-external").ok());
  EXPECT_TRUE(Eventually([&] { return !client().Get(slices, kHostNs, host_slice).ok(); },
                         std::chrono::seconds(60)));
}

TEST_F(SyncerIntegrationTest, RefusedPodsStayVirtualWithAnEvent) {
  ASSERT_TRUE(virt()
                  .Create(kPods, "ml", ParseTestJson(R"({"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"root","namespace":"ml","labels":{"refused":"yes"}},
      "spec":{"containers":[{"name":"c","image":"i","securityContext":{"privileged":true}}]}})"))
                  .ok());
  ASSERT_TRUE(virt()
                  .Create(kPods, "ml", ParseTestJson(R"({"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"greedy","namespace":"ml","labels":{"refused":"yes"},
                  "annotations":{"gpu-fraction":"1.5"}},
      "spec":{"schedulerName":"kai-scheduler","containers":[{"name":"c","image":"i"}]}})"))
                  .ok());
  std::map<std::string, std::string> want = {{"root", "PrivilegedFeatureNotAllowed"},
                                             {"greedy", "InvalidGpuAnnotation"}};
  for (const auto& [pod, reason] : want) {
    EXPECT_TRUE(Eventually(
        [&, pod = pod, reason = reason] {
          return kube::FindEvent(virt(), "ml", "involvedObject.name=" + pod, reason).has_value();
        },
        std::chrono::seconds(60)))
        << pod;
    // The Event is recorded just before the status is written.
    EXPECT_TRUE(Eventually([&, pod = pod, reason = reason] {
      Result<kube::Object> v = virt().Get(kPods, "ml", pod);
      return v.ok() && kube::GetString(*v, {"status", "reason"}) == reason;
    })) << pod;
  }
  EXPECT_TRUE(HostPodsOf("refused=yes").empty());
}

// A tenant writing workloads to raise its gangs' standing or to cost the
// syncer its time: KubeRay's priority label naming a class the tenant may
// not use is not taken, and a LeaderWorkerSet of 2^31-1 pods cut into
// segments of 2 is refused with an Event, its pod kept off the host.
TEST_F(SyncerIntegrationTest, HostileWorkloadsGainNoClassAndCostNoTime) {
  const kube::ResourceType kRayClusters{"ray.io", "v1", "rayclusters", "RayCluster", true};
  Result<kube::Object> cluster = CreateWithItsCrd(kRayClusters, R"({
      "apiVersion":"ray.io/v1","kind":"RayCluster","metadata":{"name":"rogue","namespace":"ml",
        "labels":{"ray.io/priority-class-name":"system-node-critical"}},"spec":{}})");
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  ASSERT_TRUE(virt()
                  .Create(kPods, "ml",
                          ParseTestJson(R"({"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"rogue-head","namespace":"ml","labels":{"ray.io/group":"headgroup"},
        "ownerReferences":[{"apiVersion":"ray.io/v1","kind":"RayCluster","name":"rogue",
                            "uid":")" + std::string(kube::Uid(*cluster)) +
                                        R"(","controller":true}]},
      "spec":{"schedulerName":"kai-scheduler","containers":[{"name":"c","image":"ray"}]}})"))
                  .ok());
  const std::string group = WorkloadPodGroupName("rogue", kube::Uid(*cluster), "ml", "nlp");
  ASSERT_TRUE(HostGroupBecomes(group, 1, R"([{"name":"headgroup","minMember":1}])"));
  Result<kube::Object> pg = client().Get(kPodGroups, kHostNs, group);
  ASSERT_TRUE(pg.ok());
  EXPECT_NE(kube::GetString(*pg, {"spec", "priorityClassName"}), "system-node-critical");

  Result<kube::Object> lws = CreateWithItsCrd(resources::kLeaderWorkerSets, R"({
      "apiVersion":"leaderworkerset.x-k8s.io/v1","kind":"LeaderWorkerSet",
      "metadata":{"name":"huge","namespace":"ml"},
      "spec":{"leaderWorkerTemplate":{"size":2147483647,"subGroupPolicy":{"subGroupSize":2}}}})");
  ASSERT_TRUE(lws.ok()) << lws.status().ToString();
  ASSERT_TRUE(virt()
                  .Create(kPods, "ml",
                          ParseTestJson(R"({"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"huge-0-1","namespace":"ml",
        "labels":{"hostile":"huge","leaderworkerset.sigs.k8s.io/worker-index":"1"},
        "ownerReferences":[{"apiVersion":"leaderworkerset.x-k8s.io/v1",
                            "kind":"LeaderWorkerSet","name":"huge",
                            "uid":")" + std::string(kube::Uid(*lws)) +
                                        R"(","controller":true}]},
      "spec":{"schedulerName":"kai-scheduler","containers":[{"name":"c","image":"i"}]}})"))
                  .ok());
  std::optional<std::string> refused;
  EXPECT_TRUE(Eventually(
      [&] {
        refused = kube::FindEvent(virt(), "ml", "involvedObject.name=huge-0-1", "InvalidGang");
        return refused.has_value();
      },
      std::chrono::seconds(60)));
  EXPECT_NE(refused.value_or("").find("segments, more than the 10000 allowed"), std::string::npos)
      << refused.value_or("no Event");
  EXPECT_TRUE(HostPodsOf("hostile=huge").empty());
}

// A tenant trying its hand at the boundary with its own kubeconfig: what it
// may not have is refused (an Event, no host pod) or neutralised on the
// host, and the host API server takes every host pod the syncer writes.
TEST_F(SyncerIntegrationTest, HostilePodsAreRefusedOrNeutralised) {
  // Host ports and an unconfined seccomp profile: refused, nothing on the host.
  ASSERT_TRUE(virt()
                  .Create(kPods, "ml", ParseTestJson(R"({"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"escape","namespace":"ml","labels":{"hostile":"refused"}},
      "spec":{"containers":[{"name":"c","image":"i",
        "ports":[{"containerPort":10250,"hostPort":10250}],
        "securityContext":{"seccompProfile":{"type":"Unconfined"}}}]}})"))
                  .ok());
  // What cannot be refused without breaking honest pods is neutralised:
  // another scheduler, a toleration of every taint, the host's own labels
  // and annotations, affinity to another namespace's pods.
  ASSERT_TRUE(virt()
                  .Create(kPods, "ml", ParseTestJson(R"({"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"sneaky","namespace":"ml",
        "labels":{"hostile":"neutralised","vtenant.io/tenant":"vision",
                  "vtenant.io/managed-by":"me","kai.scheduler/queue":"vision",
                  "app.kubernetes.io/name":"vtenant-control-plane"},
        "annotations":{"runai-gpu":"0","runai/shared-gpu-configmap":"theirs",
                       "runai-gpu-group":"theirs","vtenant.io/virtual-uid":"fake"}},
      "spec":{"schedulerName":"other-scheduler",
        "tolerations":[{"operator":"Exists"},
                       {"key":"node-role.kubernetes.io/control-plane","operator":"Exists"}],
        "affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
          {"labelSelector":{"matchLabels":{"app":"db"}},"namespaces":["kube-system"],
           "topologyKey":"kubernetes.io/hostname"}]}},
        "subdomain":"web",
        "volumes":[{"name":"scratch","ephemeral":{"volumeClaimTemplate":{
          "metadata":{"labels":{"vtenant.io/tenant":"vision"}},
          "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},
                  "dataSource":{"kind":"PersistentVolumeClaim","name":"seed"}}}}}],
        "containers":[{"name":"c","image":"i",
          "volumeMounts":[{"name":"scratch","mountPath":"/scratch"}]}]}})"))
                  .ok());

  EXPECT_TRUE(Eventually(
      [] {
        return kube::FindEvent(virt(), "ml", "involvedObject.name=escape",
                               "PrivilegedFeatureNotAllowed", {"hostPort", "seccompProfile"})
            .has_value();
      },
      std::chrono::seconds(60)));

  const std::string host_name = HostName("sneaky", "ml", "nlp");
  ASSERT_TRUE(Eventually([&] { return client().Get(kPods, kHostNs, host_name).ok(); },
                         std::chrono::seconds(60)));
  Result<kube::Object> host = client().Get(kPods, kHostNs, host_name);
  ASSERT_TRUE(host.ok());
  const rapidjson::Value& spec = (*host)["spec"];
  EXPECT_EQ(kube::GetString(spec, {"schedulerName"}), "kai-scheduler");
  for (const rapidjson::Value& t : spec["tolerations"].GetArray()) {
    // What remains is what the host API server adds to every pod.
    EXPECT_NE(kube::GetString(t, {"key"}), "") << kube::ToJson(t);
    EXPECT_NE(kube::GetString(t, {"key"}), "node-role.kubernetes.io/control-plane");
  }
  EXPECT_EQ(kube::Label(*host, "vtenant.io/tenant"), "nlp");
  EXPECT_EQ(kube::Label(*host, "vtenant.io/managed-by"), "vtenant-syncer");
  EXPECT_EQ(kube::Label(*host, "kai.scheduler/queue"), "nlp");
  Result<kube::Object> sneaky = virt().Get(kPods, "ml", "sneaky");
  ASSERT_TRUE(sneaky.ok());
  EXPECT_EQ(kube::Annotation(*host, "vtenant.io/virtual-uid"), kube::Uid(*sneaky));
  for (const char* gone : {"runai-gpu", "runai/shared-gpu-configmap", "runai-gpu-group"}) {
    EXPECT_FALSE(kube::Annotation(*host, gone)) << gone;
  }
  const rapidjson::Value& term =
      spec["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0];
  EXPECT_FALSE(term.HasMember("namespaces"));
  EXPECT_EQ(kube::ToJson(term["labelSelector"]["matchExpressions"]),
            R"([{"key":"vtenant.io/virtual-namespace","operator":"In","values":["kube-system"]}])");
  EXPECT_EQ(kube::GetString(spec, {"subdomain"}), HostName("web", "ml", "nlp"));
  const rapidjson::Value& claim = spec["volumes"][0]["ephemeral"]["volumeClaimTemplate"];
  EXPECT_EQ(kube::GetString(claim, {"spec", "dataSource", "name"}), HostName("seed", "ml", "nlp"));
  EXPECT_FALSE(claim["metadata"]["labels"].HasMember("vtenant.io/tenant"));
  // The tenant hears about the tolerations it lost.
  EXPECT_TRUE(Eventually(
      [] {
        return kube::FindEvent(virt(), "ml", "involvedObject.name=sneaky", "TolerationDropped")
            .has_value();
      },
      std::chrono::seconds(60)));
  EXPECT_NE(registry_->Render().find(R"(vtenant_syncer_dropped_fields_total{kind="Pod",)"
                                     R"(field="metadata.labels['vtenant.io/tenant']"})"),
            std::string::npos);
  EXPECT_TRUE(HostPodsOf("hostile=refused").empty());
}

TEST_F(SyncerIntegrationTest, ProjectedTokenComesFromTheVirtualApiServer) {
  // What the ServiceAccount admission plugin would add, written out (it is
  // off in the local control planes).
  ASSERT_TRUE(Eventually(
      [] { return virt().Get(kube::resources::kServiceAccounts, "ml", "default").ok(); }));
  ASSERT_TRUE(virt()
                  .Create(kPods, "ml", ParseTestJson(R"({"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"talker","namespace":"ml"},
      "spec":{"schedulerName":"kai-scheduler","serviceAccountName":"default",
        "containers":[{"name":"c","image":"kubectl","volumeMounts":[{"name":"kube-api-access",
          "mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]}],
        "volumes":[{"name":"kube-api-access","projected":{"sources":[
          {"serviceAccountToken":{"path":"token","expirationSeconds":3607}},
          {"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}}]}}]}})"))
                  .ok());
  const std::string host_name = HostName("talker", "ml", "nlp");
  ASSERT_TRUE(Eventually([&] { return client().Get(kPods, kHostNs, host_name).ok(); },
                         std::chrono::seconds(60)));
  Result<kube::Object> pod = client().Get(kPods, kHostNs, host_name);
  ASSERT_TRUE(pod.ok());
  const rapidjson::Value& sources = (*pod)["spec"]["volumes"][0]["projected"]["sources"];
  std::string secret(kube::GetString(sources[0], {"secret", "name"}));
  EXPECT_EQ(secret, TokenSecretName("talker", "ml", "nlp"));
  EXPECT_FALSE((*pod)["spec"]["automountServiceAccountToken"].GetBool());
  Result<kube::Object> token = client().Get(kube::resources::kSecrets, kHostNs, secret);
  ASSERT_TRUE(token.ok()) << token.status().ToString();
  EXPECT_FALSE(kube::GetString(*token, {"data", "token"}).empty());
  // The CA the pod mounts is the virtual cluster's, copied on demand.
  EXPECT_TRUE(
      client()
          .Get(kube::resources::kConfigMaps, kHostNs, HostName("kube-root-ca.crt", "ml", "nlp"))
          .ok());
  // Gone with the pod.
  ASSERT_TRUE(virt().Delete(kPods, "ml", "talker", {.grace_period_seconds = 0}).ok());
  EXPECT_TRUE(
      Eventually([&] { return !client().Get(kube::resources::kSecrets, kHostNs, secret).ok(); },
                 std::chrono::seconds(60)));
}

// The reasons of the Events on virtual object `kind` `ns`/`name`.
std::set<std::string> EventReasons(kube::Client& virt, const std::string& kind,
                                   const std::string& name, const std::string& ns = "ml") {
  std::set<std::string> reasons;
  Result<kube::ObjectList> events =
      virt.List(kEvents, ns,
                {.field_selector = "involvedObject.kind=" + kind + ",involvedObject.name=" + name});
  if (events.ok()) {
    for (const kube::Object& e : events->items) reasons.emplace(kube::GetString(e, {"reason"}));
  }
  return reasons;
}

// What a hostile tenant writes with its own kubeconfig, against the real
// API servers: each is refused (an Event on the virtual object, nothing on
// the host) or reaches the host neutralised.
// A team's ResourceClaims and their templates reach the host only as
// claims of its own, of the classes its Tenant lists, without admin access,
// device taints or a driver configuration: each attack a claim can carry
// fails against the real API servers.
TEST_F(SyncerIntegrationTest, DeviceClaimsReachTheHostOnlyAsTheTenantsOwn) {
  const kube::ResourceType& claims = resources::kResourceClaims;
  const kube::ResourceType& templates = resources::kResourceClaimTemplates;
  // A claim in the tenant's host namespace that is not the tenant's.
  ASSERT_TRUE(client()
                  .Create(claims, kHostNs, ParseTestJson(R"({"apiVersion":"resource.k8s.io/v1",
      "kind":"ResourceClaim","metadata":{"name":"admin-gpu","namespace":"vtenant-nlp"},
      "spec":{"devices":{"requests":[{"name":"gpu",
        "exactly":{"deviceClassName":"gpu.example.com"}}]}}})"))
                  .ok());
  // The team's claims and templates, each with one request's `exactly`.
  auto devices = [](const std::string& exactly) {
    return R"({"devices":{"requests":[{"name":"gpu","exactly":)" + exactly + "}]}}";
  };
  const std::string gpu = R"({"deviceClassName":"gpu.example.com"})";
  const struct {
    const char* name;
    std::string spec;
  } team_claims[] = {
      {"gpus", devices(gpu)},
      {"admin", devices(R"({"deviceClassName":"gpu.example.com","adminAccess":true})")},
      {"nic", devices(R"({"deviceClassName":"nic.example.com"})")},
      {"tainted", devices(R"({"deviceClassName":"gpu.example.com",
                              "tolerations":[{"key":"unhealthy","operator":"Exists"}]})")},
      {"configured", R"({"devices":{"requests":[{"name":"gpu","exactly":)" + gpu +
                         R"(}],"config":[{"opaque":{"driver":"gpu.example.com",
                              "parameters":{"apiVersion":"v1","kind":"Sharing"}}}]}})"},
  };
  // Admin access needs its namespace labelled so in the team's cluster,
  // where the team may label anything.
  ASSERT_TRUE(virt()
                  .Create(kube::resources::kNamespaces, "", ParseTestJson(R"({"apiVersion":"v1",
      "kind":"Namespace","metadata":{"name":"admin-dra",
      "labels":{"resource.kubernetes.io/admin-access":"true"}}})"))
                  .ok());
  auto ns_of = [](std::string_view name) {
    return name.starts_with("admin") ? std::string("admin-dra") : std::string("ml");
  };
  for (const auto& c : team_claims) {
    Result<kube::Object> made =
        virt().Create(claims, ns_of(c.name),
                      ParseTestJson(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
            "metadata":{"name":")" + std::string(c.name) +
                                    R"(","labels":{"kai.scheduler/queue":"vision"}},"spec":)" +
                                    c.spec + "}"));
    ASSERT_TRUE(made.ok()) << c.name << ": " << made.status().ToString();
  }
  for (const auto& [name, spec] :
       {std::pair<std::string, std::string>{"one-gpu", devices(gpu)},
        {"admin-template",
         devices(R"({"deviceClassName":"gpu.example.com","adminAccess":true})")}}) {
    Result<kube::Object> made = virt().Create(
        templates, ns_of(name),
        ParseTestJson(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate",
            "metadata":{"name":")" +
                      name + R"("},"spec":{"spec":)" + spec + "}}"));
    ASSERT_TRUE(made.ok()) << name << ": " << made.status().ToString();
  }
  // One pod per claim or template; "hijack" names the host's claim by its
  // name on the host.
  auto pod = [](const std::string& name, const std::string& member, const std::string& claim) {
    return ParseTestJson(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                         R"("},"spec":{"schedulerName":"kai-scheduler",
          "resourceClaims":[{"name":"gpu",")" +
                         member + R"(":")" + claim + R"("}],
          "containers":[{"name":"c","image":"i","resources":{"claims":[{"name":"gpu"}]}}]}})");
  };
  for (const auto& [name, claim] :
       std::vector<std::pair<std::string, std::string>>{{"claimant", "gpus"},
                                                        {"admin-claimant", "admin"},
                                                        {"nic-claimant", "nic"},
                                                        {"tainted-claimant", "tainted"},
                                                        {"configured-claimant", "configured"},
                                                        {"hijack", "admin-gpu"}}) {
    Result<kube::Object> made =
        virt().Create(kPods, ns_of(name), pod(name, "resourceClaimName", claim));
    ASSERT_TRUE(made.ok()) << name << ": " << made.status().ToString();
  }
  for (const auto& [name, claim_template] : std::vector<std::pair<std::string, std::string>>{
           {"templated", "one-gpu"}, {"admin-templated", "admin-template"}}) {
    Result<kube::Object> made =
        virt().Create(kPods, ns_of(name), pod(name, "resourceClaimTemplateName", claim_template));
    ASSERT_TRUE(made.ok()) << name << ": " << made.status().ToString();
  }

  // The claim of a listed class reaches the host, charged to the tenant's
  // queue, and its pod names the copy.
  Result<kube::Object> copy = NotFound("not read yet");
  ASSERT_TRUE(Eventually(
      [&] {
        copy = client().Get(claims, kHostNs, HostName("gpus", "ml", "nlp"));
        return copy.ok();
      },
      std::chrono::seconds(60)));
  EXPECT_EQ(kube::Label(*copy, kai::kQueueLabel), "nlp");
  EXPECT_EQ(
      kube::GetString((*copy)["spec"]["devices"]["requests"][0], {"exactly", "deviceClassName"}),
      "gpu.example.com");
  auto host_pod = [&](const std::string& name) {
    Result<kube::Object> p = NotFound("not read yet");
    Eventually(
        [&] {
          p = client().Get(kPods, kHostNs, HostName(name, "ml", "nlp"));
          return p.ok();
        },
        std::chrono::seconds(60));
    return p;
  };
  Result<kube::Object> claimant = host_pod("claimant");
  ASSERT_TRUE(claimant.ok()) << claimant.status().ToString();
  EXPECT_EQ(kube::GetString((*claimant)["spec"]["resourceClaims"][0], {"resourceClaimName"}),
            HostName("gpus", "ml", "nlp"));
  EXPECT_EQ(
      kube::GetString((*claimant)["spec"]["containers"][0]["resources"]["claims"][0], {"name"}),
      "gpu");
  // The host allocates the copy, as the scheduler's binder does: the team's
  // claim shows the device, and not the host pod it is reserved for.
  kube::Object allocated = kube::Clone(*copy);
  kube::Object status = ParseTestJson(R"({"allocation":{"devices":{"results":[
      {"request":"gpu","driver":"gpu.example.com","pool":"l40s-0","device":"gpu-0"}]}},
      "reservedFor":[{"resource":"pods","name":")" +
                                      HostName("claimant", "ml", "nlp") + R"(","uid":")" +
                                      std::string(kube::Uid(*claimant)) + R"("}]})");
  allocated.RemoveMember("status");
  allocated.AddMember("status", rapidjson::Value(status, allocated.GetAllocator()),
                      allocated.GetAllocator());
  Result<kube::Object> written = client().Update(claims, kHostNs, allocated, "status");
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  Result<kube::Object> shown = NotFound("not read yet");
  EXPECT_TRUE(Eventually(
      [&] {
        shown = virt().Get(claims, "ml", "gpus");
        const rapidjson::Value* allocation =
            shown.ok() ? kube::Find(*shown, {"status", "allocation"}) : nullptr;
        return allocation != nullptr && *allocation == status["allocation"];
      },
      std::chrono::seconds(60)))
      << (shown.ok() ? kube::ToJson(*shown) : shown.status().ToString());
  EXPECT_FALSE(shown.ok() && kube::Find(*shown, {"status", "reservedFor"})) << kube::ToJson(*shown);

  // The template's copy: the host's resourceclaim controller makes the
  // pod's claim from it, owned by the host pod and charged to the tenant.
  ASSERT_TRUE(Eventually(
      [&] { return client().Get(templates, kHostNs, HostName("one-gpu", "ml", "nlp")).ok(); },
      std::chrono::seconds(60)));
  Result<kube::Object> templated = host_pod("templated");
  ASSERT_TRUE(templated.ok()) << templated.status().ToString();
  EXPECT_EQ(
      kube::GetString((*templated)["spec"]["resourceClaims"][0], {"resourceClaimTemplateName"}),
      HostName("one-gpu", "ml", "nlp"));
  std::string made_for_pod;
  EXPECT_TRUE(Eventually(
      [&] {
        Result<kube::ObjectList> all = client().List(claims, kHostNs, {});
        if (!all.ok()) return false;
        for (const kube::Object& c : all->items) {
          const rapidjson::Value* owner = kube::ControllerReference(c);
          if (owner != nullptr && kube::ReadOwnerReference(*owner).uid == kube::Uid(*templated)) {
            made_for_pod = kube::ToJson(c);
            return kube::Label(c, kai::kQueueLabel) == std::string_view("nlp");
          }
        }
        return false;
      },
      std::chrono::seconds(60)))
      << made_for_pod;
  // The host's claim for it never reaches the team's pod, even once it runs.
  ASSERT_TRUE(Eventually(
      [&] {
        Result<kube::Object> p = virt().Get(kPods, "ml", "templated");
        return p.ok() && kube::GetString(*p, {"status", "phase"}) == "Running";
      },
      std::chrono::seconds(120)));
  Result<kube::Object> templated_virtual = virt().Get(kPods, "ml", "templated");
  ASSERT_TRUE(templated_virtual.ok());
  EXPECT_FALSE(kube::Find(*templated_virtual, {"status", "resourceClaimStatuses"}))
      << kube::ToJson(*templated_virtual);

  // Each hostile claim and template says why on itself and never reaches
  // the host; its pod waits there for a claim that does not exist.
  const std::pair<const kube::ResourceType*, std::string> refused[] = {
      {&claims, "admin"},
      {&claims, "nic"},
      {&claims, "tainted"},
      {&claims, "configured"},
      {&templates, "admin-template"}};
  for (const auto& [type, name] : refused) {
    EXPECT_TRUE(Eventually(
        [&] {
          return EventReasons(virt(), type->kind, name, ns_of(name))
              .contains("DeviceClaimNotAllowed");
        },
        std::chrono::seconds(60)))
        << name;
    EXPECT_EQ(client().Get(*type, kHostNs, HostName(name, ns_of(name), "nlp")).status().code(),
              StatusCode::kNotFound)
        << name;
  }
  // The pod that names the host's claim names the tenant's own copy of a
  // claim of that name, which does not exist; the host's claim is untouched.
  Result<kube::Object> hijack = host_pod("hijack");
  ASSERT_TRUE(hijack.ok()) << hijack.status().ToString();
  EXPECT_EQ(kube::GetString((*hijack)["spec"]["resourceClaims"][0], {"resourceClaimName"}),
            HostName("admin-gpu", "ml", "nlp"));
  Result<kube::Object> admin_gpu = client().Get(claims, kHostNs, "admin-gpu");
  ASSERT_TRUE(admin_gpu.ok());
  EXPECT_FALSE(kube::Label(*admin_gpu, kai::kQueueLabel));
  EXPECT_FALSE(kube::Find(*admin_gpu, {"status", "reservedFor"}));
  // The team's own label naming another queue never reached a copy.
  Result<kube::ObjectList> copies =
      client().List(claims, kHostNs, {.label_selector = "kai.scheduler/queue=vision"});
  ASSERT_TRUE(copies.ok());
  EXPECT_TRUE(copies->items.empty());

  // Pods gone, the copies go too (made on demand, kept while named).
  for (const char* name : {"claimant", "templated"}) {
    ASSERT_TRUE(virt().Delete(kPods, "ml", name, {.grace_period_seconds = 0}).ok()) << name;
  }
  EXPECT_TRUE(Eventually(
      [&] {
        return client().Get(claims, kHostNs, HostName("gpus", "ml", "nlp")).status().code() ==
                   StatusCode::kNotFound &&
               client().Get(templates, kHostNs, HostName("one-gpu", "ml", "nlp")).status().code() ==
                   StatusCode::kNotFound;
      },
      std::chrono::seconds(120)));
}

// The sweep of a Tenant that lists no device classes, on the real host:
// it deletes that tenant's claim copies only. A claim labelled as the
// tenant's without a recorded virtual object (not the syncer's), and
// another tenant's copy in the same namespace, stay.
TEST_F(SyncerIntegrationTest, TheDeviceClaimSweepDeletesTheTenantsOwnCopiesOnly) {
  const kube::ResourceType& claims = resources::kResourceClaims;
  auto claim = [&](const std::string& name, const std::string& tenant, bool recorded) {
    const std::string annotations = recorded
                                        ? R"(,"annotations":{"vtenant.io/virtual-namespace":"ml",
            "vtenant.io/virtual-name":")" + name +
                                              R"(","vtenant.io/virtual-kind":"ResourceClaim"})"
                                        : "";
    Result<kube::Object> made =
        client().Create(claims, kHostNs,
                        ParseTestJson(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
            "metadata":{"name":")" + name +
                                      R"(","labels":{"vtenant.io/managed-by":"vtenant-syncer",
            "vtenant.io/tenant":")" + tenant +
                                      R"("})" + annotations +
                                      R"(},"spec":{"devices":{"requests":[{"name":"gpu",
            "exactly":{"deviceClassName":"gpu.example.com"}}]}}})"));
    ASSERT_TRUE(made.ok()) << name << ": " << made.status().ToString();
  };
  claim("retired-copy", "retired", true);
  claim("retired-unrecorded", "retired", false);
  claim("vision-copy", "vision", true);
  int deleted = 0;
  ASSERT_TRUE(DeleteDeviceClaimCopies(client(), kHostNs, "retired", &deleted).ok());
  EXPECT_EQ(deleted, 1);
  EXPECT_EQ(client().Get(claims, kHostNs, "retired-copy").status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(client().Get(claims, kHostNs, "retired-unrecorded").ok());
  EXPECT_TRUE(client().Get(claims, kHostNs, "vision-copy").ok());
  for (const char* name : {"retired-unrecorded", "vision-copy"})
    EXPECT_TRUE(client().Delete(claims, kHostNs, name).ok()) << name;
}

TEST_F(SyncerIntegrationTest, HostileObjectsAreRefusedOrNeutralisedOnTheHost) {
  const kube::ResourceType& claims = resources::kPersistentVolumeClaims;
  const kube::ResourceType kVolumes{"", "v1", "persistentvolumes", "PersistentVolume", false};
  const kube::ResourceType& slices = resources::kEndpointSlices;
  using kube::resources::kSecrets;
  using kube::resources::kServices;
  // On the host: another team's volume, and a claim in the tenant's host
  // namespace that is not the tenant's (a control plane's data, say).
  ASSERT_TRUE(client()
                  .Create(kVolumes, "", ParseTestJson(R"({"apiVersion":"v1",
      "kind":"PersistentVolume","metadata":{"name":"pv-vision-weights"},
      "spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],
              "storageClassName":"vision-weights","hostPath":{"path":"/data/vision"}}})"))
                  .ok());
  ASSERT_TRUE(client()
                  .Create(claims, kHostNs, ParseTestJson(R"({"apiVersion":"v1",
      "kind":"PersistentVolumeClaim","metadata":{"name":"etcd-data","namespace":"vtenant-nlp"},
      "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}})"))
                  .ok());
  // The host Node's address, as the syncer's cache sees it.
  ASSERT_TRUE(Eventually(
      [] {
        kube::ObjectPtr node =
            syncer_->informers().Host(kube::resources::kNodes).cache().Get("l40s-0");
        return node != nullptr &&
               kube::ToJson(*node).find(R"("address":"10.243.0.1")") != std::string::npos;
      },
      std::chrono::seconds(60)));
  ASSERT_TRUE(virt()
                  .Create(kube::resources::kServiceAccounts, "ml", ParseTestJson(R"({
      "apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"vtenant-syncer"}})"))
                  .ok());
  for (const char* json : {
           // Binds a named host volume.
           R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"steal"},
               "spec":{"volumeName":"pv-vision-weights","storageClassName":"vision-weights",
               "accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}})",
           // Clones a claim of the host namespace that is not the tenant's.
           R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"clone"},
               "spec":{"dataSource":{"kind":"PersistentVolumeClaim","name":"etcd-data"},
               "accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}})",
           // A token Secret for the syncer's own ServiceAccount, which the
           // host's token controller would fill with the syncer's rights.
           R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"sa-token",
               "annotations":{"kubernetes.io/service-account.name":"vtenant-syncer"}},
               "type":"kubernetes.io/service-account-token"})",
       }) {
    kube::Object object = ParseTestJson(json);
    const kube::ResourceType& type =
        kube::GetString(object, {"kind"}) == "Secret" ? kSecrets : claims;
    Result<kube::Object> created = virt().Create(type, "ml", object);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }
  // Claims and Secrets reach the host when a pod mounts them.
  ASSERT_TRUE(virt()
                  .Create(kPods, "ml", ParseTestJson(R"({"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"hostile-mounts","namespace":"ml"},
      "spec":{"schedulerName":"kai-scheduler","containers":[{"name":"c","image":"i"}],
        "volumes":[{"name":"a","persistentVolumeClaim":{"claimName":"steal"}},
                   {"name":"b","persistentVolumeClaim":{"claimName":"clone"}},
                   {"name":"c","secret":{"secretName":"sa-token"}}]}})"))
                  .ok());
  for (const char* json : {
           R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"exposed"},
               "spec":{"type":"NodePort","externalIPs":["10.243.0.1"],"selector":{"app":"x"},
               "ports":[{"port":80,"nodePort":30080}]}})",
           R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"balanced",
               "annotations":{"metallb.universe.tf/loadBalancerIPs":"10.243.0.9"}},
               "spec":{"type":"LoadBalancer","loadBalancerIP":"10.243.0.9","selector":{"app":"x"},
               "ports":[{"port":80}]}})",
           R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"alias"},
               "spec":{"type":"ExternalName","externalName":"kubernetes.default.svc.cluster.local"}})",
           R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"db2"},
               "spec":{"ports":[{"port":5432,"protocol":"TCP"}]}})",
       }) {
    Result<kube::Object> created = virt().Create(kServices, "ml", ParseTestJson(json));
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }
  // A slice pointing at another tenant's pod and at the host's Node.
  ASSERT_TRUE(virt()
                  .Create(slices, "ml", HandWrittenSlice("db2-foreign", "db2", R"([
        {"addresses":["192.168.5.20"],
         "targetRef":{"kind":"Pod","namespace":"vtenant-vision","name":"train"}},
        {"addresses":["10.243.0.1"]}])"))
                  .ok());

  // The claim that names a volume never reaches the host, and says why.
  EXPECT_TRUE(Eventually(
      [&] {
        return EventReasons(virt(), "PersistentVolumeClaim", "steal")
            .contains("VolumeClaimNotAllowed");
      },
      std::chrono::seconds(60)));
  EXPECT_FALSE(client().Get(claims, kHostNs, HostName("steal", "ml", "nlp")).ok());
  Result<kube::Object> volume = client().Get(kVolumes, "", "pv-vision-weights");
  ASSERT_TRUE(volume.ok());
  EXPECT_FALSE(kube::Find(*volume, {"spec", "claimRef"}));
  // The clone clones the tenant's own copy of a claim of that name.
  ASSERT_TRUE(
      Eventually([&] { return client().Get(claims, kHostNs, HostName("clone", "ml", "nlp")).ok(); },
                 std::chrono::seconds(60)));
  Result<kube::Object> clone = client().Get(claims, kHostNs, HostName("clone", "ml", "nlp"));
  ASSERT_TRUE(clone.ok());
  EXPECT_EQ(kube::GetString(*clone, {"spec", "dataSource", "name"}),
            HostName("etcd-data", "ml", "nlp"));
  EXPECT_EQ(kube::GetString(*clone, {"spec", "dataSourceRef", "name"}),
            HostName("etcd-data", "ml", "nlp"));
  // The token Secret is Opaque on the host, without the account's name.
  ASSERT_TRUE(Eventually(
      [&] { return client().Get(kSecrets, kHostNs, HostName("sa-token", "ml", "nlp")).ok(); },
      std::chrono::seconds(60)));
  Result<kube::Object> token = client().Get(kSecrets, kHostNs, HostName("sa-token", "ml", "nlp"));
  ASSERT_TRUE(token.ok());
  EXPECT_EQ(kube::GetString(*token, {"type"}), "Opaque");
  EXPECT_FALSE(kube::Annotation(*token, "kubernetes.io/service-account.name"));

  // The NodePort is a ClusterIP without external IPs or a node port.
  ASSERT_TRUE(Eventually(
      [&] { return client().Get(kServices, kHostNs, HostName("exposed", "ml", "nlp")).ok(); },
      std::chrono::seconds(60)));
  Result<kube::Object> exposed = client().Get(kServices, kHostNs, HostName("exposed", "ml", "nlp"));
  ASSERT_TRUE(exposed.ok());
  EXPECT_EQ(kube::GetString(*exposed, {"spec", "type"}), "ClusterIP");
  EXPECT_FALSE(kube::Find(*exposed, {"spec", "externalIPs"}));
  EXPECT_FALSE(kube::Find((*exposed)["spec"]["ports"][0], {"nodePort"}));
  EXPECT_TRUE(Eventually([&] {
    std::set<std::string> reasons = EventReasons(virt(), "Service", "exposed");
    return reasons.contains("ServiceTypeNotAllowed") && reasons.contains("ServiceFieldNotAllowed");
  }));
  // The LoadBalancer is a ClusterIP without the address it asked for.
  ASSERT_TRUE(Eventually(
      [&] { return client().Get(kServices, kHostNs, HostName("balanced", "ml", "nlp")).ok(); },
      std::chrono::seconds(60)));
  Result<kube::Object> balanced =
      client().Get(kServices, kHostNs, HostName("balanced", "ml", "nlp"));
  ASSERT_TRUE(balanced.ok());
  EXPECT_EQ(kube::GetString(*balanced, {"spec", "type"}), "ClusterIP");
  EXPECT_FALSE(kube::Find(*balanced, {"spec", "loadBalancerIP"}));
  EXPECT_FALSE(kube::Annotation(*balanced, "metallb.universe.tf/loadBalancerIPs"));
  // The alias never reaches the host.
  EXPECT_TRUE(Eventually(
      [&] { return EventReasons(virt(), "Service", "alias").contains("ServiceTypeNotAllowed"); },
      std::chrono::seconds(60)));
  EXPECT_FALSE(client().Get(kServices, kHostNs, HostName("alias", "ml", "nlp")).ok());

  // The slice keeps the external address only, its targetRef made a pod
  // of this tenant, its manager the syncer.
  const std::string host_slice = HostName("db2-foreign", "ml", "nlp");
  ASSERT_TRUE(Eventually([&] { return client().Get(slices, kHostNs, host_slice).ok(); },
                         std::chrono::seconds(60)));
  Result<kube::Object> slice = client().Get(slices, kHostNs, host_slice);
  ASSERT_TRUE(slice.ok());
  ASSERT_EQ((*slice)["endpoints"].Size(), 1u) << kube::ToJson(*slice);
  const rapidjson::Value& endpoint = (*slice)["endpoints"][0];
  EXPECT_EQ(kube::GetString(endpoint["addresses"][0], {}), "192.168.5.20");
  EXPECT_EQ(kube::GetString(endpoint, {"targetRef", "namespace"}), kHostNs);
  EXPECT_EQ(kube::GetString(endpoint, {"targetRef", "name"}),
            HostName("train", "vtenant-vision", "nlp"));
  EXPECT_EQ(kube::Label(*slice, "endpointslice.kubernetes.io/managed-by"),
            "vtenant-syncer.vtenant.io");
  EXPECT_EQ(kube::Label(*slice, "kubernetes.io/service-name"), HostName("db2", "ml", "nlp"));
  EXPECT_TRUE(Eventually([&] {
    return EventReasons(virt(), "EndpointSlice", "db2-foreign")
        .contains("EndpointAddressNotAllowed");
  }));
}

// Objects whose host names vCluster's form would share, and a tenant Secret
// named as the token Secrets once were, all live side by side; a host
// object that holds a name for another virtual object (what a hash
// collision would leave) is neither overwritten nor deleted, and the
// tenant is told.
TEST_F(SyncerIntegrationTest, CollidingObjectsCoexistAndAClashIsNeverOverwritten) {
  for (const char* ns : {"c", "b-x-c"}) {
    ASSERT_TRUE(
        virt()
            .Create(kube::resources::kNamespaces, "",
                    kube::BuildJson(kube::JsonObject{{"apiVersion", "v1"},
                                                     {"kind", "Namespace"},
                                                     {"metadata", kube::JsonObject{{"name", ns}}}}))
            .ok());
  }
  ASSERT_TRUE(Eventually(
      [] { return virt().Get(kube::resources::kServiceAccounts, "c", "default").ok(); }));
  // Pod "p" in "c" projects a token; the tenant's own Secret "p-sa-token"
  // (the name the token's Secret had) is mounted too.
  auto pod = [](const std::string& ns, const std::string& name, const rapidjson::Value& volumes) {
    return kube::BuildJson(kube::JsonObject{
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", kube::JsonObject{{"name", name}, {"namespace", ns}}},
        {"spec", kube::JsonObject{{"schedulerName", "kai-scheduler"},
                                  {"serviceAccountName", "default"},
                                  {"containers", kube::JsonArray{kube::JsonObject{{"name", "c"},
                                                                                  {"image", "i"}}}},
                                  {"volumes", kube::JsonValue(volumes)}}}});
  };
  for (auto [ns, name] : {std::pair{"c", "a-x-b"}, std::pair{"b-x-c", "a"}}) {
    ASSERT_TRUE(virt()
                    .Create(kube::resources::kConfigMaps, ns,
                            kube::BuildJson(kube::JsonObject{
                                {"apiVersion", "v1"},
                                {"kind", "ConfigMap"},
                                {"metadata", kube::JsonObject{{"name", name}, {"namespace", ns}}},
                                {"data", kube::JsonObject{{"who", std::string(ns) + "/" + name}}}}))
                    .ok());
    ASSERT_TRUE(
        virt()
            .Create(kPods, ns,
                    pod(ns, name,
                        kube::BuildJson(kube::JsonArray{kube::JsonObject{
                            {"name", "v"}, {"configMap", kube::JsonObject{{"name", name}}}}})))
            .ok());
  }
  ASSERT_TRUE(virt()
                  .Create(kube::resources::kSecrets, "c",
                          ParseTestJson(R"({"apiVersion":"v1","kind":"Secret","metadata":{
                              "name":"p-sa-token","namespace":"c"},"data":{"mine":"dGVuYW50"}})"))
                  .ok());
  ASSERT_TRUE(
      virt()
          .Create(kPods, "c", pod("c", "p", ParseTestJson(R"([{"name":"api","projected":{"sources":[
                                           {"serviceAccountToken":{"path":"token"}}]}},
                                        {"name":"own","secret":{"secretName":"p-sa-token"}}])")))
          .ok());

  const std::string first = HostName("a-x-b", "c", "nlp");
  const std::string second = HostName("a", "b-x-c", "nlp");
  ASSERT_NE(first, second);
  ASSERT_TRUE(Eventually(
      [&] {
        return client().Get(kPods, kHostNs, first).ok() &&
               client().Get(kPods, kHostNs, second).ok() &&
               client().Get(kPods, kHostNs, HostName("p", "c", "nlp")).ok();
      },
      std::chrono::seconds(60)));
  for (auto [host_name, who] : {std::pair{first, "c/a-x-b"}, std::pair{second, "b-x-c/a"}}) {
    Result<kube::Object> copy = client().Get(kube::resources::kConfigMaps, kHostNs, host_name);
    ASSERT_TRUE(copy.ok()) << host_name;
    EXPECT_EQ(kube::GetString(*copy, {"data", "who"}), who);
  }
  Result<kube::Object> token =
      client().Get(kube::resources::kSecrets, kHostNs, TokenSecretName("p", "c", "nlp"));
  Result<kube::Object> own =
      client().Get(kube::resources::kSecrets, kHostNs, HostName("p-sa-token", "c", "nlp"));
  ASSERT_TRUE(token.ok() && own.ok());
  EXPECT_FALSE(kube::GetString(*token, {"data", "token"}).empty());
  EXPECT_EQ(kube::GetString(*own, {"data", "mine"}), "dGVuYW50");

  // A host Service that records another virtual Service, at the name of c/web.
  ASSERT_TRUE(
      client()
          .Create(
              kube::resources::kServices, kHostNs,
              kube::BuildJson(kube::JsonObject{
                  {"apiVersion", "v1"},
                  {"kind", "Service"},
                  {"metadata",
                   kube::JsonObject{
                       {"name", HostName("web", "c", "nlp")},
                       {"labels", kube::JsonObject{{"vtenant.io/managed-by", "vtenant-syncer"},
                                                   {"vtenant.io/tenant", "nlp"}}},
                       {"annotations", kube::JsonObject{{"vtenant.io/virtual-namespace", "c"},
                                                        {"vtenant.io/virtual-name", "other"}}}}},
                  {"spec", kube::JsonObject{{"ports",
                                             kube::JsonArray{kube::JsonObject{{"port", 7000}}}}}}}))
          .ok());
  // A Service of namespace c on port 80, made in the team's cluster.
  auto create_in_c = [](const std::string& name) {
    return virt().Create(
        kube::resources::kServices, "c",
        kube::BuildJson(kube::JsonObject{
            {"apiVersion", "v1"},
            {"kind", "Service"},
            {"metadata", kube::JsonObject{{"name", name}, {"namespace", "c"}}},
            {"spec",
             kube::JsonObject{{"ports", kube::JsonArray{kube::JsonObject{{"port", 80}}}}}}}));
  };
  ASSERT_TRUE(create_in_c("web").ok());
  EXPECT_TRUE(Eventually(
      [] {
        return kube::FindEvent(virt(), "c", "involvedObject.name=web", "HostNameClash",
                               {"Service c/other"})
            .has_value();
      },
      std::chrono::seconds(60)));
  ASSERT_TRUE(virt().Delete(kube::resources::kServices, "c", "web").ok());
  // Left as it was: still the other's port, and still there once the
  // Service syncer has moved on to a Service made after the deletion.
  ASSERT_TRUE(create_in_c("after").ok());
  ASSERT_TRUE(Eventually(
      [] {
        return client()
            .Get(kube::resources::kServices, kHostNs, HostName("after", "c", "nlp"))
            .ok();
      },
      std::chrono::seconds(60)));
  for (auto [ns, name] : {std::pair{"c", "a-x-b"}, std::pair{"b-x-c", "a"}, std::pair{"c", "p"}}) {
    ASSERT_TRUE(virt().Delete(kPods, ns, name, {.grace_period_seconds = 0}).ok());
  }
  EXPECT_TRUE(Eventually(
      [&] {
        return !client().Get(kPods, kHostNs, first).ok() &&
               !client().Get(kPods, kHostNs, second).ok() &&
               !client()
                    .Get(kube::resources::kSecrets, kHostNs, TokenSecretName("p", "c", "nlp"))
                    .ok();
      },
      std::chrono::seconds(60)));
  Result<kube::Object> kept =
      client().Get(kube::resources::kServices, kHostNs, HostName("web", "c", "nlp"));
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kube::GetInt(kept->operator[]("spec")["ports"][0], {"port"}), 7000);
  ASSERT_TRUE(
      client().Delete(kube::resources::kServices, kHostNs, HostName("web", "c", "nlp")).ok());
  ASSERT_TRUE(virt().Delete(kube::resources::kServices, "c", "after").ok());
}

// Runs last: the host API server goes away for longer than the Lease lasts.
TEST_F(SyncerIntegrationTest, HostApiServerOutageCostsTheLeaseAndIsSurvived) {
  kube::Client& virt = virtual_cluster_->client();
  ASSERT_TRUE(virt.Create(kube::resources::kNamespaces, "",
                          ParseTestJson(R"({"apiVersion":"v1","kind":"Namespace",
                              "metadata":{"name":"outage"}})"))
                  .ok());
  auto create = [&](int from, int to) {
    for (int i = from; i < to; ++i) {
      Result<kube::Object> created = virt.Create(
          kPods, "outage",
          kube::BuildJson(kube::JsonObject{
              {"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               kube::JsonObject{{"name", "p-" + std::to_string(i)}, {"namespace", "outage"}}},
              {"spec", kube::JsonObject{{"schedulerName", "kai-scheduler"},
                                        {"containers", kube::JsonArray{kube::JsonObject{
                                                           {"name", "c"}, {"image", "i"}}}}}}}));
      ASSERT_TRUE(created.ok()) << created.status().ToString();
    }
  };
  // Host pods of the namespace, each standing for a virtual pod of the same
  // UID; -1 on an orphan or a duplicate, -2 while a server does not answer.
  auto matching = [&]() -> int {
    Result<kube::ObjectList> host = client().ListAll(kPods, kHostNs);
    Result<kube::ObjectList> pods = virt.ListAll(kPods, "outage");
    if (!host.ok() || !pods.ok()) return -2;
    std::map<std::string, std::string> uid_by_name;
    for (const kube::Object& p : pods->items) {
      uid_by_name[std::string(kube::Name(p))] = std::string(kube::Uid(p));
    }
    std::set<std::string> seen;
    for (const kube::Object& p : host->items) {
      if (kube::Annotation(p, kVirtualNamespaceAnnotation) != "outage") continue;
      std::string name(kube::Annotation(p, kVirtualNameAnnotation).value_or(""));
      auto it = uid_by_name.find(name);
      if (it == uid_by_name.end() || kube::Annotation(p, kVirtualUidAnnotation) != it->second ||
          !seen.insert(name).second) {
        return -1;
      }
    }
    return static_cast<int>(seen.size());
  };
  create(0, 5);
  ASSERT_TRUE(Eventually([&] { return matching() == 5; }, std::chrono::seconds(60)));
  ASSERT_TRUE(manager_->health_server().Ready().ok());

  cluster().api_server().Stop();
  // The Lease cannot be renewed: leadership goes, the syncer does not.
  EXPECT_TRUE(Eventually([] { return !manager_->IsLeader(); }, std::chrono::seconds(60)));
  Status ready = manager_->health_server().Ready();
  EXPECT_FALSE(ready.ok());
  EXPECT_NE(ready.message().find("leader"), std::string::npos) << ready.ToString();
  // Work arrives on the virtual side meanwhile, some of it undone.
  create(5, 15);
  ASSERT_TRUE(virt.Delete(kPods, "outage", "p-0").ok());
  ASSERT_TRUE(cluster().api_server().Restart().ok());

  EXPECT_TRUE(Eventually([] { return manager_->IsLeader(); }, std::chrono::seconds(120)));
  EXPECT_TRUE(Eventually([&] { return matching() == 14; }, std::chrono::seconds(120)));
  EXPECT_TRUE(
      Eventually([] { return manager_->health_server().Ready().ok(); }, std::chrono::seconds(60)));
  EXPECT_EQ(matching(), 14);
}

}  // namespace
}  // namespace vtenant::syncer
