// How to tell that a component of a local environment answers: plain data,
// so that the supervisor that runs the component and `vtenant status`, a
// different process, ask the same question.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "base/status.h"
#include "kube/http_transport.h"

namespace vtenant::localenv {

struct HealthProbe {
  // GET this URL ("https://127.0.0.1:6443/readyz"); empty: the component has
  // no endpoint (kwok), and a running process is all that can be said.
  std::string url;
  // Client credentials and CA from this kubeconfig (an API server's admin).
  std::string kubeconfig;
  // The root credentials of the etcd whose folder this is.
  std::string etcd_dir;
  // The server's certificate is self-signed and not checked (a controller
  // manager's serving certificate; loopback only).
  bool insecure = false;
};

// Asks one probe again and again over one HTTP client. The supervisor asks
// each component every ten seconds; a client made for each question would
// read the kubeconfig or certificates, build a TLS context and connect each
// time. The client is made at the first question (the credentials are read
// then) and kept while it gets answers; one that fails after having
// answered is replaced at once and the question asked again, since its kept
// connection may be to a server that has since restarted or closed it; a
// question with another timeout than the last also gets a new client. Not
// thread-safe.
class HealthProber {
 public:
  explicit HealthProber(HealthProbe probe);
  ~HealthProber();
  HealthProber(HealthProber&&) noexcept;
  HealthProber& operator=(HealthProber&&) noexcept;

  // OK when the probe's URL answers 200 within `timeout`; otherwise
  // Unavailable with the answer (status code and the start of the body), or
  // the connection error, or the error reading the probe's kubeconfig.
  // FailedPrecondition when the probe has no URL.
  Status CheckHealth(std::chrono::milliseconds timeout);

  // OK when the probe's URL answers at all within `timeout`, whatever the
  // status: a program that says it is not ready (an operator waiting for its
  // API server answers 503) is alive; one that no longer accepts or answers
  // is not. FailedPrecondition when the probe has no URL.
  Status CheckAlive(std::chrono::milliseconds timeout);

 private:
  // The answer of the probe's URL, whatever its status code.
  Result<kube::HttpResponse> Ask(std::chrono::milliseconds timeout);

  HealthProbe probe_;
  std::unique_ptr<kube::HttpTransport> transport_;  // null until asked, or after a failure
  std::chrono::milliseconds transport_timeout_{0};  // the timeout transport_ was made with
};

// HealthProber(probe).CheckHealth(timeout): for a question asked once.
Status CheckHealth(const HealthProbe& probe, std::chrono::milliseconds timeout);

// HealthProber(probe).CheckAlive(timeout): for a question asked once.
Status CheckAlive(const HealthProbe& probe, std::chrono::milliseconds timeout);

}  // namespace vtenant::localenv
