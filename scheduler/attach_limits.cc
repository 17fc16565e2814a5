#include "scheduler/attach_limits.h"

#include "kube/object.h"
#include "scheduler-core/node_extras.h"

namespace vtenant::scheduler {

std::string AttachResource(const std::string& driver) {
  return std::string(sched::kAttachableVolumesPrefix) + "csi-" + driver;
}

std::vector<std::string> InlineCsiDrivers(const rapidjson::Value& pod) {
  std::vector<std::string> drivers;
  const rapidjson::Value* volumes = kube::Find(pod, {"spec", "volumes"});
  if (volumes == nullptr || !volumes->IsArray()) return drivers;
  for (const rapidjson::Value& v : volumes->GetArray())
    if (std::string_view driver = kube::GetString(v, {"csi", "driver"}); !driver.empty())
      drivers.emplace_back(driver);
  return drivers;
}

bool AttachLimits::Upsert(const rapidjson::Value& csi_node) {
  std::map<std::string, int64_t> counts;
  if (const rapidjson::Value* list = kube::Find(csi_node, {"spec", "drivers"});
      list != nullptr && list->IsArray()) {
    for (const rapidjson::Value& d : list->GetArray()) {
      const rapidjson::Value* count = kube::Find(d, {"allocatable", "count"});
      const std::string_view name = kube::GetString(d, {"name"});
      // A negative count is refused by the API server; read as none.
      if (!name.empty() && count != nullptr && count->IsInt64() && count->GetInt64() >= 0)
        counts.emplace(name, count->GetInt64());
    }
  }
  const std::string node(kube::Name(csi_node));
  auto it = counts_.find(node);
  if (it != counts_.end() && it->second == counts) return false;
  if (it == counts_.end() && counts.empty()) return false;
  Delete(csi_node);
  ++version_;
  if (counts.empty()) return true;
  for (const auto& [driver, count] : counts) ++drivers_[driver];
  counts_.emplace(node, std::move(counts));
  return true;
}

bool AttachLimits::Delete(const rapidjson::Value& csi_node) {
  auto it = counts_.find(std::string(kube::Name(csi_node)));
  if (it == counts_.end()) return false;
  for (const auto& [driver, count] : it->second)
    if (--drivers_[driver] == 0) drivers_.erase(driver);
  counts_.erase(it);
  ++version_;
  return true;
}

void AttachLimits::Apply(const std::string& name, sched::NodeSpec* node) const {
  const auto counts = counts_.find(name);
  for (const auto& [driver, nodes] : drivers_) {
    int64_t milli = kUnlimitedAttachments;
    if (counts != counts_.end())
      if (auto c = counts->second.find(driver); c != counts->second.end()) milli = c->second * 1000;
    node->other_resources[AttachResource(driver)] = milli;
  }
}

void AttachLimits::AddRequests(const std::vector<std::string>& drivers,
                               std::map<std::string, int64_t>* requests) const {
  for (const std::string& driver : drivers)
    if (drivers_.contains(driver)) (*requests)[AttachResource(driver)] += 1000;
}

}  // namespace vtenant::scheduler
