#include "syncer/pod_schema.h"

namespace vtenant::syncer {
namespace {

// One accessor a Kubernetes type, each a function-local static built on
// first use (so no table depends on another's initialization order): alike
// in form on purpose, each type's members are its own.

// Leaves and small objects shared by several tables.
const Schema& Named() {
  static const Schema kSchema = Schema().Copy({"name"});
  return kSchema;
}
const Schema& KeyRef() {  // ConfigMapKeySelector, SecretKeySelector
  static const Schema kSchema = Schema().Copy({"name", "key", "optional"});
  return kSchema;
}
const Schema& OptionalRef() {  // ConfigMapEnvSource, SecretEnvSource
  static const Schema kSchema = Schema().Copy({"name", "optional"});
  return kSchema;
}
const Schema& FieldRef() {
  static const Schema kSchema = Schema().Copy({"apiVersion", "fieldPath"});
  return kSchema;
}
const Schema& ResourceFieldRef() {
  static const Schema kSchema = Schema().Copy({"containerName", "resource", "divisor"});
  return kSchema;
}
const Schema& KeyToPath() {
  static const Schema kSchema = Schema().Copy({"key", "path", "mode", "user"});
  return kSchema;
}
const Schema& SeLinuxOptions() {
  static const Schema kSchema = Schema().Copy({"user", "role", "type", "level"});
  return kSchema;
}
const Schema& WindowsOptions() {
  static const Schema kSchema = Schema().Copy(
      {"gmsaCredentialSpecName", "gmsaCredentialSpec", "runAsUserName", "hostProcess"});
  return kSchema;
}
const Schema& Profile() {  // SeccompProfile, AppArmorProfile
  static const Schema kSchema = Schema().Copy({"type", "localhostProfile"});
  return kSchema;
}

// Containers.
const Schema& EnvVarSource() {
  static const Schema kSchema = Schema()
                                    .Object("fieldRef", &FieldRef())
                                    .Object("resourceFieldRef", &ResourceFieldRef())
                                    .Object("configMapKeyRef", &KeyRef())
                                    .Object("secretKeyRef", &KeyRef())
                                    .Copy({"fileKeyRef"});  // a file of the pod's own volume
  return kSchema;
}
const Schema& EnvVar() {
  static const Schema kSchema =
      Schema().Copy({"name", "value"}).Object("valueFrom", &EnvVarSource());
  return kSchema;
}
const Schema& EnvFromSource() {
  static const Schema kSchema = Schema()
                                    .Copy({"prefix"})
                                    .Object("configMapRef", &OptionalRef())
                                    .Object("secretRef", &OptionalRef());
  return kSchema;
}
const Schema& ContainerPort() {
  static const Schema kSchema =
      Schema().Copy({"name", "containerPort", "protocol", "hostPort", "hostIP"});
  return kSchema;
}
const Schema& Resources() {
  // claims name the pod's own resourceClaims entries (and a request of
  // theirs), which the policy checks.
  static const Schema kClaim = Schema().Copy({"name", "request"});
  static const Schema kSchema = Schema().Copy({"limits", "requests"}).ArrayOf("claims", &kClaim);
  return kSchema;
}
// The claim names are renamed to the host copies' with every other
// reference (pod_translator.cc).
const Schema& PodResourceClaim() {
  static const Schema kSchema =
      Schema().Copy({"name", "resourceClaimName", "resourceClaimTemplateName"});
  return kSchema;
}
const Schema& HttpGet() {
  static const Schema kSchema =
      Schema().Copy({"path", "port", "host", "scheme", "httpHeaders", "protocol"});
  return kSchema;
}
const Schema& TcpSocket() {
  static const Schema kSchema = Schema().Copy({"port", "host"});
  return kSchema;
}
const Schema& Probe() {
  static const Schema kSchema =
      Schema()
          .Copy({"exec", "grpc", "initialDelaySeconds", "timeoutSeconds", "periodSeconds",
                 "successThreshold", "failureThreshold", "terminationGracePeriodSeconds"})
          .Object("httpGet", &HttpGet())
          .Object("tcpSocket", &TcpSocket());
  return kSchema;
}
const Schema& LifecycleHandler() {
  static const Schema kSchema = Schema()
                                    .Copy({"exec", "sleep"})
                                    .Object("httpGet", &HttpGet())
                                    .Object("tcpSocket", &TcpSocket());
  return kSchema;
}
const Schema& Lifecycle() {
  static const Schema kSchema = Schema()
                                    .Copy({"stopSignal"})
                                    .Object("postStart", &LifecycleHandler())
                                    .Object("preStop", &LifecycleHandler());
  return kSchema;
}
const Schema& Capabilities() {
  static const Schema kSchema = Schema().Copy({"add", "drop"});
  return kSchema;
}
const Schema& SecurityContext() {
  static const Schema kSchema =
      Schema()
          .Copy({"privileged", "runAsUser", "runAsGroup", "runAsNonRoot", "readOnlyRootFilesystem",
                 "allowPrivilegeEscalation", "procMount"})
          .Object("capabilities", &Capabilities())
          .Object("seLinuxOptions", &SeLinuxOptions())
          .Object("windowsOptions", &WindowsOptions())
          .Object("seccompProfile", &Profile())
          .Object("appArmorProfile", &Profile());
  return kSchema;
}
const Schema& VolumeMount() {
  static const Schema kSchema =
      Schema().Copy({"name", "readOnly", "recursiveReadOnly", "mountPath", "subPath",
                     "mountPropagation", "subPathExpr", "bindMountOptions"});
  return kSchema;
}
const Schema& Container() {
  static const Schema kSchema =
      Schema()
          .Copy({"name", "image", "command", "args", "workingDir", "imagePullPolicy", "stdin",
                 "stdinOnce", "tty", "terminationMessagePath", "terminationMessagePolicy",
                 "restartPolicy", "restartPolicyRules", "resizePolicy", "volumeDevices"})
          .ArrayOf("ports", &ContainerPort())
          .ArrayOf("env", &EnvVar())
          .ArrayOf("envFrom", &EnvFromSource())
          .Object("resources", &Resources())
          .ArrayOf("volumeMounts", &VolumeMount())
          .Object("livenessProbe", &Probe())
          .Object("readinessProbe", &Probe())
          .Object("startupProbe", &Probe())
          .Object("lifecycle", &Lifecycle())
          .Object("securityContext", &SecurityContext());
  return kSchema;
}

// Volumes.
const Schema& ConfigMapVolume() {
  static const Schema kSchema = Schema()
                                    .Copy({"name", "defaultMode", "optional", "defaultUser"})
                                    .ArrayOf("items", &KeyToPath());
  return kSchema;
}
const Schema& SecretVolume() {
  static const Schema kSchema = Schema()
                                    .Copy({"secretName", "defaultMode", "optional", "defaultUser"})
                                    .ArrayOf("items", &KeyToPath());
  return kSchema;
}
const Schema& DownwardApiFile() {
  static const Schema kSchema = Schema()
                                    .Copy({"path", "mode", "user"})
                                    .Object("fieldRef", &FieldRef())
                                    .Object("resourceFieldRef", &ResourceFieldRef());
  return kSchema;
}
const Schema& DownwardApiVolume() {
  static const Schema kSchema =
      Schema().Copy({"defaultMode", "defaultUser"}).ArrayOf("items", &DownwardApiFile());
  return kSchema;
}
const Schema& DownwardApiProjection() {
  static const Schema kSchema = Schema().ArrayOf("items", &DownwardApiFile());
  return kSchema;
}
const Schema& KeyProjection() {  // ConfigMapProjection, SecretProjection
  static const Schema kSchema = Schema().Copy({"name", "optional"}).ArrayOf("items", &KeyToPath());
  return kSchema;
}
const Schema& TokenProjection() {
  static const Schema kSchema = Schema().Copy({"audience", "expirationSeconds", "path"});
  return kSchema;
}
const Schema& VolumeProjection() {
  static const Schema kSchema = Schema()
                                    .Object("configMap", &KeyProjection())
                                    .Object("secret", &KeyProjection())
                                    .Object("downwardAPI", &DownwardApiProjection())
                                    .Object("serviceAccountToken", &TokenProjection());
  return kSchema;
}
const Schema& ProjectedVolume() {
  static const Schema kSchema =
      Schema().Copy({"defaultMode", "defaultUser"}).ArrayOf("sources", &VolumeProjection());
  return kSchema;
}
const Schema& ClaimVolume() {
  static const Schema kSchema = Schema().Copy({"claimName", "readOnly"});
  return kSchema;
}
const Schema& ClaimSpec() {
  // selector and volumeName are refused by the policy; dataSource(Ref) is
  // the translator's.
  static const Schema kSchema =
      Schema()
          .Copy({"accessModes", "resources", "storageClassName", "volumeMode",
                 "volumeAttributesClassName"})
          .Custom({"selector", "volumeName", "dataSource", "dataSourceRef"});
  return kSchema;
}
const Schema& ClaimTemplate() {
  static const Schema kSchema = Schema().Custom({"metadata"}).Object("spec", &ClaimSpec());
  return kSchema;
}
const Schema& EphemeralVolume() {
  static const Schema kSchema =
      Schema().Copy({"readOnly"}).Object("volumeClaimTemplate", &ClaimTemplate());
  return kSchema;
}
const Schema& CsiVolume() {
  static const Schema kSchema = Schema()
                                    .Copy({"driver", "readOnly", "fsType", "volumeAttributes"})
                                    .Object("nodePublishSecretRef", &Named());
  return kSchema;
}
const Schema& Volume() {
  static const Schema kSchema = Schema()
                                    .Copy({"name"})
                                    .Object("configMap", &ConfigMapVolume())
                                    .Object("secret", &SecretVolume())
                                    .Object("downwardAPI", &DownwardApiVolume())
                                    .Object("projected", &ProjectedVolume())
                                    .Object("persistentVolumeClaim", &ClaimVolume())
                                    .Object("ephemeral", &EphemeralVolume())
                                    .Object("csi", &CsiVolume())
                                    // Taken whole: what the policy lets through is the admin's
                                    // choice (hostPath, the opt-in in-tree types); Secret names in
                                    // them are renamed after the walk (kube::kVolumeSecretRefs).
                                    .Copy({"emptyDir",
                                           "image",
                                           "hostPath",
                                           "gitRepo",
                                           "awsElasticBlockStore",
                                           "azureDisk",
                                           "azureFile",
                                           "cephfs",
                                           "cinder",
                                           "fc",
                                           "flexVolume",
                                           "flocker",
                                           "gcePersistentDisk",
                                           "glusterfs",
                                           "iscsi",
                                           "nfs",
                                           "photonPersistentDisk",
                                           "portworxVolume",
                                           "quobyte",
                                           "rbd",
                                           "scaleIO",
                                           "storageos",
                                           "vsphereVolume"});
  return kSchema;
}

// The pod.
const Schema& PodSecurityContext() {
  static const Schema kSchema =
      Schema()
          .Copy({"runAsUser", "runAsGroup", "runAsNonRoot", "supplementalGroups",
                 "supplementalGroupsPolicy", "fsGroup", "sysctls", "fsGroupChangePolicy",
                 "seLinuxChangePolicy"})
          .Object("seLinuxOptions", &SeLinuxOptions())
          .Object("windowsOptions", &WindowsOptions())
          .Object("seccompProfile", &Profile())
          .Object("appArmorProfile", &Profile());
  return kSchema;
}
const Schema& PodAffinityTerm() {
  // namespaces and namespaceSelector are copied only for ScopeToTenant
  // (pod_affinity.h) to turn into a label requirement; it removes them.
  static const Schema kSchema =
      Schema().Copy({"labelSelector", "topologyKey", "matchLabelKeys", "mismatchLabelKeys",
                     "namespaces", "namespaceSelector"});
  return kSchema;
}
const Schema& WeightedPodAffinityTerm() {
  static const Schema kSchema =
      Schema().Copy({"weight"}).Object("podAffinityTerm", &PodAffinityTerm());
  return kSchema;
}
const Schema& PodAffinity() {  // and PodAntiAffinity
  static const Schema kSchema =
      Schema()
          .ArrayOf("requiredDuringSchedulingIgnoredDuringExecution", &PodAffinityTerm())
          .ArrayOf("preferredDuringSchedulingIgnoredDuringExecution", &WeightedPodAffinityTerm());
  return kSchema;
}
const Schema& Affinity() {
  static const Schema kSchema = Schema()
                                    .Copy({"nodeAffinity"})
                                    .Object("podAffinity", &PodAffinity())
                                    .Object("podAntiAffinity", &PodAffinity());
  return kSchema;
}
const Schema& TopologySpreadConstraint() {
  static const Schema kSchema =
      Schema().Copy({"maxSkew", "topologyKey", "whenUnsatisfiable", "labelSelector", "minDomains",
                     "nodeAffinityPolicy", "nodeTaintsPolicy", "matchLabelKeys"});
  return kSchema;
}
const Schema& PodResources() {
  // claims: the API takes none at the pod's level.
  static const Schema kSchema = Schema().Copy({"limits", "requests"}).Custom({"claims"});
  return kSchema;
}

}  // namespace

const Schema& PodSpecSchema() {
  static const Schema kSchema =
      Schema()
          .Copy({"restartPolicy",
                 "terminationGracePeriodSeconds",
                 "activeDeadlineSeconds",
                 "dnsPolicy",
                 "dnsConfig",
                 "shareProcessNamespace",
                 "readinessGates",
                 "os",
                 "hostUsers",
                 "setHostnameAsFQDN",
                 "hostnameOverride",
                 "schedulingGates",
                 "hostNetwork",
                 "hostPID",
                 "hostIPC",
                 "nodeSelector",
                 "hostname",
                 "hostAliases",
                 "runtimeClassName",
                 "imagePullSecrets"})
          .ArrayOf("containers", &Container())
          .ArrayOf("initContainers", &Container())
          .ArrayOf("volumes", &Volume())
          .Object("securityContext", &PodSecurityContext())
          .Object("affinity", &Affinity())
          .ArrayOf("topologySpreadConstraints", &TopologySpreadConstraint())
          .Object("resources", &PodResources())
          .ArrayOf("resourceClaims", &PodResourceClaim())
          .Custom({"ephemeralContainers", "tolerations", "schedulerName", "priorityClassName",
                   "priority", "preemptionPolicy", "overhead", "serviceAccountName",
                   "serviceAccount", "automountServiceAccountToken", "enableServiceLinks",
                   "nodeName", "subdomain"});
  return kSchema;
}

const KeyExceptions& PodKeyExceptions() {
  static const KeyExceptions kExceptions{
      .keys = {"statefulset.kubernetes.io/pod-name", "apps.kubernetes.io/pod-index",
               "batch.kubernetes.io/job-name", "batch.kubernetes.io/job-completion-index",
               "kubectl.kubernetes.io/default-container", "vtenant.dev/run-duration"},
      .prefixes = {"app.kubernetes.io/"}};
  return kExceptions;
}

std::string_view VolumeType(const rapidjson::Value& volume) {
  if (!volume.IsObject()) return "";
  for (const auto& m : volume.GetObject()) {
    std::string_view name(m.name.GetString(), m.name.GetStringLength());
    if (name != "name") return name;
  }
  return "";
}

}  // namespace vtenant::syncer
