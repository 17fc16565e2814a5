// Prometheus metrics: counters, gauges and histograms with labels, rendered in
// the text exposition format 0.0.4 that /metrics serves.
//
// A metric is registered once as a family (a name, help text and label names)
// and used through its children, one per combination of label values:
//
//   static Family<Counter>* requests = DefaultRegistry().AddCounter(
//       "vtenant_api_requests_total", "API requests by verb and code.",
//       {"verb", "code"}).value();
//   requests->WithLabelValues({"GET", "200"}).Inc();
//
// Updating a child is a lock-free atomic operation; finding a child takes a
// shared lock, so hot paths keep the child reference (it stays valid until
// Remove of those label values). Everything here is thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "base/status.h"

namespace vtenant::kube {

// A value that only goes up (requests served, errors seen).
class Counter {
 public:
  // Adds `amount`. A negative or NaN amount is ignored: a counter that went
  // down would read as a restart to Prometheus.
  void Inc(double amount = 1);
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// A value that goes up and down (queue depth, leader or not).
class Gauge {
 public:
  void Set(double value) { value_.store(value, std::memory_order_relaxed); }
  void Inc(double amount = 1) { value_.fetch_add(amount, std::memory_order_relaxed); }
  void Dec(double amount = 1) { value_.fetch_sub(amount, std::memory_order_relaxed); }
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// Counts observations into buckets by upper bound (latencies, sizes).
class Histogram {
 public:
  // `upper_bounds` strictly increasing and finite; +Inf is implicit. Families
  // build histograms; this is public for tests and single-use histograms.
  explicit Histogram(std::shared_ptr<const std::vector<double>> upper_bounds);

  // Counts `value` in the first bucket whose bound is >= value (+Inf for NaN).
  void Observe(double value);

  struct Snapshot {
    std::vector<uint64_t> cumulative_counts;  // one per bound, then +Inf
    double sum = 0;
    uint64_t count = 0;  // equals cumulative_counts.back()
  };
  // The counts so far. Taken without stopping observers: the buckets and
  // count always agree (count is read as the +Inf bucket), but sum may be
  // ahead of or behind them by the observations in flight.
  Snapshot Collect() const;

  const std::vector<double>& upper_bounds() const { return *upper_bounds_; }

 private:
  std::shared_ptr<const std::vector<double>> upper_bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> counts_;  // per bucket, not cumulative
  std::atomic<double> sum_{0};
};

namespace metrics_internal {
// Helpers of the Family template, defined in metrics.cc.
[[noreturn]] void DieOfLabelMismatch(const std::string& name, size_t want, size_t got);
void AppendHelpAndType(const std::string& name, const std::string& help, const std::string& type,
                       std::string* out);
void AppendSamples(const std::string& name, const std::vector<std::string>& label_names,
                   const std::vector<std::string>& label_values, const Counter& counter,
                   std::string* out);
void AppendSamples(const std::string& name, const std::vector<std::string>& label_names,
                   const std::vector<std::string>& label_values, const Gauge& gauge,
                   std::string* out);
void AppendSamples(const std::string& name, const std::vector<std::string>& label_names,
                   const std::vector<std::string>& label_values, const Histogram& histogram,
                   std::string* out);
}  // namespace metrics_internal

// What every family has, whatever its metric type.
class MetricFamily {
 public:
  MetricFamily(std::string name, std::string help, std::string type,
               std::vector<std::string> label_names)
      : name_(std::move(name)),
        help_(std::move(help)),
        type_(std::move(type)),
        label_names_(std::move(label_names)) {}
  virtual ~MetricFamily() = default;

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const std::string& type() const { return type_; }  // "counter", "gauge", "histogram"
  const std::vector<std::string>& label_names() const { return label_names_; }

  // Appends the HELP and TYPE lines and every child's samples, children in
  // label-value order. Appends nothing when there are no children.
  virtual void Render(std::string* out) const = 0;

 private:
  const std::string name_;
  const std::string help_;
  const std::string type_;
  const std::vector<std::string> label_names_;
};

// The children of one metric, by label values.
template <typename Metric>
class Family final : public MetricFamily {
 public:
  Family(std::string name, std::string help, std::string type, std::vector<std::string> label_names,
         std::shared_ptr<const std::vector<double>> buckets = nullptr)
      : MetricFamily(std::move(name), std::move(help), std::move(type), std::move(label_names)),
        buckets_(std::move(buckets)) {
    // An unlabelled metric has one child from the start, so it renders as 0
    // before its first update.
    if (this->label_names().empty()) (void)WithLabelValues({});
  }

  // The child for `values`, created at zero on first use. `values` must have
  // one entry per label name; a mismatch is a programming error and aborts.
  Metric& WithLabelValues(const std::vector<std::string>& values);

  // Drops the child for `values` (a deleted tenant's series). References to it
  // must not be used afterwards. Returns whether it existed.
  bool Remove(const std::vector<std::string>& values);

  // The histogram bounds; null for counters and gauges.
  const std::shared_ptr<const std::vector<double>>& buckets() const { return buckets_; }

  void Render(std::string* out) const override;

 private:
  std::unique_ptr<Metric> NewChild() const;

  const std::shared_ptr<const std::vector<double>> buckets_;
  mutable std::shared_mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<Metric>> children_;
};

// A set of families rendered together on one /metrics page.
class Registry {
 public:
  // Registers a family. Names match [a-zA-Z_:][a-zA-Z0-9_:]*, label names
  // [a-zA-Z_][a-zA-Z0-9_]* without a leading "__", each once. Registering the
  // same definition again returns the existing family (components may each
  // register what they use); a different definition under a taken name is
  // AlreadyExists. Bad names are InvalidArgument.
  Result<Family<Counter>*> AddCounter(const std::string& name, const std::string& help,
                                      const std::vector<std::string>& label_names = {});
  Result<Family<Gauge>*> AddGauge(const std::string& name, const std::string& help,
                                  const std::vector<std::string>& label_names = {});
  // `buckets`: strictly increasing upper bounds, no NaN; a trailing +Inf is
  // dropped (it is always implicit). "le" cannot be a label name.
  Result<Family<Histogram>*> AddHistogram(const std::string& name, const std::string& help,
                                          const std::vector<std::string>& label_names,
                                          std::vector<double> buckets);

  // Sets `refresh` under `name` (replacing one there), run at the start of
  // every Render: it sets figures read when asked for rather than counted
  // as they happen (the process's memory, the objects an informer holds).
  // It may add families; it must not Render, nor set or remove collectors.
  void SetCollector(const std::string& name, std::function<void()> refresh);
  // Removes the collector under `name`, if any. After it returns, that
  // collector is not running and will not run again.
  void RemoveCollector(const std::string& name);

  // The whole registry in Prometheus text format 0.0.4, families by name,
  // after running the collectors.
  std::string Render() const;

 private:
  template <typename Metric>
  Result<Family<Metric>*> Add(const std::string& name, const std::string& help,
                              const std::string& type, const std::vector<std::string>& label_names,
                              std::shared_ptr<const std::vector<double>> buckets);

  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<MetricFamily>> families_;
  // Held while collectors run, so RemoveCollector waits for a running one.
  mutable std::mutex collectors_mu_;
  std::map<std::string, std::function<void()>> collectors_;
};

// The process-wide registry that /metrics serves by default; never destroyed.
Registry& DefaultRegistry();

// Prometheus' default latency buckets, 5ms to 10s.
std::vector<double> DefaultBuckets();

// `count` bounds: start, start*factor, start*factor^2... InvalidArgument unless
// start > 0, factor > 1 and count >= 1.
Result<std::vector<double>> ExponentialBuckets(double start, double factor, int count);

// `count` bounds: start, start+width, start+2*width... InvalidArgument unless
// width > 0 and count >= 1.
Result<std::vector<double>> LinearBuckets(double start, double width, int count);

// ---------------------------------------------------------------------------
// Implementation of the Family template.

template <typename Metric>
Metric& Family<Metric>::WithLabelValues(const std::vector<std::string>& values) {
  if (values.size() != label_names().size()) {
    // Label names are fixed in code, so a wrong count is a bug at the call
    // site, found on its first run.
    metrics_internal::DieOfLabelMismatch(name(), label_names().size(), values.size());
  }
  {
    std::shared_lock read(mu_);
    auto it = children_.find(values);
    if (it != children_.end()) return *it->second;
  }
  std::unique_lock write(mu_);
  auto [it, inserted] = children_.try_emplace(values);
  if (inserted) it->second = NewChild();
  return *it->second;
}

template <typename Metric>
bool Family<Metric>::Remove(const std::vector<std::string>& values) {
  std::unique_lock write(mu_);
  return children_.erase(values) > 0;
}

template <typename Metric>
std::unique_ptr<Metric> Family<Metric>::NewChild() const {
  if constexpr (std::is_same_v<Metric, Histogram>) {
    return std::make_unique<Histogram>(buckets_);
  } else {
    return std::make_unique<Metric>();
  }
}

template <typename Metric>
void Family<Metric>::Render(std::string* out) const {
  std::shared_lock read(mu_);
  if (children_.empty()) return;
  metrics_internal::AppendHelpAndType(name(), help(), type(), out);
  for (const auto& [values, child] : children_) {
    metrics_internal::AppendSamples(name(), label_names(), values, *child, out);
  }
}

}  // namespace vtenant::kube
