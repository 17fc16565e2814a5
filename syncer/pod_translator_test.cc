#include "syncer/pod_translator.h"

#include <gtest/gtest.h>

#include "syncer/names.h"
#include "syncer/test_objects.h"

namespace vtenant::syncer {
namespace {

using testing::Json;
using testing::NlpConfig;

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
  EXPECT_EQ(Env("POD_NAME"), "trainer-0");
  EXPECT_EQ(Env("POD_NS"), "research");
  EXPECT_EQ(Env("POD_UID"), "uid-1");
  EXPECT_EQ(Env("SA"), "trainer");
  EXPECT_EQ(Env("APP"), "trainer");
  EXPECT_EQ(Env("POD_IP"), "<valueFrom>");  // the host's IP is the real one
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
  EXPECT_EQ(Env("KUBERNETES_SERVICE_HOST"), "10.0.0.7");
  EXPECT_EQ(Env("KUBERNETES_SERVICE_PORT"), "6443");
  EXPECT_EQ(Env("DATASET_API_SERVICE_HOST"), "10.96.0.20");
  EXPECT_EQ(Env("DATASET_API_SERVICE_PORT"), "8080");
  EXPECT_EQ(Env("DATASET_API_SERVICE_PORT_HTTP"), "8080");
  EXPECT_EQ(Env("DATASET_API_PORT_8080_TCP"), "tcp://10.96.0.20:8080");
  EXPECT_EQ(Env("HEADLESS_SERVICE_HOST"), std::nullopt);  // headless: no variables
  EXPECT_EQ(Env("MODE"), "train");
  // Init containers see them too.
  bool init_has_host = false;
  for (const rapidjson::Value& e : Container("initContainers")["env"].GetArray()) {
    init_has_host |= kube::GetString(e, {"name"}) == "KUBERNETES_SERVICE_HOST";
  }
  EXPECT_TRUE(init_has_host);
  const rapidjson::Value& alias = host_["spec"]["hostAliases"][0];
  EXPECT_EQ(kube::GetString(alias, {"ip"}), "10.0.0.7");
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

TEST_F(PodTranslatorTest, StatusUpKeepsTheVirtualQosClass) {
  kube::Object host = kube::Clone(host_);
  kube::Object status = Json(R"({"phase":"Running","podIP":"10.244.0.5","hostIP":"192.168.0.2",
      "qosClass":"Guaranteed","conditions":[{"type":"Ready","status":"True"}],
      "containerStatuses":[{"name":"main","ready":true,"restartCount":0}]})");
  host.AddMember("status", rapidjson::Value(status, host.GetAllocator()), host.GetAllocator());
  std::optional<kube::Object> up = translator_->StatusFromHost(host, pod_);
  ASSERT_TRUE(up);
  EXPECT_EQ(kube::GetString(*up, {"status", "phase"}), "Running");
  EXPECT_EQ(kube::GetString(*up, {"status", "podIP"}), "10.244.0.5");
  EXPECT_EQ(kube::GetString(*up, {"status", "qosClass"}), "BestEffort");
  EXPECT_EQ((*up)["status"]["containerStatuses"].Size(), 1u);
  EXPECT_EQ(kube::ResourceVersion(*up), "42");
  EXPECT_FALSE(translator_->StatusFromHost(host, *up));
}

}  // namespace
}  // namespace vtenant::syncer
