// The chart's accounts on a local cluster.
//
// On a real cluster vtenant-operator and vtenant-scheduler run as the
// ServiceAccounts charts/vtenant makes, with the rights it grants them. The
// local environment (`vtenant up`) and the integration tests run the same
// programs as local processes, and they must run with those same rights, or
// a right the chart lacks would only show on a real cluster. So the chart
// is rendered with the real helm and its ServiceAccounts, roles, bindings,
// admission policies and the scheduler's webhook configuration are applied
// as they are; each program then gets a client certificate whose user and
// groups are its ServiceAccount's, which RBAC and the admission policies
// treat exactly as that account's token.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "kube/client.h"
#include "localenv/api_server.h"

namespace vtenant::localenv {

struct ChartAccountsOptions {
  std::string chart_dir;                // charts/vtenant
  std::string ns = "vtenant-system";    // the release's namespace; created when missing
  std::vector<std::string> set_values;  // helm --set, e.g. "scheduler.webhook.enabled=true"
};

// The objects of the rendered chart that give its programs their identity
// and rights: ServiceAccounts, (Cluster)Roles and their bindings,
// ValidatingAdmissionPolicies and their bindings, and the
// MutatingWebhookConfiguration the scheduler fills in; with them the
// chart's PriorityClasses (KAI's), which workloads name; rendered with
// `helm template` for Kubernetes 1.37. NotFound when helm is not built;
// FailedPrecondition with helm's message when it fails, or when the chart
// renders none of these.
Result<std::vector<kube::Object>> RenderChartAccounts(const ChartAccountsOptions& options);

// Creates the release namespace and applies RenderChartAccounts' objects
// (server-side apply as vtenant-local, so applying again changes nothing).
// The first error, naming the object.
Status InstallChartAccounts(kube::Client& admin, const ChartAccountsOptions& options);

// The user name of ServiceAccount ns/name: system:serviceaccount:<ns>:<name>.
std::string ServiceAccountUser(const std::string& ns, const std::string& name);

// Writes (base/secret_file.h) a kubeconfig of `server` at `path` whose
// client certificate, signed by the server's CA, names ServiceAccount
// ns/name and its groups (system:serviceaccounts and
// system:serviceaccounts:<ns>), valid for a year; the context is named
// `name`.
Status WriteServiceAccountKubeconfig(const ApiServer& server, const std::string& ns,
                                     const std::string& name, const std::string& path);

}  // namespace vtenant::localenv
