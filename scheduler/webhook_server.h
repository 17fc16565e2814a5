// WebhookServer: the mutating admission webhook over TLS, and its
// MutatingWebhookConfiguration.
//
// The serving certificate is made at start with OpenSSL (a CA of its own and
// a leaf for the address's host), the CA going into the configuration's
// caBundle, unless a certificate and key are given. Four webhooks, so that
// it fails closed only where it must:
//   - gpu-sharing.vtenant.io: pods of our scheduler with gpu-fraction or
//     gpu-memory (matchConditions); failurePolicy Fail, because without the
//     ConfigMap reference such a pod could never see its GPU;
//   - gpu-requests.vtenant.io: the other pods of our scheduler, to refuse
//     malformed GPU requests; failurePolicy Ignore, so a down webhook never
//     blocks them;
//   - podgroups.vtenant.io: PodGroups created or updated, refused or warned
//     about as KAI's PodGroup webhook does (kai/podgroup_admission.h);
//   - queues.vtenant.io: Queues created, updated or deleted, as KAI's Queue
//     webhook (kai/queue_admission.h);
//   the last two with failurePolicy Ignore, since the scheduler reads every
//   group and queue again.
// Pods of other schedulers never reach it (matchConditions), nor does the
// reservation namespace (namespaceSelector).
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "kube/client.h"
#include "scheduler/admission.h"

namespace web::http::experimental::listener {
class http_listener;
}  // namespace web::http::experimental::listener

namespace vtenant::scheduler {

struct WebhookOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  // The URL the API server calls; empty: https://host:port/mutate.
  std::string url;
  // PEM files of the served certificate; empty: one is made at start and
  // kept in memory.
  std::string cert_file, key_file;
  std::string config_name = "vtenant-scheduler";
  std::string reservation_namespace = "vtenant-reservation";
  AdmissionOptions admission;
};

class WebhookServer {
 public:
  explicit WebhookServer(WebhookOptions options);
  ~WebhookServer();

  // Listens on https://host:port. Unavailable when it cannot bind,
  // InvalidArgument for a bad address or unreadable certificate.
  Status Start();
  // Stops listening. Idempotent.
  void Stop();

  // Creates the MutatingWebhookConfiguration (options' config_name) pointing
  // at this server with its CA bundle, or, where one exists (the chart's),
  // replaces its webhooks and keeps its metadata (labels, annotations).
  Status Register(kube::Client& client);

  const std::string& ca_pem() const { return ca_pem_; }
  std::string url() const;

 private:
  const WebhookOptions options_;
  std::string ca_pem_;
  std::unique_ptr<web::http::experimental::listener::http_listener> listener_;
};

// The MutatingWebhookConfiguration manifest.
kube::Object WebhookConfiguration(const WebhookOptions& options, const std::string& url,
                                  const std::string& ca_pem);

}  // namespace vtenant::scheduler
