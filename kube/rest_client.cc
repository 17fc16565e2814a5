#include "kube/rest_client.h"

#include <glog/logging.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "kube/api_error.h"

namespace vtenant::kube {
namespace {

std::string ListQuery(const ListOptions& o, bool watch) {
  std::string q;
  auto add = [&q](std::string_view key, std::string_view value) {
    q += q.empty() ? '?' : '&';
    q += key;
    q += '=';
    q += EscapeQueryValue(value);
  };
  if (watch) add("watch", "true");
  if (!o.label_selector.empty()) add("labelSelector", o.label_selector);
  if (!o.field_selector.empty()) add("fieldSelector", o.field_selector);
  if (!watch && o.limit > 0) add("limit", std::to_string(o.limit));
  if (!watch && !o.continue_token.empty()) add("continue", o.continue_token);
  if (!o.resource_version.empty()) add("resourceVersion", o.resource_version);
  if (!watch && !o.resource_version_match.empty()) {
    add("resourceVersionMatch", o.resource_version_match);
  }
  if (watch && o.allow_watch_bookmarks) add("allowWatchBookmarks", "true");
  if (o.timeout_seconds > 0) add("timeoutSeconds", std::to_string(o.timeout_seconds));
  return q;
}

std::string_view ContentType(PatchType type) {
  switch (type) {
    case PatchType::kMerge:
      return "application/merge-patch+json";
    case PatchType::kJson:
      return "application/json-patch+json";
    case PatchType::kStrategicMerge:
      return "application/strategic-merge-patch+json";
    case PatchType::kApply:
      return "application/apply-patch+yaml";
  }
  return "application/merge-patch+json";
}

bool IsWrite(std::string_view method) { return method != "GET"; }

// Writes are retried only when the server certainly did not act on them:
// throttled, refused, or never fully sent (a pooled connection the server
// closed, as after an API server restart; a server never acts on half a
// request).
bool SafeToRetry(std::string_view method, const Status& status) {
  if (!IsWrite(method)) return IsRetryable(status);
  if (status.code() == StatusCode::kTooManyRequests) return true;
  return status.code() == StatusCode::kUnavailable &&
         (status.message().find("refused") != std::string::npos ||
          status.message().find("Failed to write request") != std::string::npos);
}

Result<WatchEvent::Type> EventType(std::string_view type) {
  for (WatchEvent::Type known : {WatchEvent::Type::kAdded, WatchEvent::Type::kModified,
                                 WatchEvent::Type::kDeleted, WatchEvent::Type::kBookmark}) {
    if (type == WatchEventTypeName(known)) return known;
  }
  return InvalidArgument("unknown watch event type \"" + std::string(type) + "\"");
}

}  // namespace

std::string EscapeQueryValue(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

Result<std::unique_ptr<RestClient>> RestClient::Create(const RestConfig& config) {
  VT_ASSIGN_OR_RETURN(std::unique_ptr<HttpTransport> transport, NewHttpTransport(config));
  RetryPolicy policy;
  policy.default_timeout = config.timeout;
  return std::make_unique<RestClient>(std::move(transport), policy);
}

RestClient::RestClient(std::unique_ptr<HttpTransport> transport, RetryPolicy policy)
    : transport_(std::move(transport)), policy_(policy) {}

Result<Object> RestClient::Do(std::string_view method, const std::string& path,
                              std::string_view body, std::string_view content_type,
                              const CallOptions& call) {
  Clock& clock = *policy_.clock;
  const Clock::TimePoint deadline = CallDeadline(call, clock.Now(), policy_.default_timeout);
  const std::string what = std::string(method) + " " + path;
  const CallOptions attempt_call{.deadline = deadline, .cancel = call.cancel};
  Status last;
  Clock::Duration backoff = policy_.initial_backoff;
  for (int attempt = 1;; ++attempt) {
    if (call.cancel != nullptr && call.cancel->cancelled()) {
      return Status(StatusCode::kCancelled, what + ": cancelled");
    }
    if (clock.Now() >= deadline) {
      if (last.ok()) return Status(StatusCode::kTimeout, what + ": deadline passed before sending");
      return Status(StatusCode::kTimeout, what + ": deadline passed after " +
                                              std::to_string(attempt - 1) +
                                              " tries; last: " + last.ToString());
    }
    Result<HttpResponse> response =
        transport_->Send(method, path, body, content_type, attempt_call);
    if (response.ok() && response->status_code >= 200 && response->status_code < 300) {
      if (response->body.empty()) return Object(rapidjson::kObjectType);
      Result<Object> parsed = ParseJson(response->body);
      if (!parsed.ok()) return parsed.status().WithContext(what);
      return parsed;
    }
    last =
        response.ok() ? ApiError(response->status_code, response->body, what) : response.status();
    if (last.code() == StatusCode::kCancelled) return last;
    if (!SafeToRetry(method, last) || attempt >= policy_.max_attempts) return last;
    if (!call.retry_too_many_requests && last.code() == StatusCode::kTooManyRequests) return last;
    Clock::Duration wait = backoff;
    if (response.ok() && response->retry_after_seconds > 0) {
      wait = std::max<Clock::Duration>(wait, std::chrono::seconds(response->retry_after_seconds));
    }
    backoff = std::min(backoff * 2, policy_.max_backoff);
    if (clock.Now() + wait >= deadline) {
      // Sleeping would only end in a Timeout that hides the real error.
      return Status(last.code(), last.message() + " (not retried: the call's deadline is near)");
    }
    VLOG(1) << what << " failed (" << last.ToString() << "), retrying in "
            << std::chrono::duration_cast<std::chrono::milliseconds>(wait).count() << " ms";
    if (SleepUntil(clock, clock.Now() + wait, call.cancel)) {
      return Status(StatusCode::kCancelled, what + ": cancelled");
    }
  }
}

Result<Object> RestClient::Get(const ResourceType& type, std::string_view ns, std::string_view name,
                               const CallOptions& call) {
  return Do("GET", type.ObjectPath(ns, name), {}, {}, call);
}

Result<ObjectList> RestClient::List(const ResourceType& type, std::string_view ns,
                                    const ListOptions& options, const CallOptions& call) {
  VT_ASSIGN_OR_RETURN(Object list,
                      Do("GET", type.CollectionPath(ns) + ListQuery(options, false), {}, {}, call));
  ObjectList out;
  out.resource_version = std::string(GetString(list, {"metadata", "resourceVersion"}));
  out.continue_token = std::string(GetString(list, {"metadata", "continue"}));
  if (list.HasMember("items") && list["items"].IsArray()) {
    auto& items = list["items"];
    out.items.reserve(items.Size());
    // List items omit apiVersion/kind; restore them so each item stands alone.
    const std::string api_version = type.ApiVersion();
    for (auto& item : items.GetArray()) {
      Object doc;
      doc.CopyFrom(item, doc.GetAllocator());
      if (!doc.HasMember("apiVersion")) SetString(doc, {}, "apiVersion", api_version);
      if (!doc.HasMember("kind")) SetString(doc, {}, "kind", type.kind);
      out.items.push_back(std::move(doc));
    }
  }
  return out;
}

Result<Object> RestClient::Create(const ResourceType& type, std::string_view ns,
                                  const rapidjson::Value& object, std::string_view subresource,
                                  const CallOptions& call) {
  const std::string path = subresource.empty() ? type.CollectionPath(ns)
                                               : type.ObjectPath(ns, Name(object), subresource);
  return Do("POST", path, ToJson(object), "application/json", call);
}

Result<Object> RestClient::Update(const ResourceType& type, std::string_view ns,
                                  const rapidjson::Value& object, std::string_view subresource,
                                  const CallOptions& call) {
  if (Name(object).empty()) return InvalidArgument("update needs metadata.name");
  return Do("PUT", type.ObjectPath(ns, Name(object), subresource), ToJson(object),
            "application/json", call);
}

Result<Object> RestClient::Patch(const ResourceType& type, std::string_view ns,
                                 std::string_view name, PatchType patch_type,
                                 std::string_view patch, const PatchOptions& options,
                                 const CallOptions& call) {
  std::string path = type.ObjectPath(ns, name, options.subresource);
  if (patch_type == PatchType::kApply) {
    if (options.field_manager.empty())
      return InvalidArgument("server-side apply needs a field manager");
    path += "?fieldManager=" + EscapeQueryValue(options.field_manager);
    if (options.force) path += "&force=true";
  } else if (!options.field_manager.empty()) {
    path += "?fieldManager=" + EscapeQueryValue(options.field_manager);
  }
  return Do("PATCH", path, patch, ContentType(patch_type), call);
}

Status RestClient::Delete(const ResourceType& type, std::string_view ns, std::string_view name,
                          const DeleteOptions& options, const CallOptions& call) {
  Object body(rapidjson::kObjectType);
  SetString(body, {}, "apiVersion", "v1");
  SetString(body, {}, "kind", "DeleteOptions");
  if (!options.precondition_uid.empty()) {
    SetString(body, {"preconditions"}, "uid", options.precondition_uid);
  }
  if (!options.precondition_resource_version.empty()) {
    SetString(body, {"preconditions"}, "resourceVersion", options.precondition_resource_version);
  }
  if (!options.propagation_policy.empty()) {
    SetString(body, {}, "propagationPolicy", options.propagation_policy);
  }
  if (options.grace_period_seconds) {
    body.AddMember("gracePeriodSeconds", *options.grace_period_seconds, body.GetAllocator());
  }
  return Do("DELETE", type.ObjectPath(ns, name), ToJson(body), "application/json", call).status();
}

Status RestClient::Watch(const ResourceType& type, std::string_view ns, const ListOptions& options,
                         const WatchHandler& handler, Cancellation* cancel) {
  const std::string path = type.CollectionPath(ns) + ListQuery(options, true);
  std::string pending;  // a partial line carried between chunks
  Status failure;
  bool stopped = false;
  auto on_chunk = [&](std::string_view chunk) {
    if (chunk.empty()) {  // the server accepted the watch
      if (!options.start_bookmark) return true;
      WatchEvent event{WatchEvent::Type::kBookmark, Object(rapidjson::kObjectType)};
      SetString(event.object, {"metadata"}, "resourceVersion", options.resource_version);
      if (handler(event)) return true;
      stopped = true;
      return false;
    }
    pending.append(chunk);
    size_t start = 0;
    for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string_view line(pending.data() + start, nl - start);
      if (line.empty()) continue;
      Result<Object> frame = ParseJson(line);
      if (!frame.ok()) {
        failure = frame.status().WithContext("watch " + type.resource);
        return false;
      }
      std::string_view type_name = GetString(*frame, {"type"});
      if (type_name == "ERROR") {
        const rapidjson::Value* status = Find(*frame, {"object"});
        int code = static_cast<int>(status ? GetInt(*status, {"code"}, 500) : 500);
        failure = ApiError(code, status ? ToJson(*status) : "", "watch " + type.resource);
        return false;
      }
      Result<WatchEvent::Type> event_type = EventType(type_name);
      if (!event_type.ok()) {
        failure = event_type.status();
        return false;
      }
      // The event's object moves up to the root of the frame's document,
      // whose allocator already holds it: no second copy of every object.
      if (auto it = frame->FindMember("object"); it != frame->MemberEnd()) {
        rapidjson::Value object(std::move(it->value));
        static_cast<rapidjson::Value&>(*frame) = object;
      } else {
        frame->SetNull();
      }
      WatchEvent event{*event_type, std::move(*frame)};
      if (!handler(event)) {
        stopped = true;
        return false;
      }
    }
    pending.erase(0, start);
    return true;
  };
  std::string error_body;
  Result<int> code = transport_->Stream(path, on_chunk, &error_body, cancel);
  if (!code.ok()) return code.status();
  if (*code < 200 || *code >= 300) return ApiError(*code, error_body, "watch " + type.resource);
  if (stopped) return Status::Ok();
  return failure;
}

Result<HttpResponse> RestClient::RawGet(std::string_view path, const CallOptions& call) {
  const CallOptions resolved{
      .deadline = CallDeadline(call, policy_.clock->Now(), policy_.default_timeout),
      .cancel = call.cancel};
  return transport_->Send("GET", path, {}, {}, resolved);
}

}  // namespace vtenant::kube
