// Interned strings: label keys, label values, GPU models and MIG profiles
// become small integers once, so the hot loops compare integers.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace vtenant::sched {

using StringId = uint32_t;
inline constexpr StringId kNoString = UINT32_MAX;

class Interner {
 public:
  // Returns the id of `s`, adding it on first sight.
  StringId Intern(std::string_view s) {
    auto it = ids_.find(s);
    if (it != ids_.end()) return it->second;
    StringId id = static_cast<StringId>(strings_.size());
    strings_.emplace_back(s);
    ids_.emplace(strings_.back(), id);
    return id;
  }

  // kNoString when `s` was never interned (so nothing can carry it).
  StringId Find(std::string_view s) const {
    auto it = ids_.find(s);
    return it == ids_.end() ? kNoString : it->second;
  }

  const std::string& Get(StringId id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }

 private:
  std::vector<std::string> strings_;
  std::map<std::string, StringId, std::less<>> ids_;
};

}  // namespace vtenant::sched
