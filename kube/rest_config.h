// RestConfig: everything needed to reach one Kubernetes API server.
//
// Filled from a kubeconfig (kubeconfig.h), from in-cluster service-account
// files, or built directly by the local environment. Certificates are kept as
// PEM text, never as paths, so a config can travel in a Secret.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "base/status.h"

namespace vtenant::kube {

struct RestConfig {
  std::string server;  // "https://127.0.0.1:6443", no trailing slash

  // TLS. An empty ca_pem means the system roots.
  std::string ca_pem;
  bool insecure_skip_tls_verify = false;

  // Authentication: a client certificate, a bearer token, or a token file
  // re-read for every request (projected service-account tokens rotate); a
  // token file that cannot be read fails the request with Unauthorized
  // instead of sending it without credentials.
  std::string client_certificate_pem;
  std::string client_key_pem;
  std::string bearer_token;
  std::string bearer_token_file;

  std::string default_namespace = "default";

  // How long a call may take, retries included, unless its CallOptions say
  // otherwise; also the idle limit of one connection. Not for watches.
  std::chrono::milliseconds timeout = std::chrono::seconds(30);

  // Client-side rate limit, like client-go's QPS and Burst. qps <= 0 disables it.
  double qps = 100;
  int burst = 200;

  std::string user_agent = "vtenant";
};

// Where an API server's URL points: "https://127.0.0.1:6443",
// "https://[::1]", "https://api.example.com/prefix".
struct ServerAddress {
  std::string host;  // an IPv6 address without its brackets
  int port = 443;    // 443 when the URL names none

  // "host:port", an IPv6 host in brackets: an HTTP Host header.
  std::string Authority() const;
};

// Reads `url` (RestConfig::server). InvalidArgument for a scheme other than
// https, an empty host, an unterminated IPv6 address or text after it, and a
// port that is empty after its colon, not a number, or outside 1–65535.
Result<ServerAddress> ParseServerUrl(std::string_view url);

// The bearer token `config` authenticates with: bearer_token, else the
// token file read now (projected tokens rotate), else "" (a client
// certificate, or no credentials). Unauthorized, naming the file, when the
// file cannot be read or is empty.
Result<std::string> BearerToken(const RestConfig& config);

}  // namespace vtenant::kube
