// Certificates and keys for Kubernetes control planes, made with OpenSSL.
//
// A control plane needs a CA, a serving certificate for the API server, a
// client certificate per identity (admin, controller-manager, ...) and a key
// pair for signing service-account tokens. Keys are ECDSA P-256: quick to
// generate and accepted everywhere Kubernetes takes a key. Every function
// makes a fresh key, keeps no state and may be called from any thread.
// Failures are Internal with OpenSSL's first queued error, also when the
// cause is the caller's input (a CA that does not parse, a malformed IP).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "base/status.h"

namespace vtenant::pki {

// PEM text of a certificate and its private key (PKCS#8).
struct CertificateAndKey {
  std::string certificate_pem;
  std::string private_key_pem;
};

struct CertificateRequest {
  std::string common_name;                 // user name for client certificates; "": none
  std::vector<std::string> organizations;  // group names for client certificates
  std::vector<std::string> dns_names;      // subjectAltName DNS entries
  std::vector<std::string> ip_addresses;   // subjectAltName IP entries ("127.0.0.1")
  bool server = false;                     // serverAuth extended key usage
  bool client = false;                     // clientAuth extended key usage
  int valid_days = 365;
  // When set, the validity instead of valid_days: credentials that must
  // expire within hours.
  std::chrono::seconds valid_for{0};
};

// Creates a self-signed CA certificate and its new key, valid from an hour
// ago (other processes' clocks may lag) for `valid_days` from now: CA:TRUE
// (critical), keyCertSign, cRLSign and digitalSignature.
Result<CertificateAndKey> CreateCertificateAuthority(const std::string& common_name,
                                                     int valid_days = 3650);

// Issues a leaf certificate with a new key, signed by `ca`: CA:FALSE,
// digitalSignature and keyEncipherment, the extended key usages and
// subjectAltNames the request asks for, valid from an hour ago for
// `valid_for` when set, else `valid_days`. Fails on a CA certificate or key
// that does not parse, or an IP address OpenSSL refuses. DNS names are not
// checked, so they must not come from untrusted input.
Result<CertificateAndKey> IssueCertificate(const CertificateAndKey& ca,
                                           const CertificateRequest& request);

// An asymmetric key pair as PEM (private key PKCS#8, public key SPKI).
struct KeyPair {
  std::string private_key_pem;
  std::string public_key_pem;
};

// Creates a key pair for signing service-account tokens.
Result<KeyPair> CreateSigningKeyPair();

}  // namespace vtenant::pki
