// Polling an HTTP endpoint until it answers 200 (readiness of local servers).
#pragma once

#include <chrono>
#include <string>

#include "base/status.h"
#include "kube/rest_config.h"
#include "localenv/process.h"

namespace vtenant::localenv {

// Polls GET `path` on `config.server` until it returns 200, `timeout` passes,
// or `process` (if given) exits. The error carries the last answer and the
// log file to read.
Status WaitForHttpOk(const kube::RestConfig& config, const std::string& path,
                     std::chrono::milliseconds timeout, Process* process,
                     const std::string& log_path);

}  // namespace vtenant::localenv
