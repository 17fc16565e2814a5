// AsyncEventRecorder: Events recorded off the caller's thread, for callers
// that must not wait on the API server, such as a scheduler's binds.
//
// A bounded queue in front of an EventRecorder (which correlates repeats
// and cuts each call at 5 s): Record keeps what the Event needs and
// returns at once; one thread sends the Events in order. When the queue is
// full an Event is dropped and counted, as kube-scheduler's broadcaster
// drops what its buffer cannot hold: an Event is worth less than the work
// it tells of. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "kube/event_recorder.h"
#include "kube/metrics.h"
#include "kube/object.h"

namespace vtenant::kube {

class AsyncEventRecorder {
 public:
  // Starts the sending thread. `recorder` must outlive this. `dropped`
  // (may be null) counts the Events dropped: the queue held `capacity`
  // already, or the recorder had stopped.
  AsyncEventRecorder(EventRecorder& recorder, size_t capacity, Counter* dropped = nullptr);
  // Stop().
  ~AsyncEventRecorder();

  AsyncEventRecorder(const AsyncEventRecorder&) = delete;
  AsyncEventRecorder& operator=(const AsyncEventRecorder&) = delete;

  // Queues an Event of `type` ("Normal" or "Warning") on `object`, of which
  // its apiVersion, kind, name, namespace, uid and resourceVersion are
  // kept.
  void Record(const rapidjson::Value& object, std::string_view type, std::string_view reason,
              std::string_view message);
  void Normal(const rapidjson::Value& object, std::string_view reason, std::string_view message) {
    Record(object, "Normal", reason, message);
  }

  // Blocks until the queue is empty and no Event is being sent (each sent,
  // or its sending failed and logged), or the recorder has stopped.
  void Flush();

  // Stops the thread once the Event being sent is done; what is still
  // queued, and every later Record, is dropped. Idempotent; one caller at
  // a time.
  void Stop();

 private:
  struct Pending {
    Object object;
    std::string type, reason, message;
  };
  void Send();

  EventRecorder& recorder_;
  const size_t capacity_;
  Counter* const dropped_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Pending> queue_;
  bool sending_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace vtenant::kube
