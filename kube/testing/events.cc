#include "kube/testing/events.h"

#include "kube/object.h"
#include "kube/resource.h"

namespace vtenant::kube {

std::optional<std::string> FindEvent(Client& client, std::string_view ns,
                                     const std::string& field_selector, std::string_view reason,
                                     std::initializer_list<std::string_view> message_parts) {
  Result<ObjectList> events =
      client.List(resources::kEvents, ns, {.field_selector = field_selector});
  if (!events.ok()) return std::nullopt;
  for (const Object& e : events->items) {
    if (GetString(e, {"reason"}) != reason) continue;
    const std::string_view message = GetString(e, {"message"});
    bool all = true;
    for (std::string_view part : message_parts)
      all = all && message.find(part) != std::string_view::npos;
    if (all) return std::string(message);
  }
  return std::nullopt;
}

}  // namespace vtenant::kube
