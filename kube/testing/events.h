// Finding an Event a controller recorded, for tests that wait until
// someone has been told something.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "kube/client.h"

namespace vtenant::kube {

// The message of the first Event in `ns`, among those `field_selector`
// selects ("involvedObject.name=web"), whose reason is `reason` and whose
// message contains every one of `message_parts`; nullopt when there is
// none or the list fails (a waiting test asks again).
std::optional<std::string> FindEvent(Client& client, std::string_view ns,
                                     const std::string& field_selector, std::string_view reason,
                                     std::initializer_list<std::string_view> message_parts = {});

}  // namespace vtenant::kube
