// RBAC audit: what an account may really do on an API server, against the
// table that says why it may (charts/rbac-rights.yaml).
//
// Rights are compared one by one: a verb on a resource (and object, where
// the grant names one) in a scope. The API server is asked with the
// account's own token (SelfSubjectRulesReview), so every binding counts,
// whoever made it: the chart's, the operator's, or one added by hand.
#pragma once

#include <map>
#include <set>
#include <string>
#include <tuple>

#include "base/status.h"
#include "kube/client.h"
#include "kube/rest_config.h"

namespace vtenant::localenv {

struct Right {
  std::string scope;  // cluster, release, default, tenant; "" in a raw review
  std::string group;
  std::string resource;  // with its subresource: pods/binding
  std::string verb;
  std::string name;  // "" when the grant names no object
  auto operator<=>(const Right&) const = default;
  // "tenant: delete secrets", "cluster: bind rbac.authorization.k8s.io/clusterroles vtenant:syncer"
  std::string ToString() const;
};

struct AccountRights {
  std::string namespace_scope;  // where the ServiceAccount lives: release or tenant
  std::set<Right> rights;
  std::map<Right, std::string> code;  // the code path that uses each right
};

// The table, by account name. Fails on a malformed table (an entry without
// scope, resource, verbs or code).
Result<std::map<std::string, AccountRights>> LoadRightsTable(const std::string& path);

// A token of ServiceAccount ns/name from the TokenRequest API (as `admin`),
// valid for an hour. Internal when the answer holds none.
Result<std::string> ServiceAccountToken(kube::Client& admin, const std::string& ns,
                                        const std::string& name);

// Every right `as` has in namespace `ns` (cluster-wide ones included), from a
// SelfSubjectRulesReview; scope left empty; non-resource rules are not
// read. Rights the review reports incomplete are an error (Internal): the
// audit must see all of them.
Result<std::set<Right>> ReviewRights(const kube::RestConfig& as, const std::string& ns);

}  // namespace vtenant::localenv
