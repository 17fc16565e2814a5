#include "pki/pki.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

namespace vtenant::pki {
namespace {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using X509Ptr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using ExtPtr = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION, X509_EXTENSION_free>>;

Status OpenSslError(const std::string& what) {
  char buf[256] = "unknown error";
  unsigned long err = ERR_get_error();
  if (err != 0) ERR_error_string_n(err, buf, sizeof(buf));
  ERR_clear_error();
  return Internal(what + ": " + buf);
}

Result<PkeyPtr> GenerateKey() {
  PkeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return OpenSslError("generating P-256 key");
  return key;
}

std::string BioToString(BIO* bio) {
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(len));
}

Result<std::string> PrivateKeyPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio) return OpenSslError("allocating a buffer for a private key");
  if (!PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr)) {
    return OpenSslError("writing private key");
  }
  return BioToString(bio.get());
}

Result<std::string> CertificatePem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio) return OpenSslError("allocating a buffer for a certificate");
  if (!PEM_write_bio_X509(bio.get(), cert)) return OpenSslError("writing certificate");
  return BioToString(bio.get());
}

Status AddExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  ExtPtr ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
  if (!ext) return OpenSslError("certificate extension " + value);
  if (!X509_add_ext(cert, ext.get(), -1)) return OpenSslError("adding extension " + value);
  return Status::Ok();
}

// A new certificate for `key` with a random serial and the given subject,
// valid for `valid_seconds`.
Result<X509Ptr> NewCertificate(EVP_PKEY* key, const std::string& common_name,
                               const std::vector<std::string>& organizations, long valid_seconds) {
  X509Ptr cert(X509_new());
  if (!cert) return OpenSslError("allocating certificate");
  X509_set_version(cert.get(), 2);
  // A serial that is not random would let two certificates of this CA share
  // one: no certificate rather than a predictable serial.
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof(serial)) != 1) return OpenSslError("random certificate serial");
  serial[0] &= 0x7f;  // positive
  BIGNUM* bn = BN_bin2bn(serial, sizeof(serial), nullptr);
  const bool serial_set =
      bn != nullptr && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get())) != nullptr;
  BN_free(bn);
  if (!serial_set) return OpenSslError("setting certificate serial");
  // Backdate a little: clocks of the processes that check it may differ.
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), valid_seconds);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  for (const auto& org : organizations) {
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>(org.c_str()), -1, -1, 0);
  }
  if (!common_name.empty()) {
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
                               0);
  }
  return cert;
}

}  // namespace

Result<CertificateAndKey> CreateCertificateAuthority(const std::string& common_name,
                                                     int valid_days) {
  VT_ASSIGN_OR_RETURN(PkeyPtr key, GenerateKey());
  VT_ASSIGN_OR_RETURN(X509Ptr cert, NewCertificate(key.get(), common_name, {},
                                                   static_cast<long>(valid_days) * 24 * 3600));
  X509_set_issuer_name(cert.get(), X509_get_subject_name(cert.get()));
  VT_RETURN_IF_ERROR(
      AddExtension(cert.get(), cert.get(), NID_basic_constraints, "critical,CA:TRUE"));
  VT_RETURN_IF_ERROR(AddExtension(cert.get(), cert.get(), NID_key_usage,
                                  "critical,keyCertSign,cRLSign,digitalSignature"));
  VT_RETURN_IF_ERROR(AddExtension(cert.get(), cert.get(), NID_subject_key_identifier, "hash"));
  if (!X509_sign(cert.get(), key.get(), EVP_sha256())) return OpenSslError("signing CA");
  CertificateAndKey out;
  VT_ASSIGN_OR_RETURN(out.certificate_pem, CertificatePem(cert.get()));
  VT_ASSIGN_OR_RETURN(out.private_key_pem, PrivateKeyPem(key.get()));
  return out;
}

Result<CertificateAndKey> IssueCertificate(const CertificateAndKey& ca,
                                           const CertificateRequest& request) {
  BioPtr ca_cert_bio(
      BIO_new_mem_buf(ca.certificate_pem.data(), static_cast<int>(ca.certificate_pem.size())));
  if (!ca_cert_bio) return OpenSslError("reading CA certificate");
  X509Ptr ca_cert(PEM_read_bio_X509(ca_cert_bio.get(), nullptr, nullptr, nullptr));
  if (!ca_cert) return OpenSslError("parsing CA certificate");
  BioPtr ca_key_bio(
      BIO_new_mem_buf(ca.private_key_pem.data(), static_cast<int>(ca.private_key_pem.size())));
  if (!ca_key_bio) return OpenSslError("reading CA key");
  PkeyPtr ca_key(PEM_read_bio_PrivateKey(ca_key_bio.get(), nullptr, nullptr, nullptr));
  if (!ca_key) return OpenSslError("parsing CA key");

  VT_ASSIGN_OR_RETURN(PkeyPtr key, GenerateKey());
  const long valid_seconds = request.valid_for.count() > 0
                                 ? static_cast<long>(request.valid_for.count())
                                 : static_cast<long>(request.valid_days) * 24 * 3600;
  VT_ASSIGN_OR_RETURN(X509Ptr cert, NewCertificate(key.get(), request.common_name,
                                                   request.organizations, valid_seconds));
  X509_set_issuer_name(cert.get(), X509_get_subject_name(ca_cert.get()));
  VT_RETURN_IF_ERROR(
      AddExtension(cert.get(), ca_cert.get(), NID_basic_constraints, "critical,CA:FALSE"));
  VT_RETURN_IF_ERROR(AddExtension(cert.get(), ca_cert.get(), NID_key_usage,
                                  "critical,digitalSignature,keyEncipherment"));
  std::string usages;
  if (request.server) usages += "serverAuth";
  if (request.client) usages += std::string(usages.empty() ? "" : ",") + "clientAuth";
  if (!usages.empty()) {
    VT_RETURN_IF_ERROR(AddExtension(cert.get(), ca_cert.get(), NID_ext_key_usage, usages));
  }
  std::string alt_names;
  for (const auto& dns : request.dns_names) {
    alt_names += (alt_names.empty() ? "DNS:" : ",DNS:") + dns;
  }
  for (const auto& ip : request.ip_addresses) {
    alt_names += (alt_names.empty() ? "IP:" : ",IP:") + ip;
  }
  if (!alt_names.empty()) {
    VT_RETURN_IF_ERROR(AddExtension(cert.get(), ca_cert.get(), NID_subject_alt_name, alt_names));
  }
  VT_RETURN_IF_ERROR(
      AddExtension(cert.get(), ca_cert.get(), NID_authority_key_identifier, "keyid"));
  if (!X509_sign(cert.get(), ca_key.get(), EVP_sha256()))
    return OpenSslError("signing certificate");
  CertificateAndKey out;
  VT_ASSIGN_OR_RETURN(out.certificate_pem, CertificatePem(cert.get()));
  VT_ASSIGN_OR_RETURN(out.private_key_pem, PrivateKeyPem(key.get()));
  return out;
}

Result<KeyPair> CreateSigningKeyPair() {
  VT_ASSIGN_OR_RETURN(PkeyPtr key, GenerateKey());
  KeyPair out;
  VT_ASSIGN_OR_RETURN(out.private_key_pem, PrivateKeyPem(key.get()));
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio) return OpenSslError("allocating a buffer for a public key");
  if (!PEM_write_bio_PUBKEY(bio.get(), key.get())) return OpenSslError("writing public key");
  out.public_key_pem = BioToString(bio.get());
  return out;
}

}  // namespace vtenant::pki
