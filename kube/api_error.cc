#include "kube/api_error.h"

#include "kube/object.h"

namespace vtenant::kube {
namespace {

// The code of each reason a Status body may name.
struct ReasonCode {
  std::string_view reason;
  StatusCode code;
};
constexpr ReasonCode kCodeByReason[] = {{"NotFound", StatusCode::kNotFound},
                                        {"AlreadyExists", StatusCode::kAlreadyExists},
                                        {"Conflict", StatusCode::kConflict},
                                        {"Gone", StatusCode::kGone},
                                        {"Expired", StatusCode::kGone},
                                        {"Invalid", StatusCode::kInvalid},
                                        {"BadRequest", StatusCode::kBadRequest},
                                        {"Unauthorized", StatusCode::kUnauthorized},
                                        {"Forbidden", StatusCode::kForbidden},
                                        {"TooManyRequests", StatusCode::kTooManyRequests},
                                        {"Timeout", StatusCode::kTimeout},
                                        {"ServerTimeout", StatusCode::kTimeout},
                                        {"ServiceUnavailable", StatusCode::kUnavailable}};

// Without a known reason, the HTTP status decides; any other is kInternal.
struct HttpCode {
  int http_status;
  StatusCode code;
};
constexpr HttpCode kCodeByHttpStatus[] = {
    {400, StatusCode::kBadRequest},  {401, StatusCode::kUnauthorized},
    {403, StatusCode::kForbidden},   {404, StatusCode::kNotFound},
    {409, StatusCode::kConflict},    {410, StatusCode::kGone},
    {422, StatusCode::kInvalid},     {429, StatusCode::kTooManyRequests},
    {503, StatusCode::kUnavailable}, {504, StatusCode::kTimeout}};

StatusCode CodeFor(int http_status, std::string_view reason) {
  for (const ReasonCode& r : kCodeByReason) {
    if (r.reason == reason) return r.code;
  }
  for (const HttpCode& h : kCodeByHttpStatus) {
    if (h.http_status == http_status) return h.code;
  }
  return StatusCode::kInternal;
}

// A body that is not a Status (plain text, HTML) as one line of at most
// 500 bytes: it ends up in a log line.
std::string OneLine(std::string_view body) {
  std::string line(body.substr(0, 500));
  for (char& c : line)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
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
  if (std::string line = OneLine(body); !line.empty()) message += ": " + line;
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
