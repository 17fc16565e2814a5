#include "bench/soak_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "base/testing/temp_dir.h"

namespace vtenant::bench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A sample with every program kind (as ProcessSampler takes them), one
// process each; `rss` sets some kinds' memory, the rest are at 0.
Sample MakeSample(double t_s, const std::map<std::string, double>& rss) {
  Sample s;
  s.t_s = t_s;
  s.load1 = 0.5;
  for (const std::string& kind : ProgramKinds()) s.kinds[kind] = {1, 0, 0};
  for (const auto& [kind, mib] : rss) s.kinds.at(kind).rss_mib = mib;
  return s;
}

std::vector<double> OneTo(int n) {
  std::vector<double> values;
  for (int i = 1; i <= n; ++i) values.push_back(i);
  return values;
}

// 15 minutes of churn in 5-minute windows measured from minute 5, whose
// last cycles ran on to 15.5 minutes. The host's etcd grows 6 % from the
// baseline, all of it in the first half; the syncers are level.
SoakRun FifteenMinutes() {
  SoakRun run;
  run.settings.tenants = 2;
  run.settings.pods = 10;
  run.settings.minutes = 15;
  run.settings.window_minutes = 5;
  run.settings.baseline_minutes = 5;
  run.churn_s = 930;
  run.commit = "abc<1>&";
  run.samples = {MakeSample(0, {{"host etcd", 50}, {"tenant syncer", 10}}),
                 MakeSample(300, {{"host etcd", 100}, {"tenant syncer", 10}}),
                 MakeSample(480, {{"host etcd", 106}, {"tenant syncer", 10}}),
                 MakeSample(930, {{"host etcd", 106}, {"tenant syncer", 10}})};
  run.windows[0].latencies_ms = OneTo(100);
  run.windows[1].latencies_ms = OneTo(200);
  run.windows[3].latencies_ms = {7};
  return run;
}

TEST(SoakReportTest, PercentileIsTheNearestRank) {
  EXPECT_EQ(Percentile(OneTo(100), 0.5), 50);
  EXPECT_EQ(Percentile(OneTo(100), 0.99), 99);
  EXPECT_EQ(Percentile(OneTo(100), 1), 100);
  EXPECT_EQ(Percentile(OneTo(100), 0), 1);
  EXPECT_EQ(Percentile({30, 10, 20}, 0.5), 20);  // sorts first
  EXPECT_EQ(Percentile({7}, 0.99), 7);
  EXPECT_EQ(Percentile({}, 0.99), 0);
}

TEST(SoakReportTest, LatencyPerWindowWithTheLastCyclesApart) {
  const std::string md = SummaryMarkdown(FifteenMinutes());
  EXPECT_THAT(md, HasSubstr("| 0–5 | 0 | 100 | 50 | 99 | 100 |"));
  EXPECT_THAT(md, HasSubstr("| 5–10 | 0 | 200 | 100 | 198 | 200 |"));
  EXPECT_THAT(md, HasSubstr("| 15–15.5 (last cycles finishing) | 0 | 1 | 7 | 7 | 7 |"));
  EXPECT_THAT(md, HasSubstr("| all | | 301 |"));
  // A window with no pod bound is left out of the p99 goal, not read as 0.
  EXPECT_THAT(md, HasSubstr("- p99 flat: first window 99 ms, last 7 ms (0.07×); lowest 7, "
                            "highest 198\n"));
}

TEST(SoakReportTest, MemoryGrowthFromTheBaselineAndOverTheSecondHalf) {
  const std::string md = SummaryMarkdown(FifteenMinutes());
  EXPECT_THAT(md, HasSubstr("at 5.0 min (baseline) and at the end (15.5 min); the second half "
                            "from 8.0 min"));
  // Baseline 100 (not the first sample's 50), end 106; level since 8 min.
  EXPECT_THAT(md, HasSubstr("| host etcd | 1 (0) | 100.0 | 106.0 | +6.0 % | +0.0 % | 106.0 |"));
  EXPECT_THAT(md,
              HasSubstr("- RSS growth under 5 % after the baseline: over it: host etcd +6.0 %;\n"));
  EXPECT_THAT(md, HasSubstr("- still growing in the second half (2 % or more): none\n"));
}

TEST(SoakReportTest, EveryKindUnderTheGoalIsSaidSo) {
  SoakRun run = FifteenMinutes();
  run.samples.back().kinds.at("host etcd").rss_mib = 104;
  run.samples[2].kinds.at("host etcd").rss_mib = 101;
  const std::string md = SummaryMarkdown(run);
  EXPECT_THAT(md, HasSubstr("- RSS growth under 5 % after the baseline: every program kind\n"));
  EXPECT_THAT(md,
              HasSubstr("- still growing in the second half (2 % or more): host etcd +3.0 %;\n"));
}

TEST(SoakReportTest, SyncerHeapLowestAndHighestPerWindowAndItsFloor) {
  SoakRun run = FifteenMinutes();
  run.syncer_heap = {{30, 5.0}, {90, 5.2}, {310, 4.9}, {400, 5.5}, {610, 5.1}, {700, 6.0}};
  const std::string md = SummaryMarkdown(run);
  EXPECT_THAT(md, HasSubstr("| 0–5 | 5.00 | 5.20 |\n| 5–10 | 4.90 | 5.50 |\n| 10–15 | 5.10 | "
                            "6.00 |\n"));
  // From the baseline's window (5–10) to the last full one (10–15).
  EXPECT_THAT(md, HasSubstr("- the syncers' heap floor: 4.90 MiB in minutes 5–10, 5.10 MiB in "
                            "10–15 (+4.1 %)\n"));

  run.syncer_heap.clear();
  EXPECT_THAT(SummaryMarkdown(run), Not(HasSubstr("heap in use per window")));
}

TEST(SoakReportTest, ServersOwnFiguresOnlyWhereRead) {
  SoakRun run = FifteenMinutes();
  run.host_apiserver.read = 1;
  run.host_apiserver.at_baseline = {400, {{"pods", 100}, {"events", 50}}, {{"goroutines", 800}}};
  run.host_apiserver.at_end = {402, {{"pods", 100}, {"events", 70}, {"leases", 3}}, {}};
  run.syncers.read = 2;
  run.syncers.at_baseline.heap_inuse_mib = 5;
  run.syncers.at_end.heap_inuse_mib = 5;
  const std::string md = SummaryMarkdown(run);

  EXPECT_THAT(md, HasSubstr("## The host's API server by its own /metrics\n"));
  EXPECT_THAT(md, HasSubstr("| Go heap in use, MiB | 400.0 | 402.0 | +0.5 % |\n"));
  EXPECT_THAT(md, HasSubstr("| goroutines | 800.0 | — |  |\n"));
  // Only the resources whose count changed; one not counted then is "—".
  EXPECT_THAT(md, HasSubstr("| events stored | 50 | 70 | +20 |\n"));
  EXPECT_THAT(md, HasSubstr("| leases stored | — | 3 |  |\n"));
  EXPECT_THAT(md, Not(HasSubstr("| pods stored")));
  EXPECT_THAT(md, HasSubstr("## The syncers (cluster primary: the host) by their own /metrics "
                            "(mean per process, 2 read)\n"));
  EXPECT_THAT(md, Not(HasSubstr("The tenants' API servers")));
  EXPECT_THAT(md, Not(HasSubstr("vtenant-operator (cluster")));
}

TEST(SoakReportTest, RestartsAndErrorsAsTheRunSawThem) {
  SoakRun run = FifteenMinutes();
  run.pids_seen["tenant syncer"] = 3;  // one process at the end
  run.first_errors = {"create nlp/p-1: 409 | conflict"};
  run.errors.after = 2;
  run.errors.per_file["etcd.log"] = {0, 0};
  run.errors.per_file["kwok.log"] = {1, 2};
  run.errors.messages["kwok.log: stage #"] = 2;
  const std::string md = SummaryMarkdown(run);

  EXPECT_THAT(md, HasSubstr("- none of the host's components was restarted\n"
                            "- tenant syncer: 3 processes seen, 1 at the end\n"));
  EXPECT_THAT(md, HasSubstr("- create nlp/p-1: 409 / conflict\n"));  // no '|' in a table's text
  EXPECT_THAT(md, HasSubstr("| kwok.log | 1 | 2 |\n"));
  EXPECT_THAT(md, Not(HasSubstr("| etcd.log |")));
  EXPECT_THAT(md, HasSubstr("- 2 × `kwok.log: stage #`\n"));
  EXPECT_THAT(md, HasSubstr("- no errors: 2 error lines during the churn\n"));
}

TEST(SoakReportTest, PlotHasALinePerKindWithMemoryInTwoPanelsAndTheLatencies) {
  const std::string svg = PlotSvg(FifteenMinutes());
  EXPECT_TRUE(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_TRUE(svg.ends_with("</svg>\n"));
  EXPECT_THAT(svg, HasSubstr("commit abc&lt;1&gt;&amp;"));
  size_t lines = 0;
  for (size_t at = svg.find("<polyline"); at != std::string::npos;
       at = svg.find("<polyline", at + 1)) {
    ++lines;
  }
  // Two kinds with memory, in the absolute and the relative panel; p50 and p99.
  EXPECT_EQ(lines, 2u + 2u + 2u);
  // No coordinate went wrong (a log of 0, a division by an empty range).
  EXPECT_FALSE(std::regex_search(svg, std::regex("[^a-z](nan|inf)[^a-z]"))) << svg;
}

TEST(SoakReportTest, SamplesCsvHasARowPerSampleAndKind) {
  TempDir dir("soak-report");
  const SoakRun run = FifteenMinutes();
  ASSERT_TRUE(WriteSamplesCsv(dir.File("samples.csv"), run.samples).ok());
  std::ifstream in(dir.File("samples.csv"));
  std::stringstream text;
  text << in.rdbuf();
  const std::string csv = text.str();
  EXPECT_TRUE(csv.starts_with("t_s,kind,processes,rss_mib,rss_mib_per_process,cpu_s,load1\n"));
  EXPECT_THAT(csv, HasSubstr("\n300.0,host etcd,1,100.0,100.0,0.00,0.50\n"));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'),
            static_cast<long>(1 + run.samples.size() * ProgramKinds().size()));

  EXPECT_FALSE(WriteSamplesCsv(dir.File("no/such/folder/samples.csv"), run.samples).ok());
}

}  // namespace
}  // namespace vtenant::bench
