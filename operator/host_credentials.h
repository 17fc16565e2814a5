// HostCredentials: the host-cluster identity of a tenant's syncer.
//
// The process backend's syncer must act on the host as the tenant's
// `vtenant-syncer` ServiceAccount (a Role over the tenant's namespace and
// read-only nodes), never with the operator's own, cluster-wide
// credentials. EnsureHostCredentials keeps, in a folder of the tenant's, a
// short-lived token of that ServiceAccount issued through the TokenRequest
// API and a kubeconfig whose user reads it from a file. kube/'s transport
// re-reads a token file on every request, so a refreshed token takes effect
// without restarting the syncer.
#pragma once

#include <chrono>
#include <string>

#include "base/status.h"
#include "kube/client.h"

namespace vtenant::op {

struct ServiceAccountToken {
  std::string token;
  std::chrono::system_clock::time_point expires;
};

// Issues tokens of host ServiceAccounts.
class TokenIssuer {
 public:
  virtual ~TokenIssuer() = default;
  // A token of ServiceAccount `ns`/`name` for the host API server's own
  // audience, valid for `lifetime` unless the server shortens it. The
  // expiry is the server's.
  virtual Result<ServiceAccountToken> Issue(const std::string& ns, const std::string& name,
                                            std::chrono::seconds lifetime) = 0;
};

// TokenIssuer over the TokenRequest API
// (POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token).
class TokenRequestIssuer final : public TokenIssuer {
 public:
  explicit TokenRequestIssuer(kube::Client& host) : host_(host) {}
  Result<ServiceAccountToken> Issue(const std::string& ns, const std::string& name,
                                    std::chrono::seconds lifetime) override;

 private:
  kube::Client& host_;
};

struct HostCredentialsRequest {
  std::string dir;  // where the token, its times and the kubeconfig live
  std::string ns;   // the ServiceAccount's namespace (the tenant's host namespace)
  std::string service_account;
  std::string server;  // the host API server as the syncer reaches it
  std::string ca_pem;  // its CA; empty: the system roots
  std::chrono::seconds lifetime{3600};
};

struct HostCredentials {
  std::string kubeconfig_path;
  std::chrono::system_clock::time_point expires;
  bool refreshed = false;  // a new token was issued by this call
  // Set when a refresh was due and failed while the current token is still
  // valid: the syncer keeps working, but someone should know.
  std::string refresh_error;
};

// Makes sure <dir>/host.kubeconfig names `server` and a token file
// (<dir>/host-token, with its issue and expiry times in host-token.times)
// whose token has more than half its life left, issuing a new token when
// not. Files are written atomically, owner-only. Fails when no valid token can
// be had (the issuer's error, with context); a failed refresh of a token
// that is still valid is reported in refresh_error instead.
Result<HostCredentials> EnsureHostCredentials(TokenIssuer& issuer,
                                              const HostCredentialsRequest& request,
                                              std::chrono::system_clock::time_point now);

// A kubeconfig for `server` (CA `ca_pem`, none: system roots) whose user's
// bearer token is read from `token_file`.
std::string RenderTokenFileKubeconfig(const std::string& server, const std::string& ca_pem,
                                      const std::string& token_file, const std::string& name);

}  // namespace vtenant::op
