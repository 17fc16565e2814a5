#include "kube/metrics.h"

#include <glog/logging.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>

namespace vtenant::kube {
namespace {

bool IsNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }

bool IsValidMetricName(std::string_view name) {
  if (name.empty() || !(IsNameStart(name[0]) || name[0] == ':')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return IsNameChar(c) || c == ':'; });
}

bool IsValidLabelName(std::string_view name) {
  if (name.empty() || !IsNameStart(name[0]) || name.starts_with("__")) return false;
  return std::all_of(name.begin(), name.end(), IsNameChar);
}

// Go's strconv formatting of floats, which Prometheus parses: shortest text
// that reads back exactly, and +Inf, -Inf, NaN spelled its way.
std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[64];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, end);
}

void AppendEscapedLabelValue(std::string_view value, std::string* out) {
  for (char c : value) {
    switch (c) {
      case '\\':
        *out += "\\\\";
        break;
      case '"':
        *out += "\\\"";
        break;
      case '\n':
        *out += "\\n";
        break;
      default:
        *out += c;
    }
  }
}

// `{a="x",b="y"}`, with `extra` (the histogram's le) last; empty when there
// are no labels at all.
std::string FormatLabels(const std::vector<std::string>& names,
                         const std::vector<std::string>& values, std::string_view extra_name = {},
                         std::string_view extra_value = {}) {
  if (names.empty() && extra_name.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ',';
    out += names[i] + "=\"";
    AppendEscapedLabelValue(values[i], &out);
    out += '"';
  }
  if (!extra_name.empty()) {
    if (!names.empty()) out += ',';
    out += std::string(extra_name) + "=\"";
    AppendEscapedLabelValue(extra_value, &out);
    out += '"';
  }
  out += '}';
  return out;
}

Status ValidateFamily(const std::string& name, const std::vector<std::string>& label_names) {
  if (!IsValidMetricName(name)) {
    return InvalidArgument("metric name \"" + name + "\" must match [a-zA-Z_:][a-zA-Z0-9_:]*");
  }
  std::set<std::string_view> seen;
  for (const std::string& label : label_names) {
    if (!IsValidLabelName(label)) {
      return InvalidArgument("metric " + name + ": label name \"" + label +
                             "\" must match [a-zA-Z_][a-zA-Z0-9_]* and not start with __");
    }
    if (!seen.insert(label).second) {
      return InvalidArgument("metric " + name + ": label \"" + label + "\" given twice");
    }
  }
  return Status::Ok();
}

}  // namespace

void Counter::Inc(double amount) {
  if (!(amount >= 0)) {
    LOG_FIRST_N(WARNING, 5) << "ignoring a counter increment of " << amount;
    return;
  }
  value_.fetch_add(amount, std::memory_order_relaxed);
}

Histogram::Histogram(std::shared_ptr<const std::vector<double>> upper_bounds)
    : upper_bounds_(std::move(upper_bounds)),
      counts_(new std::atomic<uint64_t>[upper_bounds_->size() + 1]) {
  for (size_t i = 0; i <= upper_bounds_->size(); ++i) counts_[i].store(0);
}

void Histogram::Observe(double value) {
  const std::vector<double>& bounds = *upper_bounds_;
  size_t bucket = bounds.size();  // +Inf, also for NaN
  if (!std::isnan(value)) {
    bucket = std::lower_bound(bounds.begin(), bounds.end(), value) - bounds.begin();
  }
  counts_[bucket].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::Collect() const {
  Snapshot snapshot;
  snapshot.cumulative_counts.reserve(upper_bounds_->size() + 1);
  uint64_t running = 0;
  for (size_t i = 0; i <= upper_bounds_->size(); ++i) {
    running += counts_[i].load(std::memory_order_relaxed);
    snapshot.cumulative_counts.push_back(running);
  }
  // The count is the +Inf bucket, so _count and the buckets never disagree.
  snapshot.count = running;
  snapshot.sum = sum_.load(std::memory_order_relaxed);
  return snapshot;
}

namespace metrics_internal {

void DieOfLabelMismatch(const std::string& name, size_t want, size_t got) {
  LOG(FATAL) << "metric " << name << " has " << want << " label names but was given " << got
             << " label values";
  std::abort();  // LOG(FATAL) does not return; this tells the compiler so
}

void AppendHelpAndType(const std::string& name, const std::string& help, const std::string& type,
                       std::string* out) {
  *out += "# HELP " + name + " ";
  for (char c : help) {
    if (c == '\\') {
      *out += "\\\\";
    } else if (c == '\n') {
      *out += "\\n";
    } else {
      *out += c;
    }
  }
  *out += "\n# TYPE " + name + " " + type + "\n";
}

void AppendSamples(const std::string& name, const std::vector<std::string>& label_names,
                   const std::vector<std::string>& label_values, const Counter& counter,
                   std::string* out) {
  *out +=
      name + FormatLabels(label_names, label_values) + " " + FormatValue(counter.Value()) + "\n";
}

void AppendSamples(const std::string& name, const std::vector<std::string>& label_names,
                   const std::vector<std::string>& label_values, const Gauge& gauge,
                   std::string* out) {
  *out += name + FormatLabels(label_names, label_values) + " " + FormatValue(gauge.Value()) + "\n";
}

void AppendSamples(const std::string& name, const std::vector<std::string>& label_names,
                   const std::vector<std::string>& label_values, const Histogram& histogram,
                   std::string* out) {
  Histogram::Snapshot snapshot = histogram.Collect();
  const std::vector<double>& bounds = histogram.upper_bounds();
  for (size_t i = 0; i <= bounds.size(); ++i) {
    std::string le = i < bounds.size() ? FormatValue(bounds[i]) : "+Inf";
    *out += name + "_bucket" + FormatLabels(label_names, label_values, "le", le) + " " +
            std::to_string(snapshot.cumulative_counts[i]) + "\n";
  }
  std::string labels = FormatLabels(label_names, label_values);
  *out += name + "_sum" + labels + " " + FormatValue(snapshot.sum) + "\n";
  *out += name + "_count" + labels + " " + std::to_string(snapshot.count) + "\n";
}

}  // namespace metrics_internal

template <typename Metric>
Result<Family<Metric>*> Registry::Add(const std::string& name, const std::string& help,
                                      const std::string& type,
                                      const std::vector<std::string>& label_names,
                                      std::shared_ptr<const std::vector<double>> buckets) {
  VT_RETURN_IF_ERROR(ValidateFamily(name, label_names));
  std::lock_guard guard(mu_);
  auto it = families_.find(name);
  if (it != families_.end()) {
    auto* existing = dynamic_cast<Family<Metric>*>(it->second.get());
    bool same = existing != nullptr && existing->help() == help &&
                existing->label_names() == label_names &&
                (buckets == nullptr || *existing->buckets() == *buckets);
    if (same) return existing;
    return Status(StatusCode::kAlreadyExists, "metric " + name + " is already registered as a " +
                                                  it->second->type() +
                                                  " with different help, labels or buckets");
  }
  auto family = std::make_unique<Family<Metric>>(name, help, type, label_names, std::move(buckets));
  Family<Metric>* result = family.get();
  families_.emplace(name, std::move(family));
  return result;
}

Result<Family<Counter>*> Registry::AddCounter(const std::string& name, const std::string& help,
                                              const std::vector<std::string>& label_names) {
  return Add<Counter>(name, help, "counter", label_names, nullptr);
}

Result<Family<Gauge>*> Registry::AddGauge(const std::string& name, const std::string& help,
                                          const std::vector<std::string>& label_names) {
  return Add<Gauge>(name, help, "gauge", label_names, nullptr);
}

Result<Family<Histogram>*> Registry::AddHistogram(const std::string& name, const std::string& help,
                                                  const std::vector<std::string>& label_names,
                                                  std::vector<double> buckets) {
  if (std::find(label_names.begin(), label_names.end(), "le") != label_names.end()) {
    return InvalidArgument("histogram " + name + ": \"le\" is reserved for bucket bounds");
  }
  if (!buckets.empty() && buckets.back() == std::numeric_limits<double>::infinity())
    buckets.pop_back();
  for (size_t i = 0; i < buckets.size(); ++i) {
    if (std::isnan(buckets[i]) || (i > 0 && !(buckets[i - 1] < buckets[i]))) {
      return InvalidArgument("histogram " + name +
                             ": buckets must be strictly increasing numbers, got " +
                             FormatValue(buckets[i]) + " at position " + std::to_string(i));
    }
  }
  return Add<Histogram>(name, help, "histogram", label_names,
                        std::make_shared<const std::vector<double>>(std::move(buckets)));
}

void Registry::SetCollector(const std::string& name, std::function<void()> refresh) {
  std::lock_guard guard(collectors_mu_);
  collectors_[name] = std::move(refresh);
}

void Registry::RemoveCollector(const std::string& name) {
  std::lock_guard guard(collectors_mu_);
  collectors_.erase(name);
}

std::string Registry::Render() const {
  {
    std::lock_guard collecting(collectors_mu_);
    for (const auto& [name, refresh] : collectors_) refresh();
  }
  std::lock_guard guard(mu_);
  std::string out;
  for (const auto& [name, family] : families_) family->Render(&out);
  return out;
}

Registry& DefaultRegistry() {
  static Registry* registry = new Registry();  // leaked: usable during static destruction
  return *registry;
}

std::vector<double> DefaultBuckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}

Result<std::vector<double>> ExponentialBuckets(double start, double factor, int count) {
  if (!(start > 0) || !(factor > 1) || count < 1) {
    return InvalidArgument("exponential buckets need start > 0, factor > 1 and count >= 1; got " +
                           FormatValue(start) + ", " + FormatValue(factor) + ", " +
                           std::to_string(count));
  }
  std::vector<double> buckets;
  double bound = start;
  for (int i = 0; i < count; ++i, bound *= factor) buckets.push_back(bound);
  return buckets;
}

Result<std::vector<double>> LinearBuckets(double start, double width, int count) {
  if (!(width > 0) || count < 1) {
    return InvalidArgument("linear buckets need width > 0 and count >= 1; got " +
                           FormatValue(width) + ", " + std::to_string(count));
  }
  std::vector<double> buckets;
  for (int i = 0; i < count; ++i) buckets.push_back(start + i * width);
  return buckets;
}

}  // namespace vtenant::kube
