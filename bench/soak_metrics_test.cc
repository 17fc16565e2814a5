#include "bench/soak_metrics.h"

#include <gtest/gtest.h>

namespace vtenant::bench {
namespace {

TEST(SoakMetricsTest, HeapAndStoredObjectsByResourceFromKubeApiserversText) {
  const ServerSelf self = ParseServerMetrics(
      "# HELP go_memstats_heap_inuse_bytes Number of heap bytes that are in use.\n"
      "# TYPE go_memstats_heap_inuse_bytes gauge\n"
      "go_memstats_heap_inuse_bytes 1.572864e+08\n"
      "apiserver_resource_objects{group=\"\",resource=\"events\"} 2400\n"
      "apiserver_resource_objects{group=\"\",resource=\"pods\"} 100\n"
      "apiserver_resource_objects{group=\"coordination.k8s.io\",resource=\"leases\"} 3\n"
      "apiserver_resource_objects{group=\"\",resource=\"secrets\"} -1\n"
      "apiserver_storage_objects{resource=\"events\"} 2399\n"
      "apiserver_request_total{code=\"200\",resource=\"pods\",subresource=\"\"} 9\n");
  EXPECT_DOUBLE_EQ(self.heap_inuse_mib, 150);
  EXPECT_EQ(self.objects, (std::map<std::string, int64_t>{
                              {"events", 2400}, {"pods", 100}, {"leases.coordination.k8s.io", 3}}));
}

TEST(SoakMetricsTest, WhatElseSaysWhereTheMemoryGoes) {
  const ServerSelf self = ParseServerMetrics(
      "# HELP go_goroutines Number of goroutines that currently exist.\n"
      "go_gc_heap_live_bytes 9.437184e+07\n"
      "go_gc_heap_goal_bytes 1.8874368e+08\n"
      "go_goroutines 812\n"
      "go_memstats_heap_objects 1.5e+06\n"
      "apiserver_longrunning_requests{component=\"apiserver\",resource=\"pods\",verb=\"WATCH\"} 3\n"
      "apiserver_longrunning_requests{component=\"apiserver\",resource=\"nodes\",verb=\"WATCH\"} "
      "2\n"
      "watch_cache_capacity{group=\"\",resource=\"pods\"} 1600\n"
      "watch_cache_capacity{group=\"\",resource=\"nodes\"} 100\n"
      "watch_cache_capacity{group=\"scheduling.run.ai\",resource=\"podgroups\"} 800\n");
  EXPECT_EQ(self.gauges,
            (std::map<std::string, double>{{"live heap after the last GC, MiB", 90},
                                           {"heap goal, MiB", 180},
                                           {"goroutines", 812},
                                           {"heap objects", 1.5e6},
                                           {"long-running requests", 5},
                                           {"watch cache capacity, events of every resource", 2500},
                                           {"watch cache capacity, pod events", 1600},
                                           {"metric series", 9}}));
}

TEST(SoakMetricsTest, AnOlderServerCountsWithStorageObjects) {
  const ServerSelf self = ParseServerMetrics(
      "apiserver_storage_objects{resource=\"events\"} 7\n"
      "apiserver_storage_objects{resource=\"leases.coordination.k8s.io\"} 2\n");
  EXPECT_EQ(self.objects,
            (std::map<std::string, int64_t>{{"events", 7}, {"leases.coordination.k8s.io", 2}}));
}

TEST(SoakMetricsTest, AVtenantProgramsHeapAndCachedObjects) {
  const ServerSelf self = ParseServerMetrics(
      "# TYPE vtenant_malloc_in_use_bytes gauge\n"
      "vtenant_malloc_in_use_bytes 8388608\n"
      "vtenant_malloc_free_bytes 1048576\n"
      "vtenant_informer_objects{cluster=\"primary\",resource=\"events\"} 900\n"
      "vtenant_informer_objects{cluster=\"virtual\",resource=\"pods\"} 100\n");
  EXPECT_DOUBLE_EQ(self.heap_inuse_mib, 8);
  EXPECT_DOUBLE_EQ(self.gauges.at("malloc free, MiB"), 1);
  EXPECT_EQ(self.objects,
            (std::map<std::string, int64_t>{{"primary events", 900}, {"virtual pods", 100}}));
}

TEST(SoakMetricsTest, TheMeanIsPerServer) {
  ServerSelf a, b;
  a.heap_inuse_mib = 100;
  a.objects = {{"events", 10}};
  b.heap_inuse_mib = 200;
  b.objects = {{"events", 30}, {"pods", 5}};
  a.gauges = {{"goroutines", 100}};
  b.gauges = {{"goroutines", 300}, {"heap goal, MiB", 8}};
  const ServerSelf mean = MeanOf({a, b});
  // A gauge only one server serves is that server's, not halved.
  EXPECT_EQ(mean.gauges,
            (std::map<std::string, double>{{"goroutines", 200}, {"heap goal, MiB", 8}}));
  EXPECT_DOUBLE_EQ(mean.heap_inuse_mib, 150);
  EXPECT_EQ(mean.objects, (std::map<std::string, int64_t>{{"events", 20}, {"pods", 3}}));
}

}  // namespace
}  // namespace vtenant::bench
