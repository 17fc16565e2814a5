// KAI's Queue (scheduling.run.ai/v2) and PodGroup (v2alpha2), read the way
// KAI reads them.
#pragma once

#include <optional>
#include <string_view>

#include "kube/views/object_view.h"

namespace vtenant::kube {

// One resource of a queue's spec.resources, in KAI's units: GPUs in devices
// (fractions allowed), CPU in millicores, memory in MB. -1 is unlimited.
// A field that is absent reads as KAI defaults it: quota 0, limit -1
// (unlimited), overQuotaWeight 1.
struct QueueResourceSpec {
  double quota = 0;
  double limit = -1;
  double over_quota_weight = 1;
};

// Reads one {quota, limit, overQuotaWeight} object; null reads as defaults.
QueueResourceSpec ReadQueueResource(const rapidjson::Value* resource);

template <class Base>
class QueueAccessors : public Base {
 public:
  using Base::Base;

  std::string_view parent_queue() const { return GetString(this->json(), {"spec", "parentQueue"}); }
  std::string_view display_name() const { return GetString(this->json(), {"spec", "displayName"}); }
  // KAI's default priority is 100.
  int64_t priority() const { return GetInt(this->json(), {"spec", "priority"}, 100); }
  // "gpu", "cpu" or "memory".
  QueueResourceSpec resource(std::string_view name) const {
    return ReadQueueResource(Find(this->json(), {"spec", "resources", name}));
  }
  // status.allocated / allocatedNonPreemptible / requested entry, as written
  // ("330m", "2"); "" when absent.
  std::string_view status_quantity(std::string_view list, std::string_view resource) const {
    const rapidjson::Value* map = Find(this->json(), {"status", list});
    if (map == nullptr || !map->IsObject()) return {};
    for (auto it = map->MemberBegin(); it != map->MemberEnd(); ++it) {
      if (std::string_view(it->name.GetString(), it->name.GetStringLength()) == resource &&
          it->value.IsString()) {
        return {it->value.GetString(), it->value.GetStringLength()};
      }
    }
    return {};
  }
};

using QueueView = QueueAccessors<ObjectView>;
using MutableQueue = QueueAccessors<MutableObjectView>;

template <class Base>
class PodGroupAccessors : public Base {
 public:
  using Base::Base;

  int64_t min_member() const { return GetInt(this->json(), {"spec", "minMember"}, 1); }
  std::string_view queue() const { return GetString(this->json(), {"spec", "queue"}); }
  std::string_view priority_class_name() const {
    return GetString(this->json(), {"spec", "priorityClassName"});
  }
  // "preemptible", "non-preemptible", or "" (then the priority decides).
  std::string_view preemptibility() const {
    return GetString(this->json(), {"spec", "preemptibility"});
  }
  std::string_view phase() const { return GetString(this->json(), {"status", "phase"}); }
};

using PodGroupView = PodGroupAccessors<ObjectView>;
using MutablePodGroup = PodGroupAccessors<MutableObjectView>;

}  // namespace vtenant::kube
