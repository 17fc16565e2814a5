#include "operator/certificates.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <ctime>
#include <memory>
#include <set>

#include "base/rfc3339.h"
#include "operator/tenant.h"
#include "syncer/kubelet_identity.h"

namespace vtenant::op {
namespace {

struct X509Free {
  void operator()(X509* p) const { X509_free(p); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;

Result<X509Ptr> ParseCertificate(const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), int(pem.size())),
                                                &BIO_free);
  X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) {
    ERR_clear_error();
    return InvalidArgument("not a PEM certificate");
  }
  return cert;
}

// "2026-12-06": the date part of metav1.Time.
std::string FormatDate(std::chrono::system_clock::time_point t) {
  return FormatRfc3339(t).substr(0, 10);
}

std::string Get(const std::map<std::string, std::string>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? std::string() : it->second;
}

// Why `leaf` must be reissued, or "" when it is fine. A leaf is renewed once
// less than `renew_before` of its life is left.
std::string LeafProblem(const std::string& what, const pki::CertificateAndKey& leaf,
                        const std::string& ca_pem, const std::vector<std::string>& dns,
                        const std::vector<std::string>& ips, std::chrono::seconds renew_before,
                        std::chrono::system_clock::time_point now) {
  if (leaf.certificate_pem.empty() || leaf.private_key_pem.empty()) return what + " missing";
  Result<std::chrono::system_clock::time_point> not_after =
      CertificateNotAfter(leaf.certificate_pem);
  if (!not_after.ok()) return what + " unreadable";
  if (*not_after - now < renew_before) {
    return what + " expires " + FormatRfc3339(*not_after);
  }
  Result<bool> signed_by = CertificateSignedBy(leaf.certificate_pem, ca_pem);
  if (!signed_by.ok() || !*signed_by) return what + " not signed by the tenant's CA";
  Result<bool> covers = CertificateCoversNames(leaf.certificate_pem, dns, ips);
  if (!covers.ok() || !*covers) return what + " lacks a subject alternative name";
  return "";
}

}  // namespace

CertificatePolicy DefaultCertificatePolicy(const std::string& tenant,
                                           const std::string& host_namespace) {
  const std::string service = ControlPlaneName(tenant);
  return {.tenant = tenant,
          .dns_names = {"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
                        "kubernetes.default.svc.cluster.local", service,
                        service + "." + host_namespace, service + "." + host_namespace + ".svc",
                        service + "." + host_namespace + ".svc.cluster.local"},
          .ip_addresses = {"127.0.0.1"}};
}

Result<std::chrono::system_clock::time_point> CertificateNotAfter(const std::string& pem) {
  VT_ASSIGN_OR_RETURN(X509Ptr cert, ParseCertificate(pem));
  std::tm tm{};
  if (ASN1_TIME_to_tm(X509_get0_notAfter(cert.get()), &tm) != 1) {
    return InvalidArgument("certificate has an unreadable notAfter");
  }
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

Result<bool> CertificateCoversNames(const std::string& pem, const std::vector<std::string>& dns,
                                    const std::vector<std::string>& ips) {
  VT_ASSIGN_OR_RETURN(X509Ptr cert, ParseCertificate(pem));
  for (const auto& name : dns) {
    if (X509_check_host(cert.get(), name.c_str(), name.size(), X509_CHECK_FLAG_NO_WILDCARDS,
                        nullptr) != 1) {
      return false;
    }
  }
  for (const auto& ip : ips) {
    if (X509_check_ip_asc(cert.get(), ip.c_str(), 0) != 1) return false;
  }
  return true;
}

Result<bool> CertificateSignedBy(const std::string& pem, const std::string& ca_pem) {
  VT_ASSIGN_OR_RETURN(X509Ptr cert, ParseCertificate(pem));
  VT_ASSIGN_OR_RETURN(X509Ptr ca, ParseCertificate(ca_pem));
  EVP_PKEY* ca_key = X509_get0_pubkey(ca.get());
  if (ca_key == nullptr) return InvalidArgument("CA certificate has no public key");
  bool ok = X509_verify(cert.get(), ca_key) == 1;
  ERR_clear_error();
  return ok;
}

Result<TenantCertificates> EnsureCertificates(const std::map<std::string, std::string>& existing,
                                              const CertificatePolicy& policy,
                                              std::chrono::system_clock::time_point now,
                                              CertificateChanges* changes) {
  *changes = {};
  TenantCertificates certs;
  certs.ca = {Get(existing, "ca.crt"), Get(existing, "ca.key")};
  certs.apiserver = {Get(existing, "apiserver.crt"), Get(existing, "apiserver.key")};
  certs.admin = {Get(existing, "admin.crt"), Get(existing, "admin.key")};
  certs.operator_client = {Get(existing, "operator.crt"), Get(existing, "operator.key")};
  certs.tenant_admin_ca = {Get(existing, "tenant-admin-ca.crt"),
                           Get(existing, "tenant-admin-ca.key")};
  certs.tenant_admin = {Get(existing, "tenant-admin.crt"), Get(existing, "tenant-admin.key")};
  certs.kubelet_client = {Get(existing, "kubelet-client.crt"), Get(existing, "kubelet-client.key")};
  certs.syncer_kubelet = {Get(existing, "syncer-kubelet.crt"), Get(existing, "syncer-kubelet.key")};
  certs.service_account = {Get(existing, "sa.key"), Get(existing, "sa.pub")};
  certs.rotation = Get(existing, "rotation");
  const auto renew_before = std::chrono::duration_cast<std::chrono::seconds>(policy.renew_before);
  auto note = [&](const std::string& why) {
    changes->leaves_reissued = true;
    if (changes->reason.empty()) changes->reason = why;
  };

  std::string ca_problem;
  if (certs.ca.certificate_pem.empty() || certs.ca.private_key_pem.empty()) {
    ca_problem = "CA missing";
  } else if (Result<std::chrono::system_clock::time_point> t =
                 CertificateNotAfter(certs.ca.certificate_pem);
             !t.ok()) {
    ca_problem = "CA unreadable";
  } else if (*t - now < policy.renew_before) {
    ca_problem = "CA expires " + FormatDate(*t);
  }
  if (!ca_problem.empty()) {
    VT_ASSIGN_OR_RETURN(certs.ca, pki::CreateCertificateAuthority(
                                      "vtenant-" + policy.tenant + "-ca", policy.ca_valid_days));
    changes->ca_created = true;
    changes->reason = ca_problem;
  }

  // Reissues `leaf` from the tenant's CA as `request` says, when the CA is
  // new or LeafProblem finds something (the request's SANs are checked).
  auto ensure_leaf = [&](const std::string& what, pki::CertificateAndKey& leaf,
                         std::chrono::seconds renew, const pki::CertificateRequest& request) {
    const std::string problem =
        changes->ca_created ? "new CA"
                            : LeafProblem(what, leaf, certs.ca.certificate_pem, request.dns_names,
                                          request.ip_addresses, renew, now);
    if (problem.empty()) return Status::Ok();
    VT_ASSIGN_OR_RETURN(leaf, pki::IssueCertificate(certs.ca, request));
    note(problem);
    return Status::Ok();
  };
  VT_RETURN_IF_ERROR(ensure_leaf("serving certificate", certs.apiserver, renew_before,
                                 {.common_name = "kube-apiserver",
                                  .dns_names = policy.dns_names,
                                  .ip_addresses = policy.ip_addresses,
                                  .server = true,
                                  .valid_days = policy.leaf_valid_days}));
  VT_RETURN_IF_ERROR(ensure_leaf("admin certificate", certs.admin, renew_before,
                                 {.common_name = "vtenant-admin",
                                  .organizations = {"system:masters"},
                                  .client = true,
                                  .valid_days = policy.leaf_valid_days}));
  VT_RETURN_IF_ERROR(ensure_leaf("operator certificate", certs.operator_client,
                                 policy.operator_valid_for / 2,
                                 {.common_name = "vtenant-operator",
                                  .organizations = {"system:masters"},
                                  .client = true,
                                  .valid_for = policy.operator_valid_for}));
  VT_RETURN_IF_ERROR(ensure_leaf("kubelet client certificate", certs.kubelet_client, renew_before,
                                 {.common_name = syncer::kKubeletClientUser,
                                  .client = true,
                                  .valid_days = policy.leaf_valid_days}));
  // The syncer's kubelet endpoint runs beside the API server: loopback.
  VT_RETURN_IF_ERROR(ensure_leaf("syncer kubelet certificate", certs.syncer_kubelet, renew_before,
                                 {.common_name = "vtenant-syncer-kubelet",
                                  .dns_names = {"localhost"},
                                  .ip_addresses = {"127.0.0.1"},
                                  .server = true,
                                  .valid_days = policy.leaf_valid_days}));

  // The team's CA: made once, replaced when a rotation is asked for (which
  // revokes every credential it signed) or when it expires.
  std::string team_ca_problem;
  if (certs.tenant_admin_ca.certificate_pem.empty() ||
      certs.tenant_admin_ca.private_key_pem.empty()) {
    team_ca_problem = "team CA missing";
  } else if (!policy.rotation.empty() && policy.rotation != certs.rotation) {
    team_ca_problem = "rotation " + policy.rotation + " asked for";
  } else if (Result<std::chrono::system_clock::time_point> t =
                 CertificateNotAfter(certs.tenant_admin_ca.certificate_pem);
             !t.ok() || *t - now < policy.renew_before) {
    team_ca_problem = "team CA expires";
  }
  if (!team_ca_problem.empty()) {
    VT_ASSIGN_OR_RETURN(certs.tenant_admin_ca,
                        pki::CreateCertificateAuthority("vtenant-" + policy.tenant + "-team-ca",
                                                        policy.ca_valid_days));
    const bool rotated = !certs.tenant_admin.certificate_pem.empty();
    if (!policy.rotation.empty()) certs.rotation = policy.rotation;
    changes->tenant_admin_rotated = rotated;
    if (!rotated) changes->leaves_reissued = true;
    if (changes->reason.empty()) changes->reason = team_ca_problem;
  }
  std::string team_problem = !team_ca_problem.empty()
                                 ? "new team CA"
                                 : LeafProblem("team credential", certs.tenant_admin,
                                               certs.tenant_admin_ca.certificate_pem, {}, {},
                                               policy.tenant_admin_valid_for / 2, now);
  if (!team_problem.empty()) {
    VT_ASSIGN_OR_RETURN(
        certs.tenant_admin,
        pki::IssueCertificate(certs.tenant_admin_ca, {.common_name = kTenantAdminUser,
                                                      .organizations = {kTenantAdminGroup},
                                                      .client = true,
                                                      .valid_for = policy.tenant_admin_valid_for}));
    note(team_problem);
  }
  if (certs.service_account.private_key_pem.empty() ||
      certs.service_account.public_key_pem.empty()) {
    VT_ASSIGN_OR_RETURN(certs.service_account, pki::CreateSigningKeyPair());
    changes->service_account_created = true;
    if (changes->reason.empty()) changes->reason = "service-account key missing";
  }
  return certs;
}

std::map<std::string, std::string> CertificateSecretData(const TenantCertificates& certs) {
  std::map<std::string, std::string> data = {
      {"ca.crt", certs.ca.certificate_pem},
      {"ca.key", certs.ca.private_key_pem},
      {"apiserver.crt", certs.apiserver.certificate_pem},
      {"apiserver.key", certs.apiserver.private_key_pem},
      {"admin.crt", certs.admin.certificate_pem},
      {"admin.key", certs.admin.private_key_pem},
      {"operator.crt", certs.operator_client.certificate_pem},
      {"operator.key", certs.operator_client.private_key_pem},
      {"tenant-admin-ca.crt", certs.tenant_admin_ca.certificate_pem},
      {"tenant-admin-ca.key", certs.tenant_admin_ca.private_key_pem},
      {"tenant-admin.crt", certs.tenant_admin.certificate_pem},
      {"tenant-admin.key", certs.tenant_admin.private_key_pem},
      {"kubelet-client.crt", certs.kubelet_client.certificate_pem},
      {"kubelet-client.key", certs.kubelet_client.private_key_pem},
      {"syncer-kubelet.crt", certs.syncer_kubelet.certificate_pem},
      {"syncer-kubelet.key", certs.syncer_kubelet.private_key_pem},
      {"sa.key", certs.service_account.private_key_pem},
      {"sa.pub", certs.service_account.public_key_pem}};
  if (!certs.rotation.empty()) data["rotation"] = certs.rotation;
  return data;
}

std::string ClientCaBundle(const TenantCertificates& certs) {
  return certs.ca.certificate_pem + certs.tenant_admin_ca.certificate_pem;
}

std::vector<std::pair<std::string, std::string>> ControlPlanePkiFiles(
    const TenantCertificates& certs) {
  // The same names as the Secret's keys, so either can be read as the other.
  std::map<std::string, std::string> data = CertificateSecretData(certs);
  std::vector<std::pair<std::string, std::string>> files = {
      {"ca.crt", data["ca.crt"]}, {"client-ca.crt", ClientCaBundle(certs)}};
  for (const char* name :
       {"apiserver.crt", "apiserver.key", "sa.key", "sa.pub", "kubelet-client.crt",
        "kubelet-client.key", "syncer-kubelet.crt", "syncer-kubelet.key"}) {
    files.emplace_back(name, data[name]);
  }
  return files;
}

}  // namespace vtenant::op
