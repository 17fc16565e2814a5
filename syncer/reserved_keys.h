// Reserved label and annotation keys: the ones a tenant can never put on a
// host object.
//
// Host components read or select on some keys: the syncer's own
// vtenant.io/ keys (what the operator, the scheduler and NetworkPolicies
// select on), KAI's queue label and pod-group annotation, the binder's GPU
// annotations, the kubernetes.io keys of the host's controllers. A tenant
// that could write them could charge another queue, join another gang, pin
// GPUs or be selected by a host object that is not its own. So every
// translator drops them from tenant input and sets its own; this is the
// one rule they all use.
//
// Reserved, whatever the translator says:
//   - keys whose prefix (the part before '/') is vtenant.io, or ends in
//     .vtenant.io;
//   - KAI's and the binder's: kai.scheduler/queue, pod-group-name,
//     runai-gpu, runai-gpu-group, runai/shared-gpu-configmap,
//     run.ai/reserve_for_gpu_index, and with them every key under the
//     runai/ and run.ai/ prefixes, every unprefixed key starting with
//     "runai-" and every key whose prefix starts with it (KAI keeps its
//     scheduling state there: runai-gpu-group/<group> ties a pod to each
//     of several shared GPUs); and the scheduler's own state on a
//     PodGroup, kai.scheduler/stale-podgroup-timestamp and
//     kai.scheduler/last-eviction-timestamp (the pod grouper copies a bare
//     pod's annotations onto its group, so a tenant's pod could seed them).
// Reserved unless the translator names it among its exceptions:
//   - keys whose prefix is vtenant.dev or ends in .vtenant.dev (the local
//     environment's: an exception must name the exact key);
//   - keys whose prefix is kubernetes.io or k8s.io, or ends in
//     .kubernetes.io or .k8s.io.
// Everything else (app labels, gpu-fraction, kai.scheduler/subgroup-name,
// ...) is the tenant's.
#pragma once

#include <initializer_list>
#include <string_view>
#include <vector>

#include "syncer/allowlist.h"

namespace vtenant::syncer {

// The keys a translator lets through among those reserved unless
// excepted: exact keys, and prefixes of kubernetes.io / k8s.io keys
// ("app.kubernetes.io/"). Views of string literals.
struct KeyExceptions {
  std::vector<std::string_view> keys;
  std::vector<std::string_view> prefixes;
};

// Whether a tenant may not set label or annotation `key` on a host object
// (rules above), given the translator's `exceptions`.
bool IsReservedKey(std::string_view key, const KeyExceptions& exceptions = {});

// Whether `key` is of Kubernetes' own domains (kubernetes.io, k8s.io and
// their subdomains): the keys the host's controllers write.
bool IsKubernetesKey(std::string_view key);

// Sets on `to` (made an object if it is not one) each member of `from` (a
// label or annotation map; null or not an object copies nothing) whose key
// is not reserved under `exceptions`. Each reserved key is appended to
// `dropped` (when not null) as `path` + "['" + key + "']", e.g.
// "metadata.labels['vtenant.io/tenant']".
void CopyTenantKeys(const rapidjson::Value* from, rapidjson::Value& to, Allocator& a,
                    const KeyExceptions& exceptions, std::string_view path, DroppedFields* dropped);

}  // namespace vtenant::syncer
