#include "kai/queue_admission.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <vector>

#include "kai/object_fields.h"

namespace vtenant::kai {
namespace {

// A resource of a Queue's spec.resources, and how KAI's messages print it.
struct QueueResource {
  const char* key;
  const char* word;
  const char* format;
};
constexpr QueueResource kQueueResources[] = {
    {"cpu", "CPU", "%.0f"}, {"gpu", "GPU", "%.2f"}, {"memory", "Memory", "%.0f"}};

bool HasResources(const rapidjson::Value& queue) {
  const rapidjson::Value* resources = MemberAt(queue, {"spec", "resources"});
  return resources != nullptr && !resources->IsNull();
}

// spec.resources.<key>.quota; 0 where missing, as Go reads it; negative is
// unlimited.
double Quota(const rapidjson::Value& queue, const QueueResource& r) {
  const rapidjson::Value* quota = MemberAt(queue, {"spec", "resources", r.key, "quota"});
  return quota != nullptr && quota->IsNumber() ? quota->GetDouble() : 0;
}

// Whether `quota` is more than `parent_quota`. Sums of decimal quotas are
// off in the last bits (0.1 + 0.2 is more than 0.3 in binary), which must
// not read as more.
bool Exceeds(double quota, double parent_quota) {
  if (parent_quota < 0) return false;
  return quota < 0 || quota > parent_quota + 1e-9 * std::max(1.0, parent_quota);
}

// Adds `quota` to `total`, either unlimited making it so.
void AddQuota(double& total, double quota) { total = total < 0 || quota < 0 ? -1 : total + quota; }

std::string Amount(double quota, const QueueResource& r) {
  if (quota < 0) return "unlimited";
  char text[64];
  std::snprintf(text, sizeof text, r.format, quota);
  return text;
}

std::vector<std::string> Names(const rapidjson::Value* list) {
  std::vector<std::string> names;
  if (list == nullptr || !list->IsArray()) return names;
  for (const rapidjson::Value& n : list->GetArray())
    if (n.IsString()) names.emplace_back(n.GetString(), n.GetStringLength());
  return names;
}

// Holds `child`, a Queue with a parentQueue, against its parent (the
// header's first rule).
void CheckAgainstParent(const rapidjson::Value& child, const QueueLookup& queues, Verdict& review) {
  const std::string parent_name = StringAt(child, {"spec", "parentQueue"});
  const std::shared_ptr<const rapidjson::Value> parent = queues(parent_name);
  if (parent == nullptr) {
    review.errors.push_back("failed to get parent queue " + parent_name +
                            ": queues.scheduling.run.ai \"" + parent_name + "\" not found");
    return;
  }
  if (!HasResources(*parent)) {
    review.errors.push_back("parent queue " + parent_name + " has no resources defined");
    return;
  }
  const std::string child_name = StringAt(child, {"metadata", "name"});
  std::vector<std::shared_ptr<const rapidjson::Value>> siblings;
  for (const std::string& name : Names(MemberAt(*parent, {"status", "childQueues"}))) {
    if (name == child_name) continue;  // counted as written
    if (auto sibling = queues(name); sibling != nullptr && HasResources(*sibling))
      siblings.push_back(std::move(sibling));
  }
  for (const QueueResource& r : kQueueResources) {
    const double quota = Quota(child, r), parent_quota = Quota(*parent, r);
    if (Exceeds(quota, parent_quota)) {
      review.warnings.push_back(std::string("child queue ") + r.word + " quota (" +
                                Amount(quota, r) + ") exceeds parent queue " + parent_name + " " +
                                r.word + " quota (" + Amount(parent_quota, r) + ")");
    }
    double total = quota;
    for (const auto& sibling : siblings) AddQuota(total, Quota(*sibling, r));
    if (Exceeds(total, parent_quota)) {
      review.warnings.push_back(std::string("total children ") + r.word + " quota (" +
                                Amount(total, r) + ") exceeds parent queue " + parent_name + " " +
                                r.word + " quota (" + Amount(parent_quota, r) + ")");
    }
  }
}

// Holds `parent`, updated while it had the children `children`, against
// them (the header's last rule).
void CheckAgainstChildren(const rapidjson::Value& parent, const std::vector<std::string>& children,
                          const QueueLookup& queues, Verdict& review) {
  double totals[std::size(kQueueResources)] = {};
  for (const std::string& name : children) {
    const std::shared_ptr<const rapidjson::Value> child = queues(name);
    if (child == nullptr || !HasResources(*child)) continue;
    for (size_t i = 0; i < std::size(kQueueResources); ++i) {
      const QueueResource& r = kQueueResources[i];
      const double quota = Quota(*child, r), parent_quota = Quota(parent, r);
      AddQuota(totals[i], quota);
      if (Exceeds(quota, parent_quota)) {
        review.warnings.push_back("child queue " + name + " " + r.word + " quota (" +
                                  Amount(quota, r) + ") exceeds parent " + r.word + " quota (" +
                                  Amount(parent_quota, r) + ")");
      }
    }
  }
  for (size_t i = 0; i < std::size(kQueueResources); ++i) {
    const QueueResource& r = kQueueResources[i];
    const double parent_quota = Quota(parent, r);
    if (Exceeds(totals[i], parent_quota)) {
      review.warnings.push_back(std::string("total children ") + r.word + " quota (" +
                                Amount(totals[i], r) + ") exceeds parent " + r.word + " quota (" +
                                Amount(parent_quota, r) + ")");
    }
  }
}

}  // namespace

Verdict ReviewQueue(std::string_view operation, const rapidjson::Value& queue,
                    const rapidjson::Value* old_queue, const QueueLookup* queues) {
  Verdict review;
  if (operation == "DELETE") {
    const std::vector<std::string> children = Names(MemberAt(queue, {"status", "childQueues"}));
    if (children.empty()) return review;
    std::string names;
    for (const std::string& c : children) names += (names.empty() ? "" : " ") + c;
    review.errors.push_back("cannot delete queue " + StringAt(queue, {"metadata", "name"}) +
                            ": it has child queues [" + names + "]");
    return review;
  }
  if (!HasResources(queue)) {
    review.errors.push_back("resources must be specified");
    review.warnings.push_back("resources must be specified");
    return review;
  }
  if (queues == nullptr || !*queues) return review;
  if (!StringAt(queue, {"spec", "parentQueue"}).empty()) CheckAgainstParent(queue, *queues, review);
  if (operation == "UPDATE" && review.errors.empty() && old_queue != nullptr) {
    // The children the parent had: a spec update need not carry status.
    const std::vector<std::string> children =
        Names(MemberAt(*old_queue, {"status", "childQueues"}));
    if (!children.empty()) CheckAgainstChildren(queue, children, *queues, review);
  }
  return review;
}

}  // namespace vtenant::kai
