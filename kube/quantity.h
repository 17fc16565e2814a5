// Kubernetes resource quantities ("500m", "0.33", "4Gi", "1e3") held exactly as
// integer milli-units.
//
// vtenant accounts for every resource in thousandths (a GPU is 1000, 0.33 GPU
// is exactly 330m), so sums never drift the way floating point does. A
// Quantity is that milli value plus the notation it was written in, so it can
// be written back the way Kubernetes would write it.
//
// Differences from apimachinery's resource.Quantity, all deliberate:
//   - Precision stops at 1m: a finer non-zero value is rounded away from zero
//     to the next milli ("0.0001" is 1m, "-0.0001" is -1m, "0.3333" is 334m),
//     like Kubernetes' MilliValue(). Nothing non-zero ever becomes zero. The
//     number and its rounding come from base/decimal.h, which the scheduler
//     uses for gpu-fraction too, so both read "0.3333" as 334m.
//   - The range is that of int64 milli-units, about ±9.2e15 units ("9P" fits,
//     "10P" and "2E" do not). Out of range is an error, never a wrapped value.
//   - A mantissa without any digit (".", "+", "m") is an error; Kubernetes
//     reads those as zero, which would hide a typo.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/quantity_text.h"
#include "base/status.h"

namespace vtenant::kube {

class Quantity {
 public:
  // The notation a quantity was written in; ToString() keeps it.
  using Format = QuantityNotation;

  // Zero in DecimalSI.
  Quantity() = default;

  // Parses Kubernetes' grammar (base/quantity_text.h's ParseQuantityText):
  //   [+-] (digits [. [digits]] | . digits) [suffix]
  //   suffix = n u m k M G T P E | Ki Mi Gi Ti Pi Ei | (e|E) [+-] digits
  // ("E" alone is exa; "E" followed by digits is an exponent.) No whitespace is
  // allowed. Returns InvalidArgument naming `text` when it does not match, when
  // its value does not fit in int64 milli-units, or when it is empty.
  static Result<Quantity> Parse(std::string_view text);

  // `milli` thousandths of a unit, written in `format`.
  static Quantity FromMilli(int64_t milli, Format format = Format::kDecimalSI);

  // `value` whole units. InvalidArgument when value * 1000 overflows int64.
  static Result<Quantity> FromValue(int64_t value, Format format = Format::kDecimalSI);

  // The exact value in thousandths of a unit.
  int64_t Milli() const { return milli_; }

  // The value in whole units, rounded away from zero like Kubernetes' Value():
  // 1500m -> 2, -1500m -> -2, 2000m -> 2.
  int64_t Value() const;

  Format format() const { return format_; }

  // The canonical text Kubernetes writes for this value and format: no
  // fraction, the largest suffix that loses nothing. "0.5" -> "500m",
  // "4000" -> "4k", "1.5Gi" -> "1536Mi", "1.5Ki" -> "1536", "1e3" -> "1e3",
  // zero -> "0". BinarySI falls back to DecimalSI below 1024 or for a
  // fractional value ("0.5Ki" -> "512", "1.5" as BinarySI -> "1500m").
  std::string ToString() const;

  // Quantities compare by value; the format is presentation only, so
  // "1k" == "1000" == "1e3".
  friend bool operator==(const Quantity& a, const Quantity& b) { return a.milli_ == b.milli_; }
  friend std::strong_ordering operator<=>(const Quantity& a, const Quantity& b) {
    return a.milli_ <=> b.milli_;
  }

 private:
  Quantity(int64_t milli, Format format) : milli_(milli), format_(format) {}

  int64_t milli_ = 0;
  Format format_ = Format::kDecimalSI;
};

// "DecimalSI", "BinarySI" or "DecimalExponent", as Kubernetes names them.
std::string_view FormatName(Quantity::Format format);

}  // namespace vtenant::kube
