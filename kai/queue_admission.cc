#include "kai/queue_admission.h"

#include "kai/object_fields.h"

namespace vtenant::kai {

Verdict ReviewQueue(std::string_view operation, const rapidjson::Value& queue) {
  Verdict review;
  if (operation == "DELETE") {
    const rapidjson::Value* children = MemberAt(queue, {"status", "childQueues"});
    if (children == nullptr || !children->IsArray() || children->Empty()) return review;
    std::string names;
    for (const rapidjson::Value& c : children->GetArray())
      if (c.IsString()) names += (names.empty() ? "" : " ") + std::string(c.GetString());
    review.errors.push_back("cannot delete queue " + StringAt(queue, {"metadata", "name"}) +
                            ": it has child queues [" + names + "]");
    return review;
  }
  const rapidjson::Value* resources = MemberAt(queue, {"spec", "resources"});
  if (resources == nullptr || resources->IsNull()) {
    review.errors.push_back("resources must be specified");
    review.warnings.push_back("resources must be specified");
  }
  return review;
}

}  // namespace vtenant::kai
