// OperatorApp: vtenant-operator's pieces wired into a kube::Manager: the
// tenant controller and what it watches (Tenants; every Queue, for the
// tenants it is the queue or parent queue of; the namespaces and
// StatefulSets it makes, by their tenant label; the host's PriorityClasses;
// the process backend's own notices), both control-plane backends, leader
// election, health endpoints and the graceful shutdown on SIGTERM (the
// Manager's). main() parses flags and calls Run.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "kube/client.h"
#include "kube/event_recorder.h"
#include "kube/manager.h"
#include "kube/rest_config.h"
#include "operator/flags.h"
#include "operator/host_credentials.h"
#include "operator/process_backend.h"
#include "operator/statefulset_backend.h"
#include "operator/tenant_reconciler.h"
#include "operator/virtual_cluster_connector.h"

namespace vtenant::op {

class OperatorApp {
 public:
  // `host` must outlive the app; `host_config` says where the host is (its
  // address and CA), which each tenant's syncer is told. Fails when the
  // Manager cannot be made or the operator cannot learn who it is on the
  // host: it binds itself into each tenant's namespace by that name.
  // Side effect: --tools-bin is exported as $VTENANT_TOOLS_BIN for the
  // whole process, where localenv's FindTool looks first.
  static Result<std::unique_ptr<OperatorApp>> Create(kube::Client& host,
                                                     const kube::RestConfig& host_config,
                                                     OperatorFlags flags);

  // Runs the Manager until SIGTERM or SIGINT. The process backend's control
  // planes keep running afterwards: the next operator adopts them, and only
  // deleting a Tenant stops its own.
  Status Run();

 private:
  OperatorApp(kube::Client& host, OperatorFlags flags);
  // The backends, the reconciler and the controller's watches.
  Status Wire(const kube::RestConfig& host_config, const std::string& username);

  kube::Client& host_;
  const OperatorFlags flags_;
  std::unique_ptr<kube::Manager> manager_;
  kube::EventRecorder events_;
  // Each tenant's syncer acts on the host as its own ServiceAccount.
  TokenRequestIssuer syncer_tokens_;
  RestVirtualClusterConnector connector_;
  std::unique_ptr<ProcessBackend> process_;
  std::unique_ptr<StatefulSetBackend> statefulset_;
  std::unique_ptr<TenantReconciler> reconciler_;
};

}  // namespace vtenant::op
