// Decimal numbers as exact integers of thousandths ("milli-units"): the one
// parser behind kube::Quantity and the scheduler's GPU amounts
// (gpu-fraction "0.33" is 330m of a device), so both read every text alike.
//
// Rounding follows Kubernetes' resource.Quantity.MilliValue(): a value that
// is not a whole number of thousandths is rounded away from zero to the next
// one. "0.3333" is 334m, "0.0005" is 1m, "-0.0005" is -1m; "0.335" and
// "1e-3" are exact (335m, 1m). Nothing non-zero ever becomes zero, so a
// tiny request is never free.
//
// Header-only: base/ is an interface library every target may use.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace vtenant {

// A decimal number as read: (negative ? -1 : 1) * digits * 10^exponent.
// `digits` has no leading zeros; it is empty for zero.
struct Decimal {
  bool negative = false;
  std::string digits;
  int64_t exponent = 0;
};

namespace decimal_internal {

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Exponents beyond this are clamped while parsing. Any digit string that fits
// in memory is far shorter, so a clamped exponent still overflows (or rounds
// to 1m) exactly when the true one would.
constexpr int64_t kExponentClamp = int64_t{1} << 40;

}  // namespace decimal_internal

// Reads the longest prefix of `text` of the form
//   [+-] (digits [. [digits]] | . digits)
// into `out` and returns its length, or 0 (leaving `out` alone) when that
// prefix has no digit.
inline size_t ReadDecimalMantissa(std::string_view text, Decimal* out) {
  using decimal_internal::IsDigit;
  size_t pos = 0;
  bool negative = false;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    negative = text[pos] == '-';
    ++pos;
  }
  const size_t integer_start = pos;
  while (pos < text.size() && IsDigit(text[pos])) ++pos;
  std::string_view integer_part = text.substr(integer_start, pos - integer_start);
  std::string_view fraction_part;
  if (pos < text.size() && text[pos] == '.') {
    const size_t fraction_start = ++pos;
    while (pos < text.size() && IsDigit(text[pos])) ++pos;
    fraction_part = text.substr(fraction_start, pos - fraction_start);
  }
  if (integer_part.empty() && fraction_part.empty()) return 0;
  out->negative = negative;
  out->digits = std::string(integer_part) + std::string(fraction_part);
  out->digits.erase(0, std::min(out->digits.find_first_not_of('0'), out->digits.size()));
  out->exponent = -static_cast<int64_t>(fraction_part.size());
  return pos;
}

// Reads an exponent suffix "e<int>" or "E<int>" ("e-3", "E+6"), clamped to
// about ±1e12; nullopt when `text` is anything else.
inline std::optional<int64_t> ReadDecimalExponent(std::string_view text) {
  using decimal_internal::IsDigit;
  if (text.size() < 2 || (text[0] != 'e' && text[0] != 'E')) return std::nullopt;
  std::string_view rest = text.substr(1);
  bool negative = false;
  if (rest[0] == '+' || rest[0] == '-') {
    negative = rest[0] == '-';
    rest.remove_prefix(1);
  }
  if (rest.empty() || !std::all_of(rest.begin(), rest.end(), IsDigit)) return std::nullopt;
  int64_t magnitude = 0;
  for (char c : rest) {
    magnitude = std::min(magnitude * 10 + (c - '0'), decimal_internal::kExponentClamp);
  }
  return negative ? -magnitude : magnitude;
}

// The value in thousandths, rounded away from zero as described above, or
// nullopt when its magnitude exceeds int64.
inline std::optional<int64_t> DecimalToMilli(const Decimal& d) {
  if (d.digits.empty()) return 0;
  int64_t shift = d.exponent + 3;
  std::string_view kept = d.digits;
  bool inexact = false;
  if (shift < 0) {
    const int64_t dropped = std::min<int64_t>(-shift, static_cast<int64_t>(kept.size()));
    std::string_view tail = kept.substr(kept.size() - dropped);
    inexact = tail.find_first_not_of('0') != std::string_view::npos;
    kept = kept.substr(0, kept.size() - dropped);
    shift = 0;
  }
  // int64 has 19 digits; a longer result cannot fit.
  if (static_cast<int64_t>(kept.size()) + shift > 19) return std::nullopt;
  uint64_t value = 0;
  if (!kept.empty()) std::from_chars(kept.data(), kept.data() + kept.size(), value);
  for (int64_t i = 0; i < shift; ++i) value *= 10;  // at most 19 digits: fits uint64
  if (inexact) ++value;
  if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
  return d.negative ? -static_cast<int64_t>(value) : static_cast<int64_t>(value);
}

// Parses a plain decimal number with an optional exponent,
//   [+-] (digits [. [digits]] | . digits) [(e|E) [+-] digits]
// ("0.33", "-1", ".5", "1e-3", "2.5E2"), into thousandths. No whitespace, no
// unit suffix. InvalidArgument naming `field` and `text` when it does not
// match or its value does not fit in int64 thousandths.
inline Result<int64_t> ParseDecimalMilli(std::string_view text, std::string_view field) {
  auto invalid = [&](std::string_view why) {
    return InvalidArgument(std::string(field) + " \"" + std::string(text) + "\" " +
                           std::string(why));
  };
  Decimal d;
  const size_t read = ReadDecimalMantissa(text, &d);
  if (read == 0) return invalid("is not a number (want e.g. 0.5, 2 or 1e-3)");
  if (read < text.size()) {
    std::optional<int64_t> exponent = ReadDecimalExponent(text.substr(read));
    if (!exponent) return invalid("is not a number (want e.g. 0.5, 2 or 1e-3)");
    d.exponent += *exponent;
  }
  std::optional<int64_t> milli = DecimalToMilli(d);
  if (!milli) return invalid("is too large");
  return *milli;
}

}  // namespace vtenant
