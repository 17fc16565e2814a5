// The command-line syntax every vtenant program shares, written the way
// Kubernetes components write theirs: `--name=value` or `--name value`; a
// switch (a flag without a value) alone means true and otherwise takes only
// `=true` or `=false`; `-h` or `--help` asks for the usage text.
//
// Why not gflags, which glog brings: its flags are process-wide globals, so
// every program would also take every linked library's (glog's --v and
// --logtostderr among them); it takes other spellings too (-flag,
// --flag_name, --noflag) and its help lists the underscore one, where
// `--virtual-kubeconfig`, `--leader-elect` and the rest are a contract with
// the chart, the operator and every script that starts these programs; and
// a mistake ends the process with exit code 1 inside the parser, where each
// program here gets a Status and answers as ExitCodeBeforeRunning says.
//
// Each program keeps its own table of flags and what a value means (its
// flags.cc): a table of FlagBindings read by ApplyFlags, where each flag
// sets what it names; what depends on several flags (a default that follows
// another flag, flags that go together) is settled after ApplyFlags. This
// file splits the words, reads numbers and holds the common bindings, so
// that the programs agree on the syntax and on what an error says.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/host_port.h"
#include "base/ip_address.h"
#include "base/status.h"

namespace vtenant {

// A flag a program accepts.
struct FlagSpec {
  std::string name;  // without the dashes: "virtual-kubeconfig"
  bool is_switch = false;
};

// One flag as given: a switch given alone has the value "true".
struct FlagValue {
  std::string name;
  std::string value;
};

// What a command line holds.
struct SplitCommandLine {
  bool help = false;               // -h or --help was given; the rest was not read
  std::vector<FlagValue> flags;    // in the order given; a later one wins
  std::vector<std::string> words;  // the words that are not flags (see Words)
};

// What SplitFlags does with a word that is neither a flag nor a flag's
// value. A word starting with '-' is never one: it is a flag or a mistake.
enum class Words {
  kRefuse,  // InvalidArgument: the programs take flags only
  kKeep,    // kept in `words`, in order, with flags before and after them
            // (`vtenant kubeconfig TENANT`)
  kEnd,     // the first one ends the flags: it and everything after it go to
            // `words` unread (`vtenant [--state-dir DIR] COMMAND [its options]`)
};

// Splits `args` (the command line without the program's name) by `known`.
// A flag that takes a value takes the next word whatever it is, so
// `--offset -1` works and `--name --help` sets name to "--help".
// InvalidArgument, naming the word, for a word that is not a flag (unless
// `words` says otherwise), an unknown flag, a flag whose value is missing, or
// a switch given a value other than true or false.
Result<SplitCommandLine> SplitFlags(const std::vector<std::string>& args,
                                    const std::vector<FlagSpec>& known,
                                    Words words = Words::kRefuse);

// One flag of a program's table and what a value given to it does: `set`
// gets the value as given ("true" or "false" for a switch), flag by flag in
// the order given, and refuses one with InvalidArgument naming the flag.
struct FlagBinding {
  std::string name;  // without the dashes
  std::function<Status(const std::string& value)> set;
  bool is_switch = false;
};

// Splits `args` by `table` (SplitFlags), then hands each flag given to its
// binding's `set`. The split (help, words, flags) or the first error; with
// help asked for, no `set` is called.
Result<SplitCommandLine> ApplyFlags(const std::vector<std::string>& args,
                                    const std::vector<FlagBinding>& table,
                                    Words words = Words::kRefuse);

// Bindings for the common kinds of value; `out` must outlive the parse.
// --name TEXT, kept as given.
FlagBinding TextFlag(std::string name, std::string* out);
// --name TEXT, kept as given; an empty one is refused ("--name must not be
// empty").
FlagBinding NonEmptyTextFlag(std::string name, std::string* out);
// --name HOST:PORT, kept as given once ParseAddressFlag accepts it; empty is
// allowed (none).
FlagBinding AddressFlag(std::string name, std::string* out);
// --name IP, kept as given once ParseIpAddressFlag accepts it; empty is
// allowed (none).
FlagBinding IpAddressFlag(std::string name, std::string* out);
// --name a,b: the list ParseCommaList reads (empty: none).
FlagBinding CommaListFlag(std::string name, std::vector<std::string>* out);
// --name alone or =true / =false.
FlagBinding SwitchFlag(std::string name, bool* out);
// --name N, a whole number from `min` to `max` (ParseWholeNumberFlag).
template <typename Int>
FlagBinding WholeNumberFlag(std::string name, Int* out, int64_t min, int64_t max);
// --name X, a number of at least `min` (ParseNumberFlag).
FlagBinding NumberFlag(std::string name, double* out, double min);
// --name VALUE read by `parse` (VALUE -> Result<T>), whose error is given
// with "--name" before it.
template <typename T, typename Parse>
FlagBinding ParsedFlag(std::string name, T* out, Parse parse);

// `value` as a whole number from `min` to `max` (decimal digits with an
// optional '-'; no '+', no spaces); InvalidArgument otherwise,
// saying "--<flag> "<value>" must be a whole number from <min> to <max>".
Result<int64_t> ParseWholeNumberFlag(std::string_view flag, std::string_view value, int64_t min,
                                     int64_t max);

// `value` as a finite number of at least `min`, read by strtod (so "2.5",
// "1e3" and hex "0x10" are numbers; the C locale's decimal point);
// InvalidArgument otherwise, saying "--<flag> "<value>" must be a number,
// <min> or more" with <min> written without trailing zeros.
Result<double> ParseNumberFlag(std::string_view flag, std::string_view value, double min);

// `value` as an address to listen on (ParseListenAddress: ":8081" is every
// interface); InvalidArgument otherwise, saying "--<flag> " and what is wrong:
// "--<flag> \"<value>\" is not host:port" or
// "--<flag> port \"<port>\" must be a whole number from 1 to 65535".
Result<HostPort> ParseAddressFlag(std::string_view flag, std::string_view value);

// `value` as a numeric IPv4 or IPv6 address (IpAddress::Parse); otherwise
// InvalidArgument, "--<flag> \"<value>\" is not a numeric IP address".
Result<IpAddress> ParseIpAddressFlag(std::string_view flag, std::string_view value);

// `value` as an address range (IpRange::Parse); otherwise InvalidArgument,
// "--<flag> \"<value>\" is not a range such as 10.96.0.0/12".
Result<IpRange> ParseIpRangeFlag(std::string_view flag, std::string_view value);

// The items of a comma-separated list ("a, b,,c" is a, b, c): each trimmed
// of spaces, the empty ones dropped, in the order given.
std::vector<std::string> ParseCommaList(std::string_view text);

// What a program does with its parsed command line before anything else, so
// that every program says a mistake and --help alike:
//   - `parsed` not OK: "<program>: <what is wrong>", a blank line and `usage`
//     on stderr; gives 2;
//   - `help`: `usage` on stdout; gives 0;
//   - otherwise -1: go on.
int ExitCodeBeforeRunning(std::string_view program, const Status& parsed, bool help,
                          std::string_view usage);

// The flags `parse` reads from the command line, or the end of the process
// with ExitCodeBeforeRunning's output and status. `Flags` has a `bool help`
// member, which `parse` sets for -h and --help. For the tools (benchmarks,
// the trace replay) whose main has nothing to clean up on the way out.
template <typename Flags>
Flags ParseFlagsOrExit(std::string_view program, int argc, char** argv,
                       Result<Flags> (*parse)(const std::vector<std::string>&),
                       std::string_view usage) {
  Result<Flags> flags = parse(std::vector<std::string>(argv + 1, argv + argc));
  if (int code = ExitCodeBeforeRunning(program, flags.status(), flags.ok() && flags->help, usage);
      code >= 0) {
    std::exit(code);
  }
  return std::move(flags).value();
}

template <typename T, typename Parse>
FlagBinding ParsedFlag(std::string name, T* out, Parse parse) {
  return {.name = name, .set = [name, out, parse](const std::string& value) {
            auto parsed = parse(value);
            if (!parsed.ok()) return parsed.status().WithContext("--" + name);
            *out = std::move(parsed).value();
            return Status::Ok();
          }};
}

template <typename Int>
FlagBinding WholeNumberFlag(std::string name, Int* out, int64_t min, int64_t max) {
  return {.name = name, .set = [name, out, min, max](const std::string& value) {
            Result<int64_t> n = ParseWholeNumberFlag(name, value, min, max);
            if (n.ok()) *out = static_cast<Int>(*n);
            return n.status();
          }};
}

}  // namespace vtenant
