#include "base/flags.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <optional>

namespace vtenant {
namespace {

// `--<flag> "<value>" <says>`: how every flag's refused value is told.
Status BadValue(std::string_view flag, std::string_view value, std::string_view says) {
  return InvalidArgument("--" + std::string(flag) + " \"" + std::string(value) + "\" " +
                         std::string(says));
}

}  // namespace

Result<SplitCommandLine> SplitFlags(const std::vector<std::string>& args,
                                    const std::vector<FlagSpec>& known, Words words) {
  SplitCommandLine out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      out.help = true;
      return out;
    }
    if (words != Words::kRefuse && !arg.starts_with("-")) {
      if (words == Words::kEnd) {
        out.words.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
        return out;
      }
      out.words.push_back(arg);
      continue;
    }
    if (!arg.starts_with("--") || arg.size() == 2) {
      return InvalidArgument("unexpected argument \"" + arg + "\"; see --help");
    }
    std::string name = arg.substr(2);
    std::string value;
    bool has_value = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
      has_value = true;
    }
    const FlagSpec* spec = nullptr;
    for (const FlagSpec& candidate : known) {
      if (candidate.name == name) spec = &candidate;
    }
    if (spec == nullptr) return InvalidArgument("unknown flag --" + name + "; see --help");
    if (spec->is_switch) {
      if (!has_value) value = "true";
      if (value != "true" && value != "false") {
        return InvalidArgument("--" + name + " takes true or false, not \"" + value + "\"");
      }
    } else if (!has_value) {
      if (i + 1 >= args.size()) return InvalidArgument("--" + name + " needs a value");
      value = args[++i];
    }
    out.flags.push_back({std::move(name), std::move(value)});
  }
  return out;
}

Result<SplitCommandLine> ApplyFlags(const std::vector<std::string>& args,
                                    const std::vector<FlagBinding>& table, Words words) {
  std::vector<FlagSpec> known;
  known.reserve(table.size());
  for (const FlagBinding& flag : table) known.push_back({flag.name, flag.is_switch});
  VT_ASSIGN_OR_RETURN(SplitCommandLine split, SplitFlags(args, known, words));
  if (split.help) return split;
  for (const FlagValue& given : split.flags) {
    for (const FlagBinding& flag : table) {
      if (flag.name == given.name) VT_RETURN_IF_ERROR(flag.set(given.value));
    }
  }
  return split;
}

FlagBinding TextFlag(std::string name, std::string* out) {
  return {.name = std::move(name), .set = [out](const std::string& value) {
            *out = value;
            return Status::Ok();
          }};
}

FlagBinding NonEmptyTextFlag(std::string name, std::string* out) {
  return {.name = name, .set = [name, out](const std::string& value) {
            if (value.empty()) return InvalidArgument("--" + name + " must not be empty");
            *out = value;
            return Status::Ok();
          }};
}

FlagBinding AddressFlag(std::string name, std::string* out) {
  return {.name = name, .set = [name, out](const std::string& value) {
            if (!value.empty()) VT_RETURN_IF_ERROR(ParseAddressFlag(name, value).status());
            *out = value;
            return Status::Ok();
          }};
}

FlagBinding IpAddressFlag(std::string name, std::string* out) {
  return {.name = name, .set = [name, out](const std::string& value) {
            if (!value.empty()) VT_RETURN_IF_ERROR(ParseIpAddressFlag(name, value).status());
            *out = value;
            return Status::Ok();
          }};
}

FlagBinding CommaListFlag(std::string name, std::vector<std::string>* out) {
  return {.name = std::move(name), .set = [out](const std::string& value) {
            *out = ParseCommaList(value);
            return Status::Ok();
          }};
}

FlagBinding SwitchFlag(std::string name, bool* out) {
  // SplitFlags lets only "true" and "false" through for a switch.
  return {.name = std::move(name),
          .set =
              [out](const std::string& value) {
                *out = value == "true";
                return Status::Ok();
              },
          .is_switch = true};
}

FlagBinding NumberFlag(std::string name, double* out, double min) {
  return {.name = name, .set = [name, out, min](const std::string& value) {
            Result<double> n = ParseNumberFlag(name, value, min);
            if (n.ok()) *out = *n;
            return n.status();
          }};
}

Result<int64_t> ParseWholeNumberFlag(std::string_view flag, std::string_view value, int64_t min,
                                     int64_t max) {
  int64_t n = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size() || n < min ||
      n > max) {
    return BadValue(
        flag, value,
        "must be a whole number from " + std::to_string(min) + " to " + std::to_string(max));
  }
  return n;
}

Result<double> ParseNumberFlag(std::string_view flag, std::string_view value, double min) {
  const std::string text(value);
  char* end = nullptr;
  const double n = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(n) || n < min) {
    std::string shown = std::to_string(min);
    shown.erase(shown.find_last_not_of('0') + 1);
    if (shown.back() == '.') shown.pop_back();
    return BadValue(flag, text, "must be a number, " + shown + " or more");
  }
  return n;
}

Result<HostPort> ParseAddressFlag(std::string_view flag, std::string_view value) {
  Result<HostPort> address = ParseListenAddress(value);
  if (!address.ok()) {
    return InvalidArgument("--" + std::string(flag) + " " + address.status().message());
  }
  return address;
}

Result<IpAddress> ParseIpAddressFlag(std::string_view flag, std::string_view value) {
  std::optional<IpAddress> address = IpAddress::Parse(value);
  if (!address) return BadValue(flag, value, "is not a numeric IP address");
  return *address;
}

Result<IpRange> ParseIpRangeFlag(std::string_view flag, std::string_view value) {
  std::optional<IpRange> range = IpRange::Parse(value);
  if (!range) return BadValue(flag, value, "is not a range such as 10.96.0.0/12");
  return *range;
}

std::vector<std::string> ParseCommaList(std::string_view text) {
  std::vector<std::string> items;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return items;
}

int ExitCodeBeforeRunning(std::string_view program, const Status& parsed, bool help,
                          std::string_view usage) {
  if (!parsed.ok()) {
    std::cerr << program << ": " << parsed.message() << "\n\n" << usage;
    return 2;
  }
  if (help) {
    std::cout << usage;
    return 0;
  }
  return -1;
}

}  // namespace vtenant
