#include "kube/leader_election.h"

#include <glog/logging.h>

#include <random>

#include "base/rfc3339.h"

namespace vtenant::kube {
namespace {

// client-go's JitterFactor: candidates spread their retries over
// [retry, 2.2 * retry) so they do not all hit the Lease at once.
constexpr double kJitterFactor = 1.2;

void SetInt(Object& doc, std::initializer_list<std::string_view> path, const char* key,
            int64_t value) {
  rapidjson::Value& target = EnsurePath(doc, path);
  if (auto it = target.FindMember(key); it != target.MemberEnd()) {
    it->value.SetInt64(value);
  } else {
    target.AddMember(rapidjson::Value(key, doc.GetAllocator()), rapidjson::Value(value),
                     doc.GetAllocator());
  }
}

}  // namespace

Result<std::unique_ptr<LeaderElector>> LeaderElector::Create(Client& client,
                                                             LeaderElectionConfig config) {
  if (config.lease_name.empty()) return InvalidArgument("leader election needs a lease name");
  if (config.identity.empty()) return InvalidArgument("leader election needs an identity");
  if (config.clock == nullptr) return InvalidArgument("leader election needs a clock");
  if (config.retry_period <= Clock::Duration::zero()) {
    return InvalidArgument("retry period must be positive");
  }
  if (config.lease_duration <= config.renew_deadline) {
    return InvalidArgument("lease duration must be greater than the renew deadline");
  }
  if (config.renew_deadline <=
      std::chrono::duration_cast<Clock::Duration>(config.retry_period * kJitterFactor)) {
    return InvalidArgument("renew deadline must be greater than 1.2 * retry period");
  }
  return std::unique_ptr<LeaderElector>(new LeaderElector(client, std::move(config)));
}

LeaderElector::LeaderElector(Client& client, LeaderElectionConfig config)
    : client_(client),
      config_(std::move(config)),
      lease_seconds_(std::max<int64_t>(
          1, std::chrono::ceil<std::chrono::seconds>(config_.lease_duration).count())) {}

LeaderElector::~LeaderElector() { Stop(); }

Status LeaderElector::Run() {
  std::lock_guard lock(mu_);
  if (started_ || stopping_) {
    return FailedPrecondition("leader elector " + config_.identity + " was already started");
  }
  started_ = true;
  waker_ = config_.clock->AddWaker([this] {
    std::lock_guard wake_lock(mu_);
    cv_.notify_all();
  });
  thread_ = std::thread([this] { Loop(); });
  return Status::Ok();
}

void LeaderElector::Stop() {
  bool started;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    started = started_;
    cv_.notify_all();
  }
  stop_.Cancel();
  if (thread_.joinable()) thread_.join();
  uint64_t waker = 0;
  {
    std::lock_guard lock(mu_);
    if (!started_) return;
    started_ = false;
    waker = waker_;
  }
  if (started) config_.clock->RemoveWaker(waker);
}

bool LeaderElector::IsLeader() const {
  std::lock_guard lock(mu_);
  return leading_ && config_.clock->Now() < renewed_at_ + config_.renew_deadline;
}

std::string LeaderElector::CurrentLeader() const {
  std::lock_guard lock(mu_);
  return observed_holder_;
}

bool LeaderElector::Sleep(Clock::Duration d) { return SleepUntilTime(config_.clock->Now() + d); }

bool LeaderElector::SleepUntilTime(Clock::TimePoint until) {
  std::unique_lock lock(mu_);
  while (!stopping_ && config_.clock->Now() < until) config_.clock->WaitUntil(cv_, lock, until);
  return stopping_;
}

void LeaderElector::Loop() {
  std::mt19937_64 random(std::random_device{}());
  std::uniform_real_distribution<double> jitter(0.0, kJitterFactor);
  auto stopping = [this] {
    std::lock_guard lock(mu_);
    return stopping_;
  };
  while (!stopping()) {
    Clock::TimePoint attempt_start = config_.clock->Now();
    if (TryAcquireOrRenew(attempt_start + config_.renew_deadline) != Attempt::kHeld) {
      Sleep(std::chrono::duration_cast<Clock::Duration>(config_.retry_period *
                                                        (1.0 + jitter(random))));
      continue;
    }
    LOG(INFO) << config_.identity << " acquired lease " << config_.lease_namespace << "/"
              << config_.lease_name;
    {
      std::lock_guard lock(mu_);
      leading_ = true;
      renewed_at_ = attempt_start;
    }
    if (config_.callbacks.on_started_leading) config_.callbacks.on_started_leading();

    bool stopped = false;
    while (true) {
      // Renew every retry period, and wake at the renew deadline at the
      // latest so that failing renewals end leadership on time.
      Clock::TimePoint deadline;
      {
        std::lock_guard lock(mu_);
        deadline = renewed_at_ + config_.renew_deadline;
      }
      const Clock::TimePoint wake = std::min(config_.clock->Now() + config_.retry_period, deadline);
      if ((stopped = SleepUntilTime(wake))) break;
      attempt_start = config_.clock->Now();
      Attempt attempt = TryAcquireOrRenew(deadline);
      if (stopping()) {
        stopped = true;
        break;
      }
      std::lock_guard lock(mu_);
      if (attempt == Attempt::kHeld) {
        renewed_at_ = attempt_start;
        continue;
      }
      if (attempt == Attempt::kHeldByOther) {
        LOG(WARNING) << config_.identity << " lost lease " << config_.lease_name << " to "
                     << observed_holder_;
        break;
      }
      if (config_.clock->Now() >= renewed_at_ + config_.renew_deadline) {
        LOG(WARNING) << config_.identity << " could not renew lease " << config_.lease_name
                     << " within the renew deadline";
        break;
      }
    }
    {
      std::lock_guard lock(mu_);
      leading_ = false;
    }
    if (config_.callbacks.on_stopped_leading) config_.callbacks.on_stopped_leading();
    if (stopped && config_.release_on_stop) Release();
  }
}

void LeaderElector::Observe(const Object& lease) {
  std::string holder(GetString(lease, {"spec", "holderIdentity"}));
  std::string record = holder + "|" + std::string(GetString(lease, {"spec", "renewTime"})) + "|" +
                       std::to_string(GetInt(lease, {"spec", "leaseTransitions"})) + "|" +
                       std::string(GetString(lease, {"spec", "acquireTime"}));
  bool new_leader = false;
  {
    std::lock_guard lock(mu_);
    if (record != observed_record_) {
      observed_record_ = std::move(record);
      observed_at_ = config_.clock->Now();
    }
    observed_holder_ = holder;
    observed_duration_seconds_ = GetInt(lease, {"spec", "leaseDurationSeconds"}, lease_seconds_);
    if (!holder.empty() && holder != reported_leader_) {
      reported_leader_ = holder;
      new_leader = true;
    }
  }
  if (new_leader && config_.callbacks.on_new_leader) config_.callbacks.on_new_leader(holder);
}

LeaderElector::Attempt LeaderElector::TryAcquireOrRenew(Clock::TimePoint deadline) {
  // The timeout lets `deadline` exceed the client's default (a long renew
  // deadline) while `deadline` still bounds the call.
  const CallOptions call{.deadline = deadline, .timeout = config_.renew_deadline, .cancel = &stop_};
  Result<Object> current =
      client_.Get(resources::kLeases, config_.lease_namespace, config_.lease_name, call);
  // Taken after the read, so an acquireTime is never earlier than the moment
  // the previous holder's lease was seen to expire.
  const std::string now = FormatRfc3339Micro(std::chrono::system_clock::now());
  if (!current.ok() && current.status().code() == StatusCode::kNotFound) {
    Object lease(rapidjson::kObjectType);
    SetString(lease, {}, "apiVersion", resources::kLeases.ApiVersion());
    SetString(lease, {}, "kind", resources::kLeases.kind);
    SetString(lease, {"metadata"}, "name", config_.lease_name);
    SetString(lease, {"metadata"}, "namespace", config_.lease_namespace);
    SetString(lease, {"spec"}, "holderIdentity", config_.identity);
    SetInt(lease, {"spec"}, "leaseDurationSeconds", lease_seconds_);
    SetString(lease, {"spec"}, "acquireTime", now);
    SetString(lease, {"spec"}, "renewTime", now);
    SetInt(lease, {"spec"}, "leaseTransitions", 0);
    Result<Object> created =
        client_.Create(resources::kLeases, config_.lease_namespace, lease, {}, call);
    if (!created.ok()) {
      // AlreadyExists: another candidate created it first; read it next time.
      VLOG(1) << config_.identity << " could not create lease: " << created.status().ToString();
      return Attempt::kFailed;
    }
    Observe(*created);
    return Attempt::kHeld;
  }
  if (!current.ok()) {
    LOG(WARNING) << config_.identity << " could not read lease " << config_.lease_name << ": "
                 << current.status().ToString();
    return Attempt::kFailed;
  }
  Observe(*current);
  const std::string holder(GetString(*current, {"spec", "holderIdentity"}));
  bool was_leading;
  {
    std::lock_guard lock(mu_);
    const bool expired =
        config_.clock->Now() >= observed_at_ + std::chrono::seconds(observed_duration_seconds_);
    if (!holder.empty() && holder != config_.identity && !expired) return Attempt::kHeldByOther;
    was_leading = leading_ && holder == config_.identity;
  }

  Object next = Clone(*current);
  SetString(next, {"spec"}, "holderIdentity", config_.identity);
  SetInt(next, {"spec"}, "leaseDurationSeconds", lease_seconds_);
  SetString(next, {"spec"}, "renewTime", now);
  if (!was_leading) {
    SetString(next, {"spec"}, "acquireTime", now);
    SetInt(next, {"spec"}, "leaseTransitions",
           GetInt(*current, {"spec", "leaseTransitions"}) + (holder == config_.identity ? 0 : 1));
  }
  // The resourceVersion in `next` makes this a compare-and-swap: if another
  // candidate wrote since our read, the server answers Conflict.
  Result<Object> updated =
      client_.Update(resources::kLeases, config_.lease_namespace, next, {}, call);
  if (!updated.ok()) {
    VLOG(1) << config_.identity << " could not write lease " << config_.lease_name << ": "
            << updated.status().ToString();
    return Attempt::kFailed;
  }
  Observe(*updated);
  return Attempt::kHeld;
}

void LeaderElector::Release() {
  // Not cancelled by Stop (it runs because of Stop), but bounded: a hung
  // server delays shutdown by renew_deadline at most.
  const CallOptions call{.deadline = config_.clock->Now() + config_.renew_deadline,
                         .timeout = config_.renew_deadline};
  Result<Object> current =
      client_.Get(resources::kLeases, config_.lease_namespace, config_.lease_name, call);
  if (!current.ok() || GetString(*current, {"spec", "holderIdentity"}) != config_.identity) {
    return;
  }
  const std::string now = FormatRfc3339Micro(std::chrono::system_clock::now());
  Object next = Clone(*current);
  SetString(next, {"spec"}, "holderIdentity", "");
  SetInt(next, {"spec"}, "leaseDurationSeconds", 1);
  SetString(next, {"spec"}, "acquireTime", now);
  SetString(next, {"spec"}, "renewTime", now);
  Result<Object> released =
      client_.Update(resources::kLeases, config_.lease_namespace, next, {}, call);
  if (!released.ok()) {
    LOG(WARNING) << config_.identity << " could not release lease " << config_.lease_name << ": "
                 << released.status().ToString();
    return;
  }
  LOG(INFO) << config_.identity << " released lease " << config_.lease_namespace << "/"
            << config_.lease_name;
}

}  // namespace vtenant::kube
