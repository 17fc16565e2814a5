// WriteSecretFile: the one way vtenant puts a key, certificate, token or
// kubeconfig on disk.
//
// A secret must never be readable by anyone but its owner, not even for the
// moment between creating a file and changing its mode, and a reader must
// see the old file or the new one, never half of either. So the file is
// created fresh (O_EXCL, never through a symlink someone left) with mode
// 0600 in a directory of mode 0700, written, fsynced, then renamed over the
// old one and the directory fsynced. Every step of the write that fails is
// returned (Internal, with errno's text, or EnsurePrivateDirectory's
// codes); only a write interrupted by a signal is retried. The clean-up
// after a failure, and closing the directory after its fsync, are best
// effort. The process umask can only narrow these
// modes, never widen them.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>

#include "base/status.h"

namespace vtenant {

namespace secret_file_internal {

inline Status Errno(const std::string& what, const std::filesystem::path& path, int error) {
  return Internal(what + " " + path.string() + ": " + std::strerror(error));
}

inline Status FsyncPath(const std::filesystem::path& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open", path, errno);
  const int synced = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (synced != 0) return Errno("cannot fsync", path, error);
  return Status::Ok();
}

}  // namespace secret_file_internal

// Makes `dir` exist with mode 0700: missing folders on the way are created
// 0700, and an existing `dir` that others may enter or read is narrowed to
// 0700 (its parents are left alone: /tmp stays /tmp). InvalidArgument for
// an empty path, FailedPrecondition when `dir` is not a directory, Internal
// when it cannot be resolved, created, inspected or narrowed.
inline Status EnsurePrivateDirectory(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  if (dir.empty()) return InvalidArgument("no directory named");
  std::error_code ec;
  const fs::path absolute = fs::absolute(dir, ec);
  if (ec) return Internal("cannot resolve " + dir.string() + ": " + ec.message());
  fs::path partial;
  for (const fs::path& part : absolute.lexically_normal()) {
    partial /= part;
    if (partial == partial.root_path()) continue;
    if (::mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST) {
      return secret_file_internal::Errno("cannot create", partial, errno);
    }
  }
  struct stat st {};
  if (::stat(absolute.c_str(), &st) != 0) {
    return secret_file_internal::Errno("cannot inspect", absolute, errno);
  }
  if (!S_ISDIR(st.st_mode)) return FailedPrecondition(absolute.string() + " is not a directory");
  if ((st.st_mode & 077) != 0 && ::chmod(absolute.c_str(), 0700) != 0) {
    return secret_file_internal::Errno("cannot make private", absolute, errno);
  }
  return Status::Ok();
}

// Replaces `path` with `contents`, readable and writable by the owner only
// (0600), in a directory made private with EnsurePrivateDirectory. Atomic
// and durable: after it returns OK the new contents survive a crash, and at
// no time does `path` hold anything but the old or the new contents. On a
// failure before the rename the temporary file is removed and `path` is
// untouched; a failure to fsync the directory is returned although the new
// contents are already in place. InvalidArgument when `path` names no file.
// Safe to call from several threads, also for one path: the temporary
// names differ, and the last rename wins.
inline Status WriteSecretFile(const std::filesystem::path& path, std::string_view contents) {
  namespace fs = std::filesystem;
  if (!path.has_filename()) return InvalidArgument("no file named in " + path.string());
  const fs::path dir = fs::absolute(path).parent_path();
  VT_RETURN_IF_ERROR(EnsurePrivateDirectory(dir));
  static std::atomic<unsigned> sequence{0};
  const fs::path tmp = dir / ("." + path.filename().string() + "." + std::to_string(::getpid()) +
                              "." + std::to_string(sequence++) + ".tmp");
  const int fd =
      ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, S_IRUSR | S_IWUSR);
  if (fd < 0) return secret_file_internal::Errno("cannot create", tmp, errno);
  auto fail = [&](const std::string& what, int error) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return secret_file_internal::Errno(what, tmp, error);
  };
  for (size_t written = 0; written < contents.size();) {
    const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("cannot write", errno);
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) return fail("cannot fsync", errno);
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(tmp.c_str());
    return secret_file_internal::Errno("cannot close", tmp, error);
  }
  if (::rename(tmp.c_str(), fs::absolute(path).c_str()) != 0) {
    const int error = errno;
    ::unlink(tmp.c_str());
    return secret_file_internal::Errno("cannot rename into place", path, error);
  }
  return secret_file_internal::FsyncPath(dir, O_RDONLY | O_DIRECTORY);
}

}  // namespace vtenant
