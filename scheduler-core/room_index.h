// An ordered set of (key, id) pairs with small non-negative integer keys and
// ids: the free-GPU and shared-device indexes of ClusterState, keyed by
// milli-GPU.
//
// One bit per possible pair, at position key * stride + id, so the bits in
// ascending order are the pairs in the order of a std::set of pairs; above
// them, one bit per 64-bit word below that is not zero, level by level up
// to a single word. Adding, removing or moving an entry sets or clears a bit
// on each level, and a walk finds the next entry in a few word reads, with
// no tree node per entry to allocate, chase or re-balance. Memory is one bit
// per possible pair, (largest key + 1) * ids / 8 bytes: 5 MB for each of the
// two indexes of 5,000 nodes with 8 GPUs each, of which only the levels
// above the bottom (1/64 of it) are zeroed when built.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace vtenant::sched {

class RoomIndex {
 public:
  using Key = int64_t;
  using Id = uint32_t;
  using Entry = std::pair<Key, Id>;

  RoomIndex() : RoomIndex(0, 0) {}
  // Room for keys 0..max_key and ids 0..ids-1.
  RoomIndex(Key max_key, size_t ids);

  // Adds (key, id), which must not be present and must be in range.
  // Inline for the common case, a bottom word that has other entries
  // before and after: one bit flipped, nothing above it touched.
  void Insert(Key key, Id id) {
    const int64_t at = key * static_cast<int64_t>(stride_) + id;
    const uint64_t w = static_cast<uint64_t>(at) / 64;
    if (Used(w)) {
      bottom_[w] |= uint64_t{1} << (at % 64);
    } else {
      SetFirstInWord(at);
    }
    ++size_;
  }
  // Removes (key, id), which must be present.
  void Erase(Key key, Id id) {
    const int64_t at = key * static_cast<int64_t>(stride_) + id;
    const uint64_t w = static_cast<uint64_t>(at) / 64;
    bottom_[w] &= ~(uint64_t{1} << (at % 64));
    if (bottom_[w] == 0) ClearWordAbove(w);
    --size_;
  }
  // Erase(from, id) then Insert(to, id).
  void Move(Key from, Key to, Id id) {
    Erase(from, id);
    Insert(to, id);
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // Walks upwards (ascending key, then id) or, reversed, downwards. A walk
  // keeps the rest of the bitmap word it stands in, so a step to the next
  // entry of the same word reads no memory and divides nothing (a word's
  // entries share one key: the stride is whole words); the index must not
  // change while a walk is in use.
  template <bool kReverse>
  class Walk {
   public:
    const Entry& operator*() const { return entry_; }
    const Entry* operator->() const { return &entry_; }
    Walk& operator++() {
      const int64_t base = at_ & ~int64_t{63};
      if constexpr (kReverse) {
        rest_ &= ~(uint64_t{1} << (at_ & 63));
        if (rest_ == 0) return Seek(index_->PrevFrom(base - 1));
        const int64_t next = base + 63 - std::countl_zero(rest_);
        entry_.second -= static_cast<Id>(at_ - next);
        at_ = next;
      } else {
        rest_ &= rest_ - 1;
        if (rest_ == 0) return Seek(index_->NextFrom(base + 64));
        const int64_t next = base + std::countr_zero(rest_);
        entry_.second += static_cast<Id>(next - at_);
        at_ = next;
      }
      return *this;
    }
    bool operator==(const Walk& o) const { return at_ == o.at_; }

   private:
    friend class RoomIndex;
    Walk(const RoomIndex* index, int64_t at) : index_(index) { Seek(at); }
    Walk& Seek(int64_t at) {
      at_ = at;
      entry_ = index_->EntryAt(at);
      if (at < 0 || at == kEnd) {
        rest_ = 0;
        return *this;
      }
      const uint64_t word = index_->bottom_[static_cast<uint64_t>(at) / 64];
      rest_ =
          kReverse ? word & (~uint64_t{0} >> (63 - at % 64)) : word & (~uint64_t{0} << (at % 64));
      return *this;
    }
    const RoomIndex* index_;
    int64_t at_;     // bit position; kEnd (or -1 reversed) past the last entry
    uint64_t rest_;  // at_'s word from at_ on (reversed: up to at_), at_ included
    Entry entry_;    // what at_ stands for
  };
  using Iterator = Walk<false>;
  using ReverseIterator = Walk<true>;

  Iterator begin() const { return From(0); }
  Iterator end() const { return Iterator(this, kEnd); }
  // The first entry whose key is at least `key` (any key, even past the
  // largest or below zero), or end().
  Iterator From(Key key) const {
    if (key > max_key_) return end();
    return Iterator(this, NextFrom(key < 0 ? 0 : key * stride_));
  }
  // The first entry at or after (key, id) in walk order, or end(); `id`
  // below the index's id count.
  Iterator From(Key key, Id id) const {
    if (key > max_key_) return end();
    if (key < 0) return From(0);
    return Iterator(this, NextFrom(key * static_cast<int64_t>(stride_) + id));
  }
  ReverseIterator rbegin() const { return ReverseIterator(this, PrevFrom(bits_ - 1)); }
  ReverseIterator rend() const { return ReverseIterator(this, -1); }

 private:
  static constexpr int64_t kEnd = INT64_MAX;
  Entry EntryAt(int64_t at) const {
    if (at < 0 || at == kEnd) return {-1, 0};
    return {at / static_cast<int64_t>(stride_), static_cast<Id>(at % stride_)};
  }
  // Whether bottom word w holds entries; when not, its bits are left as
  // they were (never zeroed) and read as empty.
  bool Used(uint64_t w) const { return (upper_[0][w / 64] >> (w % 64)) & 1; }
  // The first set bit at or after `at` (>= 0), or kEnd. Inline for the
  // common start of a walk, an entry in the same word.
  int64_t NextFrom(int64_t at) const {
    const uint64_t w = static_cast<uint64_t>(at) / 64;
    if (w < bottom_words_ && Used(w)) {
      const uint64_t rest = bottom_[w] & (~uint64_t{0} << (at % 64));
      if (rest != 0) return static_cast<int64_t>(w * 64 + std::countr_zero(rest));
    }
    return NextFromAbove(at);
  }
  // The first set bit in a bottom word after at's, or kEnd.
  int64_t NextFromAbove(int64_t at) const;
  // The last set bit at or before `at`, or -1.
  int64_t PrevFrom(int64_t at) const;
  // Insert's and Erase's way up: the bottom word of `at` gets its first
  // entry; bottom word `w` lost its last.
  void SetFirstInWord(int64_t at);
  void ClearWordAbove(uint64_t w);

  Key max_key_;
  size_t stride_;  // ids, rounded up to whole words
  int64_t bits_;   // (max_key + 1) * stride
  // The bottom level, one bit per pair, is not zeroed when built (5 MB
  // for 5,000 nodes, built every cycle): a word counts only while its bit
  // one level up is set, and is written whole when it gets its first
  // entry. upper_[0]: one bit per bottom word (zeroed); upper_[l + 1]:
  // one per word of upper_[l], up to a single word.
  std::unique_ptr<uint64_t[]> bottom_;
  size_t bottom_words_;
  std::vector<std::vector<uint64_t>> upper_;
  size_t size_ = 0;
};

}  // namespace vtenant::sched
