// How to tell that a component of a local environment answers: plain data,
// so that the supervisor that runs the component and `vtenant status`, a
// different process, ask the same question.
#pragma once

#include <chrono>
#include <string>

#include "base/status.h"

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

// OK when `probe.url` answers 200 within `timeout`; otherwise the answer
// (status code and the start of the body) or the connection error.
// FailedPrecondition when the probe has no URL.
Status CheckHealth(const HealthProbe& probe, std::chrono::milliseconds timeout);

// OK when `probe.url` answers at all within `timeout`, whatever the status: a
// program that says it is not ready (an operator waiting for its API server
// answers 503) is alive; one that no longer accepts or answers is not.
// FailedPrecondition when the probe has no URL.
Status CheckAlive(const HealthProbe& probe, std::chrono::milliseconds timeout);

}  // namespace vtenant::localenv
