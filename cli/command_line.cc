#include "cli/command_line.h"

#include <iostream>

namespace vtenant::cli {

int ReadFlags(const std::string& command, const std::vector<std::string>& args,
              const std::vector<FlagSpec>& known, Words words, const std::string& usage,
              SplitCommandLine& out) {
  Result<SplitCommandLine> split = SplitFlags(args, known, words);
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

int ReadFlagsWithSwitch(const std::string& command, const std::vector<std::string>& args,
                        const std::string& switch_name, Words words, const std::string& usage,
                        SplitCommandLine& out, bool& on) {
  on = false;
  if (int code =
          ReadFlags(command, args, {{.name = switch_name, .is_switch = true}}, words, usage, out);
      code >= 0) {
    return code;
  }
  for (const FlagValue& given : out.flags) on = given.value == "true";
  return -1;
}

int UsageError(const std::string& command, const std::string& problem, const std::string& usage) {
  std::cerr << command << ": " << problem << "\n\n" << usage;
  return 2;
}

}  // namespace vtenant::cli
