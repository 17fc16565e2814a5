#include "kube/quantity.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <optional>

#include "base/decimal.h"

namespace vtenant::kube {
namespace {

constexpr int64_t kMaxMilli = std::numeric_limits<int64_t>::max();

// What a suffix means: value = mantissa * 10^decimal_exponent * 1024^binary_power.
struct Suffix {
  int64_t decimal_exponent = 0;
  int binary_power = 0;
  Quantity::Format format = Quantity::Format::kDecimalSI;
};

std::optional<Suffix> ParseSuffix(std::string_view s) {
  using F = Quantity::Format;
  if (s.empty()) return Suffix{};
  // The SI letters win over the exponent reading, so "2E" is two exa.
  if (s.size() == 1) {
    static constexpr std::array<std::pair<char, int>, 9> kDecimal = {{
        {'n', -9},
        {'u', -6},
        {'m', -3},
        {'k', 3},
        {'M', 6},
        {'G', 9},
        {'T', 12},
        {'P', 15},
        {'E', 18},
    }};
    for (auto [letter, exponent] : kDecimal) {
      if (s[0] == letter) return Suffix{exponent, 0, F::kDecimalSI};
    }
    return std::nullopt;
  }
  if (s.size() == 2 && s[1] == 'i') {
    static constexpr std::string_view kBinary = "KMGTPE";
    size_t index = kBinary.find(s[0]);
    if (index == std::string_view::npos) return std::nullopt;
    return Suffix{0, static_cast<int>(index) + 1, F::kBinarySI};
  }
  std::optional<int64_t> exponent = ReadDecimalExponent(s);
  if (!exponent) return std::nullopt;
  return Suffix{*exponent, 0, F::kDecimalExponent};
}

// digits := digits * factor, on a decimal string without leading zeros. The
// strings are short (a quantity's text) and this runs at most six times.
void MultiplyDecimal(std::string& digits, int factor) {
  int carry = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    int product = (*it - '0') * factor + carry;
    *it = static_cast<char>('0' + product % 10);
    carry = product / 10;
  }
  while (carry > 0) {
    digits.insert(digits.begin(), static_cast<char>('0' + carry % 10));
    carry /= 10;
  }
}

}  // namespace

Result<Quantity> Quantity::Parse(std::string_view text) {
  auto invalid = [text](std::string_view why) {
    return InvalidArgument("quantity \"" + std::string(text) + "\": " + std::string(why));
  };
  if (text.empty()) return invalid("empty; want a number such as 500m, 0.33, 4Gi or 1e3");

  Decimal number;
  const size_t pos = ReadDecimalMantissa(text, &number);
  if (pos == 0) return invalid("no digits; want a number such as 500m, 0.33, 4Gi or 1e3");
  std::string_view suffix_text = text.substr(pos);
  std::optional<Suffix> suffix = ParseSuffix(suffix_text);
  if (!suffix) {
    return invalid("unknown suffix \"" + std::string(suffix_text) +
                   "\"; want one of n u m k M G T P E, Ki Mi Gi Ti Pi Ei, or e<exponent>");
  }
  if (number.digits.empty()) return Quantity(0, suffix->format);

  for (int i = 0; i < suffix->binary_power; ++i) MultiplyDecimal(number.digits, 1024);
  number.exponent += suffix->decimal_exponent;
  // Rounded away from zero to the next milli, as base/decimal.h says.
  std::optional<int64_t> milli = DecimalToMilli(number);
  if (!milli) {
    return invalid("out of range; at most " + std::to_string(kMaxMilli) +
                   " milli-units (about 9.2P) in magnitude");
  }
  Format format = suffix->format;
  // Like Kubernetes: a binary quantity below one unit has no binary spelling.
  if (format == Format::kBinarySI && *milli > -1000 && *milli < 1000) format = Format::kDecimalSI;
  return Quantity(*milli, format);
}

Quantity Quantity::FromMilli(int64_t milli, Format format) { return Quantity(milli, format); }

Result<Quantity> Quantity::FromValue(int64_t value, Format format) {
  if (value > kMaxMilli / 1000 || value < -(kMaxMilli / 1000)) {
    return InvalidArgument("quantity value " + std::to_string(value) +
                           " out of range of int64 milli-units");
  }
  return Quantity(value * 1000, format);
}

int64_t Quantity::Value() const {
  int64_t units = milli_ / 1000;  // truncates towards zero
  if (milli_ % 1000 > 0) return units + 1;
  if (milli_ % 1000 < 0) return units - 1;
  return units;
}

std::string Quantity::ToString() const {
  if (milli_ == 0) return "0";
  Format format = format_;
  bool below_1024 = milli_ > -1024 * 1000 && milli_ < 1024 * 1000;
  if (format == Format::kBinarySI && (below_1024 || milli_ % 1000 != 0)) {
    format = Format::kDecimalSI;  // a binary suffix would round or read oddly
  }

  if (format == Format::kBinarySI) {
    static constexpr std::array<std::string_view, 7> kBinary = {"",   "Ki", "Mi", "Gi",
                                                                "Ti", "Pi", "Ei"};
    int64_t mantissa = milli_ / 1000;
    size_t power = 0;
    while ((mantissa >= 1024 || mantissa <= -1024) && mantissa % 1024 == 0 &&
           power + 1 < kBinary.size()) {
      mantissa /= 1024;
      ++power;
    }
    return std::to_string(mantissa) + std::string(kBinary[power]);
  }

  // Strip powers of ten, then give back enough of them that the exponent is a
  // multiple of three: 1500m stays "1500m", 4000 becomes "4k".
  int64_t mantissa = milli_;
  int exponent = -3;
  while ((mantissa >= 10 || mantissa <= -10) && mantissa % 10 == 0) {
    mantissa /= 10;
    ++exponent;
  }
  switch (((exponent % 3) + 3) % 3) {
    case 1:
      mantissa *= 10;
      exponent -= 1;
      break;
    case 2:
      mantissa *= 100;
      exponent -= 2;
      break;
  }
  std::string out = std::to_string(mantissa);
  if (format == Format::kDecimalExponent) {
    if (exponent != 0) out += "e" + std::to_string(exponent);
    return out;
  }
  // int64 milli-units reach at most 9.2e15 units, so P is the largest needed.
  static constexpr std::array<std::string_view, 7> kDecimal = {"m", "", "k", "M", "G", "T", "P"};
  return out + std::string(kDecimal[(exponent + 3) / 3]);
}

std::string_view FormatName(Quantity::Format format) {
  switch (format) {
    case Quantity::Format::kDecimalSI:
      return "DecimalSI";
    case Quantity::Format::kBinarySI:
      return "BinarySI";
    case Quantity::Format::kDecimalExponent:
      return "DecimalExponent";
  }
  return "Unknown";
}

}  // namespace vtenant::kube
