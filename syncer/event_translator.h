// EventTranslator: host Events about a tenant's host pods and PodGroups,
// as the team reads them in its own cluster (the "from host" verb; Events
// never go down).
//
// The scheduler, the binder, the kubelet and the eviction path write why a
// pod waits, was bound, started or was evicted on the host pod; a team
// looks for it with `kubectl describe pod` and `kubectl get events` in its
// own cluster. Each host Event becomes one virtual Event on the virtual
// object the host object stands for, and nothing of the host shows:
//
//   metadata.name: "<virtual object's name>.<16 hex of SHA-256 of the host
//     Event's UID>", so the host Event always lands on the same virtual one
//     (a restart writes nothing twice) and two host Events never share one;
//     labelled vtenant.io/managed-by=vtenant-syncer (the syncer caches only
//     its own);
//   involvedObject: the virtual object (apiVersion, kind, namespace, name,
//     UID: what kubectl describe selects on), and the host's fieldPath
//     ("spec.containers{work}", names the team chose);
//   type (Normal or Warning; anything else becomes Normal), reason (cut to
//     128 bytes, between characters), source.component (else
//     reportingComponent): kept;
//   count, firstTimestamp, lastTimestamp: the host's, so repeats of one
//     Event stay one object whose count grows, as Kubernetes' event
//     correlator keeps them; an Event written through events.k8s.io (an
//     eventTime and a series, no count) gets them from those;
//   message: TranslateText below, cut to 1024 bytes between characters;
//   source.host, reportingInstance, related, action, annotations, labels:
//     left out (a node name is the team's to see only through the Nodes the
//     syncer mirrors; related names the other object of an action, often
//     another tenant's pod).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "kube/object.h"
#include "syncer/syncer_config.h"

namespace vtenant::syncer {

// The virtual object a host Event is about.
struct VirtualTarget {
  std::string api_version;  // "v1", "scheduling.run.ai/v2alpha2", "batch/v1"
  std::string kind;         // "Pod", "PodGroup", "Job", ...
  std::string ns;
  std::string name;
  std::string uid;
};

// The team's name for a bare host name of this tenant's
// ("trainer-x-ml-x-nlp") as "ml/trainer"; nullopt when it is no name of the
// tenant's host objects the syncer knows. (TranslateText strips a leading
// "<host namespace>/" itself before asking.)
using HostNameLookup = std::function<std::optional<std::string>(std::string_view host_name)>;

// What a host component may write in a message in place of a name that
// must not reach the team.
inline constexpr char kHiddenName[] = "(hidden)";
inline constexpr char kAnotherQueue[] = "another queue";

class EventTranslator {
 public:
  // Copies what it needs of `config` (the tenant, its queue and its host
  // namespace).
  explicit EventTranslator(const SyncerConfig& config);

  // The name of the virtual Event for the host Event `host_event_uid` on
  // virtual object `object_name`.
  static std::string VirtualEventName(std::string_view object_name,
                                      std::string_view host_event_uid);

  // `text` with every name of the host put in the team's terms, word by
  // word (a word is a run of letters, digits and . _ / -; a full stop
  // ending a sentence is not part of it):
  //   - a name `names` knows, alone or after the host namespace and "/"
  //     (a pod, PodGroup or copy of this tenant), and "pg-<host pod>-<its UID>"
  //     (the group the host's pod grouper makes for a bare pod): the team's
  //     name of the object;
  //   - a host name of this tenant in vCluster's form for namespace `ns`
  //     ("<name>-x-<ns>-x-<tenant>", alone or after the host namespace and
  //     "/"), which HostName gives that name alone: "<ns>/<name>", known to
  //     the syncer or not (a ConfigMap a pod names that does not exist);
  //   - the host namespace alone: the virtual namespace `ns`;
  //   - any other word that starts with "vtenant-" (a host namespace: of
  //     another tenant, or vtenant's own) or holds "-x-" (a host name the
  //     syncer cannot read back: of another namespace, maybe another
  //     tenant's): kHiddenName;
  //   - "queue <q>" where <q> is not the tenant's queue (another team's,
  //     or a parent the team is not shown): "another queue".
  // So nothing left names a host namespace, another tenant or its objects.
  std::string TranslateText(std::string_view text, std::string_view ns,
                            const HostNameLookup& names) const;

  // The virtual Event for host Event `host` about `target` (see above).
  kube::Object FromHost(const rapidjson::Value& host, const VirtualTarget& target,
                        const HostNameLookup& names) const;

  // `existing`, the virtual Event already written for the same host Event,
  // with what `wanted` (FromHost's) says: nullopt when it says it already
  // (so a resync writes nothing).
  std::optional<kube::Object> Update(const rapidjson::Value& existing,
                                     const rapidjson::Value& wanted) const;

 private:
  // One word's replacement, or nullopt to keep it; `after_queue` when the
  // word before it was "queue".
  std::optional<std::string> TranslateWord(std::string_view word, std::string_view ns,
                                           bool after_queue, const HostNameLookup& names) const;

  const std::string tenant_;
  const std::string queue_;
  const std::string host_namespace_;
};

}  // namespace vtenant::syncer
