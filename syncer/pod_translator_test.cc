#include "syncer/pod_translator.h"

#include <gtest/gtest.h>

#include "kai/names.h"
#include "kube/json_builder.h"
#include "syncer/names.h"
#include "syncer/pod_tolerations.h"
#include "syncer/testing/test_objects.h"

namespace vtenant::syncer {
namespace {

using testing::Json;
using testing::NlpConfig;
using testing::WithMembers;

constexpr char kVirtualPod[] = R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {
    "name": "trainer-0", "namespace": "research", "uid": "uid-1", "resourceVersion": "42",
    "creationTimestamp": "2026-12-01T09:00:00Z", "finalizers": ["example.com/x"],
    "labels": {"app": "trainer", "kai.scheduler/queue": "vision"},
    "annotations": {"gpu-fraction": "0.33", "team": "nlp"},
    "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "train",
                         "uid": "job-uid", "controller": true}]
  },
  "spec": {
    "schedulerName": "kai-scheduler",
    "nodeName": "preset-node",
    "serviceAccountName": "trainer",
    "priorityClassName": "train", "priority": 50, "preemptionPolicy": "PreemptLowerPriority",
    "nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-L40S", "pool": "tenant-choice"},
    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
    "imagePullSecrets": [{"name": "registry"}],
    "initContainers": [{"name": "init", "image": "busybox",
                        "envFrom": [{"configMapRef": {"name": "init-env"}}]}],
    "containers": [{
      "name": "main", "image": "pytorch:2",
      "env": [
        {"name": "MODE", "value": "train"},
        {"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf", "key": "token"}}},
        {"name": "SIZE", "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": "size"}}},
        {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        {"name": "POD_NS", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
        {"name": "POD_UID", "valueFrom": {"fieldRef": {"fieldPath": "metadata.uid"}}},
        {"name": "SA", "valueFrom": {"fieldRef": {"fieldPath": "spec.serviceAccountName"}}},
        {"name": "APP", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['app']"}}},
        {"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}
      ],
      "envFrom": [{"secretRef": {"name": "creds"}}]
    }],
    "volumes": [
      {"name": "data", "persistentVolumeClaim": {"claimName": "dataset"}},
      {"name": "conf", "configMap": {"name": "cfg"}},
      {"name": "keys", "secret": {"secretName": "ssh"}},
      {"name": "info", "downwardAPI": {"items": [
        {"path": "name", "fieldRef": {"fieldPath": "metadata.name"}},
        {"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]}},
      {"name": "kube-api-access-abcde", "projected": {"sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace",
                                    "fieldRef": {"fieldPath": "metadata.namespace"}}]}}]}}
    ]
  },
  "status": {"phase": "Pending", "qosClass": "BestEffort"}
})";

class PodTranslatorTest : public ::testing::Test {
 protected:
  PodTranslatorTest() : pod_(Json(kVirtualPod)) {
    SyncerConfig config = NlpConfig();
    config.node_selector = {{"pool", "gpu-shared"}};
    config.tolerations = Json(R"([{"key":"tenant","value":"nlp","effect":"NoSchedule"}])");
    config.allowed_tolerations = {{.key = "nvidia.com/gpu", .exists = true}};
    translator_ = std::make_unique<PodTranslator>(config);
    context_.owner_chain = {{"batch/v1", "Job", "train", "job-uid"}};
    context_.gang = Gang{"pg-train-job-uid-x-research-x-nlp", 4, context_.owner_chain[0]};
    context_.services = {
        {"dataset-api", "10.96.0.20", {{"http", 8080, "TCP"}}},
        {"headless", "None", {{"", 80, "TCP"}}},
    };
    context_.namespace_labels = {{"kubernetes.io/metadata.name", "research"}};
    context_.token_secret = TokenSecretName("trainer-0", "research", "nlp");
    host_ = translator_->ToHost(pod_, context_);
  }

  const rapidjson::Value& Container(std::string_view list, int i = 0) {
    return host_["spec"][std::string(list).c_str()][i];
  }
  // The value of env var `name` in container 0 of "containers", or nullopt.
  std::optional<std::string> Env(std::string_view name) {
    for (const rapidjson::Value& e : Container("containers")["env"].GetArray()) {
      if (kube::GetString(e, {"name"}) == name) {
        if (kube::Find(e, {"value"}) == nullptr) return "<valueFrom>";
        return std::string(kube::GetString(e, {"value"}));
      }
    }
    return std::nullopt;
  }

  // Expects each variable of `want` to be as given (nullopt: absent).
  void ExpectEnv(
      std::initializer_list<std::pair<std::string_view, std::optional<std::string>>> want) {
    for (const auto& [name, value] : want) EXPECT_EQ(Env(name), value) << name;
  }

  kube::Object pod_;
  std::unique_ptr<PodTranslator> translator_;
  PodContext context_;
  kube::Object host_;
};

TEST_F(PodTranslatorTest, NameNamespaceAndTenantLabels) {
  EXPECT_EQ(kube::Name(host_), "trainer-0-x-research-x-nlp");
  EXPECT_EQ(kube::Namespace(host_), "vtenant-nlp");
  EXPECT_EQ(kube::Label(host_, kTenantLabel), "nlp");
  EXPECT_EQ(kube::Label(host_, kVirtualNamespaceLabel), "research");
  EXPECT_EQ(kube::Label(host_, kManagedByLabel), "vtenant-syncer");
  EXPECT_EQ(kube::Label(host_, "app"), "trainer");
  EXPECT_EQ(kube::Label(host_, "vtenant.io/ns-label.metadata.name"), "research");
}

TEST_F(PodTranslatorTest, QueueLabelIsAlwaysTheTenants) {
  EXPECT_EQ(kube::Label(host_, kQueueLabel), "nlp");
}

// A JobSet's gang puts each pod in its replica's sub-group (kai/jobset_gang.h):
// the host label is the gang's, not what the team wrote.
TEST_F(PodTranslatorTest, AGangsSubGroupIsThePodsLabel) {
  EXPECT_FALSE(kube::Label(host_, kai::kSubGroupLabel).has_value());
  context_.gang->pod_sub_group = "w-replica-1";
  kube::SetString(pod_, {"metadata", "labels"}, kai::kSubGroupLabel, "w-replica-0");
  const kube::Object host = translator_->ToHost(pod_, context_);
  EXPECT_EQ(kube::Label(host, kai::kSubGroupLabel), "w-replica-1");
}

TEST_F(PodTranslatorTest, VirtualIdentityAndOwnerChainAreAnnotations) {
  EXPECT_EQ(kube::Annotation(host_, kVirtualNameAnnotation), "trainer-0");
  EXPECT_EQ(kube::Annotation(host_, kVirtualNamespaceAnnotation), "research");
  EXPECT_EQ(kube::Annotation(host_, kVirtualUidAnnotation), "uid-1");
  EXPECT_EQ(kube::Annotation(host_, kOwnerChainAnnotation),
            R"([{"apiVersion":"batch/v1","kind":"Job","name":"train","uid":"job-uid"}])");
  EXPECT_EQ(kube::Annotation(host_, kPodGroupAnnotation), "pg-train-job-uid-x-research-x-nlp");
  EXPECT_EQ(kube::Annotation(host_, kGpuFractionAnnotation), "0.33");
}

TEST_F(PodTranslatorTest, NothingTiesTheHostPodToVirtualObjects) {
  const rapidjson::Value& meta = host_["metadata"];
  for (const char* gone :
       {"ownerReferences", "uid", "resourceVersion", "creationTimestamp", "finalizers"}) {
    EXPECT_FALSE(meta.HasMember(gone)) << gone;
  }
  EXPECT_FALSE(host_.HasMember("status"));
}

TEST_F(PodTranslatorTest, SchedulingFieldsGoToTheHostScheduler) {
  const rapidjson::Value& spec = host_["spec"];
  EXPECT_EQ(kube::GetString(spec, {"schedulerName"}), "kai-scheduler");
  EXPECT_FALSE(spec.HasMember("nodeName"));
  EXPECT_FALSE(spec.HasMember("priority"));
  EXPECT_FALSE(spec.HasMember("preemptionPolicy"));
  EXPECT_EQ(kube::GetString(spec, {"priorityClassName"}), "train");
  // The tenant's selector wins over the pod's; the pod's other keys stay.
  EXPECT_EQ(kube::GetString(spec, {"nodeSelector", "pool"}), "gpu-shared");
  EXPECT_EQ(kube::GetString(spec, {"nodeSelector", "nvidia.com/gpu.product"}), "NVIDIA-L40S");
  ASSERT_EQ(spec["tolerations"].Size(), 2u);
  EXPECT_EQ(kube::GetString(spec["tolerations"][1], {"key"}), "tenant");
}

TEST_F(PodTranslatorTest, SystemPriorityClassesStayVirtual) {
  kube::Object pod = Json(kVirtualPod);
  kube::SetString(pod, {"spec"}, "priorityClassName", "system-cluster-critical");
  kube::Object host = translator_->ToHost(pod, context_);
  EXPECT_FALSE(host["spec"].HasMember("priorityClassName"));
}

// KAI's pod grouper reads the label when the pod names no class, and a
// group's priority is its class's: a class the tenant may not use never
// reaches the host, by spec or by label, even when the label changes after
// the pod was admitted.
TEST_F(PodTranslatorTest, APriorityClassLabelOnlyOfAClassTheTenantMayUse) {
  kube::Object pod = Json(kVirtualPod);
  kube::SetString(pod, {"metadata", "labels"}, "priorityClassName", "train");
  EXPECT_EQ(kube::Label(translator_->ToHost(pod, context_), "priorityClassName"), "train");
  const kube::Object admitted = translator_->ToHost(pod, context_);
  kube::SetString(pod, {"metadata", "labels"}, "priorityClassName", "system-node-critical");
  PodTranslationNotes notes;
  EXPECT_FALSE(kube::Label(translator_->ToHost(pod, context_, &notes), "priorityClassName"));
  EXPECT_NE(std::find(notes.dropped_fields.begin(), notes.dropped_fields.end(),
                      "metadata.labels['priorityClassName']"),
            notes.dropped_fields.end());
  std::optional<kube::Object> updated = translator_->Update(pod, admitted, context_);
  ASSERT_TRUE(updated);
  EXPECT_FALSE(kube::Label(*updated, "priorityClassName")) << "the update removes it";
}

TEST_F(PodTranslatorTest, NoHostServiceAccountToken) {
  const rapidjson::Value& spec = host_["spec"];
  EXPECT_FALSE(spec.HasMember("serviceAccountName"));
  EXPECT_FALSE(spec["automountServiceAccountToken"].GetBool());
  // The projected token comes from the virtual API server, via a host Secret.
  const rapidjson::Value& sources = spec["volumes"][4]["projected"]["sources"];
  EXPECT_FALSE(sources[0].HasMember("serviceAccountToken"));
  EXPECT_EQ(kube::GetString(sources[0], {"secret", "name"}), context_.token_secret);
  EXPECT_EQ(kube::GetString(sources[0]["secret"]["items"][0], {"path"}), "token");
  EXPECT_EQ(kube::GetString(sources[1], {"configMap", "name"}),
            "kube-root-ca.crt-x-research-x-nlp");
}

TEST_F(PodTranslatorTest, ReferencesAreRenamedToHostCopies) {
  const rapidjson::Value& spec = host_["spec"];
  EXPECT_EQ(kube::GetString(spec["imagePullSecrets"][0], {"name"}), "registry-x-research-x-nlp");
  EXPECT_EQ(kube::GetString(Container("initContainers")["envFrom"][0], {"configMapRef", "name"}),
            "init-env-x-research-x-nlp");
  EXPECT_EQ(kube::GetString(Container("containers")["envFrom"][0], {"secretRef", "name"}),
            "creds-x-research-x-nlp");
  EXPECT_EQ(kube::GetString(spec["volumes"][0], {"persistentVolumeClaim", "claimName"}),
            "dataset-x-research-x-nlp");
  EXPECT_EQ(kube::GetString(spec["volumes"][1], {"configMap", "name"}), "cfg-x-research-x-nlp");
  EXPECT_EQ(kube::GetString(spec["volumes"][2], {"secret", "secretName"}), "ssh-x-research-x-nlp");
  bool token = false, size = false;
  for (const rapidjson::Value& e : Container("containers")["env"].GetArray()) {
    if (kube::GetString(e, {"name"}) == "TOKEN") {
      token = kube::GetString(e, {"valueFrom", "secretKeyRef", "name"}) == "hf-x-research-x-nlp";
    }
    if (kube::GetString(e, {"name"}) == "SIZE") {
      size = kube::GetString(e, {"valueFrom", "configMapKeyRef", "name"}) == "cfg-x-research-x-nlp";
    }
  }
  EXPECT_TRUE(token);
  EXPECT_TRUE(size);
}

TEST_F(PodTranslatorTest, DownwardApiSeesVirtualValues) {
  // POD_IP keeps its valueFrom: the host's IP is the real one.
  ExpectEnv({{"POD_NAME", "trainer-0"},
             {"POD_NS", "research"},
             {"POD_UID", "uid-1"},
             {"SA", "trainer"},
             {"APP", "trainer"},
             {"POD_IP", "<valueFrom>"}});
  const rapidjson::Value& items = host_["spec"]["volumes"][3]["downwardAPI"]["items"];
  EXPECT_EQ(kube::GetString(items[0], {"fieldRef", "fieldPath"}),
            "metadata.annotations['vtenant.io/virtual-name']");
  EXPECT_EQ(kube::GetString(items[1], {"fieldRef", "fieldPath"}),
            "metadata.annotations['vtenant.io/virtual-labels']");
  EXPECT_EQ(kube::Annotation(host_, kVirtualLabelsAnnotation),
            "app=\"trainer\"\nkai.scheduler/queue=\"vision\"");
  const rapidjson::Value& projected =
      host_["spec"]["volumes"][4]["projected"]["sources"][2]["downwardAPI"]["items"][0];
  EXPECT_EQ(kube::GetString(projected, {"fieldRef", "fieldPath"}),
            "metadata.annotations['vtenant.io/virtual-namespace']");
}

TEST_F(PodTranslatorTest, HostnameIsTheVirtualName) {
  EXPECT_EQ(kube::GetString(host_, {"spec", "hostname"}), "trainer-0");
}

TEST_F(PodTranslatorTest, VirtualServicesAndApiServerInTheEnvironment) {
  EXPECT_FALSE(host_["spec"]["enableServiceLinks"].GetBool());
  // A headless Service gets no variables.
  ExpectEnv({{"KUBERNETES_SERVICE_HOST", "10.0.0.7"},
             {"KUBERNETES_SERVICE_PORT", "6443"},
             {"DATASET_API_SERVICE_HOST", "10.96.0.20"},
             {"DATASET_API_SERVICE_PORT", "8080"},
             {"DATASET_API_SERVICE_PORT_HTTP", "8080"},
             {"DATASET_API_PORT_8080_TCP", "tcp://10.96.0.20:8080"},
             {"HEADLESS_SERVICE_HOST", std::nullopt},
             {"MODE", "train"}});
  // Init containers see them too.
  bool init_has_host = false;
  for (const rapidjson::Value& e : Container("initContainers")["env"].GetArray()) {
    init_has_host |= kube::GetString(e, {"name"}) == "KUBERNETES_SERVICE_HOST";
  }
  EXPECT_TRUE(init_has_host);
  const rapidjson::Value& alias = host_["spec"]["hostAliases"][0];
  EXPECT_EQ(kube::GetString(alias, {"ip"}), "10.0.0.7");
}

// Pods that ask for the cluster's DNS get the virtual cluster's, with the
// search list of their virtual namespace; those that chose otherwise keep
// their choice; without a cluster DNS nothing changes.
TEST(PodTranslatorDnsTest, ClusterFirstPodsGetTheVirtualClustersDns) {
  SyncerConfig config = NlpConfig();
  config.cluster_dns = "10.96.0.53";
  PodTranslator translator(config);
  // The host spec of a pod of one plain container and the members of
  // `members` (JSON).
  auto host_spec = [&](const std::string& members) {
    kube::Object pod = kube::BuildJson(kube::JsonObject{
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", kube::JsonObject{{"name", "p"}, {"namespace", "research"}, {"uid", "u1"}}},
        {"spec", WithMembers({{"containers",
                               kube::JsonArray{kube::JsonObject{{"name", "c"}, {"image", "i"}}}}},
                             members)}});
    kube::Object host = translator.ToHost(pod, PodContext{});
    return kube::Clone(host["spec"]);
  };
  for (const std::string policy :
       {"{}", R"({"dnsPolicy":"ClusterFirst"})", R"({"dnsPolicy":"ClusterFirstWithHostNet"})"}) {
    kube::Object spec = host_spec(policy);
    EXPECT_EQ(kube::GetString(spec, {"dnsPolicy"}), "None") << policy;
    EXPECT_EQ(kube::ToJson(spec["dnsConfig"]),
              R"({"nameservers":["10.96.0.53"],"searches":["research.svc.cluster.local",)"
              R"("svc.cluster.local","cluster.local"],"options":[{"name":"ndots","value":"5"}]})")
        << policy;
  }
  // The pod's own dnsConfig comes after ours; its ndots wins.
  kube::Object merged = host_spec(R"({"dnsConfig":{"nameservers":["1.1.1.1","10.96.0.53","2.2.2.2",
      "3.3.3.3"],"searches":["corp.example","svc.cluster.local"],"options":[{"name":"ndots",
      "value":"2"},{"name":"edns0"}]}})");
  EXPECT_EQ(kube::ToJson(merged["dnsConfig"]),
            R"({"nameservers":["10.96.0.53","1.1.1.1","2.2.2.2"],"searches":[)"
            R"("research.svc.cluster.local","svc.cluster.local","cluster.local","corp.example"],)"
            R"("options":[{"name":"ndots","value":"2"},{"name":"edns0"}]})");
  // Default and None are the team's; so is the node's DNS on the host network.
  kube::Object own = host_spec(R"({"dnsPolicy":"None","dnsConfig":{"nameservers":["9.9.9.9"]}})");
  EXPECT_EQ(kube::GetString(own, {"dnsPolicy"}), "None");
  EXPECT_EQ(kube::ToJson(own["dnsConfig"]), R"({"nameservers":["9.9.9.9"]})");
  EXPECT_EQ(kube::GetString(host_spec(R"({"dnsPolicy":"Default"})"), {"dnsPolicy"}), "Default");
  EXPECT_EQ(kube::GetString(host_spec(R"({"dnsPolicy":"ClusterFirst","hostNetwork":true})"),
                            {"dnsPolicy"}),
            "ClusterFirst");

  PodTranslator without(NlpConfig());
  kube::Object pod = Json(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p",
      "namespace":"research","uid":"u1"},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  kube::Object plain = without.ToHost(pod, PodContext{});
  EXPECT_EQ(kube::Find(plain, {"spec", "dnsPolicy"}), nullptr);
  EXPECT_EQ(kube::Find(plain, {"spec", "dnsConfig"}), nullptr);
}

TEST_F(PodTranslatorTest, ContainerEnvWinsOverInjected) {
  kube::Object pod = Json(kVirtualPod);
  rapidjson::Value& env = pod["spec"]["containers"][0]["env"];
  rapidjson::Value var(rapidjson::kObjectType);
  var.AddMember("name", "KUBERNETES_SERVICE_HOST", pod.GetAllocator());
  var.AddMember("value", "mine", pod.GetAllocator());
  env.PushBack(var, pod.GetAllocator());
  host_ = translator_->ToHost(pod, context_);
  int seen = 0;
  for (const rapidjson::Value& e : Container("containers")["env"].GetArray()) {
    if (kube::GetString(e, {"name"}) == "KUBERNETES_SERVICE_HOST") {
      ++seen;
      EXPECT_EQ(kube::GetString(e, {"value"}), "mine");
    }
  }
  EXPECT_EQ(seen, 1);
}

TEST_F(PodTranslatorTest, UpdateIsEmptyWhenNothingChanged) {
  EXPECT_FALSE(translator_->Update(pod_, host_, context_));
}

TEST_F(PodTranslatorTest, UpdateCarriesMutableFieldsOnly) {
  kube::Object pod = Json(kVirtualPod);
  pod["spec"]["containers"][0]["image"].SetString("pytorch:3", pod.GetAllocator());
  kube::SetString(pod, {"metadata", "labels"}, "kai.scheduler/queue", "recsys");
  kube::RemoveMember(pod, {"metadata", "annotations"}, "team");
  kube::SetString(pod, {"metadata", "labels"}, "stage", "two");
  pod["spec"].AddMember("activeDeadlineSeconds", 600, pod.GetAllocator());
  // A host-side annotation (e.g. from the binder) must survive.
  kube::Object host = kube::Clone(host_);
  kube::SetString(host, {"metadata", "annotations"}, "runai-gpu-group", "g1");
  std::optional<kube::Object> update = translator_->Update(pod, host, context_);
  ASSERT_TRUE(update);
  EXPECT_EQ(kube::GetString((*update)["spec"]["containers"][0], {"image"}), "pytorch:3");
  EXPECT_EQ(kube::Label(*update, kQueueLabel), "nlp");
  EXPECT_EQ(kube::Label(*update, "stage"), "two");
  EXPECT_FALSE(kube::Annotation(*update, "team"));
  EXPECT_EQ(kube::Annotation(*update, "runai-gpu-group"), "g1");
  EXPECT_EQ(kube::GetInt(*update, {"spec", "activeDeadlineSeconds"}), 600);
  // Applying it again changes nothing.
  EXPECT_FALSE(translator_->Update(pod, *update, context_));
}

TEST_F(PodTranslatorTest, UpdateRemovesSchedulingGatesButNeverAddsThem) {
  kube::Object host = kube::Clone(host_);
  rapidjson::Value gates(rapidjson::kArrayType);
  rapidjson::Value gate(rapidjson::kObjectType);
  gate.AddMember("name", "wait", host.GetAllocator());
  gates.PushBack(gate, host.GetAllocator());
  host["spec"].AddMember("schedulingGates", gates, host.GetAllocator());
  std::optional<kube::Object> update = translator_->Update(pod_, host, context_);
  ASSERT_TRUE(update);
  EXPECT_FALSE((*update)["spec"].HasMember("schedulingGates"));
}

// The scheduler's PodScheduled message says why a pod waits in host terms;
// the team reads it in its own, as it reads the Event: its pod's group by
// its name, another queue and another tenant's objects unnamed.
TEST_F(PodTranslatorTest, StatusUpPutsConditionMessagesInTheTeamsTerms) {
  kube::Object host = kube::Clone(host_);
  const std::string message = "queue ml-org is over its limit; gang pg-" +
                              std::string(kube::Name(host)) +
                              "-123e4567-e89b-12d3-a456-426614174000 waits, behind "
                              "vtenant-vision/web-x-web-x-vision";
  kube::Object status = kube::BuildJson(
      kube::JsonObject{{"phase", "Pending"},
                       {"conditions", kube::JsonArray{kube::JsonObject{{"type", "PodScheduled"},
                                                                       {"status", "False"},
                                                                       {"reason", "Unschedulable"},
                                                                       {"message", message}}}}});
  host.AddMember("status", rapidjson::Value(status, host.GetAllocator()), host.GetAllocator());
  std::optional<kube::Object> up = translator_->StatusFromHost(host, pod_);
  ASSERT_TRUE(up);
  const std::string team_name =
      std::string(kube::Namespace(pod_)) + "/" + std::string(kube::Name(pod_));
  EXPECT_EQ(kube::GetString((*up)["status"]["conditions"][0], {"message"}),
            "another queue is over its limit; gang " + team_name + " waits, behind " + kHiddenName);
  EXPECT_EQ(kube::GetString((*up)["status"]["conditions"][0], {"reason"}), "Unschedulable");
  EXPECT_FALSE(translator_->StatusFromHost(host, *up)) << "translated alike every time";
}

TEST_F(PodTranslatorTest, StatusUpKeepsTheVirtualQosClass) {
  kube::Object host = kube::Clone(host_);
  kube::Object status = Json(R"({"phase":"Running","podIP":"10.244.0.5","hostIP":"192.168.0.2",
      "qosClass":"Guaranteed","conditions":[{"type":"Ready","status":"True"}],
      "containerStatuses":[{"name":"main","ready":true,"restartCount":0}],
      "resourceClaimStatuses":[{"name":"gpu","resourceClaimName":"host-pod-gpu-x7k2p"}]})");
  host.AddMember("status", rapidjson::Value(status, host.GetAllocator()), host.GetAllocator());
  std::optional<kube::Object> up = translator_->StatusFromHost(host, pod_);
  ASSERT_TRUE(up);
  EXPECT_EQ(kube::GetString(*up, {"status", "phase"}), "Running");
  EXPECT_EQ(kube::GetString(*up, {"status", "podIP"}), "10.244.0.5");
  EXPECT_EQ(kube::GetString(*up, {"status", "qosClass"}), "BestEffort");
  EXPECT_EQ((*up)["status"]["containerStatuses"].Size(), 1u);
  // The claim the host made from the pod's template is the host's alone.
  EXPECT_FALSE(kube::Find(*up, {"status", "resourceClaimStatuses"}));
  EXPECT_EQ(kube::ResourceVersion(*up), "42");
  EXPECT_FALSE(translator_->StatusFromHost(host, *up));
}

// The allowlist, one row per field decision of pod_schema.h: what a member
// of the virtual pod's spec becomes on the host.
struct FieldRow {
  const char* field;
  std::string spec;               // JSON: members added to a minimal spec
  std::vector<std::string> path;  // where to look on the host pod ("0" indexes an array)
  std::string want;               // JSON found there; "" = absent
  std::string dropped = "";       // reported as dropped
};

const rapidjson::Value* At(const rapidjson::Value& v, const std::vector<std::string>& path) {
  const rapidjson::Value* at = &v;
  for (const std::string& step : path) {
    if (at->IsArray()) {
      size_t i = std::stoul(step);
      if (i >= at->Size()) return nullptr;
      at = &(*at)[i];
    } else if (at->IsObject() && at->HasMember(step.c_str())) {
      at = &(*at)[step.c_str()];
    } else {
      return nullptr;
    }
  }
  return at;
}

TEST(PodTranslatorAllowlistTest, EveryFieldDecision) {
  const FieldRow rows[] = {
      // copy
      {"restartPolicy", R"({"restartPolicy":"Never"})", {"spec", "restartPolicy"}, R"("Never")"},
      {"terminationGracePeriodSeconds",
       R"({"terminationGracePeriodSeconds":5})",
       {"spec", "terminationGracePeriodSeconds"},
       "5"},
      {"activeDeadlineSeconds",
       R"({"activeDeadlineSeconds":60})",
       {"spec", "activeDeadlineSeconds"},
       "60"},
      {"dnsPolicy", R"({"dnsPolicy":"None"})", {"spec", "dnsPolicy"}, R"("None")"},
      {"dnsConfig",
       R"({"dnsConfig":{"nameservers":["1.1.1.1"]}})",
       {"spec", "dnsConfig"},
       R"({"nameservers":["1.1.1.1"]})"},
      {"shareProcessNamespace",
       R"({"shareProcessNamespace":true})",
       {"spec", "shareProcessNamespace"},
       "true"},
      {"readinessGates",
       R"({"readinessGates":[{"conditionType":"x"}]})",
       {"spec", "readinessGates"},
       R"([{"conditionType":"x"}])"},
      {"os", R"({"os":{"name":"linux"}})", {"spec", "os"}, R"({"name":"linux"})"},
      {"hostUsers", R"({"hostUsers":false})", {"spec", "hostUsers"}, "false"},
      {"setHostnameAsFQDN", R"({"setHostnameAsFQDN":true})", {"spec", "setHostnameAsFQDN"}, "true"},
      {"hostnameOverride", R"({"hostnameOverride":"h"})", {"spec", "hostnameOverride"}, R"("h")"},
      {"schedulingGates",
       R"({"schedulingGates":[{"name":"g"}]})",
       {"spec", "schedulingGates"},
       R"([{"name":"g"}])"},
      {"hostNetwork (policy checks it)",
       R"({"hostNetwork":true})",
       {"spec", "hostNetwork"},
       "true"},
      {"pod resources",
       R"({"resources":{"limits":{"cpu":"1"},"claims":[{"name":"x"}]}})",
       {"spec", "resources"},
       R"({"limits":{"cpu":"1"}})"},
      {"securityContext",
       R"({"securityContext":{"runAsUser":1000,"fsGroup":2000}})",
       {"spec", "securityContext"},
       R"({"runAsUser":1000,"fsGroup":2000})"},
      {"nodeSelector",
       R"({"nodeSelector":{"zone":"a"}})",
       {"spec", "nodeSelector"},
       R"({"zone":"a"})"},
      {"nodeAffinity",
       R"({"affinity":{"nodeAffinity":{"x":1}}})",
       {"spec", "affinity"},
       R"({"nodeAffinity":{"x":1}})"},
      {"hostname", R"({"hostname":"h"})", {"spec", "hostname"}, R"("h")"},
      {"runtimeClassName (policy checks it)",
       R"({"runtimeClassName":"gvisor"})",
       {"spec", "runtimeClassName"},
       R"("gvisor")"},
      {"hostAliases",
       R"({"hostAliases":[{"ip":"1.2.3.4","hostnames":["a"]}]})",
       {"spec", "hostAliases", "0"},
       R"({"ip":"1.2.3.4","hostnames":["a"]})"},
      // omit
      {"nodeName", R"({"nodeName":"n"})", {"spec", "nodeName"}, ""},
      {"serviceAccountName", R"({"serviceAccountName":"sa"})", {"spec", "serviceAccountName"}, ""},
      {"serviceAccount", R"({"serviceAccount":"sa"})", {"spec", "serviceAccount"}, ""},
      {"priority", R"({"priority":1000000})", {"spec", "priority"}, ""},
      {"preemptionPolicy", R"({"preemptionPolicy":"Never"})", {"spec", "preemptionPolicy"}, ""},
      {"overhead", R"({"overhead":{"cpu":"1"}})", {"spec", "overhead"}, ""},
      {"ephemeralContainers",
       R"({"ephemeralContainers":[{"name":"e","image":"i"}]})",
       {"spec", "ephemeralContainers"},
       ""},
      {"system priority class",
       R"({"priorityClassName":"system-node-critical"})",
       {"spec", "priorityClassName"},
       ""},
      // force
      {"schedulerName",
       R"({"schedulerName":"other-scheduler"})",
       {"spec", "schedulerName"},
       R"("kai-scheduler")"},
      {"automountServiceAccountToken",
       R"({"automountServiceAccountToken":true})",
       {"spec", "automountServiceAccountToken"},
       "false"},
      {"enableServiceLinks",
       R"({"enableServiceLinks":true})",
       {"spec", "enableServiceLinks"},
       "false"},
      // translate
      {"subdomain", R"({"subdomain":"web"})", {"spec", "subdomain"}, R"("web-x-ml-x-nlp")"},
      {"imagePullSecrets",
       R"({"imagePullSecrets":[{"name":"reg"}]})",
       {"spec", "imagePullSecrets"},
       R"([{"name":"reg-x-ml-x-nlp"}])"},
      {"resourceClaims name the host copies",
       R"({"resourceClaims":[{"name":"gpu","resourceClaimName":"gpus"},)"
       R"({"name":"nic","resourceClaimTemplateName":"one-nic","extra":1}]})",
       {"spec", "resourceClaims"},
       R"([{"name":"gpu","resourceClaimName":"gpus-x-ml-x-nlp"},)"
       R"({"name":"nic","resourceClaimTemplateName":"one-nic-x-ml-x-nlp"}])",
       "spec.resourceClaims[].extra"},
      {"allowed priority class",
       R"({"priorityClassName":"train"})",
       {"spec", "priorityClassName"},
       R"("train")"},
      {"pod affinity in the pod's namespace",
       R"({"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[)"
       R"({"labelSelector":{"matchLabels":{"app":"db"}},"topologyKey":"zone"}]}}})",
       {"spec", "affinity", "podAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "0"},
       R"({"labelSelector":{"matchLabels":{"app":"db"},"matchExpressions":[{"key":)"
       R"("vtenant.io/virtual-namespace","operator":"In","values":["ml"]}]},"topologyKey":"zone"})"},
      {"anti-affinity naming namespaces",
       R"({"affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[)"
       R"({"weight":5,"podAffinityTerm":{"labelSelector":{},"namespaces":["a","kube-system"],)"
       R"("topologyKey":"host"}}]}}})",
       {"spec", "affinity", "podAntiAffinity", "preferredDuringSchedulingIgnoredDuringExecution",
        "0"},
       R"({"weight":5,"podAffinityTerm":{"labelSelector":{"matchExpressions":[{"key":)"
       R"("vtenant.io/virtual-namespace","operator":"In","values":["a","kube-system"]}]},)"
       R"("topologyKey":"host"}})"},
      {"affinity to every namespace",
       R"({"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[)"
       R"({"labelSelector":{"matchLabels":{"app":"db"}},"namespaceSelector":{},)"
       R"("topologyKey":"z"}]}}})",
       {"spec", "affinity", "podAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "0"},
       R"({"labelSelector":{"matchLabels":{"app":"db"}},"topologyKey":"z"})"},
      {"topology spread",
       R"({"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"z",)"
       R"("whenUnsatisfiable":"DoNotSchedule","labelSelector":{}}]})",
       {"spec", "topologySpreadConstraints", "0", "labelSelector"},
       R"({"matchExpressions":[{"key":"vtenant.io/virtual-namespace","operator":"In",)"
       R"("values":["ml"]}]})"},
      // drop
      {"schedulingGroup",
       R"({"schedulingGroup":{"podGroupName":"g"}})",
       {"spec", "schedulingGroup"},
       "",
       "spec.schedulingGroup"},
      {"evictionResponders",
       R"({"evictionResponders":[{"name":"r"}]})",
       {"spec", "evictionResponders"},
       "",
       "spec.evictionResponders"},
      {"a field the table does not know",
       R"({"futureField":1})",
       {"spec", "futureField"},
       "",
       "spec.futureField"},
      // containers
      {"container basics",
       R"({"containers":[{"name":"c","image":"i","command":["a"],"args":["b"],"workingDir":"/w",)"
       R"("imagePullPolicy":"Always","stdin":true,"tty":true,)"
       R"("terminationMessagePolicy":"FallbackToLogsOnError"}]})",
       {"spec", "containers", "0"},
       R"({"name":"c","image":"i","command":["a"],"args":["b"],"workingDir":"/w",)"
       R"("imagePullPolicy":"Always","stdin":true,"tty":true,)"
       R"("terminationMessagePolicy":"FallbackToLogsOnError"})"},
      {"container ports (hostPort: policy)",
       R"({"containers":[{"name":"c","image":"i",)"
       R"("ports":[{"name":"http","containerPort":80,"protocol":"TCP","hostPort":8080}]}]})",
       {"spec", "containers", "0", "ports"},
       R"([{"name":"http","containerPort":80,"protocol":"TCP","hostPort":8080}])"},
      {"container resources (claims name the pod's resourceClaims entries)",
       R"({"containers":[{"name":"c","image":"i","resources":{"limits":{"nvidia.com/gpu":"1"},)"
       R"("claims":[{"name":"x","request":"big"}]}}]})",
       {"spec", "containers", "0", "resources"},
       R"({"limits":{"nvidia.com/gpu":"1"},"claims":[{"name":"x","request":"big"}]})"},
      {"volumeMounts",
       R"({"containers":[{"name":"c","image":"i",)"
       R"("volumeMounts":[{"name":"v","mountPath":"/v","readOnly":true}]}]})",
       {"spec", "containers", "0", "volumeMounts"},
       R"([{"name":"v","mountPath":"/v","readOnly":true}])"},
      {"probes",
       R"({"containers":[{"name":"c","image":"i",)"
       R"("livenessProbe":{"httpGet":{"path":"/h","port":8080},"periodSeconds":5}}]})",
       {"spec", "containers", "0", "livenessProbe"},
       R"({"httpGet":{"path":"/h","port":8080},"periodSeconds":5})"},
      {"lifecycle",
       R"({"containers":[{"name":"c","image":"i",)"
       R"("lifecycle":{"preStop":{"sleep":{"seconds":5}},"stopSignal":"SIGINT"}}]})",
       {"spec", "containers", "0", "lifecycle"},
       R"({"preStop":{"sleep":{"seconds":5}},"stopSignal":"SIGINT"})"},
      {"container securityContext",
       R"({"containers":[{"name":"c","image":"i",)"
       R"("securityContext":{"readOnlyRootFilesystem":true,"capabilities":{"drop":["ALL"]}}}]})",
       {"spec", "containers", "0", "securityContext"},
       R"({"readOnlyRootFilesystem":true,"capabilities":{"drop":["ALL"]}})"},
      {"unknown container field",
       R"({"containers":[{"name":"c","image":"i","futureField":1}]})",
       {"spec", "containers", "0", "futureField"},
       "",
       "spec.containers[].futureField"},
      // volumes
      {"emptyDir",
       R"({"volumes":[{"name":"v","emptyDir":{"medium":"Memory"}}]})",
       {"spec", "volumes", "0"},
       R"({"name":"v","emptyDir":{"medium":"Memory"}})"},
      {"opt-in type with its Secret renamed",
       R"({"volumes":[{"name":"v","cephfs":{"monitors":["m"],"secretRef":{"name":"ceph"}}}]})",
       {"spec", "volumes", "0", "cephfs"},
       R"({"monitors":["m"],"secretRef":{"name":"ceph-x-ml-x-nlp"}})"},
      {"csi with its Secret renamed",
       R"({"volumes":[{"name":"v","csi":{"driver":"d","nodePublishSecretRef":{"name":"s"}}}]})",
       {"spec", "volumes", "0", "csi"},
       R"({"driver":"d","nodePublishSecretRef":{"name":"s-x-ml-x-nlp"}})"},
      {"projected host signers dropped",
       R"({"volumes":[{"name":"v","projected":{"sources":[{"podCertificate":{"signerName":"s"}},)"
       R"({"clusterTrustBundle":{"name":"b","path":"p"}}]}}]})",
       {"spec", "volumes", "0", "projected"},
       R"({"sources":[]})",
       "spec.volumes[].projected.sources[].podCertificate"},
      {"ephemeral claim",
       R"({"volumes":[{"name":"v","ephemeral":{"volumeClaimTemplate":{"metadata":{"labels":{)"
       R"("app":"a","vtenant.io/tenant":"x"},"annotations":{"y":"z"}},"spec":{"accessModes":)"
       R"(["ReadWriteOnce"],"storageClassName":"fast","resources":{"requests":{"storage":"1Gi"}},)"
       R"("selector":{"matchLabels":{"a":"b"}},"volumeName":"pv-1",)"
       R"("dataSource":{"kind":"PersistentVolumeClaim","name":"seed"}}}}}]})",
       {"spec", "volumes", "0", "ephemeral", "volumeClaimTemplate"},
       R"({"spec":{"accessModes":["ReadWriteOnce"],"storageClassName":"fast","resources":)"
       R"({"requests":{"storage":"1Gi"}},"dataSource":{"kind":"PersistentVolumeClaim",)"
       R"("name":"seed-x-ml-x-nlp"}},"metadata":{"labels":{"app":"a"},"annotations":{"y":"z"}}})",
       "spec.volumes[].ephemeral.volumeClaimTemplate.metadata.labels['vtenant.io/tenant']"},
  };
  SyncerConfig config = testing::NlpConfig();
  config.virtual_service_host.clear();  // no variables or host alias in the way
  PodTranslator translator(config);
  for (const FieldRow& row : rows) {
    kube::JsonObject spec = WithMembers({}, row.spec);
    if (row.spec.find(R"("containers")") == std::string::npos) {
      spec.Set("containers", kube::JsonArray{kube::JsonObject{{"name", "c"}, {"image", "i"}}});
    }
    kube::Object pod = kube::BuildJson(kube::JsonObject{
        {"metadata", kube::JsonObject{{"name", "p"}, {"namespace", "ml"}, {"uid", "u"}}},
        {"spec", std::move(spec)}});
    PodTranslationNotes notes;
    kube::Object host = translator.ToHost(pod, PodContext{}, &notes);
    const rapidjson::Value* found = At(host, row.path);
    if (row.want.empty()) {
      EXPECT_EQ(found, nullptr) << row.field << ": " << kube::ToJson(*found);
    } else {
      ASSERT_NE(found, nullptr) << row.field << "\n" << kube::ToJson(host);
      EXPECT_EQ(kube::ToJson(*found), row.want) << row.field;
    }
    if (!row.dropped.empty()) {
      EXPECT_NE(std::find(notes.dropped_fields.begin(), notes.dropped_fields.end(), row.dropped),
                notes.dropped_fields.end())
          << row.field;
    }
  }
}

TEST(PodTranslatorAllowlistTest, KnownFieldsAreNotReportedAsDropped) {
  PodTranslationNotes notes;
  PodTranslator translator(testing::NlpConfig());
  kube::Object host = translator.ToHost(Json(kVirtualPod), PodContext{}, &notes);
  // Only the queue label, which the tenant's queue replaces.
  EXPECT_EQ(notes.dropped_fields, DroppedFields{"metadata.labels['kai.scheduler/queue']"});
}

TEST(PodTranslatorAllowlistTest, ReservedLabelsAndAnnotationsNeverComeFromTheTenant) {
  kube::Object pod = Json(R"({"metadata":{"name":"p","namespace":"ml","uid":"u",
      "labels":{"app":"web","vtenant.io/tenant":"other","vtenant.io/managed-by":"me",
                "kai.scheduler/queue":"other","app.kubernetes.io/name":"web",
                "batch.kubernetes.io/controller-uid":"123",
                "statefulset.kubernetes.io/pod-name":"web-0",
                "runai-gpu-group":"theirs","runai-gpu-group/theirs":"theirs"},
      "annotations":{"runai-gpu":"3","runai/shared-gpu-configmap":"x","pod-group-name":"theirs",
                     "run.ai/reserve_for_gpu_index":"1","gpu-fraction":"0.5",
                     "vtenant.io/virtual-uid":"fake","kubectl.kubernetes.io/default-container":"c",
                     "kubectl.kubernetes.io/last-applied-configuration":"{}"}},
      "spec":{"containers":[{"name":"c","image":"i"}]}})");
  PodTranslationNotes notes;
  PodTranslator translator(testing::NlpConfig());
  kube::Object host = translator.ToHost(pod, PodContext{}, &notes);
  EXPECT_EQ(kube::Label(host, "app"), "web");
  EXPECT_EQ(kube::Label(host, kTenantLabel), "nlp");
  EXPECT_EQ(kube::Label(host, kManagedByLabel), "vtenant-syncer");
  EXPECT_EQ(kube::Label(host, kQueueLabel), "nlp");
  EXPECT_EQ(kube::Label(host, "app.kubernetes.io/name"), "web");
  EXPECT_EQ(kube::Label(host, "statefulset.kubernetes.io/pod-name"), "web-0");
  EXPECT_FALSE(kube::Label(host, "batch.kubernetes.io/controller-uid"));
  EXPECT_FALSE(kube::Label(host, "runai-gpu-group"));
  EXPECT_FALSE(kube::Label(host, "runai-gpu-group/theirs"));
  for (const char* gone :
       {"runai-gpu", "runai/shared-gpu-configmap", "pod-group-name", "run.ai/reserve_for_gpu_index",
        "kubectl.kubernetes.io/last-applied-configuration"}) {
    EXPECT_FALSE(kube::Annotation(host, gone)) << gone;
  }
  EXPECT_EQ(kube::Annotation(host, kVirtualUidAnnotation), "u");
  EXPECT_EQ(kube::Annotation(host, "gpu-fraction"), "0.5");
  EXPECT_EQ(kube::Annotation(host, "kubectl.kubernetes.io/default-container"), "c");
  EXPECT_NE(std::find(notes.dropped_fields.begin(), notes.dropped_fields.end(),
                      "metadata.annotations['runai-gpu']"),
            notes.dropped_fields.end());
}

TEST(PodTranslatorAllowlistTest, UpdateNeverRemovesReservedKeysTheHostWrote) {
  PodTranslator translator(testing::NlpConfig());
  kube::Object pod = Json(R"({"metadata":{"name":"p","namespace":"ml","uid":"u",
      "annotations":{"runai-gpu-group":"mine"}},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  kube::Object host = translator.ToHost(pod, PodContext{});
  // The binder sets its own value; the tenant then drops its annotation.
  kube::SetString(host, {"metadata", "annotations"}, "runai-gpu-group", "binder");
  kube::RemoveMember(pod, {"metadata", "annotations"}, "runai-gpu-group");
  std::optional<kube::Object> update = translator.Update(pod, host, PodContext{});
  const rapidjson::Value& out = update ? *update : host;
  EXPECT_EQ(kube::Annotation(out, "runai-gpu-group"), "binder");
}

TEST(PodTranslatorAllowlistTest, NamespaceSelectorsResolveAgainstVirtualNamespaces) {
  PodTranslator translator(testing::NlpConfig());
  kube::Object pod = Json(R"({"metadata":{"name":"p","namespace":"ml","uid":"u"},"spec":{
      "containers":[{"name":"c","image":"i"}],
      "affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
        {"labelSelector":{"matchLabels":{"app":"x"}},"topologyKey":"h",
         "namespaceSelector":{"matchLabels":{"team":"nlp"}}},
        {"labelSelector":{"matchLabels":{"app":"x"}},"topologyKey":"h",
         "namespaceSelector":{"matchLabels":{"team":"nobody"}}}]}}}})");
  ASSERT_TRUE(UsesNamespaceSelector(pod));
  PodContext context;
  context.virtual_namespaces = {
      {"ml", {{"team", "nlp"}}}, {"data", {{"team", "nlp"}}}, {"web", {{"team", "web"}}}};
  kube::Object host = translator.ToHost(pod, context);
  const rapidjson::Value& terms =
      host["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"];
  EXPECT_EQ(kube::ToJson(terms[0]["labelSelector"]["matchExpressions"][0]["values"]),
            R"(["data","ml"])");
  EXPECT_FALSE(terms[0].HasMember("namespaceSelector"));
  // No namespace matched: the term matches no pod, as in the virtual cluster.
  EXPECT_EQ(kube::ToJson(terms[1]["labelSelector"]["matchExpressions"][0]["values"]), R"([""])");
}

// Tolerations: one row per rule of pod_tolerations.h.
TEST(PodTolerationsTest, OnlyWhatAnEntryAllowsPasses) {
  const std::vector<AllowedToleration> allowed = {
      {.key = "nvidia.com/gpu", .exists = true},
      {.key = "dedicated", .value = "nlp", .effect = "NoSchedule"},
  };
  const std::pair<const char*, bool> rows[] = {
      {R"({"operator":"Exists"})", false},  // every taint
      {R"({"operator":"Exists","effect":"NoSchedule"})", false},
      {R"({"key":"nvidia.com/gpu","operator":"Exists"})", true},
      {R"({"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"})", true},
      {R"({"key":"nvidia.com/gpu","value":"present","effect":"NoExecute"})", true},
      {R"({"key":"dedicated","value":"nlp","effect":"NoSchedule"})", true},
      {R"({"key":"dedicated","operator":"Equal","value":"nlp","effect":"NoSchedule"})", true},
      {R"({"key":"dedicated","value":"vision","effect":"NoSchedule"})", false},
      {R"({"key":"dedicated","operator":"Exists","effect":"NoSchedule"})", false},
      {R"({"key":"dedicated","value":"nlp"})", false},  // every effect
      {R"({"key":"dedicated","value":"nlp","effect":"NoExecute"})", false},
      {R"({"key":"node-role.kubernetes.io/control-plane","operator":"Exists"})", false},
      {R"({"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute",)"
       R"("tolerationSeconds":300})",
       true},
      {R"({"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute",)"
       R"("tolerationSeconds":300})",
       true},
      {R"({"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoSchedule"})",
       false},
  };
  for (const auto& [toleration, passes] : rows) {
    EXPECT_EQ(TolerationAllowed(Json(toleration), allowed), passes) << toleration;
  }
  EXPECT_FALSE(TolerationAllowed(Json(R"({"key":"nvidia.com/gpu","operator":"Exists"})"), {}));
}

TEST(PodTolerationsTest, DroppedOnesAreReportedAndTheTenantsAdded) {
  SyncerConfig config = testing::NlpConfig();
  config.tolerations = Json(R"([{"key":"tenant","value":"nlp","effect":"NoSchedule"}])");
  config.allowed_tolerations = {{.key = "nvidia.com/gpu", .exists = true}};
  PodTranslator translator(config);
  kube::Object pod = Json(R"({"metadata":{"name":"p","namespace":"ml","uid":"u"},"spec":{
      "containers":[{"name":"c","image":"i"}],"tolerations":[
        {"operator":"Exists"},
        {"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"},
        {"key":"pool","value":"a100","effect":"NoSchedule"}]}})");
  PodTranslationNotes notes;
  kube::Object host = translator.ToHost(pod, PodContext{}, &notes);
  EXPECT_EQ(kube::ToJson(host["spec"]["tolerations"]),
            R"([{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"},)"
            R"({"key":"tenant","value":"nlp","effect":"NoSchedule"}])");
  EXPECT_EQ(
      notes.dropped_tolerations,
      (std::vector<std::string>{"every taint (Exists without a key)", "pool=a100:NoSchedule"}));
}

}  // namespace
}  // namespace vtenant::syncer
