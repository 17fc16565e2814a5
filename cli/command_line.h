// How the CLI's commands read their arguments: with base/flags.h, the
// syntax every vtenant program shares, and the same answers to --help and
// to a mistake everywhere.
#pragma once

#include <string>
#include <vector>

#include "base/flags.h"

namespace vtenant::cli {

// Reads `args` of `command` ("vtenant up") by `table` (ApplyFlags: each
// flag given sets what it names), with `words` saying what a word that is
// not a flag is. For -h or --help prints `usage` to stdout and returns 0;
// for a mistake prints it (UsageError) and returns 2; otherwise fills `out`
// (the words) and returns -1: the command goes on.
int ReadFlags(const std::string& command, const std::vector<std::string>& args,
              const std::vector<FlagBinding>& table, Words words, const std::string& usage,
              SplitCommandLine& out);

// ReadFlags for a command that takes no arguments at all.
int CheckNoArgs(const std::string& command, const std::vector<std::string>& args,
                const std::string& usage);

// Prints "<command>: <problem>", a blank line and `usage` to stderr; returns
// 2, the exit code of a usage error.
int UsageError(const std::string& command, const std::string& problem, const std::string& usage);

}  // namespace vtenant::cli
