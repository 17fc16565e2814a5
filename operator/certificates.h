// The PKI of one virtual control plane, kept in the Secret vc-<t>-certs and
// renewed before it expires.
//
// A CA per tenant signs the API server's serving certificate (SANs for every
// name the API server is reached by), the admin client certificate
// (system:masters; what the kubeconfig Secret carries) and is trusted by the
// API server for client certificates. A separate key pair signs
// service-account tokens. Certificates are made by localenv/pki.h; this
// file decides when to make them.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "localenv/pki.h"

namespace vtenant::op {

struct TenantCertificates {
  localenv::CertificateAndKey ca;
  localenv::CertificateAndKey apiserver;  // serving certificate
  localenv::CertificateAndKey admin;      // client, O=system:masters
  localenv::KeyPair service_account;      // token signing
};

struct CertificatePolicy {
  std::string tenant;
  std::vector<std::string> dns_names;     // serving certificate SANs
  std::vector<std::string> ip_addresses;  // serving certificate SANs
  int ca_valid_days = 3650;
  int leaf_valid_days = 365;
  // A certificate that expires within this long is replaced.
  std::chrono::hours renew_before = std::chrono::hours(24 * 30);
};

// The SANs a tenant's API server needs: loopback, the in-cluster names of
// `kubernetes` in the virtual cluster, and the host Service vc-<t> in
// `host_namespace`.
CertificatePolicy DefaultCertificatePolicy(const std::string& tenant,
                                           const std::string& host_namespace);

// What changed when certificates were ensured, for Events.
struct CertificateChanges {
  bool ca_created = false;       // new CA: every leaf was reissued
  bool leaves_reissued = false;  // serving and/or admin certificate renewed
  bool service_account_created = false;
  std::string reason;  // why, e.g. "serving certificate expires 2027-01-01"
  bool any() const { return ca_created || leaves_reissued || service_account_created; }
};

// Reads certificates from Secret data (keys ca.crt, ca.key, apiserver.crt,
// apiserver.key, admin.crt, admin.key, sa.key, sa.pub; decoded bytes) and
// returns a complete, valid set: missing pieces created, certificates that
// expire within policy.renew_before of `now`, lack a SAN, or were not signed
// by the CA reissued. The service-account key is kept whenever present, so
// tokens already issued stay valid.
Result<TenantCertificates> EnsureCertificates(const std::map<std::string, std::string>& existing,
                                              const CertificatePolicy& policy,
                                              std::chrono::system_clock::time_point now,
                                              CertificateChanges* changes);

// The Secret data keys of `certs` (plain bytes; base64 is the caller's).
std::map<std::string, std::string> CertificateSecretData(const TenantCertificates& certs);

// notAfter of a PEM certificate.
Result<std::chrono::system_clock::time_point> CertificateNotAfter(const std::string& pem);

// Whether the PEM certificate lists every DNS name and IP address as a SAN.
Result<bool> CertificateCoversNames(const std::string& pem, const std::vector<std::string>& dns,
                                    const std::vector<std::string>& ips);

// Whether `pem` carries a signature made by the CA `ca_pem`.
Result<bool> CertificateSignedBy(const std::string& pem, const std::string& ca_pem);

}  // namespace vtenant::op
