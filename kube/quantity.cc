#include "kube/quantity.h"

#include <array>
#include <limits>

#include "base/quantity_text.h"

namespace vtenant::kube {
namespace {

constexpr int64_t kMaxMilli = std::numeric_limits<int64_t>::max();

}  // namespace

Result<Quantity> Quantity::Parse(std::string_view text) {
  VT_ASSIGN_OR_RETURN(QuantityValue value, ParseQuantityText(text));
  return Quantity(value.milli, value.notation);
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
