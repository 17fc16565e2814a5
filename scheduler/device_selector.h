// DeviceSelector: a Kubernetes DRA device selector, the CEL expression of a
// DeviceClass's or a ResourceClaim request's `selectors[].cel.expression`
// (`device.driver == "gpu.nvidia.com" && device.attributes["gpu.nvidia.com"].type == "gpu"`),
// parsed once and evaluated against each Device a ResourceSlice publishes.
//
// It reads the subset of CEL that device selectors use:
//   - literals: 'strings' and "strings" (escapes \\ \" \' \` \? \n \t \r \a \b
//     \f \v; r'raw strings'), decimal ints, true, false;
//   - `device` and its fields driver, attributes, capacity and
//     allowMultipleAllocations; `.name` and `["name"]` on a map; variables
//     bound by cel.bind(name, value, expression);
//   - ||, &&, ! and ?: with CEL's error semantics (false && error is false,
//     true || error is true, in either order); == != < <= > >= on ints,
//     strings and bools; == != on quantities and versions; `in` a map's
//     keys or a list literal ("x in ['a', 'b']"); unary - on ints. Values
//     of two types are unequal (cel-go's heterogeneous equality); any other
//     operator on them is a runtime error ("no such overload");
//   - has(a.b); size(x) and x.size() on strings and maps; s.startsWith(t),
//     s.endsWith(t), s.contains(t), s.matches(re) (ECMAScript regular
//     expressions, matched anywhere in s as CEL's RE2 matches are);
//   - Kubernetes' quantity library: quantity(s), isQuantity(s), q.compareTo(o),
//     q.isGreaterThan(o), q.isLessThan(o), q.asInteger(), q.isInteger(),
//     q.sign();
//   - Kubernetes' semver library: semver(s), isSemver(s), v.compareTo(o),
//     v.isGreaterThan(o), v.isLessThan(o), v.major(), v.minor(), v.patch().
// Anything else (arithmetic, doubles, uints, null, map literals, other
// functions, macros such as all() and exists(), identifiers other than
// `device` and cel.bind's) is refused by Parse, so that a selector is never
// half-read.
//
// As the API defines, device.attributes["<domain>"] and
// device.capacity["<domain>"] of a domain the device has nothing in are an
// empty map; any other missing key is a runtime error. A version attribute is
// a semver value, a capacity a quantity.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "base/status.h"
#include "scheduler/dra_device.h"

namespace vtenant::scheduler {

namespace device_selector_internal {
struct Node;
}  // namespace device_selector_internal

class DeviceSelector {
 public:
  // Parses `expression`. InvalidArgument naming what is not understood and
  // where (its byte offset): a syntax error, syntax or a function this
  // subset does not have, an unknown identifier or device field, a function
  // called with the wrong number of arguments, a literal regular expression
  // that does not compile, or an expression longer than the 10 KiB the API
  // allows.
  static Result<DeviceSelector> Parse(std::string_view expression);

  // Whether `device` matches. A runtime error (a missing map key, a type
  // mismatch such as comparing a string with an int, an unparsable
  // quantity() or semver() argument, a result that is not a bool) is
  // InvalidArgument with CEL's message ("no such key: model"), as Kubernetes
  // reports a CEL runtime error; callers treat it as "does not match" and
  // say why. `device` is only read during the call.
  Result<bool> Matches(const Device& device) const;

  // The text Parse was given.
  const std::string& expression() const { return expression_; }

 private:
  DeviceSelector(std::string expression, std::shared_ptr<const device_selector_internal::Node> root)
      : expression_(std::move(expression)), root_(std::move(root)) {}

  std::string expression_;
  // Immutable once parsed, so that copies share it.
  std::shared_ptr<const device_selector_internal::Node> root_;
};

}  // namespace vtenant::scheduler
