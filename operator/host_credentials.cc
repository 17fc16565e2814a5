#include "operator/host_credentials.h"

#include <filesystem>
#include <sstream>

#include "base/file.h"
#include "base/rfc3339.h"
#include "base/secret_file.h"
#include "kube/base64.h"
#include "kube/object.h"

namespace vtenant::op {
namespace fs = std::filesystem;
using std::chrono::system_clock;

namespace {

Result<system_clock::time_point> ParseTimestamp(std::string_view text) {
  std::optional<system_clock::time_point> t = ParseRfc3339(text);
  if (!t) return InvalidArgument("not an RFC 3339 time: \"" + std::string(text) + "\"");
  return *t;
}

int64_t Seconds(system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

}  // namespace

Result<ServiceAccountToken> TokenRequestIssuer::Issue(const std::string& ns,
                                                      const std::string& name,
                                                      std::chrono::seconds lifetime) {
  kube::Object request(rapidjson::kObjectType);
  kube::SetString(request, {}, "apiVersion", "authentication.k8s.io/v1");
  kube::SetString(request, {}, "kind", "TokenRequest");
  kube::SetString(request, {"metadata"}, "name", name);
  kube::SetString(request, {"metadata"}, "namespace", ns);
  kube::EnsurePath(request, {"spec"})
      .AddMember("expirationSeconds", rapidjson::Value(static_cast<int64_t>(lifetime.count())),
                 request.GetAllocator());
  Result<kube::Object> answer =
      host_.Create(kube::resources::kServiceAccounts, ns, request, "token");
  if (!answer.ok()) {
    return answer.status().WithContext("TokenRequest for service account " + ns + "/" + name);
  }
  ServiceAccountToken token;
  token.token = std::string(kube::GetString(*answer, {"status", "token"}));
  if (token.token.empty()) {
    return Internal("TokenRequest for service account " + ns + "/" + name +
                    " answered without status.token");
  }
  VT_ASSIGN_OR_RETURN(token.expires,
                      ParseTimestamp(kube::GetString(*answer, {"status", "expirationTimestamp"})));
  return token;
}

std::string RenderTokenFileKubeconfig(const std::string& server, const std::string& ca_pem,
                                      const std::string& token_file, const std::string& name) {
  // Quoted scalars: a path or name with ':' or '#' stays one string.
  auto q = [](const std::string& s) {
    return kube::ToJson(rapidjson::Value(rapidjson::StringRef(s.data(), s.size())));
  };
  std::string out = "apiVersion: v1\nkind: Config\nclusters:\n- name: " + q(name) +
                    "\n  cluster:\n    server: " + q(server) + "\n";
  if (!ca_pem.empty())
    out += "    certificate-authority-data: " + kube::EncodeBase64(ca_pem) + "\n";
  out += "users:\n- name: " + q(name) + "\n  user:\n    tokenFile: " + q(token_file) +
         "\ncontexts:\n- name: " + q(name) + "\n  context:\n    cluster: " + q(name) +
         "\n    user: " + q(name) + "\ncurrent-context: " + q(name) + "\n";
  return out;
}

Result<HostCredentials> EnsureHostCredentials(TokenIssuer& issuer,
                                              const HostCredentialsRequest& request,
                                              system_clock::time_point now) {
  const fs::path dir = request.dir;
  VT_RETURN_IF_ERROR(EnsurePrivateDirectory(dir));
  const fs::path token_file = dir / "host-token";
  const fs::path times_file = dir / "host-token.times";  // "<issued> <expires>", epoch seconds
  HostCredentials out;
  out.kubeconfig_path = (dir / "host.kubeconfig").string();

  int64_t issued = 0, expires = 0;
  std::istringstream(ReadFileOrEmpty(times_file)) >> issued >> expires;
  const bool have_token = fs::exists(token_file) && expires > issued;
  // Refresh at half the token's life, as the kubelet does at 80 %: a token
  // server that is down for a while costs nothing.
  const bool due = !have_token || Seconds(now) >= issued + (expires - issued) / 2;
  out.expires = system_clock::from_time_t(expires);
  if (due) {
    Result<ServiceAccountToken> token =
        issuer.Issue(request.ns, request.service_account, request.lifetime);
    if (token.ok()) {
      VT_RETURN_IF_ERROR(WriteSecretFile(token_file, token->token));
      VT_RETURN_IF_ERROR(WriteSecretFile(times_file, std::to_string(Seconds(now)) + " " +
                                                         std::to_string(Seconds(token->expires))));
      out.expires = token->expires;
      out.refreshed = true;
    } else if (have_token && Seconds(now) < expires) {
      out.refresh_error = token.status().ToString();
    } else {
      return token.status().WithContext("no valid host token for the syncer");
    }
  }
  const std::string kubeconfig = RenderTokenFileKubeconfig(
      request.server, request.ca_pem, token_file.string(), "host-" + request.service_account);
  if (ReadFileOrEmpty(out.kubeconfig_path) != kubeconfig) {
    VT_RETURN_IF_ERROR(WriteSecretFile(out.kubeconfig_path, kubeconfig));
  }
  return out;
}

}  // namespace vtenant::op
