// The certificates a TLS connection to an API server trusts, built once and
// shared by every connection that needs them.
//
// cpprestsdk makes a new OpenSSL context for every connection it opens and
// loads OpenSSL's default trust into it (SSL_CTX_set_default_verify_paths:
// the system CA bundle, about 140 certificates, 40-50 ms of CPU each time
// with OpenSSL 3) before the transport's context callback runs. The
// transport replaces that store anyway (with the kubeconfig's CA, as
// client-go trusts certificate-authority-data alone, or with SystemTrust()),
// so while a request is being started under DefaultVerifyPathsSkipped the
// default load is skipped: a new connection costs its handshake, not a
// parse of the system bundle.
#pragma once

#include <openssl/x509.h>

#include <memory>
#include <string>

namespace vtenant::kube {

// A store trusting exactly the certificates in `ca_pem`; nullptr when none
// of it parses as a certificate.
std::shared_ptr<X509_STORE> TrustOnly(const std::string& ca_pem);

// OpenSSL's default trust (SSL_CERT_FILE and SSL_CERT_DIR, else the
// compiled-in bundle and directory), for servers without a CA of their own.
// Loaded on first use and kept for the life of the process, as Go's
// crypto/x509 loads the system roots once; nullptr only when OpenSSL cannot
// allocate a store.
std::shared_ptr<X509_STORE> SystemTrust();

// While one is alive, SSL_CTX_set_default_verify_paths on this thread loads
// nothing and succeeds: whoever makes a context there must install a trust
// store of its own (the transport's context callback does). Other threads,
// and this one outside the scope, get OpenSSL's behaviour unchanged.
// Nests.
class DefaultVerifyPathsSkipped {
 public:
  DefaultVerifyPathsSkipped();
  ~DefaultVerifyPathsSkipped();
  DefaultVerifyPathsSkipped(const DefaultVerifyPathsSkipped&) = delete;
  DefaultVerifyPathsSkipped& operator=(const DefaultVerifyPathsSkipped&) = delete;
};

}  // namespace vtenant::kube
