#include "kube/program_main.h"

#include <gtest/gtest.h>

namespace vtenant::kube {
namespace {

struct TestFlags {
  std::string name;
  bool help = false;
};

Result<TestFlags> ParseTestFlags(const std::vector<std::string>& args) {
  TestFlags flags;
  for (const std::string& arg : args) {
    if (arg == "--help") {
      flags.help = true;
    } else if (arg.starts_with("--name=")) {
      flags.name = arg.substr(7);
    } else {
      return InvalidArgument("unknown flag " + arg);
    }
  }
  return flags;
}

std::string TestUsage() { return "usage: test-program [--name=NAME]\n"; }

// Runs ProgramMain on `args`; what `run` saw, if it ran, goes to `ran_with`.
int Main(std::vector<std::string> args, Status outcome, std::string* ran_with = nullptr) {
  args.insert(args.begin(), "test-program");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  return ProgramMain<TestFlags>("test-program", static_cast<int>(argv.size()), argv.data(),
                                ParseTestFlags, TestUsage, [&](const TestFlags& flags) {
                                  if (ran_with != nullptr) *ran_with = flags.name;
                                  return outcome;
                                });
}

TEST(ProgramMainTest, AFlagMistakeIsSaidWithTheUsageAndExitsTwoWithoutRunning) {
  std::string ran_with = "not run";
  testing::internal::CaptureStderr();
  EXPECT_EQ(Main({"--nope"}, Status::Ok(), &ran_with), 2);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "test-program: unknown flag --nope\n\nusage: test-program [--name=NAME]\n");
  EXPECT_EQ(ran_with, "not run");
}

TEST(ProgramMainTest, HelpPrintsTheUsageOnStdoutAndExitsZeroWithoutRunning) {
  std::string ran_with = "not run";
  testing::internal::CaptureStdout();
  EXPECT_EQ(Main({"--help"}, Status::Ok(), &ran_with), 0);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), TestUsage());
  EXPECT_EQ(ran_with, "not run");
}

TEST(ProgramMainTest, TheRunsOutcomeIsTheExitStatus) {
  std::string ran_with;
  EXPECT_EQ(Main({"--name=nlp"}, Status::Ok(), &ran_with), 0);
  EXPECT_EQ(ran_with, "nlp");
  testing::internal::CaptureStderr();
  EXPECT_EQ(Main({}, Unavailable("the host API server is away")), 1);
  EXPECT_NE(testing::internal::GetCapturedStderr().find(
                "test-program: Unavailable: the host API server is away"),
            std::string::npos);
}

}  // namespace
}  // namespace vtenant::kube
