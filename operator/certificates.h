// The PKI of one virtual control plane, kept in the Secret vc-<t>-certs and
// renewed before it expires.
//
// A CA per tenant signs the API server's serving certificate (SANs for every
// name the API server is reached by) and the control plane's own client
// certificates: `admin` (system:masters), which only the control plane's
// components use (the controller manager, the process backend's probe), and
// `operator` (system:masters, valid for hours, renewed at half its life),
// the operator's own; `kubelet-client`, the API server's towards the
// syncer's kubelet endpoint, which serves with `syncer-kubelet`. The team's
// credential, the client certificate the
// kubeconfig Secret carries, is signed by a second CA of its own,
// `tenant_admin_ca`; its user is in group vtenant:tenant-admins, which is
// cluster-admin in the virtual cluster by a binding (not system:masters,
// which nothing can revoke), it is valid for hours and renewed at half its
// life, and replacing that CA (a rotation) revokes every credential it
// signed: the API server trusts both CAs for client certificates (the
// bundle ClientCaBundle), reloads the bundle when its file changes, and
// from then on refuses the old ones. A separate key pair signs
// service-account tokens. Certificates are made by pki/pki.h; this
// file decides when to make them.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "pki/pki.h"

namespace vtenant::op {

struct TenantCertificates {
  pki::CertificateAndKey ca;
  pki::CertificateAndKey apiserver;        // serving certificate
  pki::CertificateAndKey admin;            // client, O=system:masters; the control plane's
  pki::CertificateAndKey operator_client;  // client, O=system:masters; the operator's
  pki::CertificateAndKey tenant_admin_ca;  // signs tenant_admin; replaced to revoke it
  pki::CertificateAndKey tenant_admin;     // client, O=vtenant:tenant-admins; the team's
  // The API server's client certificate towards kubelets (CN
  // syncer::kKubeletClientUser), and the serving certificate of the
  // syncer's kubelet endpoint, which the API server verifies with the CA.
  pki::CertificateAndKey kubelet_client;
  pki::CertificateAndKey syncer_kubelet;
  pki::KeyPair service_account;  // token signing
  // The last rotation of the team's credential carried out: the value of
  // the Tenant's kRotateCredentialsAnnotation it answered ("" for none).
  std::string rotation;
};

// The team's credential: its user and group in the virtual cluster, where
// the operator binds the group to cluster-admin.
inline constexpr char kTenantAdminUser[] = "vtenant:tenant-admin";
inline constexpr char kTenantAdminGroup[] = "vtenant:tenant-admins";
// Set on a Tenant (any new value) to revoke its team's credential and issue
// a new one (`vtenant rotate-credentials`).
inline constexpr char kRotateCredentialsAnnotation[] = "vtenant.io/rotate-credentials";

struct CertificatePolicy {
  std::string tenant;
  std::vector<std::string> dns_names;     // serving certificate SANs
  std::vector<std::string> ip_addresses;  // serving certificate SANs
  int ca_valid_days = 3650;
  int leaf_valid_days = 365;
  // A certificate that expires within this long is replaced.
  std::chrono::hours renew_before = std::chrono::hours(24 * 30);
  // The credentials that leave the control plane, the team's and the
  // operator's, are valid this long and replaced once half of it is gone.
  std::chrono::seconds tenant_admin_valid_for = std::chrono::hours(24);
  std::chrono::seconds operator_valid_for = std::chrono::hours(24);
  // The rotation asked for (the Tenant's kRotateCredentialsAnnotation; ""
  // for none); when set and not the one carried out, the team's CA is
  // replaced.
  std::string rotation;
};

// The SANs a tenant's API server needs: loopback, the in-cluster names of
// `kubernetes` in the virtual cluster, and the host Service vc-<t> in
// `host_namespace`.
CertificatePolicy DefaultCertificatePolicy(const std::string& tenant,
                                           const std::string& host_namespace);

// What changed when certificates were ensured, for Events.
struct CertificateChanges {
  bool ca_created = false;       // new CA: every leaf was reissued
  bool leaves_reissued = false;  // a leaf (serving, admin, operator, kubelet, team) renewed
  bool service_account_created = false;
  bool tenant_admin_rotated = false;  // new team CA: the old team credential is revoked
  std::string reason;  // why, e.g. "serving certificate expires 2027-01-01T00:00:00Z"
  bool any() const {
    return ca_created || leaves_reissued || service_account_created || tenant_admin_rotated;
  }
};

// Reads certificates from Secret data (keys ca.crt, ca.key, apiserver.crt,
// apiserver.key, admin.crt, admin.key, operator.crt, operator.key,
// tenant-admin-ca.crt, tenant-admin-ca.key, tenant-admin.crt,
// tenant-admin.key, kubelet-client.crt, kubelet-client.key,
// syncer-kubelet.crt, syncer-kubelet.key, sa.key, sa.pub, rotation;
// decoded bytes) and returns a
// complete, valid set: missing pieces created, certificates that expire
// within policy.renew_before of `now` (the team's and the operator's: with
// less than half their life left), lack a SAN, or were not signed by their
// CA reissued, and the team's CA replaced when policy.rotation asks for a
// rotation not carried out yet (a missing or expiring team CA is replaced
// too). A new tenant CA reissues every leaf it signs. The service-account
// key is kept whenever present, so tokens already issued stay valid.
// `changes` says what was made and why. Errors are pki/pki.h's.
Result<TenantCertificates> EnsureCertificates(const std::map<std::string, std::string>& existing,
                                              const CertificatePolicy& policy,
                                              std::chrono::system_clock::time_point now,
                                              CertificateChanges* changes);

// The Secret data keys of `certs` (plain bytes; base64 is the caller's).
std::map<std::string, std::string> CertificateSecretData(const TenantCertificates& certs);

// The CAs the virtual API server trusts for client certificates: the
// tenant's CA and the team's (PEM, one after the other).
std::string ClientCaBundle(const TenantCertificates& certs);

// The files of a control plane's PKI folder (ControlPlanePlacement::pki_dir),
// name and content, as both backends lay them out: the CA certificate, the
// client CA bundle, the API server's serving pair, the service-account key
// pair, and the kubelet client and syncer-kubelet pairs. Never a CA key.
std::vector<std::pair<std::string, std::string>> ControlPlanePkiFiles(
    const TenantCertificates& certs);

// notAfter of a PEM certificate.
Result<std::chrono::system_clock::time_point> CertificateNotAfter(const std::string& pem);

// Whether the PEM certificate lists every DNS name and IP address as a SAN.
Result<bool> CertificateCoversNames(const std::string& pem, const std::vector<std::string>& dns,
                                    const std::vector<std::string>& ips);

// Whether `pem` carries a signature made by the CA `ca_pem`.
Result<bool> CertificateSignedBy(const std::string& pem, const std::string& ca_pem);

}  // namespace vtenant::op
