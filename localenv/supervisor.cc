#include "localenv/supervisor.h"

#include <algorithm>

namespace vtenant::localenv {

Supervisor::~Supervisor() { StopAll(std::chrono::seconds(5)); }

void Supervisor::Add(Component component, Process running) {
  component.process.die_with_parent = false;
  HealthProber prober(component.health);
  Entry entry{.component = std::move(component),
              .process = std::move(running),
              .up = true,
              .prober = std::move(prober)};
  entry.started = Clock::now();
  entry.next_liveness = entry.started + options_.liveness_delay;
  entries_.push_back(std::move(entry));
}

Status Supervisor::Start(Component component) {
  component.process.die_with_parent = false;
  HealthProber prober(component.health);
  entries_.push_back(Entry{.component = std::move(component), .prober = std::move(prober)});
  Status error;
  Launch(entries_.back(), Clock::now(), &error);
  return error;
}

void Supervisor::Launch(Entry& entry, Clock::time_point now, Status* error) {
  Result<Process> process = Process::Start(entry.component.process);
  if (process.ok()) {
    entry.process = std::move(*process);
    entry.up = true;
    entry.started = now;
    entry.next_liveness = now + options_.liveness_delay;
    entry.liveness_failed = 0;
    return;
  }
  // A start that fails (a binary removed by `make clean`) is a failed run.
  entry.last_exit = process.status().message();
  entry.backoff =
      std::min(options_.max_backoff, std::max(options_.first_backoff, entry.backoff * 2));
  entry.next_start = now + entry.backoff;
  if (error != nullptr) *error = process.status();
}

bool Supervisor::Tick() {
  if (stopped_) return false;
  bool changed = false;
  const Clock::time_point now = Clock::now();
  for (Entry& entry : entries_) {
    if (entry.retired) continue;
    if (entry.up) {
      if (entry.process.Running()) {
        if (Alive(entry, now)) continue;
        entry.process.Stop(std::chrono::milliseconds(0));
        entry.up = false;
        entry.last_exit = "killed: no answer from " + entry.component.health.url + " for " +
                          std::to_string(entry.liveness_failed) + " probes (" +
                          entry.liveness_error + ")";
      } else {
        entry.up = false;
        entry.last_exit = entry.process.exit_description();
      }
      const bool was_stable = now - entry.started >= options_.stable_after;
      entry.backoff = was_stable ? options_.first_backoff
                                 : std::min(options_.max_backoff,
                                            std::max(options_.first_backoff, entry.backoff * 2));
      entry.next_start = now + entry.backoff;
      changed = true;
      continue;
    }
    if (now < entry.next_start) continue;
    ++entry.restarts;
    Launch(entry, now, nullptr);
    changed = true;
    for (Entry& follower : entries_) {
      const std::vector<std::string>& after = follower.component.restart_after;
      if (std::find(after.begin(), after.end(), entry.component.name) != after.end()) {
        follower.follow_cause = entry.component.name;
      }
    }
  }
  return RestartFollowers(now) || changed;
}

bool Supervisor::Alive(Entry& entry, Clock::time_point now) {
  if (entry.component.health.url.empty() || now < entry.next_liveness) return true;
  Status alive = entry.prober.CheckAlive(options_.liveness_timeout);
  // From the end of the probe: a probe that timed out does not make the next
  // one due at once.
  entry.next_liveness = Clock::now() + options_.liveness_period;
  if (alive.ok()) {
    entry.liveness_failed = 0;
    return true;
  }
  entry.liveness_error = alive.message();
  return ++entry.liveness_failed < options_.liveness_failures;
}

bool Supervisor::RestartFollowers(Clock::time_point now) {
  bool changed = false;
  for (Entry& follower : entries_) {
    if (follower.follow_cause.empty() || follower.retired) continue;
    bool ready = true;
    for (const std::string& name : follower.component.restart_after) {
      Entry* leader = nullptr;
      for (Entry& e : entries_) {
        if (e.component.name == name) leader = &e;
      }
      if (leader == nullptr) continue;
      ready = ready && leader->up &&
              (leader->component.health.url.empty() ||
               leader->prober.CheckHealth(std::chrono::seconds(1)).ok());
    }
    if (!ready) continue;
    if (follower.up) {
      follower.process.Stop(std::chrono::seconds(2));
      follower.up = false;
    }
    follower.last_exit = "restarted to follow " + follower.follow_cause;
    follower.follow_cause.clear();
    ++follower.restarts;
    Launch(follower, now, nullptr);
    changed = true;
  }
  return changed;
}

std::string Supervisor::StopEntry(Entry& entry, std::chrono::milliseconds grace) {
  entry.retired = true;
  if (!entry.up) return "";
  entry.up = false;
  const Clock::time_point begin = Clock::now();
  const std::string outcome = entry.process.Stop(grace);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - begin).count();
  return entry.component.name + ": " + outcome + " after " + std::to_string(ms) + " ms";
}

std::string Supervisor::StopOne(const std::string& name, std::chrono::milliseconds grace) {
  for (Entry& entry : entries_) {
    if (entry.component.name == name) return StopEntry(entry, grace);
  }
  return "";
}

std::vector<std::string> Supervisor::StopAll(std::chrono::milliseconds grace) {
  stopped_ = true;
  std::vector<std::string> stopped;
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    std::string line = StopEntry(*it, grace);
    if (!line.empty()) stopped.push_back(std::move(line));
  }
  return stopped;
}

std::string Supervisor::Remove(const std::string& name, std::chrono::milliseconds grace) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->component.name != name) continue;
    std::string outcome = StopEntry(*it, grace);
    entries_.erase(it);
    return outcome;
  }
  return "";
}

void Supervisor::ReleaseAll() {
  stopped_ = true;
  for (Entry& entry : entries_) {
    entry.process.Release();
    entry.up = false;
    entry.retired = true;
  }
}

std::vector<ComponentStatus> Supervisor::Statuses() const {
  std::vector<ComponentStatus> out;
  for (const Entry& entry : entries_) {
    out.push_back({.name = entry.component.name,
                   .pid = entry.process.pid(),
                   .restarts = entry.restarts,
                   .last_exit = entry.last_exit});
  }
  return out;
}

const Component* Supervisor::Find(const std::string& name) const {
  for (const Entry& entry : entries_) {
    if (entry.component.name == name) return &entry.component;
  }
  return nullptr;
}

}  // namespace vtenant::localenv
