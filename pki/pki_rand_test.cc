// What pki does when OpenSSL's random generator fails. The failure is made
// with a RAND_METHOD of the test's own (deprecated in OpenSSL 3, and still
// asked first by RAND_bytes), installed for one test at a time.
#define OPENSSL_SUPPRESS_DEPRECATED

#include <gtest/gtest.h>
#include <openssl/rand.h>

#include <random>

#include "pki/pki.h"

namespace vtenant::pki {
namespace {

// Random bytes from std::random_device, except that a request of
// `fail_length` bytes fails. Keys (32 bytes and more at a time) can still be
// made; a certificate's serial (16 bytes) cannot.
size_t fail_length = 0;

int Bytes(unsigned char* buffer, int length) {
  if (static_cast<size_t>(length) == fail_length) return 0;
  std::random_device device;
  for (int i = 0; i < length; ++i) buffer[i] = static_cast<unsigned char>(device());
  return 1;
}
int RandStatus() { return 1; }

const RAND_METHOD kFailingMethod = {
    .seed = nullptr,
    .bytes = Bytes,
    .cleanup = nullptr,
    .add = nullptr,
    .pseudorand = Bytes,
    .status = RandStatus,
};

class FailingRandom {
 public:
  explicit FailingRandom(size_t length) : saved_(RAND_get_rand_method()) {
    fail_length = length;
    RAND_set_rand_method(&kFailingMethod);
  }
  ~FailingRandom() {
    RAND_set_rand_method(saved_);
    fail_length = 0;
  }

 private:
  const RAND_METHOD* saved_;
};

TEST(PkiRandTest, NoCertificateWithoutARandomSerial) {
  FailingRandom failing(16);
  Result<CertificateAndKey> ca = CreateCertificateAuthority("test-ca");
  ASSERT_FALSE(ca.ok());
  EXPECT_NE(ca.status().message().find("serial"), std::string::npos) << ca.status().ToString();
}

TEST(PkiRandTest, TheTestsGeneratorMakesCertificatesWhenItDoesNotFail) {
  FailingRandom failing(0);
  Result<CertificateAndKey> ca = CreateCertificateAuthority("test-ca");
  EXPECT_TRUE(ca.ok()) << ca.status().ToString();
}

}  // namespace
}  // namespace vtenant::pki
