#include "kube/async_event_recorder.h"

namespace vtenant::kube {
namespace {

// The members of `object` an Event names it by.
Object Reference(const rapidjson::Value& object) {
  Object ref(rapidjson::kObjectType);
  SetString(ref, {}, "apiVersion", GetString(object, {"apiVersion"}));
  SetString(ref, {}, "kind", GetString(object, {"kind"}));
  SetString(ref, {"metadata"}, "name", Name(object));
  if (!Namespace(object).empty()) SetString(ref, {"metadata"}, "namespace", Namespace(object));
  SetString(ref, {"metadata"}, "uid", Uid(object));
  if (!ResourceVersion(object).empty())
    SetString(ref, {"metadata"}, "resourceVersion", ResourceVersion(object));
  return ref;
}

}  // namespace

AsyncEventRecorder::AsyncEventRecorder(EventRecorder& recorder, size_t capacity, Counter* dropped)
    : recorder_(recorder), capacity_(capacity), dropped_(dropped), thread_([this] { Send(); }) {}

AsyncEventRecorder::~AsyncEventRecorder() { Stop(); }

void AsyncEventRecorder::Record(const rapidjson::Value& object, std::string_view type,
                                std::string_view reason, std::string_view message) {
  {
    std::lock_guard lock(mu_);
    if (!stopping_ && queue_.size() < capacity_) {
      queue_.push_back(
          Pending{Reference(object), std::string(type), std::string(reason), std::string(message)});
      cv_.notify_all();
      return;
    }
  }
  if (dropped_ != nullptr) dropped_->Inc();
}

void AsyncEventRecorder::Flush() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return stopping_ || (queue_.empty() && !sending_); });
}

void AsyncEventRecorder::Stop() {
  size_t left = 0;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    left = queue_.size();
    queue_.clear();
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (dropped_ != nullptr && left > 0) dropped_->Inc(static_cast<double>(left));
}

void AsyncEventRecorder::Send() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    Pending next = std::move(queue_.front());
    queue_.pop_front();
    sending_ = true;
    lock.unlock();
    recorder_.Record(next.object, next.type, next.reason, next.message);
    lock.lock();
    sending_ = false;
    cv_.notify_all();
  }
}

}  // namespace vtenant::kube
