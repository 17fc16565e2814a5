#include "operator/base64.h"

#include <openssl/evp.h>

namespace vtenant::op {

std::string EncodeBase64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()), int(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

Result<std::string> DecodeBase64(std::string_view text) {
  if (text.size() % 4 != 0) return InvalidArgument("base64 text length is not a multiple of 4");
  std::string out(3 * text.size() / 4, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()), int(text.size()));
  if (n < 0) return InvalidArgument("not base64");
  // EVP_DecodeBlock counts the padding as zero bytes.
  size_t pad = 0;
  if (!text.empty() && text.back() == '=') ++pad;
  if (text.size() > 1 && text[text.size() - 2] == '=') ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

}  // namespace vtenant::op
