#include "kube/tls_trust.h"

#include <dlfcn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <mutex>

namespace {

thread_local int skip_default_verify_paths = 0;

}  // namespace

// Takes the place of libssl's function for the whole process (the program's
// own definition comes first in the dynamic linker's search, so cpprestsdk's
// calls land here). Outside a DefaultVerifyPathsSkipped scope it hands over
// to libssl's, found next in that search order.
extern "C" int SSL_CTX_set_default_verify_paths(SSL_CTX* ctx) {
  if (skip_default_verify_paths > 0) return 1;
  using Fn = int (*)(SSL_CTX*);
  static const Fn libssl =
      reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "SSL_CTX_set_default_verify_paths"));
  if (libssl != nullptr) return libssl(ctx);
  // What libssl's does, for a context of the default library context.
  return X509_STORE_set_default_paths(SSL_CTX_get_cert_store(ctx));
}

namespace vtenant::kube {

std::shared_ptr<X509_STORE> TrustOnly(const std::string& ca_pem) {
  std::shared_ptr<X509_STORE> store(X509_STORE_new(), &X509_STORE_free);
  if (store == nullptr) return nullptr;
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(ca_pem.data(), static_cast<int>(ca_pem.size())), &BIO_free);
  if (bio == nullptr) return nullptr;
  int added = 0;
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    if (X509_STORE_add_cert(store.get(), cert) == 1) ++added;
    X509_free(cert);
  }
  ERR_clear_error();  // the end of the PEM text reads as an error
  if (added == 0) return nullptr;
  return store;
}

std::shared_ptr<X509_STORE> SystemTrust() {
  static std::once_flag once;
  static std::shared_ptr<X509_STORE> system;
  std::call_once(once, [] {
    std::shared_ptr<X509_STORE> store(X509_STORE_new(), &X509_STORE_free);
    if (store == nullptr) return;
    // A missing bundle or directory is not an error here, as for OpenSSL's
    // own default load: the store then trusts nothing and handshakes fail.
    X509_STORE_set_default_paths(store.get());
    ERR_clear_error();
    system = std::move(store);
  });
  return system;
}

DefaultVerifyPathsSkipped::DefaultVerifyPathsSkipped() { ++skip_default_verify_paths; }

DefaultVerifyPathsSkipped::~DefaultVerifyPathsSkipped() { --skip_default_verify_paths; }

}  // namespace vtenant::kube
