#include "kube/api_error.h"

#include "kube/object.h"

namespace vtenant::kube {
namespace {

StatusCode CodeFor(int http_status, std::string_view reason) {
  if (reason == "NotFound") return StatusCode::kNotFound;
  if (reason == "AlreadyExists") return StatusCode::kAlreadyExists;
  if (reason == "Conflict") return StatusCode::kConflict;
  if (reason == "Gone" || reason == "Expired") return StatusCode::kGone;
  if (reason == "Invalid") return StatusCode::kInvalid;
  if (reason == "BadRequest") return StatusCode::kBadRequest;
  if (reason == "Unauthorized") return StatusCode::kUnauthorized;
  if (reason == "Forbidden") return StatusCode::kForbidden;
  if (reason == "TooManyRequests") return StatusCode::kTooManyRequests;
  if (reason == "Timeout" || reason == "ServerTimeout") return StatusCode::kTimeout;
  if (reason == "ServiceUnavailable") return StatusCode::kUnavailable;
  switch (http_status) {
    case 400:
      return StatusCode::kBadRequest;
    case 401:
      return StatusCode::kUnauthorized;
    case 403:
      return StatusCode::kForbidden;
    case 404:
      return StatusCode::kNotFound;
    case 409:
      return StatusCode::kConflict;
    case 410:
      return StatusCode::kGone;
    case 422:
      return StatusCode::kInvalid;
    case 429:
      return StatusCode::kTooManyRequests;
    case 503:
      return StatusCode::kUnavailable;
    case 504:
      return StatusCode::kTimeout;
    default:
      return StatusCode::kInternal;
  }
}

}  // namespace

Status ApiError(int http_status, std::string_view body, std::string_view what) {
  std::string_view reason;
  std::string message;
  Result<Object> parsed = ParseJson(body);
  if (parsed.ok() && GetString(*parsed, {"kind"}) == "Status") {
    reason = GetString(*parsed, {"reason"});
    message = std::string(GetString(*parsed, {"message"}));
    StatusCode code = CodeFor(http_status, reason);
    if (message.empty()) message = std::string(what) + ": HTTP " + std::to_string(http_status);
    return {code, message};
  }
  message = std::string(what) + ": HTTP " + std::to_string(http_status);
  if (!body.empty()) message += ": " + std::string(body.substr(0, 500));
  return {CodeFor(http_status, {}), message};
}

bool IsRetryable(const Status& status) {
  switch (status.code()) {
    case StatusCode::kTooManyRequests:
    case StatusCode::kTimeout:
    case StatusCode::kUnavailable:
      return true;
    default:
      return false;
  }
}

}  // namespace vtenant::kube
