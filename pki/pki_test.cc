#include "pki/pki.h"

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace vtenant::pki {
namespace {

X509* ParseCert(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  return cert;
}

TEST(PkiTest, LeafVerifiesAgainstItsCaAndCarriesTheRequestedNames) {
  Result<CertificateAndKey> ca = CreateCertificateAuthority("test-ca");
  ASSERT_TRUE(ca.ok()) << ca.status().ToString();
  CertificateRequest request{.common_name = "kube-apiserver",
                             .organizations = {"system:masters"},
                             .dns_names = {"localhost"},
                             .ip_addresses = {"127.0.0.1"},
                             .server = true,
                             .client = true};
  Result<CertificateAndKey> leaf = IssueCertificate(*ca, request);
  ASSERT_TRUE(leaf.ok()) << leaf.status().ToString();

  X509* ca_cert = ParseCert(ca->certificate_pem);
  X509* leaf_cert = ParseCert(leaf->certificate_pem);
  ASSERT_NE(ca_cert, nullptr);
  ASSERT_NE(leaf_cert, nullptr);
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, ca_cert);
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  X509_STORE_CTX_init(ctx, store, leaf_cert, nullptr);
  EXPECT_EQ(X509_verify_cert(ctx), 1)
      << X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx));
  EXPECT_EQ(X509_check_host(leaf_cert, "localhost", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_ip_asc(leaf_cert, "127.0.0.1", 0), 1);
  EXPECT_NE(X509_check_ip_asc(leaf_cert, "127.0.0.2", 0), 1);
  char org[64] = {};
  X509_NAME_get_text_by_NID(X509_get_subject_name(leaf_cert), NID_organizationName, org,
                            sizeof(org));
  EXPECT_STREQ(org, "system:masters");

  X509_STORE_CTX_free(ctx);
  X509_STORE_free(store);
  X509_free(leaf_cert);
  X509_free(ca_cert);
}

TEST(PkiTest, RejectsAMalformedIpAddress) {
  Result<CertificateAndKey> ca = CreateCertificateAuthority("test-ca");
  ASSERT_TRUE(ca.ok());
  Result<CertificateAndKey> leaf =
      IssueCertificate(*ca, {.common_name = "x", .ip_addresses = {"not-an-ip"}});
  EXPECT_FALSE(leaf.ok());
}

TEST(PkiTest, RejectsAnUnparsableCa) {
  Result<CertificateAndKey> leaf = IssueCertificate({"garbage", "garbage"}, {.common_name = "x"});
  ASSERT_FALSE(leaf.ok());
  EXPECT_NE(leaf.status().message().find("CA certificate"), std::string::npos);
}

TEST(PkiTest, SigningKeyPairIsPem) {
  Result<KeyPair> pair = CreateSigningKeyPair();
  ASSERT_TRUE(pair.ok());
  EXPECT_EQ(pair->private_key_pem.rfind("-----BEGIN PRIVATE KEY-----", 0), 0u);
  EXPECT_EQ(pair->public_key_pem.rfind("-----BEGIN PUBLIC KEY-----", 0), 0u);
}

}  // namespace
}  // namespace vtenant::pki
