// PodTranslator: a virtual pod to its host pod and back, vCluster style
// (one translator per kind, three verbs: to host, update, from host).
//
// To host, for a pod that passed CheckPod (pod_policy.h), the host pod is
// built from the allowlist of pod_schema.h (which says what becomes of
// every PodSpec field); a field it does not know is left out and reported.
// What the translator itself writes:
//   - name HostName(name, ns, tenant) in the tenant's host namespace; the
//     virtual pod's labels and annotations minus reserved keys
//     (reserved_keys.h), plus vtenant.io/{tenant,virtual-namespace,
//     managed-by}, the virtual namespace's labels under
//     vtenant.io/ns-label.<name>, and kai.scheduler/queue forced to the
//     tenant's queue; annotations virtual name, namespace, UID, owner chain
//     and the virtual labels and annotations downward-API volumes read;
//     pod-group-name of its gang;
//   - no ownerReferences, finalizers, uid or resourceVersion; no status;
//   - references renamed to their host copies: ConfigMaps, Secrets, PVCs
//     (env, envFrom, volumes, projected sources, Secrets of csi and other
//     in-tree volume sources, the claim an inline claim is cloned from),
//     imagePullSecrets, resourceClaims (claims and templates); a projected
//     service-account token becomes the host Secret holding a token of the
//     virtual API server; subdomain the host Service's name;
//   - never a host service-account token: automountServiceAccountToken
//     false, no serviceAccountName;
//   - downward API resolves to virtual values: env fieldRefs of
//     metadata.name/namespace/uid/labels/annotations and
//     spec.serviceAccountName become literal values; volume items read the
//     annotations above;
//   - hostname = the virtual pod name (as a DNS label) unless set;
//     enableServiceLinks off, and instead the virtual Services' variables
//     (with their host cluster IPs) and KUBERNETES_SERVICE_HOST/PORT of the
//     virtual API server in every container; kubernetes.default.svc as a
//     host alias when that host is an IP;
//   - with SyncerConfig::cluster_dns, a pod that asks for the cluster's DNS
//     (ClusterFirst off the host network, ClusterFirstWithHostNet) gets
//     dnsPolicy None: that server first, its namespace's search list,
//     ndots 5 unless it sets one, then its own dnsConfig;
//   - schedulerName the host's vtenant scheduler, whatever the pod asked;
//     nodeName cleared (that scheduler places every pod); priority,
//     preemptionPolicy and overhead cleared (the host derives them),
//     priorityClassName kept when the host allows it and dropped for system
//     classes;
//   - pod affinity and topology spread kept to the tenant's own pods
//     (pod_affinity.h);
//   - tolerations the Tenant allows (pod_tolerations.h), others left off
//     and reported, plus the Tenant's own; the Tenant's node selector (its
//     values win).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kube/object.h"
#include "syncer/allowlist.h"
#include "syncer/event_translator.h"
#include "syncer/gang.h"
#include "syncer/names.h"  // TokenSecretName, for PodContext::token_secret
#include "syncer/owner_chain.h"
#include "syncer/pod_affinity.h"
#include "syncer/syncer_config.h"

namespace vtenant::syncer {

// A virtual Service as a pod's environment sees it: its name and the host
// cluster IP of its synced copy.
struct ServiceEnv {
  std::string name;
  std::string cluster_ip;
  struct Port {
    std::string name;
    int64_t port = 0;
    std::string protocol = "TCP";
  };
  std::vector<Port> ports;
};

// What a pod's translation needs beyond the pod itself.
struct PodContext {
  std::vector<kube::OwnerReference> owner_chain;
  std::optional<Gang> gang;
  std::vector<ServiceEnv> services;  // the pod namespace's Services, any order
  std::map<std::string, std::string> namespace_labels;
  // Host Secret (key "token") with a virtual service-account token; needed
  // when the pod projects one.
  std::string token_secret;
  // The tenant's virtual namespaces and their labels; needed when the pod's
  // affinity has a namespaceSelector (UsesNamespaceSelector).
  NamespaceLabels virtual_namespaces;
};

// What a translation left out, for the syncer to tell: fields no allowlist
// takes (the dropped-fields metric) and tolerations the Tenant does not
// allow (an Event on the virtual pod).
struct PodTranslationNotes {
  DroppedFields dropped_fields;
  std::vector<std::string> dropped_tolerations;  // as DescribeToleration writes them
};

class PodTranslator {
 public:
  explicit PodTranslator(SyncerConfig config) : config_(std::move(config)) {}

  // The host pod for virtual pod `pod`. What it left out goes to `notes`
  // when not null.
  kube::Object ToHost(const rapidjson::Value& pod, const PodContext& context,
                      PodTranslationNotes* notes = nullptr) const;

  // The host pod to write so that `host` follows `pod` where a running pod
  // may change: labels and annotations (never a reserved key: those the
  // host or the syncer wrote are kept), container images,
  // activeDeadlineSeconds, added tolerations (as ToHost filters them) and
  // removed schedulingGates. nullopt when `host` is
  // already up to date.
  std::optional<kube::Object> Update(const rapidjson::Value& pod, const rapidjson::Value& host,
                                     const PodContext& context) const;

  // The virtual pod (with its resourceVersion, for a status update) whose
  // status is the host pod's, except qosClass, which is immutable and stays
  // the virtual one, resourceClaimStatuses and extendedResourceClaimStatus,
  // which name claims the host made and the team's cluster does not have,
  // and the conditions' messages, which host components
  // write (the scheduler's says why a pod waits) and which reach the team
  // in its terms, as Events do (EventTranslator::TranslateText, knowing the
  // pod's own host name). nullopt when they already agree.
  std::optional<kube::Object> StatusFromHost(const rapidjson::Value& host,
                                             const rapidjson::Value& pod) const;

 private:
  const SyncerConfig config_;
  const EventTranslator messages_{config_};
};

// "key=\"value\"" lines sorted by key, as the kubelet writes
// metadata.labels in a downward-API volume.
std::string DownwardApiMap(const rapidjson::Value* map);

}  // namespace vtenant::syncer
