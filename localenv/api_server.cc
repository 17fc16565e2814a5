#include "localenv/api_server.h"

#include <arpa/inet.h>

#include <filesystem>

#include "base/file.h"
#include "base/secret_file.h"
#include "kube/kubeconfig.h"
#include "localenv/tools.h"
#include "localenv/wait.h"
#include "pki/pki.h"

namespace vtenant::localenv {

using pki::CertificateAndKey;
using pki::CertificateRequest;
using pki::CreateCertificateAuthority;
using pki::CreateSigningKeyPair;
using pki::IssueCertificate;
using pki::KeyPair;
namespace fs = std::filesystem;

namespace {

// Certificates are owner-only too: only the processes of the user who
// started the control plane read them (base/secret_file.h).
Status WritePair(const fs::path& dir, const std::string& name, const CertificateAndKey& pair) {
  VT_RETURN_IF_ERROR(WriteSecretFile(dir / (name + ".crt"), pair.certificate_pem));
  return WriteSecretFile(dir / (name + ".key"), pair.private_key_pem);
}

CertificateAndKey ReadPair(const fs::path& dir, const std::string& name) {
  return {ReadFileOrEmpty(dir / (name + ".crt")), ReadFileOrEmpty(dir / (name + ".key"))};
}

// A client certificate for `user` (organization `group`, none when ""),
// signed by `ca`, as <pki>/<user>.crt and .key.
Status IssueUserCertificate(const fs::path& pki, const CertificateAndKey& ca,
                            const std::string& user, const std::string& group) {
  CertificateRequest request{.common_name = user == "admin" ? "vtenant-admin" : user,
                             .client = true};
  if (!group.empty()) request.organizations.push_back(group);
  VT_ASSIGN_OR_RETURN(CertificateAndKey cert, IssueCertificate(ca, request));
  return WritePair(pki, user, cert);
}

// The first address of the IPv4 range `cidr`, which the API server gives
// the `kubernetes` Service ("10.96.0.0/16" → "10.96.0.1"); "" for anything
// else.
std::string KubernetesServiceAddress(const std::string& cidr) {
  const size_t slash = cidr.find('/');
  in_addr network{};
  if (slash == std::string::npos ||
      inet_pton(AF_INET, cidr.substr(0, slash).c_str(), &network) != 1) {
    return "";
  }
  in_addr first{};
  first.s_addr = htonl(ntohl(network.s_addr) + 1);
  char text[INET_ADDRSTRLEN] = {};
  return inet_ntop(AF_INET, &first, text, sizeof(text)) != nullptr ? text : "";
}

// Creates the PKI once; a restart reuses it so existing kubeconfigs stay
// valid. An identity added since (an environment made by an older vtenant,
// started again with a newer one) gets its certificate from the same CA.
Status EnsurePki(const fs::path& pki, const ApiServerOptions& options) {
  std::vector<std::pair<std::string, std::string>> users = options.extra_users;
  users.insert(users.begin(), {"admin", "system:masters"});
  if (fs::exists(pki / "admin.crt")) {
    const CertificateAndKey ca = ReadPair(pki, "ca");
    for (const auto& [user, group] : users) {
      if (fs::exists(pki / (user + ".crt"))) continue;
      if (ca.certificate_pem.empty() || ca.private_key_pem.empty()) {
        return FailedPrecondition("cannot issue a certificate for " + user + ": " +
                                  (pki / "ca.key").string() + " is missing");
      }
      VT_RETURN_IF_ERROR(IssueUserCertificate(pki, ca, user, group));
    }
    return Status::Ok();
  }
  VT_RETURN_IF_ERROR(EnsurePrivateDirectory(pki));
  VT_ASSIGN_OR_RETURN(CertificateAndKey ca, CreateCertificateAuthority(options.name + "-ca"));
  VT_RETURN_IF_ERROR(WritePair(pki, "ca", ca));
  CertificateRequest serving{
      .common_name = "kube-apiserver",
      .dns_names = {"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
                    "kubernetes.default.svc.cluster.local"},
      .ip_addresses = {"127.0.0.1"},
      .server = true};
  // Pods reach the API server at the `kubernetes` Service's address (where
  // a node runs them: the real node's).
  if (std::string service = KubernetesServiceAddress(options.service_cidr); !service.empty()) {
    serving.ip_addresses.push_back(service);
  }
  VT_ASSIGN_OR_RETURN(CertificateAndKey apiserver, IssueCertificate(ca, serving));
  VT_RETURN_IF_ERROR(WritePair(pki, "apiserver", apiserver));
  for (const auto& [user, group] : users) {
    VT_RETURN_IF_ERROR(IssueUserCertificate(pki, ca, user, group));
  }
  VT_ASSIGN_OR_RETURN(KeyPair sa, CreateSigningKeyPair());
  VT_RETURN_IF_ERROR(WriteSecretFile(pki / "sa.key", sa.private_key_pem));
  return WriteSecretFile(pki / "sa.pub", sa.public_key_pem);
}

}  // namespace

Result<std::unique_ptr<ApiServer>> ApiServer::Start(const ApiServerOptions& options) {
  if (options.dir.empty() || options.etcd_url.empty()) {
    return InvalidArgument("an API server needs a folder and an etcd URL");
  }
  std::unique_ptr<ApiServer> server(new ApiServer());
  server->options_ = options;
  server->log_path_ = options.dir + "/kube-apiserver.log";
  VT_RETURN_IF_ERROR(EnsurePrivateDirectory(options.dir));
  const fs::path pki = server->pki_dir();
  VT_RETURN_IF_ERROR(EnsurePki(pki, options).WithContext("creating certificates"));

  Status last_error;
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (options.port == 0) {
      VT_ASSIGN_OR_RETURN(server->options_.port, PickFreeLoopbackPort());
    }
    const std::string server_url = "https://127.0.0.1:" + std::to_string(server->options_.port);
    const std::string ca = ReadFileOrEmpty(pki / "ca.crt");
    auto config_for = [&](const std::string& user) {
      kube::RestConfig config;
      config.server = server_url;
      config.ca_pem = ca;
      CertificateAndKey cert = ReadPair(pki, user);
      config.client_certificate_pem = cert.certificate_pem;
      config.client_key_pem = cert.private_key_pem;
      return config;
    };
    server->admin_ = config_for("admin");
    VT_RETURN_IF_ERROR(WriteSecretFile(server->kubeconfig_path(),
                                       kube::RenderKubeconfig(server->admin_, options.name)));
    for (const auto& [user, group] : options.extra_users) {
      VT_RETURN_IF_ERROR(WriteSecretFile(options.dir + "/" + user + ".kubeconfig",
                                         kube::RenderKubeconfig(config_for(user), options.name)));
    }
    last_error = server->Launch();
    if (last_error.ok() || options.port != 0) break;
  }
  if (!last_error.ok()) return last_error;
  return server;
}

Status ApiServer::Restart() {
  process_.Stop();
  return Launch();
}

Status ApiServer::Launch() {
  VT_ASSIGN_OR_RETURN(std::string binary, FindTool("kube-apiserver"));
  const std::string pki = pki_dir();
  ProcessOptions process;
  const std::string client_ca =
      options_.client_ca_file.empty() ? pki + "/ca.crt" : options_.client_ca_file;
  process.argv = {
      binary, "--etcd-servers=" + options_.etcd_url, "--etcd-prefix=" + options_.etcd_prefix,
      "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
      "--secure-port=" + std::to_string(options_.port), "--tls-cert-file=" + pki + "/apiserver.crt",
      "--tls-private-key-file=" + pki + "/apiserver.key", "--client-ca-file=" + client_ca,
      "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
      "--service-account-key-file=" + pki + "/sa.pub",
      "--service-account-signing-key-file=" + pki + "/sa.key",
      "--service-cluster-ip-range=" + options_.service_cidr, "--authorization-mode=RBAC",
      "--allow-privileged=true",
      // The kubernetes Service endpoint may not be a loopback address.
      "--endpoint-reconciler-type=none", "--cert-dir=" + options_.dir + "/generated-certs",
      "--profiling=false", "--v=1"};
  if (!options_.etcd_tls.cert_file.empty()) {
    process.argv.insert(process.argv.end(), {"--etcd-cafile=" + options_.etcd_tls.ca_file,
                                             "--etcd-certfile=" + options_.etcd_tls.cert_file,
                                             "--etcd-keyfile=" + options_.etcd_tls.key_file});
  }
  if (!options_.service_account_admission) {
    process.argv.push_back("--disable-admission-plugins=ServiceAccount");
  }
  process.argv.insert(process.argv.end(), options_.extra_args.begin(), options_.extra_args.end());
  process.log_path = log_path_;
  process.env = options_.env;
  process.die_with_parent = options_.die_with_parent;
  VT_ASSIGN_OR_RETURN(process_, Process::Start(process));
  Status ready = WaitForHttpOk(admin_, "/readyz", options_.ready_timeout, &process_, log_path_);
  if (!ready.ok()) {
    process_.Stop();
    return ready.WithContext("starting kube-apiserver");
  }
  return Status::Ok();
}

HealthProbe ApiServer::Health() const {
  return {.url = admin_.server + "/readyz", .kubeconfig = kubeconfig_path()};
}

}  // namespace vtenant::localenv
