// The syncer's reconcilers end to end over two in-memory API servers: one
// FakeClient plays the virtual cluster, another the host.
#include "syncer/syncer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include "base/eventually.h"
#include "base/rfc3339.h"
#include "kai/names.h"
#include "kube/json_builder.h"
#include "kube/owner_reference.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/fake_clock.h"
#include "syncer/names.h"
#include "syncer/resources.h"
#include "syncer/testing/test_objects.h"

namespace vtenant::syncer {
namespace {

using kube::resources::kConfigMaps;
using kube::resources::kEvents;
using kube::resources::kJobs;
using kube::resources::kNodes;
using kube::resources::kPodGroups;
using kube::resources::kPods;
using testing::Json;
using testing::NlpConfig;

constexpr char kHostNs[] = "vtenant-nlp";

// Pod ml/`name` for the KAI scheduler, with the members of `extra_meta`
// and `extra_spec` (JSON objects) added to its metadata and spec.
kube::Object PodJson(
    const std::string& name,
    const rapidjson::Value& extra_meta = rapidjson::Value(rapidjson::kObjectType),
    const rapidjson::Value& extra_spec = rapidjson::Value(rapidjson::kObjectType)) {
  kube::JsonObject meta{{"name", name}, {"namespace", "ml"}};
  for (const auto& member : extra_meta.GetObject()) {
    meta.Set(member.name.GetString(), kube::JsonValue(member.value));
  }
  kube::JsonObject spec{
      {"schedulerName", "kai-scheduler"},
      {"containers", kube::JsonArray{kube::JsonObject{{"name", "c"}, {"image", "i"}}}}};
  for (const auto& member : extra_spec.GetObject()) {
    spec.Set(member.name.GetString(), kube::JsonValue(member.value));
  }
  return kube::BuildJson(kube::JsonObject{{"apiVersion", "v1"},
                                          {"kind", "Pod"},
                                          {"metadata", std::move(meta)},
                                          {"spec", std::move(spec)}});
}

// An entry of metadata.ownerReferences that makes `owner` the controller.
kube::JsonObject ControllerRef(const kube::OwnerReference& owner) {
  return kube::JsonObject{{"apiVersion", owner.api_version},
                          {"kind", owner.kind},
                          {"name", owner.name},
                          {"uid", owner.uid},
                          {"controller", true}};
}

// What a pod's metadata gets to be controlled by `owner` (see PodJson).
kube::Object ControlledBy(const kube::OwnerReference& owner) {
  return kube::BuildJson(
      kube::JsonObject{{"ownerReferences", kube::JsonArray{ControllerRef(owner)}}});
}

class SyncerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(host_
                    .Create(kNodes, "", Json(R"({"apiVersion":"v1","kind":"Node","metadata":{
        "name":"l40s-0","labels":{"nvidia.com/gpu.product":"NVIDIA-L40S"}},
        "status":{"capacity":{"nvidia.com/gpu":"1"},"allocatable":{"nvidia.com/gpu":"1"}}})"))
                    .ok());
  }
  void TearDown() override { StopSyncer(); }

  // A syncer on a Manager of its own, running on a thread; with
  // `leader_elect`, a Lease that is lost after 400 ms without renewal.
  void StartSyncer(SyncerConfig config = NlpConfig(), bool leader_elect = false,
                   EventRateLimitOptions event_rate_limit = {}) {
    kube::ManagerOptions options = SyncerManagerOptions(config, leader_elect);
    options.handle_signals = false;
    options.registry = &registry_;
    options.informer_defaults.initial_backoff = std::chrono::milliseconds(10);
    options.informer_defaults.max_backoff = std::chrono::milliseconds(50);
    if (options.leader_election) {
      options.leader_election->lease_duration = std::chrono::milliseconds(600);
      options.leader_election->renew_deadline = std::chrono::milliseconds(400);
      options.leader_election->retry_period = std::chrono::milliseconds(100);
    }
    Result<std::unique_ptr<kube::Manager>> manager =
        kube::Manager::Create(host_, std::move(options));
    ASSERT_TRUE(manager.ok()) << manager.status().ToString();
    manager_ = std::move(*manager);
    syncer_ = std::make_unique<Syncer>(*manager_, manager_->AddCluster("virtual", virtual_),
                                       std::move(config),
                                       SyncerOptions{.probe_period = std::chrono::milliseconds(20),
                                                     .wall_clock = [this] { return WallNow(); },
                                                     .token_recheck = token_recheck_,
                                                     .event_rate_limit = event_rate_limit});
    run_ = std::thread([this] { run_status_ = manager_->Run(); });
    ASSERT_TRUE(Eventually([&] { return manager_->CachesHealthy().ok(); }));
  }

  // Stops it as SIGTERM would; a no-op when none runs.
  void StopSyncer() {
    if (!manager_) return;
    manager_->Stop();
    run_.join();
    EXPECT_TRUE(run_status_.ok()) << run_status_.ToString();
    syncer_.reset();
    manager_.reset();
  }

  void CreateVirtual(const kube::ResourceType& type, const kube::Object& object) {
    Result<kube::Object> created = virtual_.Create(type, "ml", object);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }
  void CreateVirtual(const kube::ResourceType& type, const std::string& json) {
    CreateVirtual(type, Json(json));
  }

  // A new version of virtual object `name` in "ml": its label `key` set to
  // `value`.
  void SetVirtualLabel(const kube::ResourceType& type, const std::string& name,
                       const std::string& key, const std::string& value) {
    Result<kube::Object> updated =
        virtual_.UpdateWithRetry(type, "ml", name, [&](kube::Object& object) {
          kube::SetString(object, {"metadata", "labels"}, key, value);
          return Status::Ok();
        });
    ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  }

  // What the host's API server does to a new Service (FakeClient does
  // not): host Service `host_name` gets cluster IP `ip`.
  void AllocateHostClusterIp(const std::string& host_name, const std::string& ip) {
    Result<kube::Object> updated = host_.UpdateWithRetry(
        kube::resources::kServices, kHostNs, host_name, [&](kube::Object& svc) {
          kube::SetString(svc, {"spec"}, "clusterIP", ip);
          return Status::Ok();
        });
    ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  }

  kube::Object HostPod(const std::string& virtual_name) {
    Result<kube::Object> pod = host_.Get(kPods, kHostNs, HostName(virtual_name, "ml", "nlp"));
    return pod.ok() ? std::move(*pod) : kube::Object(rapidjson::kNullType);
  }
  bool HostPodExists(const std::string& virtual_name) {
    return host_.Get(kPods, kHostNs, HostName(virtual_name, "ml", "nlp")).ok();
  }
  size_t HostPodCount() {
    Result<kube::ObjectList> pods = host_.List(kPods, kHostNs);
    return pods.ok() ? pods->items.size() : 0;
  }
  kube::Object VirtualPod(const std::string& name) {
    Result<kube::Object> pod = virtual_.Get(kPods, "ml", name);
    return pod.ok() ? std::move(*pod) : kube::Object(rapidjson::kNullType);
  }

  // What the host's scheduler and kubelet would do: bind and run.
  void ScheduleAndRunOnHost(const std::string& virtual_name) {
    const std::string host_name = HostName(virtual_name, "ml", "nlp");
    ASSERT_TRUE(host_.Bind(kHostNs, host_name, "l40s-0").ok());
    Result<kube::Object> running = host_.UpdateWithRetry(
        kPods, kHostNs, host_name,
        [](kube::Object& pod) {
          kube::Object status = Json(R"({"phase":"Running","podIP":"10.244.0.9",
              "hostIP":"192.168.0.2","qosClass":"BestEffort",
              "conditions":[{"type":"PodScheduled","status":"True"},{"type":"Ready","status":"True"}]})");
          pod.RemoveMember("status");
          pod.AddMember("status", rapidjson::Value(status, pod.GetAllocator()), pod.GetAllocator());
          return Status::Ok();
        },
        "status");
    ASSERT_TRUE(running.ok()) << running.status().ToString();
  }

  // Reconciles the PodGroup controller has finished.
  int64_t PodGroupReconciles() {
    const std::string text = registry_.Render();
    const std::string line =
        R"(vtenant_reconcile_total{controller="podgroup-syncer",result="ok"} )";
    size_t at = text.find(line);
    return at == std::string::npos ? 0 : std::stoll(text.substr(at + line.size()));
  }

  // The value of counter `line` ("name{labels} ") in /metrics; 0 when absent.
  int64_t Metric(const std::string& line) {
    const std::string text = registry_.Render();
    size_t at = text.find("\n" + line);
    return at == std::string::npos ? 0 : std::stoll(text.substr(at + 1 + line.size()));
  }

  // An Event a host component writes about host object `host_name` (a pod
  // unless `kind` says otherwise) in the tenant's host namespace.
  Result<kube::Object> HostEvent(const std::string& name, const std::string& host_name,
                                 const std::string& message, const std::string& kind = "Pod",
                                 const std::string& uid = "") {
    kube::JsonObject involved{{"kind", kind}, {"namespace", kHostNs}, {"name", host_name}};
    if (!uid.empty()) involved.Set("uid", uid);
    return host_.Create(kEvents, kHostNs,
                        kube::BuildJson(kube::JsonObject{
                            {"apiVersion", "v1"},
                            {"kind", "Event"},
                            {"metadata", kube::JsonObject{{"name", name}, {"namespace", kHostNs}}},
                            {"involvedObject", std::move(involved)},
                            {"type", "Warning"},
                            {"reason", "Reclaimed"},
                            {"count", 1},
                            {"firstTimestamp", "2026-12-02T11:00:00Z"},
                            {"lastTimestamp", "2026-12-02T11:00:00Z"},
                            {"source", kube::JsonObject{{"component", "vtenant-scheduler"}}},
                            {"message", message}}));
  }

  // The Events the team sees in namespace ml.
  std::vector<kube::Object> TeamEvents() {
    Result<kube::ObjectList> events = virtual_.List(kEvents, "ml");
    return events.ok() ? std::move(events->items) : std::vector<kube::Object>{};
  }

  // The virtual API server's TokenRequest: a new token each time
  // ("token-<n>"), valid for an hour from WallNow(); n counts in
  // tokens_issued_.
  void ServeTokens() {
    virtual_.HandleSubresource(
        "serviceaccounts", "token",
        [this](std::string_view, std::string_view,
               const rapidjson::Value&) -> Result<kube::Object> {
          const int n = ++tokens_issued_;
          return kube::BuildJson(kube::JsonObject{
              {"apiVersion", "authentication.k8s.io/v1"},
              {"kind", "TokenRequest"},
              {"spec", kube::JsonObject{{"expirationSeconds", 3600}}},
              {"status", kube::JsonObject{{"token", "token-" + std::to_string(n)},
                                          {"expirationTimestamp",
                                           FormatRfc3339(WallNow() + std::chrono::hours(1))}}}});
        });
    CreateVirtual(kube::resources::kServiceAccounts,
                  R"({"apiVersion":"v1","kind":"ServiceAccount",
                      "metadata":{"name":"default","namespace":"ml"}})");
  }

  // The data of the host Secret that carries pod ml/`name`'s token
  // (base64); "" while there is none.
  std::string HostToken(const std::string& name) {
    Result<kube::Object> secret =
        host_.Get(kube::resources::kSecrets, kHostNs, TokenSecretName(name, "ml", "nlp"));
    return secret.ok() ? std::string(kube::GetString(*secret, {"data", "token"})) : "";
  }

  // Calendar time that moves only with clock_, so token lifetimes can pass.
  std::chrono::system_clock::time_point WallNow() const {
    return std::chrono::system_clock::from_time_t(1796000000) + (clock_.Now() - clock_start_);
  }

  kube::FakeClock clock_;
  const kube::Clock::TimePoint clock_start_ = clock_.Now();
  std::atomic<int> tokens_issued_{0};
  std::chrono::milliseconds token_recheck_ = std::chrono::minutes(10);
  kube::FakeClient virtual_;
  kube::FakeClient host_;
  kube::Registry registry_;
  std::unique_ptr<kube::Manager> manager_;
  std::unique_ptr<Syncer> syncer_;
  std::thread run_;
  Status run_status_;
};

TEST_F(SyncerTest, PodGoesDownWithTheTenantsQueueAndItsReferences) {
  StartSyncer();
  CreateVirtual(kConfigMaps, R"({"apiVersion":"v1","kind":"ConfigMap",
      "metadata":{"name":"cfg","namespace":"ml"},"data":{"a":"b"}})");
  CreateVirtual(kConfigMaps, R"({"apiVersion":"v1","kind":"ConfigMap",
      "metadata":{"name":"unused","namespace":"ml"},"data":{"a":"b"}})");
  CreateVirtual(kPods, PodJson("p1", Json(R"({"labels":{"kai.scheduler/queue":"vision"}})"),
                               Json(R"({"volumes":[{"name":"v","configMap":{"name":"cfg"}}]})")));
  ASSERT_TRUE(Eventually([&] { return HostPodExists("p1"); }));
  kube::Object host = HostPod("p1");
  EXPECT_EQ(kube::Label(host, kQueueLabel), "nlp");
  EXPECT_EQ(kube::Annotation(host, kVirtualUidAnnotation), kube::Uid(VirtualPod("p1")));
  // The ConfigMap's own event may reach the syncer after the pod's: the
  // host pod then waits for its copy, as it would for a missing object.
  EXPECT_TRUE(Eventually([&] { return host_.Get(kConfigMaps, kHostNs, "cfg-x-ml-x-nlp").ok(); }));
  EXPECT_FALSE(host_.Get(kConfigMaps, kHostNs, "unused-x-ml-x-nlp").ok());

  // Deleting the virtual pod deletes the host pod and the copy nothing needs.
  ASSERT_TRUE(virtual_.Delete(kPods, "ml", "p1").ok());
  EXPECT_TRUE(Eventually([&] { return !HostPodExists("p1"); }));
  EXPECT_TRUE(Eventually([&] { return !host_.Get(kConfigMaps, kHostNs, "cfg-x-ml-x-nlp").ok(); }));
}

TEST_F(SyncerTest, ScheduledHostPodBindsTheVirtualPodToAMirroredNode) {
  StartSyncer();
  CreateVirtual(kPods, PodJson("p1"));
  ASSERT_TRUE(Eventually([&] { return HostPodExists("p1"); }));
  ScheduleAndRunOnHost("p1");
  ASSERT_TRUE(Eventually([&] {
    kube::Object pod = VirtualPod("p1");
    return pod.IsObject() && kube::GetString(pod, {"status", "phase"}) == "Running";
  }));
  kube::Object pod = VirtualPod("p1");
  EXPECT_EQ(kube::GetString(pod, {"spec", "nodeName"}), "l40s-0");
  EXPECT_EQ(kube::GetString(pod, {"status", "podIP"}), "10.244.0.9");
  Result<kube::Object> node = virtual_.Get(kNodes, "", "l40s-0");
  ASSERT_TRUE(node.ok());
  EXPECT_EQ(kube::Label(*node, "nvidia.com/gpu.product"), "NVIDIA-L40S");
  EXPECT_EQ(kube::GetString(*node, {"status", "capacity", "nvidia.com/gpu"}), "1");

  // The last pod on it goes, and so does the mirror.
  ASSERT_TRUE(virtual_.Delete(kPods, "ml", "p1").ok());
  EXPECT_TRUE(Eventually([&] { return !virtual_.Get(kNodes, "", "l40s-0").ok(); }));
}

TEST_F(SyncerTest, RefusedPodNeverReachesTheHostAndSaysWhy) {
  StartSyncer();
  CreateVirtual(kPods, PodJson("frac", Json(R"({"annotations":{"gpu-fraction":"1.5"}})")));
  CreateVirtual(kPods, R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"priv",
      "namespace":"ml"},"spec":{"containers":[{"name":"c","image":"i",
      "securityContext":{"privileged":true}}]}})");
  CreateVirtual(kPods, PodJson("ok"));
  for (const char* name : {"frac", "priv"}) {
    ASSERT_TRUE(Eventually([&] {
      kube::Object pod = VirtualPod(name);
      return pod.IsObject() && !kube::GetString(pod, {"status", "reason"}).empty();
    })) << name;
  }
  EXPECT_EQ(kube::GetString(VirtualPod("frac"), {"status", "reason"}), "InvalidGpuAnnotation");
  EXPECT_EQ(kube::GetString(VirtualPod("priv"), {"status", "reason"}),
            "PrivilegedFeatureNotAllowed");
  ASSERT_TRUE(Eventually([&] { return HostPodExists("ok"); }));
  EXPECT_FALSE(HostPodExists("frac"));
  EXPECT_FALSE(HostPodExists("priv"));
  Result<kube::ObjectList> events = virtual_.List(kEvents, "ml");
  ASSERT_TRUE(events.ok());
  std::set<std::string> reasons;
  for (const kube::Object& e : events->items) {
    reasons.emplace(kube::GetString(e, {"reason"}));
    EXPECT_EQ(kube::GetString(e, {"type"}), "Warning");
  }
  EXPECT_TRUE(reasons.contains("InvalidGpuAnnotation"));
  EXPECT_TRUE(reasons.contains("PrivilegedFeatureNotAllowed"));
}

TEST_F(SyncerTest, RefusedObjectsStayOffTheHostAndSayWhyOncePerVersion) {
  StartSyncer();
  const kube::ResourceType& claims = syncer::resources::kPersistentVolumeClaims;
  CreateVirtual(claims, R"({"apiVersion":"v1","kind":"PersistentVolumeClaim",
      "metadata":{"name":"theirs","namespace":"ml"},"spec":{"volumeName":"pv-vision",
      "accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}})");
  CreateVirtual(kPods, PodJson("mounts", Json("{}"), Json(R"({"volumes":[{"name":"d",
                               "persistentVolumeClaim":{"claimName":"theirs"}}]})")));
  // The pod goes down and waits for its claim there, as it would for a
  // missing one; the claim never does.
  ASSERT_TRUE(Eventually([&] { return HostPodExists("mounts"); }));
  auto claim_events = [&]() -> int64_t {
    Result<kube::ObjectList> events = virtual_.List(kEvents, "ml");
    int64_t count = 0;
    if (!events.ok()) return -1;
    for (const kube::Object& e : events->items) {
      if (kube::GetString(e, {"involvedObject", "name"}) == "theirs") {
        EXPECT_EQ(kube::GetString(e, {"reason"}), "VolumeClaimNotAllowed");
        EXPECT_NE(kube::GetString(e, {"message"}).find("spec.volumeName"), std::string::npos);
        count += kube::GetInt(e, {"count"}, 1);
      }
    }
    return count;
  };
  ASSERT_TRUE(Eventually([&] { return claim_events() == 1; }));
  EXPECT_FALSE(host_.Get(claims, kHostNs, HostName("theirs", "ml", "nlp")).ok());
  // More reconciles of the same version tell nothing new...
  SetVirtualLabel(kPods, "mounts", "step", "2");
  ASSERT_TRUE(Eventually([&] {
    kube::Object pod = HostPod("mounts");
    return pod.IsObject() && kube::Label(pod, "step") == "2";
  }));
  // ...a new version of the claim does.
  SetVirtualLabel(claims, "theirs", "try", "2");
  ASSERT_TRUE(Eventually([&] { return claim_events() == 2; }));
  EXPECT_EQ(claim_events(), 2);
  EXPECT_FALSE(host_.Get(claims, kHostNs, HostName("theirs", "ml", "nlp")).ok());
  EXPECT_NE(
      registry_.Render().find(
          R"(vtenant_syncer_objects_refused_total{kind="PersistentVolumeClaim",reason="VolumeClaimNotAllowed"} 2)"),
      std::string::npos)
      << registry_.Render();
}

TEST_F(SyncerTest, NeutralisedServiceIsWrittenAndSaysWhatWasLeftOut) {
  StartSyncer();
  CreateVirtual(kube::resources::kServices, R"({"apiVersion":"v1","kind":"Service",
      "metadata":{"name":"web","namespace":"ml",
                  "annotations":{"metallb.universe.tf/loadBalancerIPs":"10.0.0.9"}},
      "spec":{"type":"LoadBalancer","externalIPs":["10.243.0.1"],"selector":{"app":"web"},
              "ports":[{"port":80,"nodePort":30080}]}})");
  ASSERT_TRUE(Eventually(
      [&] { return host_.Get(kube::resources::kServices, kHostNs, "web-x-ml-x-nlp").ok(); }));
  Result<kube::Object> copy = host_.Get(kube::resources::kServices, kHostNs, "web-x-ml-x-nlp");
  ASSERT_TRUE(copy.ok());
  EXPECT_EQ(kube::GetString(*copy, {"spec", "type"}), "ClusterIP");
  EXPECT_FALSE(kube::Find(*copy, {"spec", "externalIPs"}));
  EXPECT_FALSE(kube::Find((*copy)["spec"]["ports"][0], {"nodePort"}));
  EXPECT_FALSE(kube::Annotation(*copy, "metallb.universe.tf/loadBalancerIPs"));
  ASSERT_TRUE(Eventually([&] {
    Result<kube::ObjectList> events = virtual_.List(kEvents, "ml");
    std::set<std::string> reasons;
    if (events.ok()) {
      for (const kube::Object& e : events->items) reasons.emplace(kube::GetString(e, {"reason"}));
    }
    return reasons.contains("ServiceTypeNotAllowed") && reasons.contains("ServiceFieldNotAllowed");
  }));
  // Dropped fields are counted once the copy is written, which the test
  // may see a moment before the syncer's worker counts them.
  std::string text;
  EXPECT_TRUE(Eventually([&] {
    text = registry_.Render();
    return text.find(
               R"(vtenant_syncer_dropped_fields_total{kind="Service",field="metadata.annotations['metallb.universe.tf/loadBalancerIPs']"} 1)") !=
           std::string::npos;
  })) << text;
  EXPECT_NE(
      text.find(
          R"(vtenant_syncer_objects_refused_total{kind="Service",reason="ServiceTypeNotAllowed"} 1)"),
      std::string::npos)
      << text;
}

TEST_F(SyncerTest, GangJobGetsOneHostPodGroup) {
  StartSyncer();
  Result<kube::Object> job = virtual_.Create(kJobs, "ml", Json(R"({"apiVersion":"batch/v1",
      "kind":"Job","metadata":{"name":"ddp","namespace":"ml",
      "annotations":{"kai.scheduler/batch-min-member":"4"}},"spec":{"parallelism":4}})"));
  ASSERT_TRUE(job.ok());
  kube::Object owner = ControlledBy(kube::ReferenceTo(*job, "batch/v1", "Job"));
  // The class by label, as KAI's grouper reads it when the pod names none.
  kube::SetString(owner, {"labels"}, "priorityClassName", "build");
  for (int i = 0; i < 4; ++i) CreateVirtual(kPods, PodJson("ddp-" + std::to_string(i), owner));
  ASSERT_TRUE(Eventually([&] { return HostPodCount() == 4; }));
  Result<kube::ObjectList> groups = host_.List(kPodGroups, kHostNs);
  ASSERT_TRUE(groups.ok());
  ASSERT_EQ(groups->items.size(), 1u);
  const kube::Object& pg = groups->items[0];
  EXPECT_EQ(kube::GetInt(pg, {"spec", "minMember"}), 4);
  EXPECT_EQ(kube::GetString(pg, {"spec", "queue"}), "nlp");
  EXPECT_EQ(kube::GetString(pg, {"spec", "priorityClassName"}), "build");
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(kube::Annotation(HostPod("ddp-" + std::to_string(i)), kPodGroupAnnotation),
              kube::Name(pg));
  }
  // The workload's pods gone, the group goes.
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(virtual_.Delete(kPods, "ml", "ddp-" + std::to_string(i)).ok());
  }
  EXPECT_TRUE(Eventually([&] {
    Result<kube::ObjectList> left = host_.List(kPodGroups, kHostNs);
    return left.ok() && left->items.empty();
  }));
}

// Every Kubeflow training job KAI gangs, not only PyTorchJob, is read from
// the team's API server (no cache holds it) and its pods reach the host as
// one gang with KAI's minMember; an MPIJob that creates its launcher once
// its workers run is a gang of the workers.
TEST_F(SyncerTest, KubeflowTrainingJobsPodsReachTheHostAsOneGang) {
  StartSyncer();
  struct Case {
    kube::ResourceType type;
    std::string json;
    std::string pod_prefix;
    int pods;
    int64_t min_member;
  };
  const std::vector<Case> cases = {
      {{"kubeflow.org", "v1", "tfjobs", "TFJob", true},
       R"({"apiVersion":"kubeflow.org/v1","kind":"TFJob","metadata":{"name":"tf",
           "namespace":"ml"},"spec":{"tfReplicaSpecs":{"Chief":{"replicas":1},
           "Worker":{"replicas":2}}}})",
       "tf-",
       3,
       3},
      {{"kubeflow.org", "v2beta1", "mpijobs", "MPIJob", true},
       R"({"apiVersion":"kubeflow.org/v2beta1","kind":"MPIJob","metadata":{"name":"mpi",
           "namespace":"ml"},"spec":{"launcherCreationPolicy":"WaitForWorkersReady",
           "mpiReplicaSpecs":{"Launcher":{"replicas":1},"Worker":{"replicas":2}}}})",
       "mpi-worker-",
       2,
       2},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.type.kind);
    Result<kube::Object> job = virtual_.Create(c.type, "ml", Json(c.json));
    ASSERT_TRUE(job.ok()) << job.status().ToString();
    const kube::Object owner =
        ControlledBy(kube::ReferenceTo(*job, c.type.ApiVersion(), c.type.kind));
    for (int i = 0; i < c.pods; ++i) {
      CreateVirtual(kPods, PodJson(c.pod_prefix + std::to_string(i), owner));
    }
    ASSERT_TRUE(Eventually([&] {
      for (int i = 0; i < c.pods; ++i) {
        if (!HostPodExists(c.pod_prefix + std::to_string(i))) return false;
      }
      return true;
    }));
    const kube::Object first = HostPod(c.pod_prefix + "0");
    const std::optional<std::string_view> group = kube::Annotation(first, kPodGroupAnnotation);
    ASSERT_TRUE(group.has_value());
    Result<kube::Object> pg = host_.Get(kPodGroups, kHostNs, std::string(*group));
    ASSERT_TRUE(pg.ok()) << pg.status().ToString();
    EXPECT_EQ(kube::GetInt(*pg, {"spec", "minMember"}), c.min_member);
    for (int i = 1; i < c.pods; ++i) {
      EXPECT_EQ(kube::Annotation(HostPod(c.pod_prefix + std::to_string(i)), kPodGroupAnnotation),
                *group);
    }
  }
}

// A team labels the object it writes, not the pods: the Deployment, the
// CronJob, the JobSet. The syncer caches those owners and gives each gang's
// host PodGroup the preemptibility of the first that carries one, top first.
TEST_F(SyncerTest, PreemptibilityOnADeploymentCronJobOrJobSetReachesTheHostGroup) {
  StartSyncer();
  struct Chain {
    const kube::ResourceType* top_type;
    std::string top;  // the labelled top owner
    const kube::ResourceType* middle_type;
    std::string middle_api_version, middle_kind, middle_name;
    std::string pod;
    std::string want;
  };
  const std::vector<Chain> chains = {
      {&kube::resources::kDeployments, R"({"apiVersion":"apps/v1","kind":"Deployment",
          "metadata":{"name":"web","namespace":"ml",
          "labels":{"kai.scheduler/preemptibility":"non-preemptible"}}})",
       &resources::kReplicaSets, "apps/v1", "ReplicaSet", "web-5d", "web-5d-a", "non-preemptible"},
      {&resources::kCronJobs, R"({"apiVersion":"batch/v1","kind":"CronJob",
          "metadata":{"name":"nightly","namespace":"ml",
          "labels":{"kai.scheduler/preemptibility":"preemptible"}}})",
       &kJobs, "batch/v1", "Job", "nightly-1", "nightly-1-a", "preemptible"},
      {&resources::kJobSets, R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet",
          "metadata":{"name":"train","namespace":"ml",
          "labels":{"kai.scheduler/preemptibility":"non-preemptible"}},
          "spec":{"replicatedJobs":[{"name":"w"}]}})",
       &kJobs, "batch/v1", "Job", "train-w-0", "train-w-0-a", "non-preemptible"},
  };
  for (const Chain& c : chains) {
    Result<kube::Object> top = virtual_.Create(*c.top_type, "ml", Json(c.top));
    ASSERT_TRUE(top.ok()) << top.status().ToString();
    const kube::OwnerReference top_ref = kube::ReferenceTo(
        *top, kube::GetString(*top, {"apiVersion"}), kube::GetString(*top, {"kind"}));
    Result<kube::Object> middle = virtual_.Create(
        *c.middle_type, "ml",
        kube::BuildJson(kube::JsonObject{
            {"apiVersion", c.middle_api_version},
            {"kind", c.middle_kind},
            {"metadata",
             kube::JsonObject{{"name", c.middle_name},
                              {"namespace", "ml"},
                              {"ownerReferences", kube::JsonArray{ControllerRef(top_ref)}}}}}));
    ASSERT_TRUE(middle.ok()) << middle.status().ToString();
    kube::Object pod = PodJson(
        c.pod, ControlledBy(kube::ReferenceTo(*middle, c.middle_api_version, c.middle_kind)));
    if (c.top_type == &resources::kJobSets) {
      // As the JobSet controller labels its pods (kai/jobset_gang.h).
      kube::SetString(pod, {"metadata", "labels"}, kai::kJobSetReplicatedJobLabel, "w");
      kube::SetString(pod, {"metadata", "labels"}, kai::kJobSetJobIndexLabel, "0");
    }
    CreateVirtual(kPods, pod);
  }
  for (const Chain& c : chains) {
    ASSERT_TRUE(Eventually([&] { return HostPodExists(c.pod); })) << c.pod;
    std::string group(kube::Annotation(HostPod(c.pod), kPodGroupAnnotation).value_or(""));
    Result<kube::Object> pg = host_.Get(kPodGroups, kHostNs, group);
    ASSERT_TRUE(pg.ok()) << c.pod << ": " << pg.status().ToString();
    EXPECT_EQ(kube::GetString(*pg, {"spec", "preemptibility"}), c.want) << c.pod;
  }
}

// What the host's scheduler writes on a host pod reaches the team on its
// own pod, in its own names, and a repeat only counts up.
TEST_F(SyncerTest, HostEventsReachTheTeamsPodInItsNames) {
  StartSyncer();
  CreateVirtual(kPods, PodJson("trainer"));
  ASSERT_TRUE(Eventually([&] { return HostPodExists("trainer"); }));
  const std::string host_name = HostName("trainer", "ml", "nlp");
  ASSERT_TRUE(HostEvent("e1", host_name,
                        "reclaimed for job vtenant-vision/pg-x-x-default-x-vision of queue "
                        "vision: queue nlp was above its fair share; pod vtenant-nlp/" +
                            host_name + " goes")
                  .ok());
  // Events about what the syncer did not make stay on the host.
  ASSERT_TRUE(HostEvent("e2", "vc-nlp-0", "the control plane restarted").ok());
  ASSERT_TRUE(Eventually([&] { return TeamEvents().size() == 1; }));
  kube::Object event = std::move(TeamEvents()[0]);
  EXPECT_EQ(kube::GetString(event, {"involvedObject", "name"}), "trainer");
  EXPECT_EQ(kube::GetString(event, {"involvedObject", "uid"}), kube::Uid(VirtualPod("trainer")));
  EXPECT_EQ(kube::GetString(event, {"reason"}), "Reclaimed");
  EXPECT_EQ(kube::GetString(event, {"message"}),
            "reclaimed for job (hidden) of another queue: queue nlp was above its fair share; "
            "pod ml/trainer goes");
  EXPECT_EQ(kube::GetInt(event, {"count"}), 1);

  // The host's correlator counts a repeat on the same Event: so does the team's.
  ASSERT_TRUE(host_
                  .UpdateWithRetry(kEvents, kHostNs, "e1",
                                   [](kube::Object& e) {
                                     e["count"].SetInt64(2);
                                     kube::SetString(e, {}, "lastTimestamp",
                                                     "2026-12-02T11:05:00Z");
                                     return Status::Ok();
                                   })
                  .ok());
  ASSERT_TRUE(Eventually([&] {
    std::vector<kube::Object> events = TeamEvents();
    return events.size() == 1 && kube::GetInt(events[0], {"count"}) == 2 &&
           kube::GetString(events[0], {"lastTimestamp"}) == "2026-12-02T11:05:00Z";
  }));

  // Written as the host pod goes (an eviction), it still reaches the team:
  // an Event naming the evicted pod's UID, after the syncer saw it go.
  const std::string evicted_uid(kube::Uid(HostPod("trainer")));
  ScheduleAndRunOnHost("trainer");
  ASSERT_TRUE(Eventually([&] {
    return kube::GetString(VirtualPod("trainer"), {"status", "phase"}) == "Running";
  }));
  ASSERT_TRUE(host_.Evict(kHostNs, host_name).ok());
  ASSERT_TRUE(Eventually([&] {
    kube::ObjectPtr cached =
        syncer_->informers().Host(kPods).cache().Get(std::string(kHostNs) + "/" + host_name);
    return cached == nullptr || kube::Uid(*cached) != evicted_uid;
  }));
  ASSERT_TRUE(HostEvent("e3", host_name, "evicted: node l40s-0 drained", "Pod", evicted_uid).ok());
  EXPECT_TRUE(Eventually([&] {
    for (const kube::Object& e : TeamEvents()) {
      if (kube::GetString(e, {"message"}) == "evicted: node l40s-0 drained" &&
          kube::GetString(e, {"involvedObject", "name"}) == "trainer") {
        return true;
      }
    }
    return false;
  }));
}

// A host storm reaches the team at the tenant's event rate, not the host's:
// with two writes to spend and the next minutes away, two of five Events
// are written and the other three wait.
TEST_F(SyncerTest, HostEventStormIsHeldToTheTenantsRate) {
  StartSyncer(NlpConfig(), /*leader_elect=*/false, EventRateLimitOptions{.qps = 0.001, .burst = 2});
  CreateVirtual(kPods, PodJson("noisy"));
  ASSERT_TRUE(Eventually([&] { return HostPodExists("noisy"); }));
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(HostEvent("storm-" + std::to_string(i), HostName("noisy", "ml", "nlp"),
                          "crash " + std::to_string(i))
                    .ok());
  }
  ASSERT_TRUE(Eventually([&] { return Metric("vtenant_syncer_events_delayed_total ") >= 3; }));
  ASSERT_TRUE(Eventually([&] { return TeamEvents().size() == 2; }));
  EXPECT_EQ(TeamEvents().size(), 2u);
}

TEST_F(SyncerTest, VirtualPodGroupSubGroupsReachTheHostAndFollowChanges) {
  StartSyncer();
  Result<kube::Object> group = virtual_.Create(kPodGroups, "ml", Json(R"({
      "apiVersion":"scheduling.run.ai/v2alpha2","kind":"PodGroup",
      "metadata":{"name":"lws","namespace":"ml"},
      "spec":{"minMember":1,"subGroups":[{"minMember":1,"name":"leader"},
                                         {"minMember":2,"name":"workers"}]}})"));
  ASSERT_TRUE(group.ok()) << group.status().ToString();
  CreateVirtual(kPods, PodJson("leader", Json(R"({"annotations":{"pod-group-name":"lws"},
      "labels":{"kai.scheduler/subgroup-name":"leader"}})")));
  ASSERT_TRUE(Eventually([&] { return HostPodCount() == 1; }));
  EXPECT_EQ(kube::Label(HostPod("leader"), "kai.scheduler/subgroup-name"), "leader");
  auto host_workers_min = [&]() -> int64_t {
    Result<kube::ObjectList> groups = host_.List(kPodGroups, kHostNs);
    if (!groups.ok() || groups->items.size() != 1) return -1;
    const rapidjson::Value* sub = kube::Find(groups->items[0], {"spec", "subGroups"});
    if (sub == nullptr || !sub->IsArray() || sub->Size() != 2) return -1;
    return kube::GetInt((*sub)[1], {"minMember"}, -1);
  };
  EXPECT_EQ(host_workers_min(), 2);
  // The team changes its gang; the host group follows with no pod event.
  kube::Object changed = kube::Clone(*group);
  changed["spec"]["subGroups"][1]["minMember"].SetInt64(3);
  ASSERT_TRUE(virtual_.Update(kPodGroups, "ml", changed).ok());
  EXPECT_TRUE(Eventually([&] { return host_workers_min() == 3; }));
}

TEST_F(SyncerTest, VirtualPodGroupChangeReachesTheHostWithoutAPodEvent) {
  StartSyncer();
  Result<kube::Object> group = virtual_.Create(kPodGroups, "ml", Json(R"({
      "apiVersion":"scheduling.run.ai/v2alpha2","kind":"PodGroup",
      "metadata":{"name":"ddp","namespace":"ml"},"spec":{"minMember":2,"queue":"vision"}})"));
  ASSERT_TRUE(group.ok()) << group.status().ToString();
  for (const char* name : {"ddp-0", "ddp-1"}) {
    CreateVirtual(kPods, PodJson(name, Json(R"({"annotations":{"pod-group-name":"ddp"}})")));
  }
  ASSERT_TRUE(Eventually([&] { return HostPodCount() == 2; }));
  const std::string host_name = HostName("ddp", "ml", "nlp");
  auto host_group = [&]() {
    Result<kube::Object> pg = host_.Get(kPodGroups, kHostNs, host_name);
    return pg.ok() ? std::move(*pg) : kube::Object(rapidjson::kNullType);
  };
  ASSERT_EQ(kube::GetInt(host_group(), {"spec", "minMember"}), 2);
  const std::string host_pods_version(kube::ResourceVersion(HostPod("ddp-0")));

  // The team grows its gang and gives it a priority; the queue stays the tenant's.
  ASSERT_TRUE(virtual_
                  .UpdateWithRetry(kPodGroups, "ml", "ddp",
                                   [](kube::Object& pg) {
                                     pg["spec"]["minMember"].SetInt64(4);
                                     kube::SetString(pg, {"spec"}, "priorityClassName", "train");
                                     return Status::Ok();
                                   })
                  .ok());
  ASSERT_TRUE(Eventually([&] {
    kube::Object pg = host_group();
    return pg.IsObject() && kube::GetInt(pg, {"spec", "minMember"}) == 4 &&
           kube::GetString(pg, {"spec", "priorityClassName"}) == "train";
  }));
  EXPECT_EQ(kube::GetString(host_group(), {"spec", "queue"}), "nlp");
  EXPECT_EQ(HostPodCount(), 2u);
  EXPECT_EQ(kube::ResourceVersion(HostPod("ddp-0")), host_pods_version);

  // Deleted while its pods run: the host group stays as it was for them...
  ASSERT_TRUE(virtual_.Delete(kPodGroups, "ml", "ddp").ok());
  ASSERT_TRUE(
      Eventually([&] { return !syncer_->informers().Virtual(kPodGroups).cache().Get("ml/ddp"); }));
  // (a pod's label change makes the group's syncer look again, after the delete)
  const int64_t looked = PodGroupReconciles();
  SetVirtualLabel(kPods, "ddp-0", "step", "2");
  ASSERT_TRUE(Eventually([&] { return PodGroupReconciles() > looked; }));
  EXPECT_EQ(kube::GetInt(host_group(), {"spec", "minMember"}), 4);
  // ...and goes with the last of them.
  for (const char* name : {"ddp-0", "ddp-1"}) ASSERT_TRUE(virtual_.Delete(kPods, "ml", name).ok());
  EXPECT_TRUE(Eventually([&] { return !host_group().IsObject(); }));
}

TEST_F(SyncerTest, RefusedPodGroupSpecIsAWarningOnThePodGroupItself) {
  StartSyncer();
  // No pods yet: the group still hears why it cannot be used.
  Result<kube::Object> group = virtual_.Create(kPodGroups, "ml", Json(R"({
      "apiVersion":"scheduling.run.ai/v2alpha2","kind":"PodGroup",
      "metadata":{"name":"vip-gang","namespace":"ml"},
      "spec":{"minMember":2,"priorityClassName":"vip"}})"));
  ASSERT_TRUE(group.ok()) << group.status().ToString();
  auto warnings_on_group = [&](std::string_view needle) {
    Result<kube::ObjectList> events = virtual_.List(kEvents, "ml");
    int found = 0;
    if (!events.ok()) return found;
    for (const kube::Object& e : events->items) {
      if (kube::GetString(e, {"involvedObject", "kind"}) == "PodGroup" &&
          kube::GetString(e, {"involvedObject", "name"}) == "vip-gang" &&
          kube::GetString(e, {"type"}) == "Warning" &&
          kube::GetString(e, {"reason"}) == "InvalidGang" &&
          kube::GetString(e, {"message"}).find(needle) != std::string_view::npos) {
        ++found;
      }
    }
    return found;
  };
  ASSERT_TRUE(Eventually([&] { return warnings_on_group("\"vip\"") == 1; }));
  // Its pods are refused with the same reason and never reach the host.
  CreateVirtual(kPods, PodJson("vip-0", Json(R"({"annotations":{"pod-group-name":"vip-gang"}})")));
  ASSERT_TRUE(Eventually([&] {
    return kube::GetString(VirtualPod("vip-0"), {"status", "reason"}) == "InvalidGang";
  }));
  EXPECT_EQ(HostPodCount(), 0u);
  // Another refused edit is told again, with what is wrong now.
  ASSERT_TRUE(virtual_
                  .UpdateWithRetry(kPodGroups, "ml", "vip-gang",
                                   [](kube::Object& pg) {
                                     kube::SetString(pg, {"spec"}, "priorityClassName", "train");
                                     kube::SetString(pg, {"spec"}, "preemptibility", "sometimes");
                                     return Status::Ok();
                                   })
                  .ok());
  EXPECT_TRUE(Eventually([&] { return warnings_on_group("spec.preemptibility") == 1; }));
}

TEST_F(SyncerTest, VirtualPodGroupFieldsRemovedOrAddedReachTheHostGroup) {
  StartSyncer();
  Result<kube::Object> group = virtual_.Create(kPodGroups, "ml", Json(R"({
      "apiVersion":"scheduling.run.ai/v2alpha2","kind":"PodGroup",
      "metadata":{"name":"ddp","namespace":"ml"},
      "spec":{"minMember":1,"priorityClassName":"train","preemptibility":"non-preemptible"}})"));
  ASSERT_TRUE(group.ok()) << group.status().ToString();
  CreateVirtual(kPods, PodJson("ddp-0", Json(R"({"annotations":{"pod-group-name":"ddp"}})"),
                               Json(R"({"priorityClassName":"build"})")));
  ASSERT_TRUE(Eventually([&] { return HostPodCount() == 1; }));
  auto host_group = [&]() {
    Result<kube::Object> pg = host_.Get(kPodGroups, kHostNs, HostName("ddp", "ml", "nlp"));
    return pg.ok() ? std::move(*pg) : kube::Object(rapidjson::kNullType);
  };
  ASSERT_EQ(kube::GetString(host_group(), {"spec", "priorityClassName"}), "train");
  ASSERT_EQ(kube::GetString(host_group(), {"spec", "preemptibility"}), "non-preemptible");
  // The team drops its priority class and preemptibility and asks KAI not
  // to mark its pods unschedulable: the host group follows, keeping none of
  // the old values (nor its pod's class).
  ASSERT_TRUE(virtual_
                  .UpdateWithRetry(kPodGroups, "ml", "ddp",
                                   [](kube::Object& pg) {
                                     pg["spec"].RemoveMember("priorityClassName");
                                     pg["spec"].RemoveMember("preemptibility");
                                     pg["spec"].AddMember("markUnschedulable", false,
                                                          pg.GetAllocator());
                                     return Status::Ok();
                                   })
                  .ok());
  EXPECT_TRUE(Eventually([&] {
    kube::Object pg = host_group();
    const rapidjson::Value* mark = kube::Find(pg, {"spec", "markUnschedulable"});
    return pg.IsObject() && !kube::Find(pg, {"spec", "priorityClassName"}) &&
           !kube::Find(pg, {"spec", "preemptibility"}) && mark != nullptr && mark->IsFalse();
  }));
  EXPECT_EQ(kube::GetString(host_group(), {"spec", "queue"}), "nlp");
}

TEST_F(SyncerTest, HostPodLostFailsABarePodAndDeletesAnOwnedOne) {
  StartSyncer();
  CreateVirtual(kPods, PodJson("bare"));
  Result<kube::Object> rs = virtual_.Create(syncer::resources::kReplicaSets, "ml",
                                            Json(R"({"apiVersion":"apps/v1","kind":"ReplicaSet",
      "metadata":{"name":"rs","namespace":"ml"},"spec":{"replicas":1}})"));
  ASSERT_TRUE(rs.ok());
  CreateVirtual(kPods,
                PodJson("owned", ControlledBy(kube::ReferenceTo(*rs, "apps/v1", "ReplicaSet"))));
  for (const char* name : {"bare", "owned"}) {
    ASSERT_TRUE(Eventually([&] { return HostPodExists(name); }));
    ScheduleAndRunOnHost(name);
    ASSERT_TRUE(Eventually([&] {
      return kube::GetString(VirtualPod(name), {"status", "phase"}) == "Running";
    }));
  }
  for (const char* name : {"bare", "owned"}) {
    ASSERT_TRUE(host_.Evict(kHostNs, HostName(name, "ml", "nlp")).ok());
  }
  EXPECT_TRUE(Eventually([&] {
    return kube::GetString(VirtualPod("bare"), {"status", "phase"}) == "Failed";
  }));
  EXPECT_EQ(kube::GetString(VirtualPod("bare"), {"status", "reason"}), "HostPodLost");
  EXPECT_TRUE(Eventually([&] { return !virtual_.Get(kPods, "ml", "owned").ok(); }));
  // Neither comes back on the host.
  EXPECT_FALSE(HostPodExists("bare"));
}

// What the syncer keeps about a pod (its latency clock, why its host pod
// went) goes with the pod: a pod synced and deleted, a pod whose host pod
// was lost, and a pod deleted while it waited for its owner leave nothing
// behind, so a tenant's churn cannot grow the syncer without bound.
TEST_F(SyncerTest, WhatIsKeptForAPodGoesWithThePod) {
  StartSyncer();
  const std::string awaiting = "vtenant_syncer_pods_awaiting_host ";
  CreateVirtual(kPods, PodJson("done"));
  CreateVirtual(kPods, PodJson("lost"));
  // Owned by a training job that does not exist (yet): it waits.
  CreateVirtual(kPods, PodJson("waits", Json(R"({"ownerReferences":[{"apiVersion":"kubeflow.org/v1",
      "kind":"PyTorchJob","name":"absent","uid":"u-absent","controller":true}]})")));
  for (const char* name : {"done", "lost"}) {
    ASSERT_TRUE(Eventually([&] { return HostPodExists(name); }));
    ScheduleAndRunOnHost(name);
    ASSERT_TRUE(Eventually([&] {
      return kube::GetString(VirtualPod(name), {"status", "phase"}) == "Running";
    }));
  }
  ASSERT_TRUE(Eventually([&] { return Metric(awaiting) == 1; })) << registry_.Render();
  EXPECT_FALSE(HostPodExists("waits"));

  ASSERT_TRUE(virtual_.Delete(kPods, "ml", "done").ok());
  ASSERT_TRUE(virtual_.Delete(kPods, "ml", "waits").ok());
  ASSERT_TRUE(host_.Evict(kHostNs, HostName("lost", "ml", "nlp")).ok());
  EXPECT_TRUE(Eventually(
      [&] { return !HostPodExists("done") && !virtual_.Get(kPods, "ml", "done").ok(); }));
  EXPECT_TRUE(Eventually([&] {
    return kube::GetString(VirtualPod("lost"), {"status", "reason"}) == "HostPodLost";
  }));
  EXPECT_TRUE(Eventually([&] { return Metric(awaiting) == 0; })) << registry_.Render();
  ASSERT_TRUE(virtual_.Delete(kPods, "ml", "lost").ok());
  ASSERT_TRUE(Eventually([&] { return !virtual_.Get(kPods, "ml", "lost").ok(); }));

  // A new pod of a lost pod's name is told its own story, not the old one's.
  CreateVirtual(kPods, PodJson("lost"));
  ASSERT_TRUE(Eventually([&] { return HostPodExists("lost"); }));
  ScheduleAndRunOnHost("lost");
  ASSERT_TRUE(Eventually([&] {
    return kube::GetString(VirtualPod("lost"), {"status", "phase"}) == "Running";
  }));
  ASSERT_TRUE(host_.Delete(kPods, kHostNs, HostName("lost", "ml", "nlp")).ok());
  EXPECT_TRUE(Eventually([&] {
    return kube::GetString(VirtualPod("lost"), {"status", "message"}) ==
           "the host pod " + HostName("lost", "ml", "nlp") + " was deleted";
  })) << kube::GetString(VirtualPod("lost"), {"status", "message"});
  // Of the three host pods gone (in that order, through one informer), the
  // two of "lost" are remembered for the Events written as they went, the
  // team still having its pod (one entry: by name, the later replaces the
  // earlier). Not "done", whose pod the team deleted itself.
  EXPECT_EQ(Metric("vtenant_syncer_deleted_objects_remembered "), 1) << registry_.Render();
}

TEST_F(SyncerTest, NewUidReplacesTheHostPod) {
  StartSyncer();
  CreateVirtual(kPods, PodJson("p"));
  ASSERT_TRUE(Eventually([&] { return HostPodExists("p"); }));
  StopSyncer();  // the new pod appears while nobody looks
  ASSERT_TRUE(virtual_.Delete(kPods, "ml", "p").ok());
  CreateVirtual(kPods, PodJson("p"));
  const std::string new_uid(kube::Uid(VirtualPod("p")));
  StartSyncer();
  EXPECT_TRUE(Eventually([&] {
    kube::Object host = HostPod("p");
    return host.IsObject() && kube::Annotation(host, kVirtualUidAnnotation) == new_uid;
  }));
  EXPECT_EQ(HostPodCount(), 1u);
}

TEST_F(SyncerTest, RestartConvergesWithoutDuplicatesOrOrphans) {
  // An orphan left by an earlier run: its virtual pod is gone.
  kube::Object orphan = Json(R"({"apiVersion":"v1","kind":"Pod","metadata":{
      "name":"gone-x-ml-x-nlp","namespace":"vtenant-nlp",
      "labels":{"vtenant.io/managed-by":"vtenant-syncer","vtenant.io/tenant":"nlp"},
      "annotations":{"vtenant.io/virtual-name":"gone","vtenant.io/virtual-namespace":"ml",
                     "vtenant.io/virtual-uid":"old"}},"spec":{"containers":[{"name":"c"}]}})");
  ASSERT_TRUE(host_.Create(kPods, kHostNs, orphan).ok());
  // Someone else's pod in the namespace is not ours to touch.
  ASSERT_TRUE(host_
                  .Create(kPods, kHostNs, Json(R"({"apiVersion":"v1","kind":"Pod","metadata":{
      "name":"theirs","namespace":"vtenant-nlp"},"spec":{"containers":[{"name":"c"}]}})"))
                  .ok());
  StartSyncer();
  for (int i = 0; i < 30; ++i) CreateVirtual(kPods, PodJson("burst-" + std::to_string(i)));
  StopSyncer();  // mid-burst
  for (int i = 30; i < 60; ++i) CreateVirtual(kPods, PodJson("burst-" + std::to_string(i)));
  StartSyncer();
  EXPECT_TRUE(Eventually([&] { return HostPodCount() == 61; }));  // 60 + theirs
  EXPECT_FALSE(host_.Get(kPods, kHostNs, "gone-x-ml-x-nlp").ok());
  EXPECT_TRUE(host_.Get(kPods, kHostNs, "theirs").ok());
  for (int i = 0; i < 60; ++i) EXPECT_TRUE(HostPodExists("burst-" + std::to_string(i))) << i;
}

TEST_F(SyncerTest, TerminatingVirtualPodTakesItsHostPodWithIt) {
  StartSyncer();
  CreateVirtual(kPods, PodJson("p", Json(R"({"finalizers":["test.vtenant.io/hold"]})")));
  ASSERT_TRUE(Eventually([&] { return HostPodExists("p"); }));
  // With a finalizer the virtual pod stays, terminating, as a bound pod
  // does in a real cluster until its kubelet confirms.
  ASSERT_TRUE(virtual_.Delete(kPods, "ml", "p", {.grace_period_seconds = 30}).ok());
  EXPECT_TRUE(Eventually([&] { return !HostPodExists("p"); }));
  EXPECT_TRUE(kube::IsBeingDeleted(VirtualPod("p")));
}

TEST_F(SyncerTest, ServicesAreSyncedAndPodsSeeTheirHostAddress) {
  StartSyncer();
  CreateVirtual(kube::resources::kServices, R"({"apiVersion":"v1","kind":"Service",
      "metadata":{"name":"api","namespace":"ml"},"spec":{"clusterIP":"10.96.50.1",
      "selector":{"app":"api"},"ports":[{"name":"http","port":80,"protocol":"TCP"}]}})");
  ASSERT_TRUE(Eventually(
      [&] { return host_.Get(kube::resources::kServices, kHostNs, "api-x-ml-x-nlp").ok(); }));
  Result<kube::Object> copy = host_.Get(kube::resources::kServices, kHostNs, "api-x-ml-x-nlp");
  ASSERT_TRUE(copy.ok());
  EXPECT_EQ(kube::GetString(*copy, {"spec", "selector", "vtenant.io/virtual-namespace"}), "ml");
  EXPECT_FALSE(kube::Find(*copy, {"spec", "clusterIP"}));
  // The host allocates the address.
  ASSERT_NO_FATAL_FAILURE(AllocateHostClusterIp("api-x-ml-x-nlp", "10.96.7.7"));
  ASSERT_TRUE(Eventually([&] {
    kube::ObjectPtr host_copy = syncer_->informers()
                                    .Host(kube::resources::kServices)
                                    .cache()
                                    .Get(std::string(kHostNs) + "/api-x-ml-x-nlp");
    return host_copy && kube::GetString(*host_copy, {"spec", "clusterIP"}) == "10.96.7.7";
  }));
  // The team's Service is re-made with that address; a pod created while it
  // is away would rightly get no variables for it (as from a kubelet).
  ASSERT_TRUE(Eventually([&] {
    kube::ObjectPtr svc =
        syncer_->informers().Virtual(kube::resources::kServices).cache().Get("ml/api");
    return svc && kube::GetString(*svc, {"spec", "clusterIP"}) == "10.96.7.7";
  }));
  CreateVirtual(kPods, PodJson("client"));
  ASSERT_TRUE(Eventually([&] { return HostPodExists("client"); }));
  bool found = false;
  for (const rapidjson::Value& e : HostPod("client")["spec"]["containers"][0]["env"].GetArray()) {
    if (kube::GetString(e, {"name"}) == "API_SERVICE_HOST") {
      found = kube::GetString(e, {"value"}) == "10.96.7.7";
    }
  }
  EXPECT_TRUE(found);
  // One address: the team's Service takes its host copy's, and the copy
  // (whose address it is) stays the same object.
  const std::string copy_uid(kube::Uid(*copy));
  ASSERT_TRUE(Eventually([&] {
    Result<kube::Object> svc = virtual_.Get(kube::resources::kServices, "ml", "api");
    return svc.ok() && kube::GetString(*svc, {"spec", "clusterIP"}) == "10.96.7.7";
  }));
  Result<kube::Object> team_svc = virtual_.Get(kube::resources::kServices, "ml", "api");
  ASSERT_TRUE(team_svc.ok());
  const rapidjson::Value* ips = kube::Find(*team_svc, {"spec", "clusterIPs"});
  ASSERT_TRUE(ips != nullptr && ips->IsArray() && ips->Size() == 1 && (*ips)[0].IsString());
  EXPECT_STREQ((*ips)[0].GetString(), "10.96.7.7");
  EXPECT_EQ(kube::GetString(*team_svc, {"spec", "selector", "app"}), "api");
  ASSERT_TRUE(Eventually([&] {
    Result<kube::Object> c = host_.Get(kube::resources::kServices, kHostNs, "api-x-ml-x-nlp");
    return c.ok() && kube::Annotation(*c, kVirtualUidAnnotation) == kube::Uid(*team_svc);
  }));
  Result<kube::Object> same_copy = host_.Get(kube::resources::kServices, kHostNs, "api-x-ml-x-nlp");
  ASSERT_TRUE(same_copy.ok());
  EXPECT_EQ(kube::Uid(*same_copy), copy_uid);
  EXPECT_EQ(kube::GetString(*same_copy, {"spec", "clusterIP"}), "10.96.7.7");
  ASSERT_TRUE(virtual_.Delete(kube::resources::kServices, "ml", "api").ok());
  EXPECT_TRUE(Eventually(
      [&] { return !host_.Get(kube::resources::kServices, kHostNs, "api-x-ml-x-nlp").ok(); }));
}

// An address another Service of the team holds cannot be taken: the
// Service keeps its own, and says why on itself.
TEST_F(SyncerTest, AServiceWhoseHostAddressIsTakenSaysSo) {
  StartSyncer();
  CreateVirtual(kube::resources::kServices, R"({"apiVersion":"v1","kind":"Service",
      "metadata":{"name":"holder","namespace":"ml"},"spec":{"clusterIP":"10.96.8.8",
      "ports":[{"port":80}]}})");
  CreateVirtual(kube::resources::kServices, R"({"apiVersion":"v1","kind":"Service",
      "metadata":{"name":"db","namespace":"ml"},"spec":{"clusterIP":"10.96.9.9",
      "ports":[{"port":5432}]}})");
  ASSERT_TRUE(Eventually(
      [&] { return host_.Get(kube::resources::kServices, kHostNs, "db-x-ml-x-nlp").ok(); }));
  ASSERT_NO_FATAL_FAILURE(AllocateHostClusterIp("db-x-ml-x-nlp", "10.96.8.8"));
  auto warnings = [&] {
    Result<kube::ObjectList> events = virtual_.List(kEvents, "ml");
    int n = 0;
    if (!events.ok()) return n;
    for (const kube::Object& e : events->items) {
      if (kube::GetString(e, {"reason"}) == "ClusterIPNotTaken" &&
          kube::GetString(e, {"involvedObject", "name"}) == "db" &&
          kube::GetString(e, {"message"}).find("held here by Service ml/holder") !=
              std::string::npos) {
        ++n;
      }
    }
    return n;
  };
  ASSERT_TRUE(Eventually([&] { return warnings() == 1; }));
  Result<kube::Object> db = virtual_.Get(kube::resources::kServices, "ml", "db");
  ASSERT_TRUE(db.ok());
  EXPECT_EQ(kube::GetString(*db, {"spec", "clusterIP"}), "10.96.9.9");
}

// With the host's Service range known, the host copy asks for the team's
// own address: the team's Service is never deleted and created again.
TEST_F(SyncerTest, AServiceKeepsItsOwnAddressWhenTheHostHasItFree) {
  SyncerConfig config = NlpConfig();
  config.service_range = IpRange::Parse("10.96.0.0/16");
  StartSyncer(config);
  CreateVirtual(kube::resources::kServices, R"({"apiVersion":"v1","kind":"Service",
      "metadata":{"name":"api","namespace":"ml"},"spec":{"clusterIP":"10.96.50.1",
      "selector":{"app":"api"},"ports":[{"port":80}]}})");
  const std::string uid(kube::Uid(*virtual_.Get(kube::resources::kServices, "ml", "api")));
  ASSERT_TRUE(Eventually(
      [&] { return host_.Get(kube::resources::kServices, kHostNs, "api-x-ml-x-nlp").ok(); }));
  Result<kube::Object> copy = host_.Get(kube::resources::kServices, kHostNs, "api-x-ml-x-nlp");
  ASSERT_TRUE(copy.ok());
  EXPECT_EQ(kube::GetString(*copy, {"spec", "clusterIP"}), "10.96.50.1");
  // A pod sees that address, and the Service is the one the team made.
  CreateVirtual(kPods, PodJson("client"));
  ASSERT_TRUE(Eventually([&] { return HostPodExists("client"); }));
  std::string seen;
  for (const rapidjson::Value& e : HostPod("client")["spec"]["containers"][0]["env"].GetArray()) {
    if (kube::GetString(e, {"name"}) == "API_SERVICE_HOST") seen = kube::GetString(e, {"value"});
  }
  EXPECT_EQ(seen, "10.96.50.1");
  Result<kube::Object> svc = virtual_.Get(kube::resources::kServices, "ml", "api");
  ASSERT_TRUE(svc.ok());
  EXPECT_EQ(kube::Uid(*svc), uid);
  EXPECT_EQ(virtual_.Calls("delete"), 0);
}

// When the host refuses the address (another holds it there), the copy is
// made without, the host picks, and the team's Service takes that one.
TEST_F(SyncerTest, AnAddressTheHostRefusesIsLeftToTheHost) {
  SyncerConfig config = NlpConfig();
  config.service_range = IpRange::Parse("10.96.0.0/16");
  host_.InjectError("create", "services",
                    Status(StatusCode::kInvalid,
                           "spec.clusterIPs: Invalid value: []string{\"10.96.50.1\"}: failed to "
                           "allocate IP 10.96.50.1: provided IP is already allocated"));
  StartSyncer(config);
  CreateVirtual(kube::resources::kServices, R"({"apiVersion":"v1","kind":"Service",
      "metadata":{"name":"api","namespace":"ml"},"spec":{"clusterIP":"10.96.50.1",
      "selector":{"app":"api"},"ports":[{"port":80}]}})");
  ASSERT_TRUE(Eventually(
      [&] { return host_.Get(kube::resources::kServices, kHostNs, "api-x-ml-x-nlp").ok(); }));
  Result<kube::Object> copy = host_.Get(kube::resources::kServices, kHostNs, "api-x-ml-x-nlp");
  ASSERT_TRUE(copy.ok());
  EXPECT_FALSE(kube::Find(*copy, {"spec", "clusterIP"}));
  ASSERT_NO_FATAL_FAILURE(AllocateHostClusterIp("api-x-ml-x-nlp", "10.96.7.7"));
  EXPECT_TRUE(Eventually([&] {
    Result<kube::Object> svc = virtual_.Get(kube::resources::kServices, "ml", "api");
    return svc.ok() && kube::GetString(*svc, {"spec", "clusterIP"}) == "10.96.7.7";
  }));
}

// A Service with finalizers is not deleted to take its host address: the
// delete would leave it terminating until someone else's controller let go.
TEST_F(SyncerTest, AServiceWithFinalizersKeepsItsAddressAndSaysWhy) {
  StartSyncer();
  CreateVirtual(kube::resources::kServices, R"({"apiVersion":"v1","kind":"Service",
      "metadata":{"name":"api","namespace":"ml","finalizers":["example.com/keep"]},
      "spec":{"clusterIP":"10.96.50.1","ports":[{"port":80}]}})");
  ASSERT_TRUE(Eventually(
      [&] { return host_.Get(kube::resources::kServices, kHostNs, "api-x-ml-x-nlp").ok(); }));
  ASSERT_NO_FATAL_FAILURE(AllocateHostClusterIp("api-x-ml-x-nlp", "10.96.7.7"));
  ASSERT_TRUE(Eventually([&] {
    Result<kube::ObjectList> events = virtual_.List(kEvents, "ml");
    if (!events.ok()) return false;
    for (const kube::Object& e : events->items) {
      if (kube::GetString(e, {"reason"}) == "ClusterIPNotTaken" &&
          kube::GetString(e, {"message"}).find("finalizers") != std::string::npos) {
        return true;
      }
    }
    return false;
  }));
  Result<kube::Object> svc = virtual_.Get(kube::resources::kServices, "ml", "api");
  ASSERT_TRUE(svc.ok());
  EXPECT_FALSE(kube::IsBeingDeleted(*svc));
  EXPECT_EQ(kube::GetString(*svc, {"spec", "clusterIP"}), "10.96.50.1");
  EXPECT_EQ(virtual_.Calls("delete"), 0);
}

TEST_F(SyncerTest, ServiceAccountTokenIsRefreshedInPlaceBeforeItExpires) {
  ServeTokens();
  StartSyncer();
  CreateVirtual(kPods, PodJson("trainer", Json(R"({"labels":{"app":"trainer"},
                               "annotations":{"note":"x",
                               "kubernetes.io/service-account.name":"vtenant-syncer"}})"),
                               Json(R"({"volumes":[{"name":"api","projected":{
      "sources":[{"serviceAccountToken":{"path":"token","expirationSeconds":3607}}]}}]})")));
  const std::string secret_name = TokenSecretName("trainer", "ml", "nlp");
  auto host_token = [&] { return HostToken("trainer"); };
  ASSERT_TRUE(Eventually([&] { return HostPodExists("trainer"); }));
  ASSERT_EQ(host_token(), "dG9rZW4tMQ==");  // base64("token-1")
  {
    // Built from what the syncer knows alone: Opaque, so no host token
    // controller fills it, and nothing of the pod's labels or annotations.
    Result<kube::Object> secret = host_.Get(kube::resources::kSecrets, kHostNs, secret_name);
    ASSERT_TRUE(secret.ok());
    EXPECT_EQ(kube::GetString(*secret, {"type"}), "Opaque");
    EXPECT_EQ((*secret)["metadata"]["labels"],
              Json(R"({"vtenant.io/tenant":"nlp","vtenant.io/virtual-namespace":"ml",
                       "vtenant.io/managed-by":"vtenant-syncer",
                       "vtenant.io/purpose":"service-account-token"})"));
    EXPECT_FALSE(kube::Annotation(*secret, "note"));
    EXPECT_FALSE(kube::Annotation(*secret, "kubernetes.io/service-account.name"));
  }
  const std::string uid(kube::Uid(*host_.Get(kube::resources::kSecrets, kHostNs, secret_name)));

  // Changes a label of the virtual pod and waits until the host pod has it:
  // one more reconcile of the pod has run by then.
  auto reconcile_once = [&](const std::string& value) {
    ASSERT_TRUE(virtual_
                    .UpdateWithRetry(kPods, "ml", "trainer",
                                     [&](kube::Object& pod) {
                                       kube::SetString(pod, {"metadata", "labels"}, "step", value);
                                       return Status::Ok();
                                     })
                    .ok());
    ASSERT_TRUE(Eventually([&] {
      kube::Object pod = HostPod("trainer");
      return pod.IsObject() && kube::GetString(pod, {"metadata", "labels", "step"}) == value;
    }));
  };

  // At 70 % of the lifetime the token is still kept.
  clock_.Advance(std::chrono::minutes(42));
  reconcile_once("70");
  EXPECT_EQ(host_token(), "dG9rZW4tMQ==");
  EXPECT_EQ(tokens_issued_.load(), 1);

  // Past 80 % a new one replaces it, in the same Secret.
  clock_.Advance(std::chrono::minutes(8));
  reconcile_once("83");
  ASSERT_TRUE(Eventually([&] { return host_token() == "dG9rZW4tMg=="; }));  // base64("token-2")
  Result<kube::Object> secret = host_.Get(kube::resources::kSecrets, kHostNs, secret_name);
  ASSERT_TRUE(secret.ok());
  EXPECT_EQ(kube::Uid(*secret), uid);
  EXPECT_EQ(kube::Annotation(*secret, "vtenant.io/token-expiration"),
            FormatRfc3339(WallNow() + std::chrono::hours(1)));
}

TEST_F(SyncerTest, ARunningPodsTokenIsRefreshedWhenDueWithNothingElseChanging) {
  // Rechecked every 100 ms instead of every 10 minutes, so that the refresh
  // below can only come from the recheck: neither the pod nor its Secret
  // changes, and the informers resync only every 10 minutes of real time.
  // The calendar jumps 49 minutes while the queue waits by the monotonic
  // clock, as after a wall clock stepped forward: without the recheck the
  // pod's key would wait 48 minutes of real time, past its token's expiry.
  token_recheck_ = std::chrono::milliseconds(100);
  ServeTokens();
  StartSyncer();
  CreateVirtual(kPods, PodJson("trainer", Json("{}"), Json(R"({"volumes":[{"name":"api",
      "projected":{"sources":[{"serviceAccountToken":{"path":"token",
                                                      "expirationSeconds":3607}}]}}]})")));
  ASSERT_TRUE(Eventually([&] { return HostToken("trainer") == "dG9rZW4tMQ=="; }));

  clock_.Advance(std::chrono::minutes(49));  // past 80 % of the hour
  EXPECT_TRUE(Eventually([&] { return HostToken("trainer") == "dG9rZW4tMg=="; }));
  EXPECT_EQ(tokens_issued_.load(), 2);
}

TEST_F(SyncerTest, SelectorlessServiceEndpointsAreCarriedToTheHost) {
  SyncerConfig config = NlpConfig();
  config.sync_endpoints = true;
  StartSyncer(config);
  // A Service with a selector: the host's own endpoints controller fills
  // its Endpoints, so the virtual ones stay behind.
  CreateVirtual(kube::resources::kServices, R"({"apiVersion":"v1","kind":"Service",
      "metadata":{"name":"api","namespace":"ml"},"spec":{"selector":{"app":"api"},
      "ports":[{"port":80}]}})");
  CreateVirtual(kube::resources::kEndpoints, R"({"apiVersion":"v1","kind":"Endpoints",
      "metadata":{"name":"api","namespace":"ml"},"subsets":[{"addresses":[{"ip":"10.0.0.1"}],
      "ports":[{"port":80}]}]})");
  // A Service without one, pointing at a database outside the cluster.
  CreateVirtual(kube::resources::kServices, R"({"apiVersion":"v1","kind":"Service",
      "metadata":{"name":"db","namespace":"ml"},"spec":{"ports":[{"port":5432}]}})");
  CreateVirtual(kube::resources::kEndpoints, R"({"apiVersion":"v1","kind":"Endpoints",
      "metadata":{"name":"db","namespace":"ml"},"subsets":[{"addresses":[{"ip":"192.168.5.10"}],
      "ports":[{"port":5432}]}]})");
  auto host_ip = [&](const std::string& host_name) -> std::string {
    Result<kube::Object> e = host_.Get(kube::resources::kEndpoints, kHostNs, host_name);
    if (!e.ok()) return "";
    const rapidjson::Value* ip = kube::Find(*e, {"subsets"});
    if (ip == nullptr || !ip->IsArray() || ip->Empty()) return "";
    return std::string(kube::GetString((*ip)[0]["addresses"][0], {"ip"}));
  };
  ASSERT_TRUE(Eventually([&] { return host_ip("db-x-ml-x-nlp") == "192.168.5.10"; }));
  ASSERT_TRUE(Eventually(
      [&] { return host_.Get(kube::resources::kServices, kHostNs, "api-x-ml-x-nlp").ok(); }));
  // Both keys have been through the endpoints syncer once the later of the
  // two Services is on the host and a change to db's Endpoints arrived.
  ASSERT_TRUE(virtual_
                  .UpdateWithRetry(kube::resources::kEndpoints, "ml", "db",
                                   [](kube::Object& e) {
                                     e["subsets"][0]["addresses"][0]["ip"].SetString(
                                         "192.168.5.11", e.GetAllocator());
                                     return Status::Ok();
                                   })
                  .ok());
  ASSERT_TRUE(Eventually([&] { return host_ip("db-x-ml-x-nlp") == "192.168.5.11"; }));
  EXPECT_FALSE(host_.Get(kube::resources::kEndpoints, kHostNs, "api-x-ml-x-nlp").ok());

  // Gone with its Service, even while the virtual Endpoints linger.
  ASSERT_TRUE(virtual_.Delete(kube::resources::kServices, "ml", "db").ok());
  EXPECT_TRUE(Eventually(
      [&] { return !host_.Get(kube::resources::kEndpoints, kHostNs, "db-x-ml-x-nlp").ok(); }));
  EXPECT_TRUE(virtual_.Get(kube::resources::kEndpoints, "ml", "db").ok());
}

TEST_F(SyncerTest, HandWrittenEndpointSlicesReachTheHostTranslated) {
  SyncerConfig config = NlpConfig();
  config.sync_endpoints = true;
  StartSyncer(config);
  const kube::ResourceType& slices = syncer::resources::kEndpointSlices;
  CreateVirtual(kube::resources::kServices, R"({"apiVersion":"v1","kind":"Service",
      "metadata":{"name":"db","namespace":"ml"},"spec":{"ports":[{"port":5432}]}})");
  CreateVirtual(kube::resources::kServices, R"({"apiVersion":"v1","kind":"Service",
      "metadata":{"name":"api","namespace":"ml"},"spec":{"selector":{"app":"api"},
      "ports":[{"port":80}]}})");
  // The team's own slice for its database, pointing at a virtual pod.
  CreateVirtual(slices, R"({"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice",
      "metadata":{"name":"db-main","namespace":"ml",
                  "labels":{"kubernetes.io/service-name":"db"}},
      "addressType":"IPv4","ports":[{"port":5432}],
      "endpoints":[{"addresses":["10.244.0.7"],"targetRef":{"kind":"Pod","name":"db-0"}}]})");
  // What the virtual endpointslice controller writes for the selector Service.
  CreateVirtual(slices, R"({"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice",
      "metadata":{"name":"api-abcde","namespace":"ml",
                  "labels":{"kubernetes.io/service-name":"api",
                            "endpointslice.kubernetes.io/managed-by":"endpointslice-controller.k8s.io"}},
      "addressType":"IPv4","ports":[{"port":80}],"endpoints":[{"addresses":["10.0.0.1"]}]})");
  auto host_slice = [&](const std::string& name) {
    Result<kube::Object> s = host_.Get(slices, kHostNs, HostName(name, "ml", "nlp"));
    return s.ok() ? std::move(*s) : kube::Object(rapidjson::kNullType);
  };
  ASSERT_TRUE(Eventually([&] { return host_slice("db-main").IsObject(); }));
  kube::Object copy = host_slice("db-main");
  EXPECT_EQ(kube::Label(copy, "kubernetes.io/service-name"), HostName("db", "ml", "nlp"));
  EXPECT_EQ(kube::GetString(copy["endpoints"][0]["addresses"][0], {}), "10.244.0.7");
  EXPECT_EQ(kube::GetString(copy["endpoints"][0], {"targetRef", "name"}),
            HostName("db-0", "ml", "nlp"));
  EXPECT_EQ(kube::GetString(copy["endpoints"][0], {"targetRef", "namespace"}), kHostNs);

  // A changed address follows; the controller's slice never came.
  ASSERT_TRUE(virtual_
                  .UpdateWithRetry(slices, "ml", "db-main",
                                   [](kube::Object& s) {
                                     s["endpoints"][0]["addresses"][0].SetString("10.244.0.8",
                                                                                 s.GetAllocator());
                                     return Status::Ok();
                                   })
                  .ok());
  ASSERT_TRUE(Eventually([&] {
    kube::Object now = host_slice("db-main");
    return now.IsObject() &&
           kube::GetString(now["endpoints"][0]["addresses"][0], {}) == "10.244.0.8";
  }));
  EXPECT_FALSE(host_slice("api-abcde").IsObject());

  // Deleted in the virtual cluster, gone from the host.
  ASSERT_TRUE(virtual_.Delete(slices, "ml", "db-main").ok());
  EXPECT_TRUE(Eventually([&] { return !host_slice("db-main").IsObject(); }));

  // A slice whose Service gains a selector, or goes, goes from the host,
  // while the virtual slice stays.
  CreateVirtual(slices, R"({"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice",
      "metadata":{"name":"db-spare","namespace":"ml",
                  "labels":{"kubernetes.io/service-name":"db"}},
      "addressType":"IPv4","endpoints":[{"addresses":["192.168.5.10"]}]})");
  ASSERT_TRUE(Eventually([&] { return host_slice("db-spare").IsObject(); }));
  auto set_selector = [&](bool on) {
    ASSERT_TRUE(virtual_
                    .UpdateWithRetry(kube::resources::kServices, "ml", "db",
                                     [on](kube::Object& svc) {
                                       svc["spec"].RemoveMember("selector");
                                       if (on)
                                         kube::SetString(svc, {"spec", "selector"}, "app", "db");
                                       return Status::Ok();
                                     })
                    .ok());
  };
  set_selector(true);
  ASSERT_TRUE(Eventually([&] { return !host_slice("db-spare").IsObject(); }));
  set_selector(false);
  ASSERT_TRUE(Eventually([&] { return host_slice("db-spare").IsObject(); }));
  ASSERT_TRUE(virtual_.Delete(kube::resources::kServices, "ml", "db").ok());
  EXPECT_TRUE(Eventually([&] { return !host_slice("db-spare").IsObject(); }));
  EXPECT_TRUE(virtual_.Get(slices, "ml", "db-spare").ok());
}

TEST_F(SyncerTest, MetricsCountWritesAndRefusals) {
  StartSyncer();
  CreateVirtual(kPods, PodJson("ok"));
  CreateVirtual(kPods, PodJson("bad", Json(R"({"annotations":{"gpu-memory":"-1"}})")));
  ASSERT_TRUE(Eventually([&] {
    std::string text = registry_.Render();
    // The write is counted a moment before its latency: both, eventually.
    return text.find(R"(vtenant_syncer_objects_synced_total{kind="Pod",operation="create"} 1)") !=
               std::string::npos &&
           text.find(R"(vtenant_syncer_pods_refused_total{reason="InvalidGpuAnnotation"} 1)") !=
               std::string::npos &&
           text.find("vtenant_syncer_pod_sync_latency_seconds_count 1") != std::string::npos;
  })) << registry_.Render();
  std::string text = registry_.Render();
  EXPECT_NE(text.find(R"(vtenant_workqueue_depth{controller="pod-syncer"})"), std::string::npos);
}

TEST_F(SyncerTest, LostLeaseKeepsCachesAndWonBackConverges) {
  StartSyncer(NlpConfig(), /*leader_elect=*/true);
  ASSERT_TRUE(Eventually([&] { return manager_->IsLeader(); }));
  CreateVirtual(kPods, PodJson("before"));
  ASSERT_TRUE(Eventually([&] { return HostPodExists("before"); }));
  ASSERT_TRUE(Eventually([&] { return manager_->health_server().Ready().ok(); }));
  // The host refuses the Lease (an outage of its own, as far as the Lease
  // goes): leadership is lost, the syncer stays up and says it is not ready.
  for (const char* verb : {"get", "create", "update"}) {
    host_.InjectError(verb, "leases", Unavailable("host away"), -1);
  }
  ASSERT_TRUE(Eventually([&] { return !manager_->IsLeader(); }));
  EXPECT_FALSE(manager_->health_server().Ready().ok());
  CreateVirtual(kPods, PodJson("while-away"));
  ASSERT_TRUE(virtual_.Delete(kPods, "ml", "before").ok());
  host_.ClearErrors();
  // Won back: the controllers replay the caches and converge.
  EXPECT_TRUE(Eventually([&] { return HostPodExists("while-away") && !HostPodExists("before"); }));
  EXPECT_EQ(HostPodCount(), 1u);
  EXPECT_TRUE(manager_->IsLeader());
  EXPECT_TRUE(Eventually([&] { return manager_->health_server().Ready().ok(); }));
}

// Warning Events of reason `reason` in virtual namespace `ns`, by the name
// of the object they are about.
std::map<std::string, std::string> WarningsOf(kube::FakeClient& virt, const std::string& ns,
                                              const std::string& reason) {
  std::map<std::string, std::string> out;
  Result<kube::ObjectList> events = virt.List(kEvents, ns);
  if (!events.ok()) return out;
  for (const kube::Object& e : events->items) {
    if (kube::GetString(e, {"reason"}) != reason) continue;
    out[std::string(kube::GetString(e, {"involvedObject", "kind"})) + " " +
        std::string(kube::GetString(e, {"involvedObject", "name"}))] =
        kube::GetString(e, {"message"});
  }
  return out;
}

TEST_F(SyncerTest, PairsVclustersFormWouldConfuseGetTheirOwnHostObjects) {
  StartSyncer();
  // "a-x-b" in "c" and "a" in "b-x-c" would both be a-x-b-x-c-x-nlp.
  for (auto [ns, name] : {std::pair{"c", "a-x-b"}, std::pair{"b-x-c", "a"}}) {
    const kube::JsonObject metadata{{"name", name}, {"namespace", ns}};
    ASSERT_TRUE(virtual_
                    .Create(kConfigMaps, ns,
                            kube::BuildJson(kube::JsonObject{
                                {"apiVersion", "v1"},
                                {"kind", "ConfigMap"},
                                {"metadata", metadata},
                                {"data", kube::JsonObject{{"who", std::string(ns) + "/" + name}}}}))
                    .ok());
    ASSERT_TRUE(
        virtual_
            .Create(kPods, ns,
                    kube::BuildJson(kube::JsonObject{
                        {"apiVersion", "v1"},
                        {"kind", "Pod"},
                        {"metadata", metadata},
                        {"spec",
                         kube::JsonObject{
                             {"containers",
                              kube::JsonArray{kube::JsonObject{{"name", "c"}, {"image", "i"}}}},
                             {"volumes", kube::JsonArray{kube::JsonObject{
                                             {"name", "v"},
                                             {"configMap", kube::JsonObject{{"name", name}}}}}}}}}))
            .ok());
  }
  const std::string first = HostName("a-x-b", "c", "nlp");
  const std::string second = HostName("a", "b-x-c", "nlp");
  ASSERT_NE(first, second);
  // The ConfigMaps' copies are made by their own controller and may land
  // after the pods (a kubelet waits for them as for any volume).
  ASSERT_TRUE(Eventually([&] {
    for (const std::string& name : {first, second}) {
      if (!host_.Get(kPods, kHostNs, name).ok() || !host_.Get(kConfigMaps, kHostNs, name).ok()) {
        return false;
      }
    }
    return true;
  }));
  for (auto [host_name, who] : {std::pair{first, "c/a-x-b"}, std::pair{second, "b-x-c/a"}}) {
    kube::Object pod = host_.Get(kPods, kHostNs, host_name).value();
    const std::string copy(kube::GetString(pod["spec"]["volumes"][0], {"configMap", "name"}));
    EXPECT_EQ(copy, host_name);  // its own copy, named as it is
    EXPECT_EQ(kube::GetString(host_.Get(kConfigMaps, kHostNs, copy).value(), {"data", "who"}), who);
  }
}

TEST_F(SyncerTest, AHostObjectStandingForAnotherIsNeitherOverwrittenNorDeleted) {
  // What a hash collision would leave: host objects at the names of ml/web
  // and its ConfigMap ml/settings that record other virtual objects.
  // The metadata of such a host object at `host_name`.
  auto recorded_at = [](const std::string& host_name) {
    return kube::JsonObject{
        {"name", host_name},
        {"labels", kube::JsonObject{{"vtenant.io/managed-by", "vtenant-syncer"},
                                    {"vtenant.io/tenant", "nlp"}}},
        {"annotations", kube::JsonObject{{"vtenant.io/virtual-namespace", "ml"},
                                         {"vtenant.io/virtual-name", "other"},
                                         {"vtenant.io/virtual-uid", "u-other"}}}};
  };
  ASSERT_TRUE(host_
                  .Create(kConfigMaps, kHostNs,
                          kube::BuildJson(kube::JsonObject{
                              {"apiVersion", "v1"},
                              {"kind", "ConfigMap"},
                              {"metadata", recorded_at(HostName("settings", "ml", "nlp"))},
                              {"data", kube::JsonObject{{"who", "ml/other"}}}}))
                  .ok());
  ASSERT_TRUE(
      host_
          .Create(kPods, kHostNs,
                  kube::BuildJson(kube::JsonObject{
                      {"apiVersion", "v1"},
                      {"kind", "Pod"},
                      {"metadata", recorded_at(HostName("web", "ml", "nlp"))},
                      {"spec",
                       kube::JsonObject{{"containers", kube::JsonArray{kube::JsonObject{
                                                           {"name", "c"}, {"image", "other"}}}}}}}))
          .ok());
  StartSyncer();
  CreateVirtual(kConfigMaps, R"({"apiVersion":"v1","kind":"ConfigMap",
      "metadata":{"name":"settings","namespace":"ml"},"data":{"who":"ml/settings"}})");
  CreateVirtual(kPods, PodJson("web"));
  CreateVirtual(kPods,
                PodJson("reader", Json("{}"),
                        Json(R"({"volumes":[{"name":"v","configMap":{"name":"settings"}}]})")));
  ASSERT_TRUE(Eventually([&] {
    return kube::GetString(VirtualPod("web"), {"status", "reason"}) == "HostNameClash" &&
           kube::GetString(VirtualPod("reader"), {"status", "reason"}) == "HostNameClash";
  }));
  // The tenant hears what clashes with what, in its own names.
  std::map<std::string, std::string> warned = WarningsOf(virtual_, "ml", "HostNameClash");
  ASSERT_TRUE(warned.contains("Pod web")) << ::testing::PrintToString(warned);
  EXPECT_NE(warned["Pod web"].find("Pod ml/web and Pod ml/other both map to host Pod"),
            std::string::npos)
      << warned["Pod web"];
  ASSERT_TRUE(warned.contains("ConfigMap settings")) << ::testing::PrintToString(warned);
  EXPECT_NE(warned["ConfigMap settings"].find("ConfigMap ml/other"), std::string::npos);
  EXPECT_TRUE(warned.contains("Pod reader"));
  // Nothing of theirs was written...
  EXPECT_EQ(
      kube::GetString(host_.Get(kConfigMaps, kHostNs, HostName("settings", "ml", "nlp")).value(),
                      {"data", "who"}),
      "ml/other");
  EXPECT_EQ(kube::GetString(HostPod("web")["spec"]["containers"][0], {"image"}), "other");
  EXPECT_FALSE(HostPodExists("reader"));
  // ...nor deleted when the tenant's objects go.
  ASSERT_TRUE(virtual_.Delete(kPods, "ml", "web").ok());
  ASSERT_TRUE(virtual_.Delete(kPods, "ml", "reader").ok());
  ASSERT_TRUE(virtual_.Delete(kConfigMaps, "ml", "settings").ok());
  CreateVirtual(kPods, PodJson("after"));
  ASSERT_TRUE(Eventually([&] { return HostPodExists("after"); }));  // the syncer has moved on
  EXPECT_TRUE(HostPodExists("web"));
  EXPECT_TRUE(host_.Get(kConfigMaps, kHostNs, HostName("settings", "ml", "nlp")).ok());
}

TEST_F(SyncerTest, AnObjectTheSyncerDidNotMakeIsLeftAlone) {
  // Say an admin's Secret, without the syncer's labels, so no cache of the
  // syncer ever sees it: only the create that finds its name taken does.
  ASSERT_TRUE(
      host_
          .Create(kube::resources::kSecrets, kHostNs,
                  kube::BuildJson(kube::JsonObject{
                      {"apiVersion", "v1"},
                      {"kind", "Secret"},
                      {"metadata", kube::JsonObject{{"name", HostName("creds", "ml", "nlp")}}},
                      {"data", kube::JsonObject{{"k", "YWRtaW4="}}}}))
          .ok());
  StartSyncer();
  CreateVirtual(kube::resources::kSecrets, R"({"apiVersion":"v1","kind":"Secret",
      "metadata":{"name":"creds","namespace":"ml"},"data":{"k":"dGVuYW50"}})");
  CreateVirtual(kPods,
                PodJson("user", Json("{}"),
                        Json(R"({"volumes":[{"name":"v","secret":{"secretName":"creds"}}]})")));
  ASSERT_TRUE(Eventually([&] {
    return kube::GetString(VirtualPod("user"), {"status", "reason"}) == "HostNameClash";
  }));
  EXPECT_NE(kube::GetString(VirtualPod("user"), {"status", "message"})
                .find("was not made by vtenant-syncer for tenant nlp"),
            std::string::npos);
  EXPECT_FALSE(HostPodExists("user"));
  kube::Object secret =
      host_.Get(kube::resources::kSecrets, kHostNs, HostName("creds", "ml", "nlp")).value();
  EXPECT_EQ(kube::GetString(secret, {"data", "k"}), "YWRtaW4=");
  EXPECT_FALSE(kube::Label(secret, kManagedByLabel).has_value());
}

TEST_F(SyncerTest, ReadyOnlyWhenBothServersAnswer) {
  StartSyncer();
  EXPECT_TRUE(Eventually([&] { return manager_->health_server().Ready().ok(); }));
  host_.InjectError("list", "pods", Unavailable("host down"), -1);
  EXPECT_TRUE(Eventually([&] { return !syncer_->ServersAnswer().ok(); }));
  EXPECT_NE(syncer_->ServersAnswer().message().find("host"), std::string::npos);
  EXPECT_FALSE(manager_->health_server().Ready().ok());
  host_.ClearErrors();
  EXPECT_TRUE(Eventually([&] { return manager_->health_server().Ready().ok(); }));
}

// A Tenant that stops listing device classes leaves no claim copies on the
// host: the syncer started without classes deletes the copies of claims
// and templates made before, and nothing else in the host namespace.
TEST_F(SyncerTest, CopiesOfDeviceClaimsGoOnceTheTenantListsNoClasses) {
  using resources::kResourceClaims;
  using resources::kResourceClaimTemplates;
  SyncerConfig with_classes = NlpConfig();
  with_classes.allowed_device_classes = {"gpu.example.com"};
  StartSyncer(with_classes);
  const std::string devices =
      R"({"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com"}}]}})";
  CreateVirtual(kResourceClaims, R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
      "metadata":{"name":"gpus","namespace":"ml"},"spec":)" +
                                     devices + "}");
  CreateVirtual(kResourceClaimTemplates, R"({"apiVersion":"resource.k8s.io/v1",
      "kind":"ResourceClaimTemplate","metadata":{"name":"one-gpu","namespace":"ml"},
      "spec":{"spec":)" + devices + "}}");
  for (const auto& [pod, member, name] :
       {std::tuple{"claimant", "resourceClaimName", "gpus"},
        std::tuple{"templated", "resourceClaimTemplateName", "one-gpu"}}) {
    CreateVirtual(kPods, PodJson(pod, Json("{}"),
                                 Json(R"({"resourceClaims":[{"name":"gpu",")" +
                                      std::string(member) + R"(":")" + name + R"("}]})")));
  }
  const std::string claim_copy = HostName("gpus", "ml", "nlp");
  const std::string template_copy = HostName("one-gpu", "ml", "nlp");
  ASSERT_TRUE(Eventually([&] {
    return host_.Get(kResourceClaims, kHostNs, claim_copy).ok() &&
           host_.Get(kResourceClaimTemplates, kHostNs, template_copy).ok();
  }));
  // Not the syncer's, and another tenant's copy: neither is touched.
  ASSERT_TRUE(host_
                  .Create(kResourceClaims, kHostNs,
                          Json(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
      "metadata":{"name":"admin-gpu"},"spec":)" +
                               devices + "}"))
                  .ok());
  ASSERT_TRUE(host_
                  .Create(kResourceClaims, kHostNs,
                          Json(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
      "metadata":{"name":"vision-copy","labels":{"vtenant.io/managed-by":"vtenant-syncer",
      "vtenant.io/tenant":"vision"},"annotations":{"vtenant.io/virtual-namespace":"ml",
      "vtenant.io/virtual-name":"gpus"}},"spec":)" +
                               devices + "}"))
                  .ok());

  StopSyncer();
  StartSyncer(NlpConfig());
  EXPECT_TRUE(Eventually([&] {
    return host_.Get(kResourceClaims, kHostNs, claim_copy).status().code() ==
               StatusCode::kNotFound &&
           host_.Get(kResourceClaimTemplates, kHostNs, template_copy).status().code() ==
               StatusCode::kNotFound;
  }));
  EXPECT_TRUE(host_.Get(kResourceClaims, kHostNs, "admin-gpu").ok());
  EXPECT_TRUE(host_.Get(kResourceClaims, kHostNs, "vision-copy").ok());
  EXPECT_TRUE(HostPodExists("claimant")) << "a pod on the host keeps running";
}

}  // namespace
}  // namespace vtenant::syncer
