// TempDir: one test's own folder, removed with everything in it when the
// test is done, so that no run leaves files behind in /tmp.
//
// Every test that writes files takes its folder from here, so that one
// setting keeps them all for a look: with VTENANT_KEEP_TEST_DIRS set, the
// folder stays and its path is printed on stderr.
#pragma once

#include <stdlib.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>
#include <system_error>

namespace vtenant {

class TempDir {
 public:
  // Creates <system temp folder>/<prefix>-XXXXXX, private to this user.
  // Throws std::system_error if it cannot (a test framework reports a throw
  // from a fixture or a test body as that test's failure).
  explicit TempDir(std::string_view prefix = "vtenant-test") {
    std::string pattern =
        (std::filesystem::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
    }
    path_ = std::move(pattern);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Removes the folder and all below it, unless VTENANT_KEEP_TEST_DIRS is set.
  ~TempDir() {
    if (std::getenv("VTENANT_KEEP_TEST_DIRS") != nullptr) {
      std::cerr << "kept " << path_ << "\n";
      return;
    }
    std::error_code ignored;  // a test that failed half-way may have left anything
    std::filesystem::remove_all(path_, ignored);
  }

  // The folder's absolute path.
  const std::string& path() const { return path_; }

  // `name` inside the folder; nothing is created.
  std::string File(std::string_view name) const { return path_ + "/" + std::string(name); }

 private:
  std::string path_;
};

}  // namespace vtenant
