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
  EXPECT_EQ(CertificateSecretData(*certs).size(), 18u);
  // The API server's identity towards kubelets and the syncer's kubelet
  // endpoint: the tenant's CA, one name the endpoint accepts, loopback.
  EXPECT_TRUE(
      *CertificateSignedBy(certs->kubelet_client.certificate_pem, certs->ca.certificate_pem));
  EXPECT_NE(CertificateSecretData(*certs)["kubelet-client.crt"], "");
  EXPECT_TRUE(
      *CertificateSignedBy(certs->syncer_kubelet.certificate_pem, certs->ca.certificate_pem));
  EXPECT_TRUE(
      *CertificateCoversNames(certs->syncer_kubelet.certificate_pem, {"localhost"}, {"127.0.0.1"}));
  // The team's credential has a CA of its own and is not system:masters.
  EXPECT_TRUE(*CertificateSignedBy(certs->tenant_admin.certificate_pem,
                                   certs->tenant_admin_ca.certificate_pem));
  EXPECT_FALSE(
      *CertificateSignedBy(certs->tenant_admin.certificate_pem, certs->ca.certificate_pem));
  EXPECT_TRUE(
      *CertificateSignedBy(certs->operator_client.certificate_pem, certs->ca.certificate_pem));
  EXPECT_EQ(ClientCaBundle(*certs),
            certs->ca.certificate_pem + certs->tenant_admin_ca.certificate_pem);
}

// The credentials that leave the control plane live a day by default and
// are renewed once half of it is gone; the others are left alone.
TEST(CertificatesTest, TeamAndOperatorCredentialsAreShortLivedAndRenewedAtHalfLife) {
  CertificateChanges changes;
  auto now = system_clock::now();
  TenantCertificates first = *EnsureCertificates({}, Policy(), now, &changes);
  auto life = *CertificateNotAfter(first.tenant_admin.certificate_pem) - now;
  // A certificate's times are whole seconds, and issuing may cross into the
  // next one: a second of slack.
  const auto second = std::chrono::seconds(1);
  EXPECT_LE(life, hours(24) + second);
  EXPECT_GT(life, hours(23));
  EXPECT_LE(*CertificateNotAfter(first.operator_client.certificate_pem) - now, hours(24) + second);

  TenantCertificates early =
      *EnsureCertificates(CertificateSecretData(first), Policy(), now + hours(11), &changes);
  EXPECT_FALSE(changes.any()) << changes.reason;
  TenantCertificates later =
      *EnsureCertificates(CertificateSecretData(first), Policy(), now + hours(13), &changes);
  EXPECT_TRUE(changes.leaves_reissued);
  EXPECT_FALSE(changes.tenant_admin_rotated);
  EXPECT_NE(later.tenant_admin.certificate_pem, first.tenant_admin.certificate_pem);
  EXPECT_NE(later.operator_client.certificate_pem, first.operator_client.certificate_pem);
  EXPECT_EQ(later.tenant_admin_ca.certificate_pem, first.tenant_admin_ca.certificate_pem);
  EXPECT_EQ(later.admin.certificate_pem, first.admin.certificate_pem);
  EXPECT_EQ(later.apiserver.certificate_pem, first.apiserver.certificate_pem);
  (void)early;

  CertificatePolicy hourly = Policy();
  hourly.tenant_admin_valid_for = hours(1);
  TenantCertificates short_lived = *EnsureCertificates({}, hourly, now, &changes);
  EXPECT_LE(*CertificateNotAfter(short_lived.tenant_admin.certificate_pem) - now,
            hours(1) + second);
}

// A rotation replaces the team's CA once, so every credential it signed is
// refused; the rotation carried out is kept with the certificates.
TEST(CertificatesTest, RotationReplacesTheTeamsCaOnce) {
  CertificateChanges changes;
  auto now = system_clock::now();
  TenantCertificates first = *EnsureCertificates({}, Policy(), now, &changes);
  CertificatePolicy rotate = Policy();
  rotate.rotation = "2026-12-02T10:00:00Z";
  TenantCertificates rotated =
      *EnsureCertificates(CertificateSecretData(first), rotate, now, &changes);
  EXPECT_TRUE(changes.tenant_admin_rotated);
  EXPECT_NE(changes.reason.find("rotation"), std::string::npos) << changes.reason;
  EXPECT_EQ(rotated.rotation, rotate.rotation);
  EXPECT_EQ(CertificateSecretData(rotated).at("rotation"), rotate.rotation);
  EXPECT_NE(rotated.tenant_admin_ca.certificate_pem, first.tenant_admin_ca.certificate_pem);
  EXPECT_FALSE(*CertificateSignedBy(first.tenant_admin.certificate_pem,
                                    rotated.tenant_admin_ca.certificate_pem));
  EXPECT_EQ(rotated.ca.certificate_pem, first.ca.certificate_pem);
  EXPECT_EQ(rotated.operator_client.certificate_pem, first.operator_client.certificate_pem);

  TenantCertificates again =
      *EnsureCertificates(CertificateSecretData(rotated), rotate, now, &changes);
  EXPECT_FALSE(changes.any()) << changes.reason;
  EXPECT_EQ(again.tenant_admin_ca.certificate_pem, rotated.tenant_admin_ca.certificate_pem);
  // No rotation asked for (the annotation removed): nothing happens either.
  ASSERT_TRUE(EnsureCertificates(CertificateSecretData(rotated), Policy(), now, &changes).ok());
  EXPECT_FALSE(changes.any()) << changes.reason;
}

TEST(CertificatesTest, ValidSetIsKeptAsIs) {
  CertificateChanges changes;
  auto now = system_clock::now();
  TenantCertificates first = *EnsureCertificates({}, Policy(), now, &changes);
  Result<TenantCertificates> again =
      EnsureCertificates(CertificateSecretData(first), Policy(), now + hours(1), &changes);
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

TEST(CertificatesTest, ControlPlanePkiFilesHoldNoCaKey) {
  CertificateChanges changes;
  Result<TenantCertificates> certs =
      EnsureCertificates({}, Policy(), system_clock::now(), &changes);
  ASSERT_TRUE(certs.ok()) << certs.status().ToString();
  std::map<std::string, std::string> files;
  for (const auto& [name, text] : ControlPlanePkiFiles(*certs)) {
    EXPECT_FALSE(text.empty()) << name;
    EXPECT_TRUE(files.emplace(name, text).second) << name << " twice";
  }
  EXPECT_EQ(files.size(), 10u);
  EXPECT_EQ(files["client-ca.crt"], ClientCaBundle(*certs));
  EXPECT_EQ(files["sa.pub"], certs->service_account.public_key_pem);
  EXPECT_FALSE(files.contains("ca.key"));
  EXPECT_FALSE(files.contains("tenant-admin-ca.key"));
}

TEST(CertificatesTest, GarbageIsAnError) {
  EXPECT_FALSE(CertificateNotAfter("not a certificate").ok());
}

}  // namespace
}  // namespace vtenant::op
