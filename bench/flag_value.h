// The `--name=value` flags of the bench programs that read their own
// (bench_syncer, bench_kube_client).
#pragma once

#include <optional>
#include <string>

namespace vtenant::bench {

// The value of `arg` when it is `flag=value` (FlagValue("--pods=10",
// "--pods") is "10"); nothing for any other argument.
inline std::optional<std::string> FlagValue(const std::string& arg, const std::string& flag) {
  if (arg.rfind(flag + "=", 0) == 0) return arg.substr(flag.size() + 1);
  return std::nullopt;
}

}  // namespace vtenant::bench
