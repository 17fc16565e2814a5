// UsageStore: where the queues' usage history (usage_history.h) outlives
// the scheduler, so that a restart or a new leader keeps the fairness the
// queues earned. Interface apart, so the cycle's tests can swap it.
#pragma once

#include <string>

#include "base/status.h"
#include "kube/client.h"

namespace vtenant::scheduler {

class UsageStore {
 public:
  virtual ~UsageStore() = default;
  // The history last saved (UsageHistory::Save's document); "" when none
  // was.
  virtual Result<std::string> Load() = 0;
  // Keeps `history` in place of what was saved before.
  virtual Status Save(const std::string& history) = 0;
};

// The history in data key "history" of ConfigMap `name` in namespace `ns`,
// made on the first Save. Read by a list of that one name (the scheduler
// lists and watches ConfigMaps already; it needs no get), written by create
// or merge patch.
class ConfigMapUsageStore : public UsageStore {
 public:
  // `client` must outlive the store.
  ConfigMapUsageStore(kube::Client& client, std::string ns, std::string name);

  Result<std::string> Load() override;
  Status Save(const std::string& history) override;

 private:
  kube::Client& client_;
  const std::string ns_;
  const std::string name_;
  bool exists_ = false;  // the ConfigMap was seen or made
};

}  // namespace vtenant::scheduler
