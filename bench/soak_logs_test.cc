#include "bench/soak_logs.h"

#include <gtest/gtest.h>

#include <fstream>

#include "base/testing/temp_dir.h"

namespace vtenant::bench {
namespace {

void Append(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::app) << text;
}

TEST(SoakLogsTest, KlogAndGlogErrorLinesWithDigitsFolded) {
  std::string message;
  ASSERT_TRUE(IsErrorLine(
      "E1202 16:30:34.270931   4711 reflector.go:158] dial tcp 10.0.0.1:6443: connect: refused",
      &message));
  EXPECT_EQ(message, "dial tcp #.#.#.#:#: connect: refused");
  ASSERT_TRUE(IsErrorLine("F20261202 16:30:40.750000  12 syncer.cc:88] lost the host", &message));
  EXPECT_EQ(message, "lost the host");

  EXPECT_FALSE(IsErrorLine("I1202 16:30:34.270931   4711 main.go:1] started", &message));
  EXPECT_FALSE(IsErrorLine("W1202 16:30:34.270931   4711 main.go:1] slow", &message));
  // Not a severity and a date: prose that begins with an E.
  EXPECT_FALSE(IsErrorLine("Error: the flag --x is unknown", &message));
  EXPECT_FALSE(IsErrorLine("E12 too short to be a date", &message));
}

TEST(SoakLogsTest, JsonLinesOfErrorLevelWithTheirErrorField) {
  std::string message;
  ASSERT_TRUE(IsErrorLine(
      R"({"level":"error","ts":"2026-12-02T16:30:34Z","msg":"request failed","error":"took 120ms"})",
      &message));
  EXPECT_EQ(message, "request failed: took #ms");
  ASSERT_TRUE(IsErrorLine(R"({"time":"x","level":"ERROR","msg":"stage \"ready\"","err":"gone"})",
                          &message));
  EXPECT_EQ(message, "stage \"ready\": gone");
  EXPECT_FALSE(IsErrorLine(R"({"level":"warn","msg":"slow"})", &message));
  EXPECT_FALSE(IsErrorLine(R"({"level":"info","msg":"error in the message only"})", &message));
}

TEST(SoakLogsTest, CountsErrorsBeforeAndAfterTheMarkPerFile) {
  TempDir dir("soak-logs");
  std::filesystem::create_directories(dir.File("tenants/nlp"));
  const std::string host = dir.File("etcd.log");
  const std::string syncer = dir.File("tenants/nlp/syncer.log");
  Append(host, R"({"level":"error","msg":"slow apply"})"
               "\nI1202 10:00:00.0 1 a.go:1] fine\n");
  Append(syncer, "E1202 10:00:00.0 1 a.cc:1] watch ended\n");
  Append(dir.File("notes.txt"), "E1202 10:00:00.0 1 a.cc:1] not a log file\n");

  const std::map<std::string, uint64_t> mark = MarkLogs(dir.path());
  EXPECT_EQ(mark.size(), 2u);
  Append(syncer, "E1202 10:01:00.0 1 a.cc:1] watch ended\nE1202 10:02:00.0 1 a.cc:1] lost 3\n");
  Append(dir.File("kwok.log"), R"({"level":"ERROR","msg":"late"})"
                               "\n");  // after the mark

  const LogErrors errors = CountLogErrors(dir.path(), mark);
  EXPECT_EQ(errors.before, 2);
  EXPECT_EQ(errors.after, 3);
  using Counts = std::pair<int64_t, int64_t>;
  EXPECT_EQ(errors.per_file,
            (std::map<std::string, Counts>{
                {"etcd.log", {1, 0}}, {"kwok.log", {0, 1}}, {"tenants/nlp/syncer.log", {1, 2}}}));
  EXPECT_EQ(errors.messages,
            (std::map<std::string, int64_t>{
                {"kwok.log: late", 1}, {"syncer.log: lost #", 1}, {"syncer.log: watch ended", 1}}));
  EXPECT_EQ(errors.messages_before,
            (std::map<std::string, int64_t>{{"etcd.log: slow apply", 1},
                                            {"syncer.log: watch ended", 1}}));
}

TEST(SoakLogsTest, TopMessagesMostFrequentFirstTiesByName) {
  const std::map<std::string, int64_t> messages{{"a", 1}, {"b", 5}, {"c", 2}, {"d", 2}};
  using Top = std::vector<std::pair<std::string, int64_t>>;
  EXPECT_EQ(TopMessages(messages, 3), (Top{{"b", 5}, {"c", 2}, {"d", 2}}));
  EXPECT_EQ(TopMessages(messages, 10).size(), 4u);
  EXPECT_TRUE(TopMessages({}, 3).empty());
}

}  // namespace
}  // namespace vtenant::bench
