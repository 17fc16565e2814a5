// Objects the syncer's unit tests share.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "kube/object.h"
#include "kube/testing/json.h"
#include "syncer/syncer_config.h"

namespace vtenant::syncer::testing {

// Parses JSON written in a test; a typo fails the test instead of crashing it.
using kube::Json;

// The reference scenario's tenant "nlp".
inline SyncerConfig NlpConfig() {
  SyncerConfig config;
  config.tenant = "nlp";
  config.queue = "nlp";
  config.host_namespace = "vtenant-nlp";
  config.virtual_service_host = "10.0.0.7";
  config.virtual_service_port = 6443;
  // The priority classes the operator found on the test host.
  config.allowed_priority_classes = {"train", "build", "inference"};
  return config;
}

}  // namespace vtenant::syncer::testing
