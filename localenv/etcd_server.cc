#include "localenv/etcd_server.h"

#include <openssl/rand.h>

#include <filesystem>

#include "base/file.h"
#include "base/secret_file.h"
#include "localenv/tools.h"
#include "localenv/wait.h"
#include "pki/pki.h"

namespace vtenant::localenv {

using pki::CertificateAndKey;
using pki::CreateCertificateAuthority;
using pki::IssueCertificate;
namespace {

namespace fs = std::filesystem;

Status WritePair(const fs::path& dir, const std::string& name, const CertificateAndKey& pair) {
  VT_RETURN_IF_ERROR(WriteSecretFile(dir / (name + ".crt"), pair.certificate_pem));
  return WriteSecretFile(dir / (name + ".key"), pair.private_key_pem);
}

// The etcd's CA, its serving and peer certificate (127.0.0.1, localhost),
// the administrator's client certificate and root's password; made once,
// kept across restarts. The administrator's certificate names no user (no
// common name): with authentication on, etcd's JSON gateway refuses a
// certificate that names one, since it cannot pass the name on; root acts
// there with its password.
Status EnsurePki(const fs::path& pki) {
  if (fs::exists(pki / "admin.crt")) return Status::Ok();
  VT_RETURN_IF_ERROR(EnsurePrivateDirectory(pki));
  VT_ASSIGN_OR_RETURN(CertificateAndKey ca, CreateCertificateAuthority("vtenant-etcd-ca"));
  VT_RETURN_IF_ERROR(WritePair(pki, "ca", ca));
  VT_ASSIGN_OR_RETURN(CertificateAndKey server, IssueCertificate(ca, {.common_name = "etcd",
                                                                      .dns_names = {"localhost"},
                                                                      .ip_addresses = {"127.0.0.1"},
                                                                      .server = true,
                                                                      .client = true}));
  VT_RETURN_IF_ERROR(WritePair(pki, "server", server));
  VT_ASSIGN_OR_RETURN(
      CertificateAndKey admin,
      IssueCertificate(ca, {.organizations = {"vtenant-etcd-admin"}, .client = true}));
  unsigned char random[24];
  if (RAND_bytes(random, sizeof(random)) != 1) return Internal("no random bytes for a password");
  std::string password;
  for (unsigned char b : random) {
    static constexpr char kHex[] = "0123456789abcdef";
    password += kHex[b >> 4];
    password += kHex[b & 15];
  }
  VT_RETURN_IF_ERROR(WriteSecretFile(pki / "root.password", password));
  return WritePair(pki, "admin", admin);
}

}  // namespace

kube::RestConfig EtcdClientConfig(const std::string& url, const EtcdClientTls& tls) {
  kube::RestConfig config;
  config.server = url;
  config.ca_pem = ReadFileOrEmpty(tls.ca_file);
  config.client_certificate_pem = ReadFileOrEmpty(tls.cert_file);
  config.client_key_pem = ReadFileOrEmpty(tls.key_file);
  return config;
}

EtcdClientTls EtcdServer::RootTls(const std::string& dir) {
  const fs::path pki = fs::path(dir) / "pki";
  return {(pki / "ca.crt").string(), (pki / "admin.crt").string(), (pki / "admin.key").string(),
          (pki / "root.password").string()};
}

Result<EtcdClientTls> EtcdServer::IssueClient(const std::string& dir, const std::string& user,
                                              const std::string& out_dir) {
  const fs::path pki = fs::path(dir) / "pki";
  const CertificateAndKey ca{ReadFileOrEmpty(pki / "ca.crt"), ReadFileOrEmpty(pki / "ca.key")};
  if (ca.certificate_pem.empty() || ca.private_key_pem.empty()) {
    return FailedPrecondition("no etcd CA in " + pki.string());
  }
  VT_ASSIGN_OR_RETURN(CertificateAndKey cert,
                      IssueCertificate(ca, {.common_name = user, .client = true}));
  const fs::path out = out_dir;
  VT_RETURN_IF_ERROR(WriteSecretFile(out / "etcd-ca.crt", ca.certificate_pem));
  VT_RETURN_IF_ERROR(WritePair(out, "etcd-client", cert));
  return EtcdClientTls{(out / "etcd-ca.crt").string(), (out / "etcd-client.crt").string(),
                       (out / "etcd-client.key").string()};
}

Result<std::unique_ptr<EtcdServer>> EtcdServer::Start(const EtcdOptions& options) {
  VT_ASSIGN_OR_RETURN(std::string binary, FindTool("etcd"));
  // Every tenant's data, and the credentials to it: owner-only.
  VT_RETURN_IF_ERROR(EnsurePrivateDirectory(options.dir));
  const fs::path pki = fs::path(options.dir) / "pki";
  VT_RETURN_IF_ERROR(EnsurePki(pki).WithContext("creating etcd's certificates"));
  std::unique_ptr<EtcdServer> server(new EtcdServer());
  server->dir_ = options.dir;
  server->log_path_ = options.dir + "/etcd.log";
  server->root_ = RootTls(options.dir);
  const std::string ca = (pki / "ca.crt").string();
  const std::string cert = (pki / "server.crt").string();
  const std::string key = (pki / "server.key").string();
  Status last_error;
  // A picked port can be taken before etcd binds it; a few tries make that rare race harmless.
  for (int attempt = 0; attempt < 3; ++attempt) {
    VT_ASSIGN_OR_RETURN(int client_port, PickFreeLoopbackPort());
    VT_ASSIGN_OR_RETURN(int peer_port, PickFreeLoopbackPort());
    server->client_url_ = "https://127.0.0.1:" + std::to_string(client_port);
    const std::string peer_url = "https://127.0.0.1:" + std::to_string(peer_port);
    ProcessOptions process;
    process.argv = {binary, "--name=vtenant", "--data-dir=" + options.dir + "/data",
                    "--listen-client-urls=" + server->client_url_,
                    "--advertise-client-urls=" + server->client_url_,
                    "--listen-peer-urls=" + peer_url, "--initial-advertise-peer-urls=" + peer_url,
                    "--initial-cluster=vtenant=" + peer_url, "--listen-metrics-urls=",
                    // Clients and peers: TLS, and a certificate of this etcd's CA.
                    "--cert-file=" + cert, "--key-file=" + key, "--trusted-ca-file=" + ca,
                    "--client-cert-auth=true", "--peer-cert-file=" + cert, "--peer-key-file=" + key,
                    "--peer-trusted-ca-file=" + ca, "--peer-client-cert-auth=true",
                    // Local, disposable state: durability is not worth fsync latency.
                    "--unsafe-no-fsync=true", "--quota-backend-bytes=4294967296",
                    // One member: etcd holds the raft log in memory from one
                    // snapshot to the next, plus a tail for followers to
                    // catch up from, and there are none. A churn of pods
                    // otherwise fills 15,000 entries before memory levels.
                    "--snapshot-count=5000", "--snapshot-catchup-entries=1000",
                    // A watch cache of a kind nobody writes learns the store's
                    // revision only from these; at the default ten minutes
                    // its revision can fall out of a few minutes of history.
                    "--watch-progress-notify-interval=30s", "--log-level=warn"};
    process.argv.insert(process.argv.end(), options.extra_args.begin(), options.extra_args.end());
    process.log_path = server->log_path_;
    process.die_with_parent = options.die_with_parent;
    VT_ASSIGN_OR_RETURN(server->process_, Process::Start(process));
    last_error = WaitForHttpOk(EtcdClientConfig(server->client_url_, server->root_), "/health",
                               std::chrono::seconds(30), &server->process_, server->log_path_);
    if (last_error.ok()) return server;
    server->process_.Stop();
  }
  return last_error.WithContext("starting etcd");
}

HealthProbe EtcdServer::Health() const {
  return {.url = client_url_ + "/health", .etcd_dir = dir_};
}

}  // namespace vtenant::localenv
