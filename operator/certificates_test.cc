#include "operator/certificates.h"

#include <gtest/gtest.h>

namespace vtenant::op {
namespace {

using std::chrono::hours;
using std::chrono::system_clock;

CertificatePolicy Policy() { return DefaultCertificatePolicy("nlp", "vtenant-nlp"); }

TEST(CertificatesTest, CreatesACompleteSetFromNothing) {
  CertificateChanges changes;
  Result<TenantCertificates> certs =
      EnsureCertificates({}, Policy(), system_clock::now(), &changes);
  ASSERT_TRUE(certs.ok()) << certs.status().ToString();
  EXPECT_TRUE(changes.ca_created);
  EXPECT_TRUE(changes.service_account_created);
  EXPECT_TRUE(*CertificateSignedBy(certs->apiserver.certificate_pem, certs->ca.certificate_pem));
  EXPECT_TRUE(*CertificateSignedBy(certs->admin.certificate_pem, certs->ca.certificate_pem));
  EXPECT_TRUE(*CertificateCoversNames(
      certs->apiserver.certificate_pem,
      {"localhost", "kubernetes.default.svc", "vc-nlp.vtenant-nlp.svc"}, {"127.0.0.1"}));
  EXPECT_FALSE(*CertificateCoversNames(certs->apiserver.certificate_pem, {"vc-other"}, {}));
  EXPECT_FALSE(certs->service_account.private_key_pem.empty());
  EXPECT_EQ(CertificateSecretData(*certs).size(), 8u);
}

TEST(CertificatesTest, ValidSetIsKeptAsIs) {
  CertificateChanges changes;
  auto now = system_clock::now();
  TenantCertificates first = *EnsureCertificates({}, Policy(), now, &changes);
  Result<TenantCertificates> again =
      EnsureCertificates(CertificateSecretData(first), Policy(), now + hours(24), &changes);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(changes.any()) << changes.reason;
  EXPECT_EQ(again->apiserver.certificate_pem, first.apiserver.certificate_pem);
  EXPECT_EQ(again->ca.private_key_pem, first.ca.private_key_pem);
}

TEST(CertificatesTest, LeavesAreRenewedBeforeExpiryWithTheSameCa) {
  CertificateChanges changes;
  auto now = system_clock::now();
  TenantCertificates first = *EnsureCertificates({}, Policy(), now, &changes);
  // 340 days on, the one-year leaves expire within the 30-day window.
  auto later = now + hours(24 * 340);
  Result<TenantCertificates> renewed =
      EnsureCertificates(CertificateSecretData(first), Policy(), later, &changes);
  ASSERT_TRUE(renewed.ok());
  EXPECT_TRUE(changes.leaves_reissued);
  EXPECT_FALSE(changes.ca_created);
  EXPECT_FALSE(changes.service_account_created);
  EXPECT_NE(changes.reason.find("expires"), std::string::npos) << changes.reason;
  EXPECT_EQ(renewed->ca.certificate_pem, first.ca.certificate_pem);
  EXPECT_EQ(renewed->service_account.private_key_pem, first.service_account.private_key_pem);
  EXPECT_NE(renewed->apiserver.certificate_pem, first.apiserver.certificate_pem);
  // Issued now (OpenSSL's clock), so it expires no earlier than the old one.
  EXPECT_GE(*CertificateNotAfter(renewed->apiserver.certificate_pem),
            *CertificateNotAfter(first.apiserver.certificate_pem));
}

TEST(CertificatesTest, ExpiringCaReplacesEverythingButTheTokenKey) {
  CertificateChanges changes;
  auto now = system_clock::now();
  TenantCertificates first = *EnsureCertificates({}, Policy(), now, &changes);
  Result<TenantCertificates> renewed =
      EnsureCertificates(CertificateSecretData(first), Policy(), now + hours(24 * 3640), &changes);
  ASSERT_TRUE(renewed.ok());
  EXPECT_TRUE(changes.ca_created);
  EXPECT_NE(renewed->ca.certificate_pem, first.ca.certificate_pem);
  EXPECT_TRUE(*CertificateSignedBy(renewed->admin.certificate_pem, renewed->ca.certificate_pem));
  EXPECT_EQ(renewed->service_account.public_key_pem, first.service_account.public_key_pem);
}

TEST(CertificatesTest, NewSanOrForeignSignatureReissues) {
  CertificateChanges changes;
  auto now = system_clock::now();
  TenantCertificates first = *EnsureCertificates({}, Policy(), now, &changes);
  CertificatePolicy wider = Policy();
  wider.dns_names.push_back("nlp.example.com");
  TenantCertificates second =
      *EnsureCertificates(CertificateSecretData(first), wider, now, &changes);
  EXPECT_TRUE(changes.leaves_reissued);
  EXPECT_TRUE(*CertificateCoversNames(second.apiserver.certificate_pem, {"nlp.example.com"}, {}));

  TenantCertificates other = *EnsureCertificates({}, Policy(), now, &changes);
  auto mixed = CertificateSecretData(first);
  mixed["admin.crt"] = other.admin.certificate_pem;
  mixed["admin.key"] = other.admin.private_key_pem;
  TenantCertificates fixed = *EnsureCertificates(mixed, Policy(), now, &changes);
  EXPECT_TRUE(changes.leaves_reissued);
  EXPECT_NE(changes.reason.find("not signed"), std::string::npos) << changes.reason;
  EXPECT_TRUE(*CertificateSignedBy(fixed.admin.certificate_pem, first.ca.certificate_pem));
}

TEST(CertificatesTest, GarbageIsAnError) {
  EXPECT_FALSE(CertificateNotAfter("not a certificate").ok());
}

}  // namespace
}  // namespace vtenant::op
