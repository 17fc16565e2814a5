#include "base/secret_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "base/file.h"
#include "base/testing/temp_dir.h"

namespace vtenant {
namespace {

namespace fs = std::filesystem;

mode_t Mode(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

class SecretFileTest : public testing::Test {
 protected:
  void SetUp() override {
    old_umask_ = ::umask(0);  // the most permissive umask: modes must not widen
  }
  void TearDown() override { ::umask(old_umask_); }
  TempDir temp_{"vtenant-secret-file"};
  const fs::path dir_ = temp_.path();
  mode_t old_umask_ = 0;
};

TEST_F(SecretFileTest, CreatesOwnerOnlyFilesInOwnerOnlyFolders) {
  const fs::path file = dir_ / "a" / "b" / "admin.key";
  ASSERT_TRUE(WriteSecretFile(file, "key material").ok());
  EXPECT_EQ(ReadFileOrEmpty(file), "key material");
  EXPECT_EQ(Mode(file), 0600u);
  EXPECT_EQ(Mode(dir_ / "a"), 0700u);
  EXPECT_EQ(Mode(dir_ / "a" / "b"), 0700u);
}

TEST_F(SecretFileTest, ReplacesAReadableFileAndNarrowsItsFolder) {
  const fs::path folder = dir_ / "pki";
  fs::create_directories(folder);
  fs::permissions(folder, fs::perms::all);
  const fs::path file = folder / "ca.key";
  std::ofstream(file) << "old";
  fs::permissions(file, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
  ASSERT_TRUE(WriteSecretFile(file, "new").ok());
  EXPECT_EQ(ReadFileOrEmpty(file), "new");
  EXPECT_EQ(Mode(file), 0600u);
  EXPECT_EQ(Mode(folder), 0700u);
  // Nothing else is left in the folder: no temporary file.
  EXPECT_EQ(std::distance(fs::directory_iterator(folder), fs::directory_iterator()), 1);
}

TEST_F(SecretFileTest, ASymlinkInTheWayIsReplacedNotFollowed) {
  const fs::path target = dir_ / "elsewhere";
  std::ofstream(target) << "untouched";
  const fs::path link = dir_ / "token";
  fs::create_symlink(target, link);
  ASSERT_TRUE(WriteSecretFile(link, "secret").ok());
  EXPECT_EQ(ReadFileOrEmpty(target), "untouched");
  EXPECT_FALSE(fs::is_symlink(link));
  EXPECT_EQ(ReadFileOrEmpty(link), "secret");
  EXPECT_EQ(Mode(link), 0600u);
}

TEST_F(SecretFileTest, FailuresAreReturned) {
  const fs::path not_a_folder = dir_ / "plain";
  std::ofstream(not_a_folder) << "x";
  Status s = WriteSecretFile(not_a_folder / "admin.kubeconfig", "x");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("plain"), std::string::npos) << s.ToString();
  EXPECT_FALSE(EnsurePrivateDirectory(not_a_folder).ok());
  EXPECT_FALSE(WriteSecretFile(dir_ / "", "x").ok());
  // A folder in the way of the file itself: the rename fails, no leftovers.
  fs::create_directories(dir_ / "busy" / "sa.key");
  EXPECT_FALSE(WriteSecretFile(dir_ / "busy" / "sa.key", "x").ok());
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "busy"), fs::directory_iterator()), 1);
}

}  // namespace
}  // namespace vtenant
