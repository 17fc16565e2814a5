// Verdict: what one of KAI's admission webhooks says of an object written
// (kai/podgroup_admission.h, kai/queue_admission.h): any error refuses it;
// warnings are shown to the client either way.
#pragma once

#include <string>
#include <vector>

namespace vtenant::kai {

struct Verdict {
  std::vector<std::string> errors;
  std::vector<std::string> warnings;
};

}  // namespace vtenant::kai
