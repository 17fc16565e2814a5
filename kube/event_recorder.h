// EventRecorder: Kubernetes Events on the objects a controller manages, so a
// person running `kubectl describe` sees what happened and why.
//
// Repeats of the same event (same object, type, reason and message) update
// the existing Event's count and lastTimestamp instead of creating a new
// object each time, as client-go's correlator does. Recording is best
// effort: a failure is logged, never returned, because losing an Event must
// not fail the reconcile that produced it; and each call to the API server
// is cut after 5 s, so a hung server cannot hold the reconcile for long.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "kube/client.h"
#include "kube/wall_time.h"

namespace vtenant::kube {

// Thread-safe: controllers' workers share one recorder.
class EventRecorder {
 public:
  // `component` names the reporter ("vtenant-operator"). `client` must outlive it.
  EventRecorder(Client& client, std::string component, WallClock now = SystemNow);

  void Normal(const rapidjson::Value& object, std::string_view reason, std::string_view message) {
    Record(object, "Normal", reason, message);
  }
  void Warning(const rapidjson::Value& object, std::string_view reason, std::string_view message) {
    Record(object, "Warning", reason, message);
  }

  // Records an event of `type` ("Normal" or "Warning") on `object`. Events of
  // cluster-scoped objects go to the "default" namespace, as kubectl expects.
  void Record(const rapidjson::Value& object, std::string_view type, std::string_view reason,
              std::string_view message);

 private:
  struct Seen {
    std::string ns;
    std::string name;
    int64_t count = 0;
  };

  Client& client_;
  const std::string component_;
  const WallClock now_;
  std::mutex mu_;
  std::map<std::string, Seen> seen_;  // correlation key → the Event that carries it
  uint64_t sequence_ = 0;
};

}  // namespace vtenant::kube
