#include "kube/metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <thread>

namespace vtenant::kube {
namespace {

TEST(CounterTest, OnlyGoesUp) {
  Counter counter;
  counter.Inc();
  counter.Inc(2.5);
  counter.Inc(-1);
  counter.Inc(std::nan(""));
  EXPECT_EQ(counter.Value(), 3.5);
}

TEST(GaugeTest, GoesBothWays) {
  Gauge gauge;
  gauge.Set(10);
  gauge.Inc();
  gauge.Dec(4);
  EXPECT_EQ(gauge.Value(), 7);
}

TEST(HistogramTest, BucketsAreInclusiveUpperBoundsAndCumulative) {
  Histogram histogram(std::make_shared<const std::vector<double>>(std::vector<double>{1, 2, 5}));
  for (double v : {0.5, 1.0, 1.5, 2.0, 4.0, 100.0}) histogram.Observe(v);
  histogram.Observe(std::nan(""));
  Histogram::Snapshot snapshot = histogram.Collect();
  EXPECT_EQ(snapshot.cumulative_counts, (std::vector<uint64_t>{2, 4, 5, 7}));
  EXPECT_EQ(snapshot.count, 7u);
  EXPECT_TRUE(std::isnan(snapshot.sum));
}

TEST(RegistryTest, RendersTextFormat004) {
  Registry registry;
  Family<Counter>* requests =
      registry.AddCounter("api_requests_total", "API requests.", {"verb", "code"}).value();
  Family<Gauge>* leader = registry.AddGauge("is_leader", "1 when leading.").value();
  Family<Histogram>* latency =
      registry.AddHistogram("request_seconds", "Latency.", {"verb"}, {0.1, 1}).value();

  requests->WithLabelValues({"POST", "201"}).Inc();
  requests->WithLabelValues({"GET", "200"}).Inc(3);
  leader->WithLabelValues({}).Set(1);
  Histogram& get = latency->WithLabelValues({"GET"});
  get.Observe(0.0625);
  get.Observe(0.5);
  get.Observe(2);

  EXPECT_EQ(registry.Render(),
            "# HELP api_requests_total API requests.\n"
            "# TYPE api_requests_total counter\n"
            "api_requests_total{verb=\"GET\",code=\"200\"} 3\n"
            "api_requests_total{verb=\"POST\",code=\"201\"} 1\n"
            "# HELP is_leader 1 when leading.\n"
            "# TYPE is_leader gauge\n"
            "is_leader 1\n"
            "# HELP request_seconds Latency.\n"
            "# TYPE request_seconds histogram\n"
            "request_seconds_bucket{verb=\"GET\",le=\"0.1\"} 1\n"
            "request_seconds_bucket{verb=\"GET\",le=\"1\"} 2\n"
            "request_seconds_bucket{verb=\"GET\",le=\"+Inf\"} 3\n"
            "request_seconds_sum{verb=\"GET\"} 2.5625\n"
            "request_seconds_count{verb=\"GET\"} 3\n");
}

TEST(RegistryTest, UnlabelledHistogramHasOnlyLe) {
  Registry registry;
  Family<Histogram>* sizes = registry.AddHistogram("sizes", "Sizes.", {}, {10}).value();
  sizes->WithLabelValues({}).Observe(3);
  EXPECT_EQ(registry.Render(),
            "# HELP sizes Sizes.\n"
            "# TYPE sizes histogram\n"
            "sizes_bucket{le=\"10\"} 1\n"
            "sizes_bucket{le=\"+Inf\"} 1\n"
            "sizes_sum 3\n"
            "sizes_count 1\n");
}

TEST(RegistryTest, EscapesLabelValuesAndHelp) {
  Registry registry;
  Family<Gauge>* gauge =
      registry.AddGauge("odd", "Help with \\ and\nnewline \"quoted\".", {"path"}).value();
  gauge->WithLabelValues({"a\\b\"c\nd"}).Set(1);
  EXPECT_EQ(registry.Render(),
            "# HELP odd Help with \\\\ and\\nnewline \"quoted\".\n"
            "# TYPE odd gauge\n"
            "odd{path=\"a\\\\b\\\"c\\nd\"} 1\n");
}

TEST(RegistryTest, FormatsSpecialAndLargeValues) {
  Registry registry;
  Family<Gauge>* g = registry.AddGauge("g", "G.", {"k"}).value();
  g->WithLabelValues({"a"}).Set(0.1);
  g->WithLabelValues({"b"}).Set(1e21);
  g->WithLabelValues({"c"}).Set(std::numeric_limits<double>::infinity());
  g->WithLabelValues({"d"}).Set(-std::numeric_limits<double>::infinity());
  g->WithLabelValues({"e"}).Set(std::nan(""));
  g->WithLabelValues({"f"}).Set(-3);
  EXPECT_EQ(registry.Render(),
            "# HELP g G.\n"
            "# TYPE g gauge\n"
            "g{k=\"a\"} 0.1\n"
            "g{k=\"b\"} 1e+21\n"
            "g{k=\"c\"} +Inf\n"
            "g{k=\"d\"} -Inf\n"
            "g{k=\"e\"} NaN\n"
            "g{k=\"f\"} -3\n");
}

TEST(RegistryTest, UnlabelledMetricRendersZeroBeforeUseLabelledRendersNothing) {
  Registry registry;
  ASSERT_TRUE(registry.AddCounter("restarts_total", "Restarts.").ok());
  ASSERT_TRUE(registry.AddCounter("errors_total", "Errors.", {"kind"}).ok());
  EXPECT_EQ(registry.Render(),
            "# HELP restarts_total Restarts.\n"
            "# TYPE restarts_total counter\n"
            "restarts_total 0\n");
}

TEST(RegistryTest, RemoveDropsASeries) {
  Registry registry;
  Family<Gauge>* share = registry.AddGauge("share", "Share.", {"queue"}).value();
  share->WithLabelValues({"a"}).Set(1);
  share->WithLabelValues({"b"}).Set(2);
  EXPECT_TRUE(share->Remove({"a"}));
  EXPECT_FALSE(share->Remove({"a"}));
  EXPECT_EQ(registry.Render(),
            "# HELP share Share.\n"
            "# TYPE share gauge\n"
            "share{queue=\"b\"} 2\n");
}

TEST(RegistryTest, CollectorsSetTheirFiguresAtEachRender) {
  Registry registry;
  Gauge& held = registry.AddGauge("held_bytes", "Held.").value()->WithLabelValues({});
  int reads = 0;
  registry.SetCollector("held", [&] { held.Set(++reads * 10); });
  EXPECT_NE(registry.Render().find("held_bytes 10\n"), std::string::npos);
  EXPECT_NE(registry.Render().find("held_bytes 20\n"), std::string::npos);
  // Set again under the name: the new one runs instead.
  registry.SetCollector("held", [&] { held.Set(-1); });
  EXPECT_NE(registry.Render().find("held_bytes -1\n"), std::string::npos);
  // A collector may register what it sets.
  registry.SetCollector("late", [&] {
    registry.AddGauge("late_total", "Late.").value()->WithLabelValues({}).Set(3);
  });
  EXPECT_NE(registry.Render().find("late_total 3\n"), std::string::npos);
  registry.RemoveCollector("held");
  registry.RemoveCollector("late");
  registry.RemoveCollector("never there");
  held.Set(7);
  EXPECT_NE(registry.Render().find("held_bytes 7\n"), std::string::npos);
  EXPECT_EQ(reads, 2);
}

TEST(RegistryTest, SameDefinitionTwiceIsTheSameFamily) {
  Registry registry;
  Family<Counter>* first = registry.AddCounter("c_total", "C.", {"a"}).value();
  Family<Counter>* second = registry.AddCounter("c_total", "C.", {"a"}).value();
  EXPECT_EQ(first, second);
  Family<Histogram>* h1 = registry.AddHistogram("h", "H.", {}, {1, 2}).value();
  Family<Histogram>* h2 = registry.AddHistogram("h", "H.", {}, {1, 2}).value();
  EXPECT_EQ(h1, h2);
}

void ExpectCode(const Status& status, StatusCode code, std::string_view mentions) {
  EXPECT_EQ(status.code(), code) << status.ToString();
  EXPECT_NE(status.message().find(mentions), std::string::npos) << status.ToString();
}

TEST(RegistryTest, ConflictingDefinitionIsAlreadyExists) {
  Registry registry;
  ASSERT_TRUE(registry.AddCounter("x", "X.", {"a"}).ok());
  ExpectCode(registry.AddGauge("x", "X.", {"a"}).status(), StatusCode::kAlreadyExists, "x");
  ExpectCode(registry.AddCounter("x", "Other.", {"a"}).status(), StatusCode::kAlreadyExists, "x");
  ExpectCode(registry.AddCounter("x", "X.", {"b"}).status(), StatusCode::kAlreadyExists, "x");
  ASSERT_TRUE(registry.AddHistogram("h", "H.", {}, {1}).ok());
  ExpectCode(registry.AddHistogram("h", "H.", {}, {2}).status(), StatusCode::kAlreadyExists, "h");
}

TEST(RegistryTest, RejectsBadNames) {
  Registry registry;
  ExpectCode(registry.AddCounter("", "E.").status(), StatusCode::kInvalidArgument, "name");
  ExpectCode(registry.AddCounter("1abc", "E.").status(), StatusCode::kInvalidArgument, "1abc");
  ExpectCode(registry.AddCounter("a-b", "E.").status(), StatusCode::kInvalidArgument, "a-b");
  ExpectCode(registry.AddCounter("ok", "E.", {"__reserved"}).status(), StatusCode::kInvalidArgument,
             "__reserved");
  ExpectCode(registry.AddCounter("ok", "E.", {"a:b"}).status(), StatusCode::kInvalidArgument,
             "a:b");
  ExpectCode(registry.AddCounter("ok", "E.", {"a", "a"}).status(), StatusCode::kInvalidArgument,
             "twice");
  ExpectCode(registry.AddHistogram("ok", "E.", {"le"}, {1}).status(), StatusCode::kInvalidArgument,
             "le");
  EXPECT_TRUE(registry.AddCounter("ns:sub_total", "Colons are fine.").ok());
  EXPECT_EQ(registry.Render().find("ok"), std::string::npos) << "nothing half-registered";
}

TEST(RegistryTest, RejectsBadBuckets) {
  Registry registry;
  ExpectCode(registry.AddHistogram("h", "H.", {}, {1, 1}).status(), StatusCode::kInvalidArgument,
             "increasing");
  ExpectCode(registry.AddHistogram("h", "H.", {}, {2, 1}).status(), StatusCode::kInvalidArgument,
             "increasing");
  ExpectCode(registry.AddHistogram("h", "H.", {}, {std::nan("")}).status(),
             StatusCode::kInvalidArgument, "increasing");
  // A trailing +Inf is accepted and not doubled.
  Family<Histogram>* h =
      registry.AddHistogram("h", "H.", {}, {1, std::numeric_limits<double>::infinity()}).value();
  EXPECT_EQ(*h->buckets(), std::vector<double>{1});
}

TEST(RegistryDeathTest, WrongNumberOfLabelValuesAborts) {
  Registry registry;
  Family<Counter>* family = registry.AddCounter("c_total", "C.", {"a", "b"}).value();
  EXPECT_DEATH(family->WithLabelValues({"only-one"}), "2 label names but was given 1");
}

TEST(RegistryTest, ConcurrentUpdatesAreNotLost) {
  Registry registry;
  Family<Counter>* counter = registry.AddCounter("n_total", "N.", {"worker"}).value();
  Family<Histogram>* histogram = registry.AddHistogram("h", "H.", {}, {0.5}).value();
  constexpr int kThreads = 4;
  constexpr int kPerThread = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        // All threads race on the same child and on creating it.
        counter->WithLabelValues({"shared"}).Inc();
        histogram->WithLabelValues({}).Observe(i % 2);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(counter->WithLabelValues({"shared"}).Value(), kThreads * kPerThread);
  Histogram::Snapshot snapshot = histogram->WithLabelValues({}).Collect();
  EXPECT_EQ(snapshot.count, uint64_t{kThreads} * kPerThread);
  EXPECT_EQ(snapshot.cumulative_counts[0], uint64_t{kThreads} * kPerThread / 2);
  EXPECT_EQ(snapshot.sum, kThreads * kPerThread / 2);
}

TEST(BucketsTest, ExponentialAndLinear) {
  EXPECT_EQ(ExponentialBuckets(1, 2, 4).value(), (std::vector<double>{1, 2, 4, 8}));
  EXPECT_EQ(LinearBuckets(0, 5, 3).value(), (std::vector<double>{0, 5, 10}));
  EXPECT_EQ(ExponentialBuckets(0, 2, 4).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ExponentialBuckets(1, 1, 4).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ExponentialBuckets(1, 2, 0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(LinearBuckets(0, 0, 3).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(DefaultBuckets().front(), 0.005);
  EXPECT_EQ(DefaultBuckets().back(), 10);
}

}  // namespace
}  // namespace vtenant::kube
