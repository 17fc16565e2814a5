// For tests of the views (`vtenant queues`, `vtenant tenants`).
#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <sstream>
#include <string>

#include "base/status.h"
#include "kube/client.h"

namespace vtenant::cli {

// What `print` (PrintQueues, PrintTenants) writes for `client`; a failed
// print fails the calling test.
inline std::string Printed(Status (*print)(kube::Client&, std::ostream&), kube::Client& client) {
  std::ostringstream out;
  Status s = print(client, out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out.str();
}

}  // namespace vtenant::cli
