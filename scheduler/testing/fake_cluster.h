// FakeCluster: an in-memory API server and the scheduler's view of it, kept
// in step the way the informers keep them in a running scheduler: what the
// scheduler's unit tests (binder, scheduling cycle, status writer) share.
//
//   class BinderTest : public ::testing::Test, protected testing::FakeCluster {};
//   Add(kube::resources::kNodes, "", R"({"metadata":{"name":"n1"},...})");
#pragma once

#include <string>

#include "kube/event_recorder.h"
#include "kube/metrics.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/json.h"
#include "scheduler/cluster_view.h"
#include "scheduler/reservation.h"

namespace vtenant::scheduler::testing {

// Parses JSON written in a test; a typo fails the test (and yields {}).
using kube::Json;

// A base of test fixtures; its members are the fixture's.
class FakeCluster {
 protected:
  FakeCluster();

  // Creates `json` on the fake server and tells the view what the informer
  // of its kind would (nodes, queues, pod groups, pods). Returns the object
  // as created (uid, resourceVersion).
  kube::Object Add(const kube::ResourceType& type, const std::string& ns, const std::string& json);

  // spec.nodeName of pod ns/name on the server; "<gone>" when there is none.
  std::string NodeOf(const std::string& ns, const std::string& name);

  // The server's current copy of `key` ("name" or "ns/name"), null when
  // absent: what an informer cache's Get gives, with no lag.
  kube::ObjectPtr Live(const kube::ResourceType& type, const std::string& key);

  kube::Registry registry_;
  kube::FakeClient client_;
  ClusterView view_;
  kube::EventRecorder events_;
  Reservations reservations_;
};

}  // namespace vtenant::scheduler::testing
