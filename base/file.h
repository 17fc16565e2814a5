// ReadFileOrEmpty: a whole file's bytes, for the small files programs keep
// state in (pid files, tokens, /proc entries).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace vtenant {

// The bytes of `path`, or "" when it does not exist or cannot be read.
// Callers that must tell "empty" from "missing" check existence first.
inline std::string ReadFileOrEmpty(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace vtenant
