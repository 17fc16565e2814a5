// Who the operator is on the host, as an RBAC subject.
//
// The operator acts inside each tenant's namespace through a RoleBinding it
// makes for itself there (host_objects.h), so it needs its own name as the
// API server sees it: a ServiceAccount in a cluster, the user of its client
// certificate elsewhere. Asking the server (SelfSubjectReview) keeps that
// name out of flags that could disagree with the credentials.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "kube/client.h"

namespace vtenant::op {

struct RbacSubject {
  std::string kind;  // "ServiceAccount" or "User"
  std::string name;
  std::string ns;  // ServiceAccount only
};

// The subject for user name `username`: ServiceAccount <name> in <ns> for
// "system:serviceaccount:<ns>:<name>", else User `username`.
RbacSubject SubjectOfUser(std::string_view username);

// The caller's user name, from a SelfSubjectReview (every authenticated
// user may create one).
Result<std::string> WhoAmI(kube::Client& client);

}  // namespace vtenant::op
