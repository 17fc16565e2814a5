#include "cli/command_line.h"

#include <iostream>

namespace vtenant::cli {

int ReadFlags(const std::string& command, const std::vector<std::string>& args,
              const std::vector<FlagBinding>& table, Words words, const std::string& usage,
              SplitCommandLine& out) {
  Result<SplitCommandLine> split = ApplyFlags(args, table, words);
  if (!split.ok()) return UsageError(command, split.status().message(), usage);
  if (split->help) {
    std::cout << usage;
    return 0;
  }
  out = std::move(split).value();
  return -1;
}

int CheckNoArgs(const std::string& command, const std::vector<std::string>& args,
                const std::string& usage) {
  SplitCommandLine split;
  return ReadFlags(command, args, {}, Words::kRefuse, usage, split);
}

int UsageError(const std::string& command, const std::string& problem, const std::string& usage) {
  std::cerr << command << ": " << problem << "\n\n" << usage;
  return 2;
}

}  // namespace vtenant::cli
