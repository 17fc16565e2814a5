// Objects the syncer's unit tests share.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "kube/json_builder.h"
#include "kube/object.h"
#include "kube/testing/json.h"
#include "syncer/endpoint_addresses.h"
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

// The host network of the endpoint translators' tests: one node l40s-0
// (InternalIP 192.168.0.2, pod range 10.244.0.0/24) running one pod of the
// tenant, at `tenant_pod_ip`.
inline HostNetwork OneNodeNetwork(const std::string& tenant_pod_ip) {
  HostNetwork network;
  network.AddNode(Json(R"({"metadata":{"name":"l40s-0"},"spec":{"podCIDRs":["10.244.0.0/24"]},
      "status":{"addresses":[{"type":"InternalIP","address":"192.168.0.2"}]}})"));
  network.AddTenantPod(
      kube::BuildJson(kube::JsonObject{{"status", kube::JsonObject{{"podIP", tenant_pod_ip}}}}));
  return network;
}

// The targetRef the endpoint translators write for host pod `host_name` of
// the tenant "nlp": the pod in the tenant's host namespace.
inline kube::JsonObject HostPodRef(const std::string& host_name) {
  return kube::JsonObject{{"kind", "Pod"}, {"namespace", "vtenant-nlp"}, {"name", host_name}};
}

// `object` with the members of `members`, the JSON text of an object, set on
// it after its own (replacing one of the same name in place). For tables
// whose rows write the part of an object that differs as JSON: the rest is
// built around it, never pasted to it as text.
inline kube::JsonObject WithMembers(kube::JsonObject object, const std::string& members) {
  const kube::Object parsed = Json(members);
  EXPECT_TRUE(parsed.IsObject()) << "not an object: " << members;
  if (!parsed.IsObject()) return object;
  for (const auto& member : parsed.GetObject()) {
    object.Set(std::string_view(member.name.GetString(), member.name.GetStringLength()),
               kube::JsonValue(member.value));
  }
  return object;
}

}  // namespace vtenant::syncer::testing
