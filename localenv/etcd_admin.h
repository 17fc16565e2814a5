// EtcdAdmin: etcd's users, roles and keys, managed as its root user through
// the JSON gateway etcd serves on its client port (/v3/auth/..., /v3/kv/...).
//
// Several API servers share one etcd, each under a prefix of its own. With
// authentication on, each gets an etcd user (the common name of its client
// certificate, which etcd takes as the user on its gRPC port) whose role
// may read and write its own prefix and nothing else, so one compromised
// control plane cannot read another's data. The gateway cannot pass a
// certificate's name on (and refuses certificates that carry one once
// authentication is on), so root acts there with a certificate that names
// no one, its password and the token etcd gives for it.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "localenv/etcd_server.h"

namespace vtenant::localenv {

class EtcdAdmin {
 public:
  // A client of `url` as root (`root`: the administrator's certificate,
  // EtcdServer::client_tls(), and root's password). A `root` that names no
  // file at all is a client of an etcd that asks for no credentials (plain
  // HTTP, authentication off: one given to the operator by its address).
  // Otherwise FailedPrecondition when a credential file is missing or
  // empty, and root authenticates now; its token lasts etcd's token TTL
  // (five minutes by default) and is not renewed, so connect per task.
  static Result<std::unique_ptr<EtcdAdmin>> Connect(const std::string& url,
                                                    const EtcdClientTls& root);

  // Turns authentication on, with user root (its password) holding role
  // root. Idempotent.
  Status EnableAuth();

  // User `user` without a password (its certificate's common name names it)
  // with a role of the same name that may read and write the keys under
  // `prefix` (the range [prefix, prefix+1)) and nothing else. Idempotent.
  Status EnsurePrefixUser(const std::string& user, const std::string& prefix);

  // Removes user `user` and its role; OK when they are gone already.
  Status DeleteUser(const std::string& user);

  // Deletes every key under `prefix`. InvalidArgument for an empty prefix,
  // asking nothing of etcd: that would delete every key.
  Status DeletePrefix(const std::string& prefix);

  // The role `role` as etcd describes it (JSON of /v3/auth/role/get), for
  // tests.
  Result<std::string> Role(const std::string& role);

  // The end of the key range of everything under `prefix`, as etcd's
  // clients compute it: its last byte below 0xff plus one, the bytes after
  // it dropped ("/a/" -> "/a0", "a\xff" -> "b"). For a prefix that is empty
  // or all 0xff, "\0", which etcd reads as "to the last key".
  static std::string RangeEnd(std::string prefix);

 private:
  EtcdAdmin(std::string url, EtcdClientTls root) : url_(std::move(url)), root_(std::move(root)) {}
  // POSTs `body` to `path` as root; etcd's answer, an error when it is one
  // that `tolerated` does not appear in (e.g. "already exists"): Forbidden
  // for HTTP 403, FailedPrecondition for another, Unavailable when etcd
  // cannot be reached (10 s timeout).
  Result<std::string> Call(const std::string& path, const std::string& body,
                           const std::string& tolerated = "");
  // Root's token once authentication is on ("" before).
  Status Authenticate();

  const std::string url_;
  const EtcdClientTls root_;
  std::string token_;
};

}  // namespace vtenant::localenv
