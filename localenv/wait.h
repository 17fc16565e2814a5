// Polling an HTTP endpoint until it answers 200 (readiness of local servers).
#pragma once

#include <chrono>
#include <string>

#include "base/status.h"
#include "kube/rest_config.h"
#include "localenv/process.h"

namespace vtenant::localenv {

// Polls GET `path` on `config.server` until it returns 200, `timeout` passes,
// or `process` (if given) exits. Until a plain TCP connect to the server's
// IPv4 address succeeds no HTTP request is made: a TLS handshake per refused
// attempt costs real CPU when many servers start at once. Each request
// waits at most 5 s. Unavailable when the process exits, Timeout (with the
// last answer) when time runs out; both name the log file to read.
Status WaitForHttpOk(const kube::RestConfig& config, const std::string& path,
                     std::chrono::milliseconds timeout, Process* process,
                     const std::string& log_path);

}  // namespace vtenant::localenv
