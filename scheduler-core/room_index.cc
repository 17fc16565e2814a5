#include "scheduler-core/room_index.h"

namespace vtenant::sched {

RoomIndex::RoomIndex(Key max_key, size_t ids)
    : max_key_(max_key),
      stride_((ids + 63) / 64 * 64),
      bits_((max_key + 1) * static_cast<int64_t>(stride_)) {
  size_t bits = bits_;
  do {
    const size_t words = (bits + 63) / 64;
    levels_.emplace_back(words, 0);
    bits = words;
  } while (bits > 1);
}

void RoomIndex::Set(int64_t at) {
  for (std::vector<uint64_t>& level : levels_) {
    uint64_t& word = level[at / 64];
    const bool was_zero = word == 0;
    word |= uint64_t{1} << (at % 64);
    if (!was_zero) return;
    at /= 64;
  }
}

void RoomIndex::Clear(int64_t at) {
  for (std::vector<uint64_t>& level : levels_) {
    uint64_t& word = level[at / 64];
    word &= ~(uint64_t{1} << (at % 64));
    if (word != 0) return;
    at /= 64;
  }
}

void RoomIndex::Insert(Key key, Id id) {
  Set(key * static_cast<int64_t>(stride_) + id);
  ++size_;
}

void RoomIndex::Erase(Key key, Id id) {
  Clear(key * static_cast<int64_t>(stride_) + id);
  --size_;
}

int64_t RoomIndex::NextFromAbove(int64_t at) const {
  // Up while the rest of the word is empty, then down the first set bits.
  size_t l = 0;
  for (;; ++l) {
    if (l == levels_.size()) return kEnd;
    const std::vector<uint64_t>& level = levels_[l];
    const size_t w = at / 64;
    if (w >= level.size()) return kEnd;
    const uint64_t bits = level[w] & (~uint64_t{0} << (at % 64));
    if (bits != 0) {
      at = w * 64 + std::countr_zero(bits);
      break;
    }
    at = w + 1;
  }
  while (l-- > 0) at = at * 64 + std::countr_zero(levels_[l][at]);
  return at;
}

int64_t RoomIndex::PrevFrom(int64_t at) const {
  size_t l = 0;
  for (;; ++l) {
    if (at < 0 || l == levels_.size()) return -1;
    const size_t w = at / 64;
    const uint64_t bits = levels_[l][w] & (~uint64_t{0} >> (63 - at % 64));
    if (bits != 0) {
      at = w * 64 + 63 - std::countl_zero(bits);
      break;
    }
    at = static_cast<int64_t>(w) - 1;
  }
  while (l-- > 0) at = at * 64 + 63 - std::countl_zero(levels_[l][at]);
  return at;
}

}  // namespace vtenant::sched
