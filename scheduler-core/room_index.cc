#include "scheduler-core/room_index.h"

namespace vtenant::sched {

RoomIndex::RoomIndex(Key max_key, size_t ids)
    : max_key_(max_key),
      stride_((ids + 63) / 64 * 64),
      bits_((max_key + 1) * static_cast<int64_t>(stride_)),
      bottom_(new uint64_t[(bits_ + 63) / 64]),  // not zeroed: see upper_
      bottom_words_((bits_ + 63) / 64) {
  size_t words = bottom_words_;
  do {
    words = (words + 63) / 64;
    upper_.emplace_back(words, 0);
  } while (words > 1);
}

void RoomIndex::SetFirstInWord(int64_t at) {
  const uint64_t w = at / 64;
  bottom_[w] = uint64_t{1} << (at % 64);
  at = w;
  for (std::vector<uint64_t>& level : upper_) {
    uint64_t& word = level[at / 64];
    const bool was_zero = word == 0;
    word |= uint64_t{1} << (at % 64);
    if (!was_zero) return;
    at /= 64;
  }
}

void RoomIndex::ClearWordAbove(uint64_t w) {
  uint64_t at = w;
  for (std::vector<uint64_t>& level : upper_) {
    uint64_t& word = level[at / 64];
    word &= ~(uint64_t{1} << (at % 64));
    if (word != 0) return;
    at /= 64;
  }
}

int64_t RoomIndex::NextFromAbove(int64_t at) const {
  // Up while the rest of the word is empty, then down the first set bits;
  // every bottom word reached that way is in use.
  int64_t pos = at / 64 + 1;  // the next bottom word, as a bit of upper_[0]
  size_t l = 0;
  for (;; ++l) {
    if (l == upper_.size()) return kEnd;
    const std::vector<uint64_t>& level = upper_[l];
    const size_t w = pos / 64;
    if (w >= level.size()) return kEnd;
    const uint64_t bits = level[w] & (~uint64_t{0} << (pos % 64));
    if (bits != 0) {
      pos = w * 64 + std::countr_zero(bits);
      break;
    }
    pos = w + 1;
  }
  while (l-- > 0) pos = pos * 64 + std::countr_zero(upper_[l][pos]);
  return pos * 64 + std::countr_zero(bottom_[pos]);
}

int64_t RoomIndex::PrevFrom(int64_t at) const {
  if (at < 0) return -1;
  const uint64_t w = at / 64;
  if (Used(w)) {
    const uint64_t bits = bottom_[w] & (~uint64_t{0} >> (63 - at % 64));
    if (bits != 0) return w * 64 + 63 - std::countl_zero(bits);
  }
  int64_t pos = static_cast<int64_t>(w) - 1;  // the previous bottom word
  size_t l = 0;
  for (;; ++l) {
    if (pos < 0 || l == upper_.size()) return -1;
    const size_t word = pos / 64;
    const uint64_t bits = upper_[l][word] & (~uint64_t{0} >> (63 - pos % 64));
    if (bits != 0) {
      pos = word * 64 + 63 - std::countl_zero(bits);
      break;
    }
    pos = static_cast<int64_t>(word) - 1;
  }
  while (l-- > 0) pos = pos * 64 + 63 - std::countl_zero(upper_[l][pos]);
  return pos * 64 + 63 - std::countl_zero(bottom_[pos]);
}

}  // namespace vtenant::sched
