#include "base/flags.h"

#include <gtest/gtest.h>

namespace vtenant {
namespace {

const std::vector<FlagSpec> kKnown = {{.name = "tenant"},
                                      {.name = "leader-elect", .is_switch = true}};

TEST(SplitFlagsTest, ValuesAfterAnEqualsSignOrAsTheNextWordAndSwitchesAlone) {
  Result<SplitCommandLine> split =
      SplitFlags({"--tenant=nlp", "--leader-elect", "--tenant", "vision"}, kKnown);
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  EXPECT_FALSE(split->help);
  ASSERT_EQ(split->flags.size(), 3u);
  EXPECT_EQ(split->flags[0].value, "nlp");
  EXPECT_EQ(split->flags[1].name, "leader-elect");
  EXPECT_EQ(split->flags[1].value, "true");
  EXPECT_EQ(split->flags[2].value, "vision");
  // An empty value is a value.
  EXPECT_EQ(SplitFlags({"--tenant="}, kKnown)->flags[0].value, "");
  EXPECT_EQ(SplitFlags({"--leader-elect=false"}, kKnown)->flags[0].value, "false");
}

TEST(SplitFlagsTest, HelpStopsReadingSoThatAnIncompleteCommandStillGetsIt) {
  Result<SplitCommandLine> split = SplitFlags({"--tenant", "--help"}, kKnown);
  ASSERT_TRUE(split.ok());
  // "--help" was the tenant's value here: a value is never taken for a flag.
  EXPECT_FALSE(split->help);
  EXPECT_TRUE(SplitFlags({"-h", "--bogus"}, kKnown)->help);
}

TEST(SplitFlagsTest, EachMistakeIsNamed) {
  const struct {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{"nlp"}, "unexpected argument \"nlp\""},
      {{"--"}, "unexpected argument \"--\""},
      {{"--bogus=1"}, "unknown flag --bogus"},
      {{"--tenant"}, "--tenant needs a value"},
      {{"--leader-elect=yes"}, "--leader-elect takes true or false, not \"yes\""},
  };
  for (const auto& c : cases) {
    Result<SplitCommandLine> split = SplitFlags(c.args, kKnown);
    ASSERT_FALSE(split.ok()) << c.says;
    EXPECT_EQ(split.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(split.status().message().find(c.says), std::string::npos) << split.status().message();
  }
}

TEST(SplitFlagsTest, WordsAreRefusedKeptOrEndTheFlags) {
  const std::vector<std::string> args = {"--tenant", "nlp", "up", "--leader-elect", "more"};
  EXPECT_FALSE(SplitFlags(args, kKnown).ok());

  Result<SplitCommandLine> kept = SplitFlags(args, kKnown, Words::kKeep);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(kept->words, (std::vector<std::string>{"up", "more"}));
  ASSERT_EQ(kept->flags.size(), 2u);
  EXPECT_EQ(kept->flags[0].value, "nlp");  // a flag's value is not a word
  EXPECT_EQ(kept->flags[1].name, "leader-elect");

  // A command's own arguments are not read, not even --help or a flag
  // unknown here.
  Result<SplitCommandLine> ended =
      SplitFlags({"--tenant=nlp", "up", "--bogus", "--help"}, kKnown, Words::kEnd);
  ASSERT_TRUE(ended.ok()) << ended.status().ToString();
  EXPECT_FALSE(ended->help);
  EXPECT_EQ(ended->words, (std::vector<std::string>{"up", "--bogus", "--help"}));
  ASSERT_EQ(ended->flags.size(), 1u);

  // Whatever starts with a dash is a flag or a mistake, never a word.
  for (Words words : {Words::kKeep, Words::kEnd}) {
    Result<SplitCommandLine> dash = SplitFlags({"-x"}, kKnown, words);
    ASSERT_FALSE(dash.ok());
    EXPECT_NE(dash.status().message().find("unexpected argument \"-x\""), std::string::npos);
  }
}

TEST(FlagNumbersTest, WholeNumbersInRangeAndDecimalsAboveAMinimum) {
  EXPECT_EQ(*ParseWholeNumberFlag("workers", "8", 1, 256), 8);
  for (const char* bad : {"", "0", "257", "8x", "-1", "1.5"}) {
    Result<int64_t> n = ParseWholeNumberFlag("workers", bad, 1, 256);
    ASSERT_FALSE(n.ok()) << bad;
    EXPECT_EQ(n.status().message(),
              "--workers \"" + std::string(bad) + "\" must be a whole number from 1 to 256");
  }
  EXPECT_DOUBLE_EQ(*ParseNumberFlag("kube-api-qps", "2.5", 0), 2.5);
  EXPECT_DOUBLE_EQ(*ParseNumberFlag("kube-api-qps", "0", 0), 0);
  for (const char* bad : {"", "-1", "fast", "inf", "1e999"}) {
    Result<double> n = ParseNumberFlag("kube-api-qps", bad, 0);
    ASSERT_FALSE(n.ok()) << bad;
    EXPECT_EQ(n.status().message(),
              "--kube-api-qps \"" + std::string(bad) + "\" must be a number, 0 or more");
  }
}

struct ToolFlags {
  bool help = false;
  std::string tenant;
};

Result<ToolFlags> ParseToolFlags(const std::vector<std::string>& args) {
  VT_ASSIGN_OR_RETURN(SplitCommandLine split, SplitFlags(args, kKnown));
  ToolFlags flags;
  flags.help = split.help;
  for (const FlagValue& f : split.flags) {
    if (f.name == "tenant") flags.tenant = f.value;
  }
  return flags;
}

ToolFlags ParseOrExit(std::vector<std::string> words) {
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  return ParseFlagsOrExit<ToolFlags>("tool", static_cast<int>(argv.size()), argv.data(),
                                     ParseToolFlags, "usage: tool [--tenant T]\n");
}

struct BoundFlags {
  std::string tenant = "default";
  bool leader_elect = false;
  int workers = 8;
  double qps = 100;
};

std::vector<FlagBinding> Table(BoundFlags& f) {
  return {TextFlag("tenant", &f.tenant), SwitchFlag("leader-elect", &f.leader_elect),
          WholeNumberFlag("workers", &f.workers, 1, 256), NumberFlag("qps", &f.qps, 0)};
}

TEST(ApplyFlagsTest, EachFlagGivenSetsWhatItNamesInOrderAndTheRestKeepTheirDefaults) {
  BoundFlags f;
  Result<SplitCommandLine> split =
      ApplyFlags({"--workers=4", "--leader-elect", "--workers", "16"}, Table(f));
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  EXPECT_FALSE(split->help);
  EXPECT_EQ(f.workers, 16);  // the later one wins
  EXPECT_TRUE(f.leader_elect);
  EXPECT_EQ(f.tenant, "default");
  EXPECT_EQ(f.qps, 100);
  ASSERT_TRUE(ApplyFlags({"--leader-elect=false", "--qps=2.5"}, Table(f)).ok());
  EXPECT_FALSE(f.leader_elect);
  EXPECT_EQ(f.qps, 2.5);
}

TEST(ApplyFlagsTest, AValueRefusedIsNamedAndHelpSetsNothing) {
  BoundFlags f;
  Result<SplitCommandLine> bad = ApplyFlags({"--workers=0"}, Table(f));
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("--workers \"0\" must be a whole number from 1 to 256"),
            std::string::npos)
      << bad.status().ToString();
  EXPECT_EQ(ApplyFlags({"--qps=-1"}, Table(f)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ApplyFlags({"--tenants=x"}, Table(f)).status().code(), StatusCode::kInvalidArgument);

  Result<SplitCommandLine> help = ApplyFlags({"--tenant=nlp", "--help"}, Table(f));
  ASSERT_TRUE(help.ok());
  EXPECT_TRUE(help->help);
  EXPECT_EQ(f.tenant, "default");
}

// The bindings every program's table shares: what each keeps, what each
// refuses, and that an empty value means "none" where the kind allows it.
TEST(CommonBindingsTest, AddressesListsAndTextThatMustBeGiven) {
  std::string name = "kai-scheduler", health = "127.0.0.1:8081", pod = "10.87.0.2";
  std::vector<std::string> namespaces = {"old"};
  const std::vector<FlagBinding> table = {
      NonEmptyTextFlag("scheduler-name", &name), AddressFlag("health-address", &health),
      IpAddressFlag("pod-address", &pod), CommaListFlag("reserved-namespaces", &namespaces)};
  ASSERT_TRUE(ApplyFlags({"--scheduler-name=mine", "--health-address=:9090",
                          "--pod-address=fd00::5", "--reserved-namespaces= gpu-pool,,ops "},
                         table)
                  .ok());
  EXPECT_EQ(name, "mine");
  EXPECT_EQ(health, ":9090");
  EXPECT_EQ(pod, "fd00::5");
  EXPECT_EQ(namespaces, (std::vector<std::string>{"gpu-pool", "ops"}));

  ASSERT_TRUE(
      ApplyFlags({"--health-address=", "--pod-address=", "--reserved-namespaces="}, table).ok());
  EXPECT_EQ(health, "");
  EXPECT_EQ(pod, "");
  EXPECT_TRUE(namespaces.empty());

  for (const auto& [arg, message] : std::vector<std::pair<std::string, std::string>>{
           {"--scheduler-name=", "--scheduler-name must not be empty"},
           {"--health-address=nowhere", "--health-address \"nowhere\" is not host:port"},
           {"--pod-address=node", "--pod-address \"node\" is not a numeric IP address"}}) {
    Result<SplitCommandLine> refused = ApplyFlags({arg}, table);
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument) << arg;
    EXPECT_NE(refused.status().message().find(message), std::string::npos)
        << refused.status().ToString();
  }
  EXPECT_EQ(name, "mine");  // a refused value leaves the field as it was
}

TEST(CommonBindingsTest, RangesAreReadWholeOrRefusedNamingTheFlag) {
  Result<IpRange> range = ParseIpRangeFlag("service-cidr", "10.96.0.0/12");
  ASSERT_TRUE(range.ok());
  EXPECT_EQ(range->bits, 12);
  for (const char* bad : {"10.96.0.0", "10.96.0.0/33", "cluster/12", ""}) {
    EXPECT_EQ(ParseIpRangeFlag("service-cidr", bad).status().message(),
              std::string("--service-cidr \"") + bad + "\" is not a range such as 10.96.0.0/12");
  }
  EXPECT_EQ(ParseCommaList(" a , b ,"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(ParseCommaList(", ,").empty());
}

TEST(ParseFlagsOrExitTest, GivesTheFlagsOrExitsAsEveryProgramDoes) {
  EXPECT_EQ(ParseOrExit({"tool", "--tenant", "nlp"}).tenant, "nlp");
  EXPECT_EXIT(ParseOrExit({"tool", "--help"}), testing::ExitedWithCode(0), "");
  EXPECT_EXIT(ParseOrExit({"tool", "--tenat=nlp"}), testing::ExitedWithCode(2),
              "^tool: unknown flag --tenat; see --help\n\nusage: tool \\[--tenant T\\]\n$");
}

}  // namespace
}  // namespace vtenant
