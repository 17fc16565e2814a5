#include "kube/quantity.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <limits>

#include "base/decimal.h"

namespace vtenant::kube {
namespace {

using Format = Quantity::Format;

int64_t MilliOf(std::string_view text) {
  Result<Quantity> q = Quantity::Parse(text);
  EXPECT_TRUE(q.ok()) << text << ": " << q.status().ToString();
  return q.ok() ? q->Milli() : std::numeric_limits<int64_t>::min();
}

std::string Canonical(std::string_view text) {
  Result<Quantity> q = Quantity::Parse(text);
  EXPECT_TRUE(q.ok()) << text << ": " << q.status().ToString();
  return q.ok() ? q->ToString() : "<error>";
}

// A quantity's text and the milli-units it parses to.
struct MilliCase {
  std::string_view text;
  int64_t milli;
};

void ExpectMilli(std::initializer_list<MilliCase> cases) {
  for (const MilliCase& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(MilliOf(c.text), c.milli);
  }
}

// A quantity's text and its canonical spelling.
struct CanonicalCase {
  std::string_view text;
  std::string_view canonical;
};

void ExpectCanonical(std::initializer_list<CanonicalCase> cases) {
  for (const CanonicalCase& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(Canonical(c.text), c.canonical);
  }
}

TEST(QuantityParseTest, DecimalSI) {
  ExpectMilli({
      {"500m", 500},
      {"0.33", 330},
      {"4000", 4'000'000},
      {"100M", 100'000'000'000},
      {"4k", 4'000'000},
      {"2G", 2'000'000'000'000},
      {"3T", 3'000'000'000'000'000},
      {"9P", 9'000'000'000'000'000'000},
      {"1000000u", 1000},
      {"5000000n", 5},
      {"0.001E", 1'000'000'000'000'000'000},  // E alone is exa
  });
  EXPECT_EQ(Quantity::Parse("500m")->format(), Format::kDecimalSI);
}

TEST(QuantityParseTest, SignsAndShapesOfTheMantissa) {
  ExpectMilli({
      {"+1", 1000},
      {"-1", -1000},
      {"-250m", -250},
      {".5", 500},
      {"1.", 1000},
      {"1.G", 1'000'000'000'000},
      {"007", 7000},
      {"0", 0},
      {"-0", 0},
      {"0.000", 0},
      {"1.2500000000000000000000000", 1250},
  });
}

TEST(QuantityParseTest, BinarySI) {
  ExpectMilli({
      {"4Gi", int64_t{4} * 1024 * 1024 * 1024 * 1000},
      {"1.5Ki", 1536 * 1000},
      {"1Mi", 1024 * 1024 * 1000},
      {"2Pi", (int64_t{2} << 50) * 1000},
      {"0.001Ki", 1024},
      {"0.0001Ki", 103},  // 102.4m rounded up
  });
  EXPECT_EQ(Quantity::Parse("4Gi")->format(), Format::kBinarySI);
  // Below one unit there is no binary spelling, as in Kubernetes.
  EXPECT_EQ(Quantity::Parse("0.0005Ki")->format(), Format::kDecimalSI);
}

TEST(QuantityParseTest, DecimalExponent) {
  ExpectMilli({
      {"1e3", 1'000'000},
      {"1E3", 1'000'000},
      {"1e+3", 1'000'000},
      {"5e-3", 5},
      {"1.5e2", 150'000},
      {"0e999999999999999999999", 0},
  });
  EXPECT_EQ(Quantity::Parse("1e3")->format(), Format::kDecimalExponent);
}

TEST(QuantityParseTest, SubMilliRoundsAwayFromZeroToTheNextMilli) {
  ExpectMilli({
      {"0.0001", 1},
      {"-0.0001", -1},
      {"1n", 1},
      {"1500001n", 2},
      {"0.3333", 334},
      {"1e-999999999999999999999", 1},
  });
}

TEST(QuantityParseTest, LimitsOfInt64Milli) {
  ExpectMilli({
      {"9223372036854775807m", std::numeric_limits<int64_t>::max()},
      {"-9223372036854775807m", -std::numeric_limits<int64_t>::max()},
      {"9223372036854775.807", std::numeric_limits<int64_t>::max()},
  });
}

void ExpectInvalid(std::string_view text, std::string_view why) {
  Result<Quantity> q = Quantity::Parse(text);
  ASSERT_FALSE(q.ok()) << "\"" << text << "\" parsed as " << q->Milli() << "m";
  EXPECT_EQ(q.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(q.status().message().find("\"" + std::string(text) + "\""), std::string::npos)
      << q.status().message();
  EXPECT_NE(q.status().message().find(why), std::string::npos) << q.status().message();
}

TEST(QuantityParseTest, RejectsMalformedText) {
  ExpectInvalid("", "empty");
  ExpectInvalid("abc", "no digits");
  ExpectInvalid(".", "no digits");
  ExpectInvalid("+", "no digits");
  ExpectInvalid("m", "no digits");
  ExpectInvalid("1.2.3", "unknown suffix \".3\"");
  ExpectInvalid("5Q", "unknown suffix \"Q\"");
  ExpectInvalid("1e", "unknown suffix");
  ExpectInvalid("1e+", "unknown suffix");
  ExpectInvalid("1e3m", "unknown suffix");
  ExpectInvalid("1K", "unknown suffix");
  ExpectInvalid("1Ki5", "unknown suffix");
  ExpectInvalid("1 ", "unknown suffix");
  ExpectInvalid(" 1", "no digits");
  ExpectInvalid("1mm", "unknown suffix");
  ExpectInvalid("--1", "no digits");
}

TEST(QuantityParseTest, RejectsValuesBeyondInt64Milli) {
  ExpectInvalid("2E", "out of range");
  ExpectInvalid("10P", "out of range");
  ExpectInvalid("9223372036854775808m", "out of range");
  ExpectInvalid("9223372036854775.8071", "out of range");  // rounds up past the max
  ExpectInvalid("-1Ei", "out of range");
  ExpectInvalid("1e16", "out of range");
  ExpectInvalid("1e999999999999999999999", "out of range");
  ExpectInvalid("123456789012345678901234567890", "out of range");
}

TEST(QuantityValueTest, RoundsAwayFromZero) {
  EXPECT_EQ(Quantity::FromMilli(1500).Value(), 2);
  EXPECT_EQ(Quantity::FromMilli(1001).Value(), 2);
  EXPECT_EQ(Quantity::FromMilli(2000).Value(), 2);
  EXPECT_EQ(Quantity::FromMilli(1).Value(), 1);
  EXPECT_EQ(Quantity::FromMilli(0).Value(), 0);
  EXPECT_EQ(Quantity::FromMilli(-1500).Value(), -2);
  EXPECT_EQ(Quantity::FromMilli(-2000).Value(), -2);
}

TEST(QuantityValueTest, FromValueChecksRange) {
  EXPECT_EQ(Quantity::FromValue(7)->Milli(), 7000);
  EXPECT_EQ(Quantity::FromValue(-7)->Milli(), -7000);
  Result<Quantity> big = Quantity::FromValue(std::numeric_limits<int64_t>::max() / 10);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), StatusCode::kInvalidArgument);
}

TEST(QuantityToStringTest, CanonicalLikeKubernetes) {
  ExpectCanonical({
      {"500m", "500m"},
      {"0.33", "330m"},
      {"0.5", "500m"},
      {"1.5", "1500m"},
      {"4000", "4k"},
      {"4k", "4k"},
      {"1500", "1500"},
      {"100M", "100M"},
      {"0.1G", "100M"},
      {"1000000000", "1G"},
      {"9P", "9P"},
  });
}

TEST(QuantityToStringTest, CanonicalSignsAndZero) {
  ExpectCanonical({
      {"+1", "1"},
      {"-1500m", "-1500m"},
      {"-4000", "-4k"},
      {"0", "0"},
      {"0Gi", "0"},
      {"0e5", "0"},
      {"0.0001", "1m"},
  });
}

TEST(QuantityToStringTest, CanonicalBinary) {
  ExpectCanonical({
      {"4Gi", "4Gi"},
      {"1.5Gi", "1536Mi"},
      {"1.5Ki", "1536"},
      {"1024Mi", "1Gi"},
      {"0.5Ki", "512"},
      {"-2Gi", "-2Gi"},
      {"2Pi", "2Pi"},
      {"0.0005Ki", "512m"},
  });
  // A binary quantity with a fractional unit keeps its precision in decimal.
  EXPECT_EQ(Quantity::FromMilli(2'048'500, Format::kBinarySI).ToString(), "2048500m");
  EXPECT_EQ(Quantity::FromMilli(2'048'000, Format::kBinarySI).ToString(), "2Ki");
}

TEST(QuantityToStringTest, CanonicalExponent) {
  ExpectCanonical({
      {"1e3", "1e3"},
      {"1e4", "10e3"},
      {"1.5e3", "1500"},
      {"5e-1", "500e-3"},
      {"1e0", "1"},
      {"1E9", "1e9"},
  });
}

TEST(QuantityToStringTest, ExtremesDoNotOverflow) {
  EXPECT_EQ(Quantity::FromMilli(std::numeric_limits<int64_t>::max()).ToString(),
            "9223372036854775807m");
  EXPECT_EQ(Quantity::FromMilli(std::numeric_limits<int64_t>::min()).ToString(),
            "-9223372036854775808m");
  EXPECT_EQ(Quantity::FromMilli(std::numeric_limits<int64_t>::min()).Value(), -9223372036854776);
}

TEST(QuantityToStringTest, RoundTripsThroughParse) {
  for (std::string_view text : {"330m", "4Gi", "1536Mi", "4k", "1e3", "500e-3", "-7", "9P"}) {
    Result<Quantity> q = Quantity::Parse(text);
    ASSERT_TRUE(q.ok()) << text;
    Result<Quantity> again = Quantity::Parse(q->ToString());
    ASSERT_TRUE(again.ok()) << q->ToString();
    EXPECT_EQ(again->Milli(), q->Milli()) << text;
    EXPECT_EQ(again->ToString(), q->ToString()) << text;
  }
}

TEST(QuantityCompareTest, ByValueNotFormat) {
  EXPECT_EQ(*Quantity::Parse("1k"), *Quantity::Parse("1e3"));
  EXPECT_EQ(*Quantity::Parse("1000"), *Quantity::Parse("1k"));
  EXPECT_LT(*Quantity::Parse("1Ki"), *Quantity::Parse("1.025k"));
  EXPECT_GT(*Quantity::Parse("1Ki"), *Quantity::Parse("1k"));
}

TEST(QuantityFormatTest, Names) {
  EXPECT_EQ(FormatName(Format::kDecimalSI), "DecimalSI");
  EXPECT_EQ(FormatName(Format::kBinarySI), "BinarySI");
  EXPECT_EQ(FormatName(Format::kDecimalExponent), "DecimalExponent");
}

// The scheduler reads gpu-fraction with base/decimal.h; a pod's annotation
// and its resource quantity must mean the same amount.
TEST(QuantityTest, AgreesWithTheSharedDecimalParser) {
  for (const char* text :
       {"0.3333", "0.335", "1e-3", "0.0005", "1.5", "-0.0005", "-1.5", "0.33", "1", "2.5E2", "0"}) {
    Result<Quantity> quantity = Quantity::Parse(text);
    Result<int64_t> decimal = ParseDecimalMilli(text, "gpu-fraction");
    ASSERT_TRUE(quantity.ok() && decimal.ok()) << text;
    EXPECT_EQ(quantity->Milli(), *decimal) << text;
  }
}

}  // namespace
}  // namespace vtenant::kube
