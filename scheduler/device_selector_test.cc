// DRA device selectors: the CEL subset DeviceClasses and ResourceClaim
// requests use, evaluated against a device as Kubernetes would.
#include "scheduler/device_selector.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace vtenant::scheduler {
namespace {

using ::testing::HasSubstr;

kube::Quantity Q(std::string_view text) { return kube::Quantity::Parse(text).value(); }

// An H100 as NVIDIA's DRA driver publishes it.
Device Gpu() {
  Device d;
  d.driver = "gpu.nvidia.com";
  d.pool = "node-a";
  d.name = "gpu-0";
  d.attributes["gpu.nvidia.com"] = {
      {"type", std::string("gpu")},
      {"productName", std::string("NVIDIA H100 80GB HBM3")},
      {"architecture", std::string("Hopper")},
      {"index", int64_t{0}},
      {"driverVersion", DeviceVersion{"550.54.15"}},
      {"cudaComputeCapability", DeviceVersion{"9.0.0"}},
      {"nvlink", true},
  };
  d.attributes["resource.kubernetes.io"] = {{"pcieRoot", std::string("pci0000:00")}};
  d.capacity["gpu.nvidia.com"] = {{"memory", Q("80Gi")}};
  return d;
}

// What `expression` makes of `device`; a parse error fails the test.
Result<bool> Evaluate(std::string_view expression, const Device& device = Gpu()) {
  Result<DeviceSelector> selector = DeviceSelector::Parse(expression);
  EXPECT_TRUE(selector.ok()) << expression << ": " << selector.status().ToString();
  if (!selector.ok()) return selector.status();
  return selector->Matches(device);
}

// Whether `expression` matches `device`; an error fails the test.
bool Match(std::string_view expression, const Device& device = Gpu()) {
  Result<bool> r = Evaluate(expression, device);
  EXPECT_TRUE(r.ok()) << expression << ": " << r.status().ToString();
  return r.value_or(false);
}

// The runtime error `expression` gives; none fails the test.
std::string RuntimeError(std::string_view expression, const Device& device = Gpu()) {
  Result<bool> r = Evaluate(expression, device);
  EXPECT_FALSE(r.ok()) << expression << " gave " << r.value_or(false);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << expression;
  return r.status().message();
}

// The error Parse gives; none fails the test.
std::string ParseError(std::string_view expression) {
  Result<DeviceSelector> r = DeviceSelector::Parse(expression);
  EXPECT_FALSE(r.ok()) << expression << " parsed";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << expression;
  return r.status().message();
}

TEST(DeviceSelectorTest, ADriverAndAnAttributeMatch) {
  const std::string gpu_class =
      "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'";
  EXPECT_TRUE(Match(gpu_class));
  EXPECT_FALSE(Match(
      "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'"));
  EXPECT_TRUE(Match(R"(device.driver == "gpu.nvidia.com" && )"
                    R"(device.attributes["gpu.nvidia.com"].type == "gpu")"))
      << "double quotes";

  Device channel;
  channel.driver = "compute-domain.nvidia.com";
  channel.attributes["compute-domain.nvidia.com"] = {{"type", std::string("channel")}};
  EXPECT_FALSE(Match(gpu_class, channel))
      << "false && error is false: the type is never looked up in the wrong domain";
  EXPECT_TRUE(
      Match("device.driver == 'compute-domain.nvidia.com' && "
            "device.attributes['compute-domain.nvidia.com'].type == 'channel'",
            channel));
}

TEST(DeviceSelectorTest, MembersAndIndexesAreTheSameLookup) {
  EXPECT_TRUE(Match("device.attributes['gpu.nvidia.com']['architecture'] == 'Hopper'"));
  EXPECT_TRUE(Match("device.attributes['resource.kubernetes.io'].pcieRoot == 'pci0000:00'"));
  EXPECT_TRUE(Match("device.attributes['gpu.nvidia.com'].index == 0"));
  EXPECT_TRUE(Match("device.attributes['gpu.nvidia.com'].nvlink"));
  EXPECT_FALSE(Match("device.allowMultipleAllocations"));
  Device shared = Gpu();
  shared.allow_multiple_allocations = true;
  EXPECT_TRUE(Match("device.allowMultipleAllocations == true", shared));
}

TEST(DeviceSelectorTest, CapacityComparesAsAQuantity) {
  EXPECT_TRUE(Match("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0"));
  EXPECT_FALSE(Match("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('100Gi')) >= 0"));
  EXPECT_TRUE(Match("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('80Gi')) == 0"));
  EXPECT_TRUE(Match("device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity('79Gi'))"));
  EXPECT_TRUE(Match("device.capacity['gpu.nvidia.com'].memory.isLessThan(quantity('1Ti'))"));
  EXPECT_TRUE(Match("device.capacity['gpu.nvidia.com'].memory == quantity('85899345920')"))
      << "equal by value, whatever the notation";
  EXPECT_TRUE(Match("device.capacity['gpu.nvidia.com'].memory != quantity('80G')"));
  EXPECT_TRUE(Match("device.capacity['gpu.nvidia.com'].memory.asInteger() == 85899345920"));
  EXPECT_TRUE(Match("quantity('1500m').isInteger() == false && quantity('-2').sign() == -1"));
  EXPECT_TRUE(Match("isQuantity('4Gi') && !isQuantity('4 Gi')"));

  EXPECT_THAT(RuntimeError("quantity('1500m').asInteger() == 1"), HasSubstr("integer"));
  EXPECT_THAT(RuntimeError("device.capacity['gpu.nvidia.com'].memory > quantity('40Gi')"),
              HasSubstr("no such overload"))
      << "quantities compare with compareTo, not <";
  EXPECT_THAT(RuntimeError("quantity('lots') == quantity('1')"), HasSubstr("lots"));
  EXPECT_THAT(RuntimeError("device.capacity['gpu.nvidia.com'].memory.compareTo(1) == 0"),
              HasSubstr("no such overload: Quantity.compareTo(int)"));
}

TEST(DeviceSelectorTest, AMissingKeyIsAnError) {
  EXPECT_EQ(RuntimeError("device.attributes['gpu.nvidia.com'].model == 'x'"), "no such key: model");
  EXPECT_EQ(RuntimeError("device.attributes['gpu.nvidia.com']['model'] == 'x'"),
            "no such key: model");
  EXPECT_EQ(RuntimeError("device.capacity['gpu.nvidia.com'].cores.compareTo(quantity('1')) > 0"),
            "no such key: cores");
  EXPECT_EQ(RuntimeError("device.attributes['example.com'].model == 'x'"), "no such key: model")
      << "a domain the device has nothing in is an empty map";
  EXPECT_TRUE(Match("size(device.attributes['example.com']) == 0"));
  EXPECT_TRUE(Match("device.capacity['example.com'].size() == 0"));
}

TEST(DeviceSelectorTest, AndAndOrAbsorbAnErrorOnEitherSide) {
  const std::string error = "device.attributes['gpu.nvidia.com'].model == 'x'";
  EXPECT_FALSE(Match("false && " + error));
  EXPECT_FALSE(Match(error + " && false"));
  EXPECT_TRUE(Match("true || " + error));
  EXPECT_TRUE(Match(error + " || true"));
  EXPECT_EQ(RuntimeError("true && " + error), "no such key: model");
  EXPECT_EQ(RuntimeError(error + " && true"), "no such key: model");
  EXPECT_EQ(RuntimeError(error + " || false"), "no such key: model");
  EXPECT_EQ(RuntimeError("false || " + error), "no such key: model");
  EXPECT_FALSE(Match("1 && false")) << "a non-bool operand is absorbed as an error is";
  EXPECT_THAT(RuntimeError("1 || false"), HasSubstr("no such overload"));
  EXPECT_FALSE(Match("true && " + error + " && false")) << "chains absorb too";
}

TEST(DeviceSelectorTest, HasTellsWhetherAKeyExists) {
  EXPECT_TRUE(Match("has(device.attributes['gpu.nvidia.com'].type)"));
  EXPECT_FALSE(Match("has(device.attributes['gpu.nvidia.com'].model)"));
  EXPECT_FALSE(Match("has(device.attributes['example.com'].model)"));
  EXPECT_FALSE(Match("has(device.capacity['gpu.nvidia.com'].cores)"));
  EXPECT_TRUE(Match("has(device.driver)"));
  EXPECT_FALSE(
      Match("has(device.attributes['gpu.nvidia.com'].model) && "
            "device.attributes['gpu.nvidia.com'].model == 'x'"))
      << "the guard a robust selector writes";
  EXPECT_THAT(ParseError("has(device.attributes['gpu.nvidia.com'])"), HasSubstr("has()"));
}

TEST(DeviceSelectorTest, InLooksUpAMapKeyOrAListItem) {
  EXPECT_TRUE(Match("'gpu.nvidia.com' in device.attributes"));
  EXPECT_FALSE(Match("'example.com' in device.attributes"));
  EXPECT_TRUE(Match("'type' in device.attributes['gpu.nvidia.com']"));
  EXPECT_TRUE(Match("'memory' in device.capacity['gpu.nvidia.com']"));
  EXPECT_FALSE(Match("'model' in device.attributes['gpu.nvidia.com']"));
  EXPECT_TRUE(Match("device.attributes['gpu.nvidia.com'].architecture in ['Ampere', 'Hopper']"));
  EXPECT_FALSE(Match("device.attributes['gpu.nvidia.com'].index in [1, 2]"));
  EXPECT_FALSE(Match("1 in []"));
  EXPECT_THAT(RuntimeError("1 in device.attributes"), HasSubstr("no such overload: int in map"));
  EXPECT_FALSE(Match("'a' in ['b', 1]")) << "an item of another type is not equal";
  EXPECT_TRUE(Match("'a' in [1, 'a']")) << "an equal item decides";
}

TEST(DeviceSelectorTest, StringFunctionsReadTheProductName) {
  const std::string name = "device.attributes['gpu.nvidia.com'].productName";
  EXPECT_TRUE(Match(name + ".startsWith('NVIDIA H100')"));
  EXPECT_FALSE(Match(name + ".startsWith('H100')"));
  EXPECT_TRUE(Match(name + ".endsWith('HBM3')"));
  EXPECT_TRUE(Match(name + ".contains('80GB')"));
  EXPECT_TRUE(Match(name + ".matches('H1[0-9]0')")) << "a match anywhere, as RE2's";
  EXPECT_FALSE(Match(name + ".matches('^H100')"));
  EXPECT_TRUE(Match(name + ".matches(r'^NVIDIA \\w+ \\d+GB')"));
  EXPECT_TRUE(Match("size(" + name + ") == 21 && " + name + ".size() == 21"));
  EXPECT_TRUE(Match("size('h\xc3\xa9llo') == 5")) << "code points, not bytes";
  EXPECT_TRUE(Match("size(device.attributes['gpu.nvidia.com']) == 7"));
  EXPECT_TRUE(Match("'abc'.matches('b' == 'b' ? 'b' : 'x')")) << "a pattern computed at run time";
  EXPECT_THAT(RuntimeError("device.attributes['gpu.nvidia.com'].index.startsWith('0')"),
              HasSubstr("no such overload: int.startsWith(string)"));
  EXPECT_THAT(RuntimeError("size(1) == 1"), HasSubstr("no such overload: size(int)"));
}

TEST(DeviceSelectorTest, VersionsCompareBySemverPrecedence) {
  const std::string driver = "device.attributes['gpu.nvidia.com'].driverVersion";
  EXPECT_TRUE(Match(driver + ".isGreaterThan(semver('550.0.0'))"));
  EXPECT_TRUE(Match(driver + ".compareTo(semver('550.54.15')) == 0"));
  EXPECT_TRUE(Match(driver + " == semver('550.54.15')"));
  EXPECT_TRUE(Match(driver + ".major() == 550 && " + driver + ".minor() == 54 && " + driver +
                    ".patch() == 15"));
  EXPECT_TRUE(Match(
      "device.attributes['gpu.nvidia.com'].cudaComputeCapability.compareTo(semver('8.0.0')) >= 0"));
  EXPECT_TRUE(Match("semver('1.10.0').isGreaterThan(semver('1.9.0'))")) << "numerically";
  EXPECT_TRUE(Match("semver('1.0.0+build.1') == semver('1.0.0+build.2')")) << "build ignored";

  // semver.org's own example of precedence, in increasing order.
  const std::vector<std::string> ordered = {"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta",
                                            "1.0.0-beta",  "1.0.0-beta.2",  "1.0.0-beta.11",
                                            "1.0.0-rc.1",  "1.0.0"};
  for (size_t i = 0; i + 1 < ordered.size(); ++i) {
    EXPECT_TRUE(Match("semver('" + ordered[i] + "').isLessThan(semver('" + ordered[i + 1] + "'))"))
        << ordered[i] << " < " << ordered[i + 1];
    EXPECT_TRUE(
        Match("semver('" + ordered[i + 1] + "').compareTo(semver('" + ordered[i] + "')) == 1"));
  }

  EXPECT_TRUE(
      Match("isSemver('1.2.3-rc.1+x') && !isSemver('1.2') && !isSemver('v1.2.3') && "
            "!isSemver('1.02.3') && !isSemver('1.2.3-01') && !isSemver('1.2.3-')"));
  EXPECT_THAT(RuntimeError("semver('bad') == semver('1.0.0')"), HasSubstr("bad"));
  EXPECT_THAT(RuntimeError(driver + " < semver('600.0.0')"), HasSubstr("no such overload"));
  EXPECT_FALSE(Match(driver + " == '550.54.15'")) << "a version is no string";
  Device odd = Gpu();
  odd.attributes["gpu.nvidia.com"]["driverVersion"] = DeviceVersion{"550"};
  EXPECT_THAT(RuntimeError(driver + ".major() == 550", odd), HasSubstr("550"));
}

TEST(DeviceSelectorTest, TheTernaryEvaluatesOnlyItsChosenBranch) {
  EXPECT_TRUE(
      Match("device.attributes['gpu.nvidia.com'].index == 0 ? "
            "device.driver == 'gpu.nvidia.com' : false"));
  EXPECT_TRUE(Match("true ? true : device.attributes['x'].y"));
  EXPECT_FALSE(Match("false ? device.attributes['x'].y : false"));
  EXPECT_TRUE(Match("false ? false : true ? true : false")) << "right-associative";
  EXPECT_THAT(RuntimeError("1 ? true : false"), HasSubstr("no such overload"));
}

TEST(DeviceSelectorTest, MismatchedTypesAreUnequalAndOtherwiseErrors) {
  EXPECT_FALSE(Match("device.driver == 1")) << "cel-go's heterogeneous equality";
  EXPECT_TRUE(Match("device.driver != 1"));
  EXPECT_EQ(RuntimeError("device.attributes['gpu.nvidia.com'].index < 'a'"),
            "no such overload: int < string");
  EXPECT_EQ(RuntimeError("!1"), "no such overload: !int");
  EXPECT_EQ(RuntimeError("-'a' == 1"), "no such overload: -string");
  EXPECT_THAT(RuntimeError("device.driver.x == 1"), HasSubstr("no such overload"));
  EXPECT_THAT(RuntimeError("device['driver'] == 'x'"), HasSubstr("no such overload"));
  EXPECT_THAT(RuntimeError("device.attributes[1].type == 'x'"), HasSubstr("no such overload"));
}

TEST(DeviceSelectorTest, AResultThatIsNotABoolIsAnError) {
  EXPECT_THAT(RuntimeError("device.driver"), HasSubstr("string, not a bool"));
  EXPECT_THAT(RuntimeError("1"), HasSubstr("int, not a bool"));
  EXPECT_THAT(RuntimeError("device.attributes"), HasSubstr("map, not a bool"));
  EXPECT_THAT(RuntimeError("device.capacity['gpu.nvidia.com'].memory"),
              HasSubstr("Quantity, not a bool"));
}

TEST(DeviceSelectorTest, OperatorsHaveCelsPrecedence) {
  EXPECT_TRUE(Match("true || false && false")) << "&& binds tighter";
  EXPECT_FALSE(Match("(true || false) && false"));
  EXPECT_TRUE(Match("!false && !!true"));
  EXPECT_TRUE(Match("!true == false")) << "! binds tighter than ==";
  EXPECT_TRUE(Match("1 < 2 == true")) << "relations associate to the left";
  EXPECT_TRUE(Match("-1 < 0 && --1 == 1 && -(2) == -2"));
  EXPECT_TRUE(Match("-9223372036854775808 < 9223372036854775807"));
  EXPECT_TRUE(Match("'abc' < 'abd' && 'b' > 'abc' && 'a' <= 'a' && 'a' >= 'a'"));
  EXPECT_TRUE(Match("false < true && true != false"));
  EXPECT_TRUE(Match("1 != 2 && 2 <= 2 && 3 > 2 && 3 >= 3"));
  EXPECT_EQ(RuntimeError("-(-9223372036854775808) == 0"), "int overflow");
}

TEST(DeviceSelectorTest, StringLiteralsReadCelEscapes) {
  EXPECT_TRUE(Match(R"('it\'s' == "it's")"));
  EXPECT_TRUE(Match(R"("say \"hi\"" == 'say "hi"')"));
  EXPECT_TRUE(Match(R"('a\\b'.size() == 3)"));
  EXPECT_TRUE(Match(R"('a\tb\n'.size() == 4)"));
  EXPECT_TRUE(Match(R"(r'a\tb'.size() == 4)")) << "a raw string keeps the backslash";
  EXPECT_TRUE(Match("'' == \"\""));
  EXPECT_TRUE(Match("device.driver == 'gpu.nvidia.com' // a comment\n && true"));
}

TEST(DeviceSelectorTest, CelBindNamesAValue) {
  EXPECT_TRUE(
      Match("cel.bind(gpu, device.attributes['gpu.nvidia.com'], "
            "gpu.type == 'gpu' && gpu.architecture == 'Hopper')"));
  EXPECT_TRUE(Match("cel.bind(a, 1, cel.bind(a, 2, a == 2) && a == 1)")) << "the inner one shadows";
  EXPECT_THAT(ParseError("cel.bind(a, 1, a == 1) && a == 1"), HasSubstr("identifier 'a'"))
      << "only within its expression";
}

TEST(DeviceSelectorTest, SyntaxOutsideTheSubsetIsRefusedAtParse) {
  EXPECT_THAT(ParseError("device.attributes.all(a, true)"),
              HasSubstr("unsupported CEL macro all()"));
  EXPECT_THAT(ParseError("device.attributes['gpu.nvidia.com'].exists(k, k == 'type')"),
              HasSubstr("macro exists()"));
  EXPECT_THAT(ParseError("foo.bar"), HasSubstr("unsupported CEL identifier 'foo'"));
  EXPECT_THAT(ParseError("device.foo == 'x'"), HasSubstr("undefined field 'device.foo'"));
  EXPECT_THAT(ParseError("device.driver.lowerAscii() == 'x'"),
              HasSubstr("unsupported CEL function .lowerAscii()"));
  EXPECT_THAT(ParseError("int('1') == 1"), HasSubstr("unsupported CEL function int()"));
  EXPECT_THAT(ParseError("1 + 2 == 3"), HasSubstr("arithmetic operator '+'"));
  EXPECT_THAT(ParseError("device.attributes['gpu.nvidia.com'].index * 2 == 0"),
              HasSubstr("arithmetic operator '*'"));
  EXPECT_THAT(ParseError("1.5 > 1"), HasSubstr("double literal"));
  EXPECT_THAT(ParseError("1u == 1u"), HasSubstr("uint literal"));
  EXPECT_THAT(ParseError("0x10 == 16"), HasSubstr("hex literal"));
  EXPECT_THAT(ParseError("device.driver != null"), HasSubstr("null"));
  EXPECT_THAT(ParseError("{'a': 1}.size() == 1"), HasSubstr("map literal"));
  EXPECT_THAT(ParseError("[1, 2].size() == 2"), HasSubstr("list literal"));
  EXPECT_THAT(ParseError("1 in [1][0]"), HasSubstr("list literal"));
  EXPECT_THAT(ParseError("b'x' == b'x'"), HasSubstr("bytes literal"));
  EXPECT_THAT(ParseError("'''x''' == 'x'"), HasSubstr("triple-quoted string"));
  EXPECT_THAT(ParseError(R"('\x41' == 'A')"), HasSubstr("escape \\x"));
  EXPECT_THAT(ParseError(".device.driver == 'x'"), HasSubstr("leading '.'"));
}

TEST(DeviceSelectorTest, MalformedExpressionsSayWhereTheyFail) {
  EXPECT_EQ(ParseError("device.driver =="),
            "CEL syntax error at offset 16: unexpected end of expression");
  EXPECT_THAT(ParseError("(device.driver == 'x'"), HasSubstr("expected ')'"));
  EXPECT_THAT(ParseError("device.driver == 'x"), HasSubstr("unterminated string"));
  EXPECT_THAT(ParseError("device.driver = 'x'"), HasSubstr("unexpected character '='"));
  EXPECT_THAT(ParseError("device.driver == 'x' true"), HasSubstr("unexpected 'true'"));
  EXPECT_THAT(ParseError("'a'.startsWith() "), HasSubstr("startsWith() takes 1 argument"));
  EXPECT_THAT(ParseError("size('a', 'b') == 1"), HasSubstr("size() takes 1 argument"));
  EXPECT_THAT(ParseError("'a'.matches('(')"), HasSubstr("invalid regular expression '('"));
  EXPECT_THAT(ParseError("9223372036854775808 > 0"), HasSubstr("out of range"));
  EXPECT_THAT(ParseError(""), HasSubstr("unexpected end of expression"));
  EXPECT_THAT(ParseError(std::string(200, '(') + "true" + std::string(200, ')')),
              HasSubstr("nested too deeply"));
  EXPECT_THAT(ParseError(std::string(200, '!') + "true"), HasSubstr("nested too deeply"));
  EXPECT_THAT(ParseError("true" + std::string(11000, ' ')), HasSubstr("more than the 10240"));
}

TEST(DeviceSelectorTest, ASelectorKeepsItsTextAndCopiesShareTheParse) {
  const std::string text = "device.attributes['gpu.nvidia.com'].index == 0";
  Result<DeviceSelector> parsed = DeviceSelector::Parse(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const DeviceSelector copy = *parsed;
  EXPECT_EQ(copy.expression(), text);
  Device other = Gpu();
  other.attributes["gpu.nvidia.com"]["index"] = int64_t{1};
  EXPECT_EQ(copy.Matches(Gpu()).value_or(false), true);
  EXPECT_EQ(copy.Matches(other).value_or(true), false);
  EXPECT_EQ(parsed->Matches(Gpu()).value_or(false), true);
}

}  // namespace
}  // namespace vtenant::scheduler
