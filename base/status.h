// Status and Result<T>: how every fallible vtenant function says why it failed.
//
// A function that can fail returns Status (no value) or Result<T> (a value or
// the Status that explains its absence). Nothing throws across module
// boundaries and nothing fails silently into a default value.
#pragma once

#include <cassert>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace vtenant {

// Codes follow the Kubernetes API Status reasons where one exists, so an API
// error keeps its meaning all the way to the caller.
enum class StatusCode {
  kOk,
  kInvalidArgument,     // malformed input; retrying will not help
  kNotFound,            // HTTP 404 / reason NotFound
  kAlreadyExists,       // HTTP 409 / reason AlreadyExists
  kConflict,            // HTTP 409 / reason Conflict (stale resourceVersion)
  kGone,                // HTTP 410 / reason Expired or Gone (watch too old)
  kInvalid,             // HTTP 422 / reason Invalid (rejected by validation)
  kBadRequest,          // HTTP 400
  kUnauthorized,        // HTTP 401
  kForbidden,           // HTTP 403
  kTooManyRequests,     // HTTP 429
  kTimeout,             // HTTP 504 / client-side deadline
  kUnavailable,         // connection refused, HTTP 503: worth retrying
  kFailedPrecondition,  // the world is not in the state the call needs
  kResourceExhausted,   // a quota or capacity would be exceeded
  kCancelled,           // shutdown or an explicit stop
  kInternal,            // a bug or an unexpected server answer
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "NotFound: configmaps \"x\" not found"; "OK" when ok().
  std::string ToString() const;

  // Returns a copy whose message is prefixed by `context` ("loading kubeconfig: ...");
  // the code is kept, and an OK status is returned unchanged.
  Status WithContext(std::string_view context) const;

  bool operator==(const Status& other) const = default;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string message) {
  return {StatusCode::kInvalidArgument, std::move(message)};
}
inline Status NotFound(std::string message) { return {StatusCode::kNotFound, std::move(message)}; }
inline Status Internal(std::string message) { return {StatusCode::kInternal, std::move(message)}; }
inline Status Unavailable(std::string message) {
  return {StatusCode::kUnavailable, std::move(message)};
}
inline Status FailedPrecondition(std::string message) {
  return {StatusCode::kFailedPrecondition, std::move(message)};
}

// A value of T, or the non-OK Status explaining why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  // A value, or a failure: the Status must not be OK. Only builds without
  // NDEBUG assert that; otherwise such a Result is !ok() while status() is
  // OK, which VT_ASSIGN_OR_RETURN would pass on as success.
  Result(T value) : state_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Status status) : state_(std::move(status)) {  // NOLINT: implicit by design
    assert(!std::get<Status>(state_).ok() && "Result needs a value or a failure");
  }

  bool ok() const { return std::holds_alternative<T>(state_); }

  // OK when a value is present.
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(state_); }

  // The value; only when ok(): otherwise std::get throws bad_variant_access.
  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  T value_or(T fallback) const { return ok() ? std::get<T>(state_) : std::move(fallback); }

 private:
  std::variant<T, Status> state_;
};

inline std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kInvalidArgument:
      return "InvalidArgument";
    case StatusCode::kNotFound:
      return "NotFound";
    case StatusCode::kAlreadyExists:
      return "AlreadyExists";
    case StatusCode::kConflict:
      return "Conflict";
    case StatusCode::kGone:
      return "Gone";
    case StatusCode::kInvalid:
      return "Invalid";
    case StatusCode::kBadRequest:
      return "BadRequest";
    case StatusCode::kUnauthorized:
      return "Unauthorized";
    case StatusCode::kForbidden:
      return "Forbidden";
    case StatusCode::kTooManyRequests:
      return "TooManyRequests";
    case StatusCode::kTimeout:
      return "Timeout";
    case StatusCode::kUnavailable:
      return "Unavailable";
    case StatusCode::kFailedPrecondition:
      return "FailedPrecondition";
    case StatusCode::kResourceExhausted:
      return "ResourceExhausted";
    case StatusCode::kCancelled:
      return "Cancelled";
    case StatusCode::kInternal:
      return "Internal";
  }
  return "Unknown";
}

inline std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(StatusCodeName(code_));
  if (!message_.empty()) out += ": " + message_;
  return out;
}

inline Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  return {code_, std::string(context) + ": " + message_};
}

}  // namespace vtenant

// Returns early from the enclosing function when `expr` yields a non-OK Status.
#define VT_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::vtenant::Status vt_status_ = (expr);   \
    if (!vt_status_.ok()) return vt_status_; \
  } while (0)

#define VT_CONCAT_INNER_(a, b) a##b
#define VT_CONCAT_(a, b) VT_CONCAT_INNER_(a, b)
#define VT_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()

// Evaluates `expr` (a Result); on failure returns its Status from the
// enclosing function, otherwise moves the value into `lhs`:
// `VT_ASSIGN_OR_RETURN(auto config, LoadConfig(path));`
// It declares a variable, so it cannot be the sole statement of an if.
#define VT_ASSIGN_OR_RETURN(lhs, expr) \
  VT_ASSIGN_OR_RETURN_IMPL_(VT_CONCAT_(vt_result_, __LINE__), lhs, expr)
