#include "localenv/etcd_admin.h"

#include <cpprest/http_client.h>

#include "base/file.h"
#include "kube/base64.h"
#include "kube/json_builder.h"
#include "kube/object.h"

namespace vtenant::localenv {
namespace {

namespace http = web::http;
using kube::JsonObject;

std::string Json(const JsonObject& o) { return kube::ToJson(kube::BuildJson(o)); }

}  // namespace

std::string EtcdAdmin::RangeEnd(std::string prefix) {
  // etcd's rule (clientv3.GetPrefixRangeEnd): the last byte that is not
  // 0xff plus one, with everything after it dropped.
  while (!prefix.empty()) {
    const auto last = static_cast<unsigned char>(prefix.back());
    if (last < 0xff) {
      prefix.back() = static_cast<char>(last + 1);
      return prefix;
    }
    prefix.pop_back();
  }
  return std::string(1, '\0');  // no key is past every prefix: to the end
}

Result<std::unique_ptr<EtcdAdmin>> EtcdAdmin::Connect(const std::string& url,
                                                      const EtcdClientTls& root) {
  if (root.ca_file.empty() && root.cert_file.empty() && root.key_file.empty() &&
      root.password_file.empty()) {
    return std::unique_ptr<EtcdAdmin>(new EtcdAdmin(url, root));
  }
  for (const std::string& f : {root.ca_file, root.cert_file, root.key_file, root.password_file}) {
    if (f.empty() || ReadFileOrEmpty(f).empty()) {
      return FailedPrecondition("etcd root credentials missing: " +
                                (f.empty() ? std::string("no file named") : f));
    }
  }
  std::unique_ptr<EtcdAdmin> admin(new EtcdAdmin(url, root));
  VT_RETURN_IF_ERROR(admin->Authenticate());
  return admin;
}

Result<std::string> EtcdAdmin::Call(const std::string& path, const std::string& body,
                                    const std::string& tolerated) {
  http::client::http_client_config config;
  config.set_timeout(std::chrono::seconds(10));
  const EtcdClientTls tls = root_;
  config.set_ssl_context_callback([tls](boost::asio::ssl::context& ctx) {
    boost::system::error_code ignored;
    ctx.load_verify_file(tls.ca_file, ignored);
    ctx.use_certificate_chain_file(tls.cert_file, ignored);
    ctx.use_private_key_file(tls.key_file, boost::asio::ssl::context::pem, ignored);
  });
  try {
    http::client::http_client client(url_, config);
    http::http_request request(http::methods::POST);
    request.set_request_uri(path);
    request.set_body(body, "application/json");
    if (!token_.empty()) request.headers().add("Authorization", token_);
    http::http_response response = client.request(request).get();
    const std::string answer = response.extract_utf8string(true).get();
    if (response.status_code() == 200) return answer;
    if (!tolerated.empty() && answer.find(tolerated) != std::string::npos) return answer;
    const StatusCode code =
        response.status_code() == 403 ? StatusCode::kForbidden : StatusCode::kFailedPrecondition;
    return Status(code, "etcd " + path + " answered " + std::to_string(response.status_code()) +
                            ": " + answer.substr(0, 300));
  } catch (const std::exception& e) {
    return Unavailable("etcd " + path + ": " + e.what());
  }
}

Status EtcdAdmin::Authenticate() {
  token_.clear();
  Result<std::string> answer =
      Call("/v3/auth/authenticate",
           Json(JsonObject{{"name", "root"}, {"password", ReadFileOrEmpty(root_.password_file)}}),
           "authentication is not enabled");
  if (!answer.ok()) return answer.status().WithContext("authenticating as etcd's root");
  Result<kube::Object> parsed = kube::ParseJson(*answer);
  if (parsed.ok()) token_ = std::string(kube::GetString(*parsed, {"token"}));
  return Status::Ok();
}

Status EtcdAdmin::EnableAuth() {
  VT_RETURN_IF_ERROR(
      Call("/v3/auth/role/add", Json(JsonObject{{"name", "root"}}), "already exists").status());
  VT_RETURN_IF_ERROR(
      Call("/v3/auth/user/add",
           Json(JsonObject{{"name", "root"}, {"password", ReadFileOrEmpty(root_.password_file)}}),
           "already exists")
          .status());
  VT_RETURN_IF_ERROR(
      Call("/v3/auth/user/grant", Json(JsonObject{{"user", "root"}, {"role", "root"}}), "already")
          .status());
  VT_RETURN_IF_ERROR(Call("/v3/auth/enable", "{}").status());
  // From here the gateway wants root's token.
  return Authenticate();
}

Status EtcdAdmin::EnsurePrefixUser(const std::string& user, const std::string& prefix) {
  if (prefix.empty()) return InvalidArgument("an etcd user needs a non-empty prefix");
  VT_RETURN_IF_ERROR(
      Call("/v3/auth/role/add", Json(JsonObject{{"name", user}}), "already exists").status());
  VT_RETURN_IF_ERROR(
      Call("/v3/auth/role/grant",
           Json(JsonObject{
               {"name", user},
               {"perm", JsonObject{{"permType", "READWRITE"},
                                   {"key", kube::EncodeBase64(prefix)},
                                   {"range_end", kube::EncodeBase64(RangeEnd(prefix))}}}}))
          .status());
  VT_RETURN_IF_ERROR(
      Call("/v3/auth/user/add",
           Json(JsonObject{{"name", user}, {"options", JsonObject{{"no_password", true}}}}),
           "already exists")
          .status());
  return Call("/v3/auth/user/grant", Json(JsonObject{{"user", user}, {"role", user}}), "already")
      .status();
}

Status EtcdAdmin::DeleteUser(const std::string& user) {
  VT_RETURN_IF_ERROR(
      Call("/v3/auth/user/delete", Json(JsonObject{{"name", user}}), "not found").status());
  return Call("/v3/auth/role/delete", Json(JsonObject{{"role", user}}), "not found").status();
}

Status EtcdAdmin::DeletePrefix(const std::string& prefix) {
  // Everything is under the empty prefix: never delete it by accident.
  if (prefix.empty()) return InvalidArgument("refusing to delete every etcd key (empty prefix)");
  return Call("/v3/kv/deleterange",
              Json(JsonObject{{"key", kube::EncodeBase64(prefix)},
                              {"range_end", kube::EncodeBase64(RangeEnd(prefix))}}))
      .status();
}

Result<std::string> EtcdAdmin::Role(const std::string& role) {
  return Call("/v3/auth/role/get", Json(JsonObject{{"role", role}}));
}

}  // namespace vtenant::localenv
