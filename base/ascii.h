// ASCII case for the names of protocols and headers, which are ASCII by
// definition (a locale-aware tolower could map them otherwise).
#pragma once

#include <string>
#include <string_view>

namespace vtenant {

// `text` with A-Z as a-z; every other byte as it was.
inline std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace vtenant
