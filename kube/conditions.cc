#include "kube/conditions.h"

namespace vtenant::kube {
namespace {

Condition Read(const rapidjson::Value& c) {
  return {std::string(GetString(c, {"type"})),   std::string(GetString(c, {"status"})),
          std::string(GetString(c, {"reason"})), std::string(GetString(c, {"message"})),
          GetInt(c, {"observedGeneration"}),     std::string(GetString(c, {"lastTransitionTime"}))};
}

rapidjson::Value Write(const Condition& c, rapidjson::Document::AllocatorType& alloc) {
  rapidjson::Value v(rapidjson::kObjectType);
  v.AddMember("type", rapidjson::Value(c.type.c_str(), alloc), alloc);
  v.AddMember("status", rapidjson::Value(c.status.c_str(), alloc), alloc);
  v.AddMember("reason", rapidjson::Value(c.reason.c_str(), alloc), alloc);
  v.AddMember("message", rapidjson::Value(c.message.c_str(), alloc), alloc);
  v.AddMember("observedGeneration", c.observed_generation, alloc);
  v.AddMember("lastTransitionTime", rapidjson::Value(c.last_transition_time.c_str(), alloc), alloc);
  return v;
}

}  // namespace

std::optional<Condition> FindCondition(const rapidjson::Value& object, std::string_view type) {
  const rapidjson::Value* conditions = Find(object, {"status", "conditions"});
  if (conditions == nullptr || !conditions->IsArray()) return std::nullopt;
  for (const auto& c : conditions->GetArray()) {
    if (GetString(c, {"type"}) == type) return Read(c);
  }
  return std::nullopt;
}

bool SetCondition(Object& object, const Condition& condition, const std::string& now) {
  auto& alloc = object.GetAllocator();
  rapidjson::Value& status = EnsurePath(object, {"status"});
  if (!status.HasMember("conditions") || !status["conditions"].IsArray()) {
    status.RemoveMember("conditions");
    status.AddMember("conditions", rapidjson::Value(rapidjson::kArrayType), alloc);
  }
  rapidjson::Value& conditions = status["conditions"];
  Condition next = condition;
  for (auto& existing : conditions.GetArray()) {
    if (GetString(existing, {"type"}) != condition.type) continue;
    Condition old = Read(existing);
    next.last_transition_time = old.status == condition.status && !old.last_transition_time.empty()
                                    ? old.last_transition_time
                                    : now;
    if (old.status == next.status && old.reason == next.reason && old.message == next.message &&
        old.observed_generation == next.observed_generation &&
        old.last_transition_time == next.last_transition_time) {
      return false;
    }
    existing = Write(next, alloc);
    return true;
  }
  next.last_transition_time = now;
  conditions.PushBack(Write(next, alloc), alloc);
  return true;
}

}  // namespace vtenant::kube
