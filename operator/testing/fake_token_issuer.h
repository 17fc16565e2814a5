// FakeTokenIssuer: a TokenIssuer whose tokens are "token-1", "token-2", ...
// valid for the lifetime asked, from the time the test sets; or an error.
#pragma once

#include <chrono>
#include <string>

#include "operator/host_credentials.h"

namespace vtenant::op {

class FakeTokenIssuer final : public TokenIssuer {
 public:
  Result<ServiceAccountToken> Issue(const std::string& ns, const std::string& name,
                                    std::chrono::seconds lifetime) override {
    last_account = ns + "/" + name;
    if (!error.ok()) return error;
    ++issued;
    return ServiceAccountToken{"token-" + std::to_string(issued), now + lifetime};
  }

  std::chrono::system_clock::time_point now;  // what "issued now" means
  Status error;                               // returned instead of a token when set
  int issued = 0;
  std::string last_account;
};

}  // namespace vtenant::op
