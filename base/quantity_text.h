// Kubernetes resource quantities read from text ("500m", "0.33", "4Gi",
// "1e3") into exact integer milli-units: the grammar behind kube::Quantity,
// here so that libraries that must not depend on kube/ (kai/, which reads a
// pod's nvidia.com/gpu limits) read every quantity exactly as the programs'
// clients do.
//
// The number and its rounding are base/decimal.h's: a value that is not a
// whole number of thousandths is rounded away from zero to the next one, as
// Kubernetes' MilliValue() does. kube/quantity.h lists the deliberate
// differences from apimachinery's resource.Quantity.
//
// Header-only: base/ is an interface library every target may use.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "base/decimal.h"
#include "base/status.h"

namespace vtenant {

// The notation a quantity was written in, as Kubernetes names its formats.
enum class QuantityNotation {
  kDecimalSI,        // 500m, 4k, 100M, 2E
  kBinarySI,         // 4Gi, 1.5Ki
  kDecimalExponent,  // 1e3, 5E-3
};

struct QuantityValue {
  int64_t milli = 0;
  QuantityNotation notation = QuantityNotation::kDecimalSI;
};

namespace quantity_internal {

// What a suffix means: value = mantissa * 10^decimal_exponent * 1024^binary_power.
struct Suffix {
  int64_t decimal_exponent = 0;
  int binary_power = 0;
  QuantityNotation notation = QuantityNotation::kDecimalSI;
};

inline std::optional<Suffix> ParseSuffix(std::string_view s) {
  using N = QuantityNotation;
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
      if (s[0] == letter) return Suffix{exponent, 0, N::kDecimalSI};
    }
    return std::nullopt;
  }
  if (s.size() == 2 && s[1] == 'i') {
    static constexpr std::string_view kBinary = "KMGTPE";
    size_t index = kBinary.find(s[0]);
    if (index == std::string_view::npos) return std::nullopt;
    return Suffix{0, static_cast<int>(index) + 1, N::kBinarySI};
  }
  std::optional<int64_t> exponent = ReadDecimalExponent(s);
  if (!exponent) return std::nullopt;
  return Suffix{*exponent, 0, N::kDecimalExponent};
}

// digits := digits * factor, on a decimal string without leading zeros. The
// strings are short (a quantity's text) and this runs at most six times.
inline void MultiplyDecimal(std::string& digits, int factor) {
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

}  // namespace quantity_internal

// Parses Kubernetes' grammar:
//   [+-] (digits [. [digits]] | . digits) [suffix]
//   suffix = n u m k M G T P E | Ki Mi Gi Ti Pi Ei | (e|E) [+-] digits
// ("E" alone is exa; "E" followed by digits is an exponent.) No whitespace is
// allowed. InvalidArgument naming `text` when it does not match, when its
// value does not fit in int64 milli-units, or when it is empty. A non-zero
// binary quantity below one unit has no binary spelling, so it reads as
// DecimalSI, as in Kubernetes; zero keeps the notation it was written in.
inline Result<QuantityValue> ParseQuantityText(std::string_view text) {
  using quantity_internal::Suffix;
  auto invalid = [text](std::string_view why) {
    return InvalidArgument("quantity \"" + std::string(text) + "\": " + std::string(why));
  };
  if (text.empty()) return invalid("empty; want a number such as 500m, 0.33, 4Gi or 1e3");

  Decimal number;
  const size_t pos = ReadDecimalMantissa(text, &number);
  if (pos == 0) return invalid("no digits; want a number such as 500m, 0.33, 4Gi or 1e3");
  std::string_view suffix_text = text.substr(pos);
  std::optional<Suffix> suffix = quantity_internal::ParseSuffix(suffix_text);
  if (!suffix) {
    return invalid("unknown suffix \"" + std::string(suffix_text) +
                   "\"; want one of n u m k M G T P E, Ki Mi Gi Ti Pi Ei, or e<exponent>");
  }
  if (number.digits.empty()) return QuantityValue{0, suffix->notation};

  for (int i = 0; i < suffix->binary_power; ++i) {
    quantity_internal::MultiplyDecimal(number.digits, 1024);
  }
  number.exponent += suffix->decimal_exponent;
  std::optional<int64_t> milli = DecimalToMilli(number);
  if (!milli) {
    return invalid("out of range; at most " + std::to_string(std::numeric_limits<int64_t>::max()) +
                   " milli-units (about 9.2P) in magnitude");
  }
  QuantityNotation notation = suffix->notation;
  if (notation == QuantityNotation::kBinarySI && *milli > -1000 && *milli < 1000) {
    notation = QuantityNotation::kDecimalSI;
  }
  return QuantityValue{*milli, notation};
}

}  // namespace vtenant
