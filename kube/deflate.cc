#include "kube/deflate.h"

#include <zlib.h>

#include <cstdint>
#include <cstring>

namespace vtenant::kube {
namespace {

// zlib format, whose 6 bytes carry the dictionary's id and a checksum, so a
// wrong dictionary or a damaged entry is an error rather than other text;
// an 8 KiB window, enough for an object and a dictionary of a few KiB, and
// a small hash table: 48 KiB to deflate instead of zlib's default 256.
constexpr int kWindowBits = 13;
constexpr int kMemLevel = 5;
constexpr size_t kLengthBytes = 4;

const Bytef* Bytes(std::string_view s) { return reinterpret_cast<const Bytef*>(s.data()); }

}  // namespace

std::string DeflateWithDictionary(std::string_view text, std::string_view dictionary) {
  z_stream z{};
  // Fails only for bad parameters or no memory; the constants are valid.
  int rc = deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, kWindowBits, kMemLevel, Z_DEFAULT_STRATEGY);
  if (rc != Z_OK) abort();
  if (!dictionary.empty()) {
    deflateSetDictionary(&z, Bytes(dictionary), static_cast<uInt>(dictionary.size()));
  }
  std::string out(kLengthBytes + deflateBound(&z, static_cast<uLong>(text.size())), '\0');
  const uint32_t length = static_cast<uint32_t>(text.size());
  for (size_t i = 0; i < kLengthBytes; ++i) out[i] = static_cast<char>(length >> (8 * i));
  z.next_in = const_cast<Bytef*>(Bytes(text));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data() + kLengthBytes);
  z.avail_out = static_cast<uInt>(out.size() - kLengthBytes);
  rc = deflate(&z, Z_FINISH);  // deflateBound leaves room, so one call ends it
  if (rc != Z_STREAM_END) abort();
  out.resize(kLengthBytes + z.total_out);
  deflateEnd(&z);
  out.shrink_to_fit();
  return out;
}

Result<std::string> InflateWithDictionary(std::string_view data, std::string_view dictionary) {
  if (data.size() < kLengthBytes) return Status(StatusCode::kInternal, "deflated text too short");
  uint32_t length = 0;
  for (size_t i = 0; i < kLengthBytes; ++i) {
    length |= static_cast<uint32_t>(static_cast<unsigned char>(data[i])) << (8 * i);
  }
  z_stream z{};
  if (inflateInit2(&z, kWindowBits) != Z_OK) {
    return Status(StatusCode::kResourceExhausted, "inflate: out of memory");
  }
  std::string out(length, '\0');
  z.next_in = const_cast<Bytef*>(Bytes(data.substr(kLengthBytes)));
  z.avail_in = static_cast<uInt>(data.size() - kLengthBytes);
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = length;
  int rc = inflate(&z, Z_FINISH);
  if (rc == Z_NEED_DICT) {
    // Fails when the id in the stream is not this dictionary's.
    rc = inflateSetDictionary(&z, Bytes(dictionary), static_cast<uInt>(dictionary.size()));
    if (rc == Z_OK) rc = inflate(&z, Z_FINISH);
  }
  const bool whole = rc == Z_STREAM_END && z.total_out == length;
  inflateEnd(&z);
  if (!whole) return Status(StatusCode::kInternal, "deflated text is corrupt or truncated");
  return out;
}

}  // namespace vtenant::kube
