#include "scheduler/device_selector.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "kube/quantity.h"

// Everything here is in device_selector_internal, its helpers in an anonymous
// namespace inside it: the unity build compiles this file beside others of
// vtenant::scheduler, whose anonymous namespaces must not meet these names.
namespace vtenant::scheduler::device_selector_internal {

// A runtime error, carried as a value so that && and || can absorb it.
struct Error {
  std::string message;
};

// A semantic version (semver.org 2.0.0); build metadata is not kept, as it
// takes no part in comparisons.
struct Version {
  int64_t major = 0, minor = 0, patch = 0;
  std::vector<std::string> prerelease;
};

using DomainAttributes = std::map<std::string, DeviceAttribute>;
using DomainCapacity = std::map<std::string, kube::Quantity>;

// A map of the device being evaluated: its attributes or capacity by domain,
// or one domain's.
template <typename T>
struct MapRef {
  const std::map<std::string, T>* map;
};
template <typename T>
struct IsMapRef : std::false_type {};
template <typename T>
struct IsMapRef<MapRef<T>> : std::true_type {};

using Value = std::variant<Error, bool, int64_t, std::string, kube::Quantity, Version,
                           const Device*, MapRef<DomainAttributes>, MapRef<DeviceAttribute>,
                           MapRef<DomainCapacity>, MapRef<kube::Quantity>>;

enum class Op {
  kLiteral,      // literal
  kDevice,       // device
  kVariable,     // a name cel.bind bound
  kSelect,       // args[0].name
  kIndex,        // args[0][args[1]]
  kHas,          // has(args[0].name)
  kCall,         // name(args...), or args[0].name(args[1...]) when method
  kNot,          // !args[0]
  kNegate,       // -args[0]
  kAnd,          // args[0] && args[1]
  kOr,           // args[0] || args[1]
  kConditional,  // args[0] ? args[1] : args[2]
  kCompare,      // args[0] <name> args[1], name one of == != < <= > >=
  kIn,           // args[0] in args[1]
  kInList,       // args[0] in [args[1], ...]
  kBind,         // cel.bind(name, args[0], args[1])
};

struct Node {
  Op op = Op::kLiteral;
  Value literal;
  std::string name;
  bool method = false;
  std::vector<std::shared_ptr<const Node>> args;
  std::shared_ptr<const std::regex> regex;  // matches() of a literal pattern
};

namespace {

using NodePtr = std::shared_ptr<const Node>;

// The API's limit on an expression's length.
constexpr size_t kMaxExpressionBytes = 10 * 1024;
// How deeply parentheses, calls and unary operators may nest.
constexpr int kMaxDepth = 100;

// Functions by name, whether called on a receiver, and their argument count
// (the receiver not counted).
struct Function {
  std::string_view name;
  bool method;
  size_t arity;
};
constexpr Function kFunctions[] = {
    {"size", false, 1},       {"size", true, 0},      {"quantity", false, 1},
    {"isQuantity", false, 1}, {"semver", false, 1},   {"isSemver", false, 1},
    {"startsWith", true, 1},  {"endsWith", true, 1},  {"contains", true, 1},
    {"matches", true, 1},     {"compareTo", true, 1}, {"isGreaterThan", true, 1},
    {"isLessThan", true, 1},  {"asInteger", true, 0}, {"isInteger", true, 0},
    {"sign", true, 0},        {"major", true, 0},     {"minor", true, 0},
    {"patch", true, 0},
};
constexpr std::string_view kMacros[] = {"all", "exists", "exists_one", "map", "filter"};
constexpr std::string_view kDeviceFields[] = {"driver", "attributes", "capacity",
                                              "allowMultipleAllocations"};

template <typename Range>
bool Contains(const Range& range, std::string_view s) {
  return std::find(std::begin(range), std::end(range), s) != std::end(range);
}

Status Unsupported(const std::string& what, size_t offset) {
  return InvalidArgument("unsupported CEL " + what + " at offset " + std::to_string(offset));
}

Status SyntaxError(const std::string& what, size_t offset) {
  return InvalidArgument("CEL syntax error at offset " + std::to_string(offset) + ": " + what);
}

// ---- Tokens ----------------------------------------------------------------

enum class TokenKind { kIdent, kInt, kString, kPunct, kEnd };

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;     // an identifier, punctuation, or a string's value
  uint64_t number = 0;  // kInt
  size_t offset = 0;
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsIdentStart(char c) { return IsLetter(c) || c == '_'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c); }

// The string literal whose opening quote is at s[*i]; *i ends past its close.
Result<std::string> ReadString(std::string_view s, size_t* i, bool raw) {
  const size_t start = *i;
  const char quote = s[*i];
  if (s.substr(*i, 3) == std::string(3, quote)) return Unsupported("triple-quoted string", start);
  ++*i;
  std::string out;
  while (true) {
    if (*i >= s.size() || s[*i] == '\n' || s[*i] == '\r')
      return SyntaxError("unterminated string", start);
    const char c = s[(*i)++];
    if (c == quote) return out;
    if (c != '\\' || raw) {
      out += c;
      continue;
    }
    if (*i >= s.size()) return SyntaxError("unterminated string", start);
    // CEL's one-character escapes, each followed by the character it stands for.
    constexpr std::string_view kEscapes = "\\\\\"\"''``??n\nt\tr\ra\ab\bf\fv\v";
    const char e = s[(*i)++];
    size_t at = 0;
    while (at < kEscapes.size() && kEscapes[at] != e) at += 2;
    if (at == kEscapes.size()) return Unsupported(std::string("escape \\") + e, *i - 2);
    out += kEscapes[at + 1];
  }
}

Result<std::vector<Token>> Tokenize(std::string_view s) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (true) {
    while (i < s.size()) {  // white space and // comments
      if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f') {
        ++i;
      } else if (s.substr(i, 2) == "//") {
        while (i < s.size() && s[i] != '\n') ++i;
      } else {
        break;
      }
    }
    const size_t start = i;
    if (i == s.size()) break;
    const char c = s[i];
    if (IsIdentStart(c)) {
      while (i < s.size() && IsIdentChar(s[i])) ++i;
      std::string word(s.substr(start, i - start));
      if (i < s.size() && (s[i] == '"' || s[i] == '\'')) {
        if (word == "r" || word == "R") {
          VT_ASSIGN_OR_RETURN(std::string text, ReadString(s, &i, /*raw=*/true));
          tokens.push_back({TokenKind::kString, std::move(text), 0, start});
          continue;
        }
        std::string lower = word;
        for (char& ch : lower) ch = (ch >= 'A' && ch <= 'Z') ? ch - 'A' + 'a' : ch;
        if (lower == "b" || lower == "rb" || lower == "br")
          return Unsupported("bytes literal", start);
      }
      tokens.push_back({TokenKind::kIdent, std::move(word), 0, start});
    } else if (IsDigit(c)) {
      if (s.substr(i, 2) == "0x" || s.substr(i, 2) == "0X")
        return Unsupported("hex literal", start);
      while (i < s.size() && IsDigit(s[i])) ++i;
      if (i < s.size() &&
          (s[i] == 'e' || s[i] == 'E' || (s[i] == '.' && i + 1 < s.size() && IsDigit(s[i + 1]))))
        return Unsupported("double literal", start);
      if (i < s.size() && (s[i] == 'u' || s[i] == 'U')) return Unsupported("uint literal", start);
      uint64_t number = 0;
      const auto [end, err] = std::from_chars(s.data() + start, s.data() + i, number);
      if (err != std::errc() || number > uint64_t{1} << 63)
        return SyntaxError("integer literal out of range", start);
      tokens.push_back({TokenKind::kInt, std::string(s.substr(start, i - start)), number, start});
    } else if (c == '"' || c == '\'') {
      VT_ASSIGN_OR_RETURN(std::string text, ReadString(s, &i, /*raw=*/false));
      tokens.push_back({TokenKind::kString, std::move(text), 0, start});
    } else {
      constexpr std::string_view kTwo[] = {"||", "&&", "==", "!=", "<=", ">="};
      constexpr std::string_view kOne = "!<>()[]{}.,?:-+*/%";
      size_t length = Contains(kTwo, s.substr(i, 2)) ? 2 : kOne.find(c) != kOne.npos ? 1 : 0;
      if (length == 0) return SyntaxError(std::string("unexpected character '") + c + "'", start);
      tokens.push_back({TokenKind::kPunct, std::string(s.substr(i, length)), 0, start});
      i += length;
    }
  }
  tokens.push_back({TokenKind::kEnd, "", 0, s.size()});
  return tokens;
}

// ---- Parser ----------------------------------------------------------------

NodePtr Make(Op op, std::string name, std::vector<NodePtr> args) {
  auto node = std::make_shared<Node>();
  node->op = op;
  node->name = std::move(name);
  node->args = std::move(args);
  return node;
}

NodePtr Literal(Value value) {
  auto node = std::make_shared<Node>();
  node->literal = std::move(value);
  return node;
}

std::string Describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::kEnd:
      return "end of expression";
    case TokenKind::kString:
      return "a string";
    default:
      return "'" + t.text + "'";
  }
}

// Recursive descent over CEL's grammar, from the lowest precedence:
//   expr     = or ['?' or ':' expr]
//   or       = and {'||' and}
//   and      = relation {'&&' relation}
//   relation = calc {('==' | '!=' | '<' | '<=' | '>' | '>=' | 'in') calc}
//   calc     = unary             (arithmetic is refused)
//   unary    = member | ('!' | '-') unary
//   member   = primary {'.' IDENT ['(' args ')'] | '[' expr ']'}
//   primary  = literal | IDENT ['(' args ')'] | '(' expr ')'
class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  Result<NodePtr> ParseAll() {
    VT_ASSIGN_OR_RETURN(NodePtr root, ParseExpr());
    if (Peek().kind != TokenKind::kEnd)
      return SyntaxError("unexpected " + Describe(Peek()), Peek().offset);
    return root;
  }

 private:
  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  bool IsPunct(std::string_view p, size_t ahead = 0) const {
    return Peek(ahead).kind == TokenKind::kPunct && Peek(ahead).text == p;
  }
  bool Accept(std::string_view p) {
    if (!IsPunct(p)) return false;
    ++pos_;
    return true;
  }
  Status Expect(std::string_view p) {
    if (Accept(p)) return Status::Ok();
    return SyntaxError("expected '" + std::string(p) + "', found " + Describe(Peek()),
                       Peek().offset);
  }
  Status Deeper() {
    if (++depth_ > kMaxDepth) return SyntaxError("expression nested too deeply", Peek().offset);
    return Status::Ok();
  }

  Result<NodePtr> ParseExpr() {
    VT_RETURN_IF_ERROR(Deeper());
    VT_ASSIGN_OR_RETURN(NodePtr condition, ParseOr());
    if (Accept("?")) {
      VT_ASSIGN_OR_RETURN(NodePtr yes, ParseOr());
      VT_RETURN_IF_ERROR(Expect(":"));
      VT_ASSIGN_OR_RETURN(NodePtr no, ParseExpr());
      condition = Make(Op::kConditional, "?:", {condition, yes, no});
    }
    --depth_;
    return condition;
  }

  Result<NodePtr> ParseOr() {
    VT_ASSIGN_OR_RETURN(NodePtr left, ParseAnd());
    while (Accept("||")) {
      VT_ASSIGN_OR_RETURN(NodePtr right, ParseAnd());
      left = Make(Op::kOr, "||", {left, right});
    }
    return left;
  }

  Result<NodePtr> ParseAnd() {
    VT_ASSIGN_OR_RETURN(NodePtr left, ParseRelation());
    while (Accept("&&")) {
      VT_ASSIGN_OR_RETURN(NodePtr right, ParseRelation());
      left = Make(Op::kAnd, "&&", {left, right});
    }
    return left;
  }

  Result<NodePtr> ParseRelation() {
    constexpr std::string_view kRelations[] = {"==", "!=", "<", "<=", ">", ">="};
    VT_ASSIGN_OR_RETURN(NodePtr left, ParseCalc());
    while (true) {
      const Token& t = Peek();
      if (t.kind == TokenKind::kIdent && t.text == "in") {
        ++pos_;
        if (IsPunct("[")) {
          VT_ASSIGN_OR_RETURN(std::vector<NodePtr> items, ParseList());
          items.insert(items.begin(), left);
          left = Make(Op::kInList, "in", std::move(items));
        } else {
          VT_ASSIGN_OR_RETURN(NodePtr right, ParseCalc());
          left = Make(Op::kIn, "in", {left, right});
        }
      } else if (t.kind == TokenKind::kPunct && Contains(kRelations, t.text)) {
        std::string op = t.text;
        ++pos_;
        VT_ASSIGN_OR_RETURN(NodePtr right, ParseCalc());
        left = Make(Op::kCompare, std::move(op), {left, right});
      } else {
        return left;
      }
    }
  }

  // The items of a list literal, the right side of `in`.
  Result<std::vector<NodePtr>> ParseList() {
    const size_t offset = Peek().offset;
    VT_RETURN_IF_ERROR(Expect("["));
    std::vector<NodePtr> items;
    while (!Accept("]")) {
      VT_ASSIGN_OR_RETURN(NodePtr item, ParseExpr());
      items.push_back(std::move(item));
      if (!IsPunct("]")) VT_RETURN_IF_ERROR(Expect(","));
    }
    if (IsPunct(".") || IsPunct("["))
      return Unsupported("list literal outside 'x in [...]'", offset);
    return items;
  }

  Result<NodePtr> ParseCalc() {
    VT_ASSIGN_OR_RETURN(NodePtr operand, ParseUnary());
    const Token& t = Peek();
    if (t.kind == TokenKind::kPunct && std::string_view("+-*/%").find(t.text) != std::string::npos)
      return Unsupported("arithmetic operator '" + t.text + "'", t.offset);
    return operand;
  }

  Result<NodePtr> ParseUnary() {
    if (!IsPunct("!") && !IsPunct("-")) return ParseMember();
    const bool negate = IsPunct("-");
    ++pos_;
    // -9223372036854775808: the one int literal whose magnitude fits only negated.
    if (negate && Peek().kind == TokenKind::kInt && Peek().number == uint64_t{1} << 63 &&
        !IsPunct(".", 1) && !IsPunct("[", 1)) {
      ++pos_;
      return Literal(std::numeric_limits<int64_t>::min());
    }
    VT_RETURN_IF_ERROR(Deeper());
    VT_ASSIGN_OR_RETURN(NodePtr operand, ParseUnary());
    --depth_;
    return Make(negate ? Op::kNegate : Op::kNot, negate ? "-" : "!", {operand});
  }

  Result<NodePtr> ParseMember() {
    VT_ASSIGN_OR_RETURN(NodePtr node, ParsePrimary());
    while (true) {
      if (Accept(".")) {
        const Token& name = Peek();
        if (name.kind != TokenKind::kIdent)
          return SyntaxError("expected a name after '.', found " + Describe(name), name.offset);
        ++pos_;
        if (IsPunct("(")) {
          VT_ASSIGN_OR_RETURN(node, ParseCall(name, node));
        } else if (node->op == Op::kDevice && !Contains(kDeviceFields, name.text)) {
          return InvalidArgument("undefined field 'device." + name.text + "' at offset " +
                                 std::to_string(name.offset));
        } else {
          node = Make(Op::kSelect, name.text, {node});
        }
      } else if (Accept("[")) {
        VT_ASSIGN_OR_RETURN(NodePtr key, ParseExpr());
        VT_RETURN_IF_ERROR(Expect("]"));
        node = Make(Op::kIndex, "[]", {node, key});
      } else {
        return node;
      }
    }
  }

  // The call of `name`, at its '(': a function, or a method of `receiver`.
  Result<NodePtr> ParseCall(const Token& name, NodePtr receiver) {
    const bool method = receiver != nullptr;
    if (method && Contains(kMacros, name.text))
      return Unsupported("macro " + name.text + "()", name.offset);
    VT_RETURN_IF_ERROR(Deeper());
    VT_RETURN_IF_ERROR(Expect("("));
    std::vector<NodePtr> args;
    if (method) args.push_back(std::move(receiver));
    while (!Accept(")")) {
      VT_ASSIGN_OR_RETURN(NodePtr arg, ParseExpr());
      args.push_back(std::move(arg));
      if (!IsPunct(")")) VT_RETURN_IF_ERROR(Expect(","));
    }
    --depth_;
    const auto f = std::find_if(std::begin(kFunctions), std::end(kFunctions), [&](const auto& f) {
      return f.name == name.text && f.method == method;
    });
    if (f == std::end(kFunctions))
      return Unsupported("function " + std::string(method ? "." : "") + name.text + "()",
                         name.offset);
    if (args.size() != f->arity + (method ? 1 : 0))
      return InvalidArgument(name.text + "() takes " + std::to_string(f->arity) +
                             " argument(s), at offset " + std::to_string(name.offset));
    auto node = std::make_shared<Node>();
    node->op = Op::kCall;
    node->name = name.text;
    node->method = method;
    node->args = std::move(args);
    if (node->name == "matches" && node->args[1]->op == Op::kLiteral) {
      if (const auto* pattern = std::get_if<std::string>(&node->args[1]->literal)) {
        try {
          node->regex = std::make_shared<const std::regex>(*pattern, std::regex::ECMAScript);
        } catch (const std::regex_error& e) {
          return InvalidArgument("invalid regular expression '" + *pattern + "' at offset " +
                                 std::to_string(name.offset) + ": " + e.what());
        }
      }
    }
    return NodePtr(std::move(node));
  }

  Result<NodePtr> ParsePrimary() {
    const Token t = Peek();
    switch (t.kind) {
      case TokenKind::kEnd:
        return SyntaxError("unexpected end of expression", t.offset);
      case TokenKind::kInt:
        ++pos_;
        if (t.number > uint64_t{std::numeric_limits<int64_t>::max()})
          return SyntaxError("integer literal out of range", t.offset);
        return Literal(static_cast<int64_t>(t.number));
      case TokenKind::kString:
        ++pos_;
        return Literal(t.text);
      case TokenKind::kPunct:
        if (t.text == "(") {
          ++pos_;
          VT_ASSIGN_OR_RETURN(NodePtr inner, ParseExpr());
          VT_RETURN_IF_ERROR(Expect(")"));
          return inner;
        }
        if (t.text == "[") return Unsupported("list literal outside 'x in [...]'", t.offset);
        if (t.text == "{") return Unsupported("map literal", t.offset);
        if (t.text == ".") return Unsupported("leading '.' in a name", t.offset);
        return SyntaxError("unexpected '" + t.text + "'", t.offset);
      case TokenKind::kIdent:
        break;
    }
    ++pos_;
    if (t.text == "true" || t.text == "false") return Literal(t.text == "true");
    if (t.text == "null") return Unsupported("null", t.offset);
    if (t.text == "in") return SyntaxError("unexpected 'in'", t.offset);
    if (t.text == "cel" && IsPunct(".") && Peek(1).kind == TokenKind::kIdent &&
        Peek(1).text == "bind" && IsPunct("(", 2)) {
      pos_ += 2;
      return ParseBind();
    }
    if (IsPunct("(")) return t.text == "has" ? ParseHas(t.offset) : ParseCall(t, nullptr);
    if (std::find(bound_.begin(), bound_.end(), t.text) != bound_.end())
      return Make(Op::kVariable, t.text, {});
    if (t.text == "device") return Make(Op::kDevice, "device", {});
    return Unsupported("identifier '" + t.text + "' (only device is declared)", t.offset);
  }

  // has(a.b), at its '('.
  Result<NodePtr> ParseHas(size_t offset) {
    VT_RETURN_IF_ERROR(Expect("("));
    VT_ASSIGN_OR_RETURN(NodePtr arg, ParseExpr());
    VT_RETURN_IF_ERROR(Expect(")"));
    if (arg->op != Op::kSelect)
      return InvalidArgument("has() needs a field selection such as has(m.name), at offset " +
                             std::to_string(offset));
    return Make(Op::kHas, arg->name, {arg->args[0]});
  }

  // cel.bind(name, value, expression), at its '('.
  Result<NodePtr> ParseBind() {
    VT_RETURN_IF_ERROR(Expect("("));
    const Token name = Peek();
    if (name.kind != TokenKind::kIdent || name.text == "in" || name.text == "true" ||
        name.text == "false" || name.text == "null")
      return SyntaxError("cel.bind() needs a variable name, found " + Describe(name), name.offset);
    ++pos_;
    VT_RETURN_IF_ERROR(Expect(","));
    VT_ASSIGN_OR_RETURN(NodePtr value, ParseExpr());
    VT_RETURN_IF_ERROR(Expect(","));
    bound_.push_back(name.text);
    VT_ASSIGN_OR_RETURN(NodePtr body, ParseExpr());
    bound_.pop_back();
    VT_RETURN_IF_ERROR(Expect(")"));
    return Make(Op::kBind, name.text, {value, body});
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::vector<std::string> bound_;  // cel.bind's names in scope
};

// ---- Values ----------------------------------------------------------------

bool IsNumeric(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), IsDigit);
}

// The dot-separated identifiers of a version's prerelease or build part;
// nullopt when one is empty, has a character other than [0-9A-Za-z-], or (in
// a prerelease) is a number with a leading zero.
std::optional<std::vector<std::string>> SemverIdentifiers(std::string_view s, bool prerelease) {
  std::vector<std::string> out;
  for (size_t start = 0;;) {
    const size_t dot = std::min(s.find('.', start), s.size());
    const std::string_view id = s.substr(start, dot - start);
    if (id.empty() || !std::all_of(id.begin(), id.end(),
                                   [](char c) { return IsLetter(c) || IsDigit(c) || c == '-'; }))
      return std::nullopt;
    if (prerelease && IsNumeric(id) && id.size() > 1 && id[0] == '0') return std::nullopt;
    out.emplace_back(id);
    if (dot == s.size()) return out;
    start = dot + 1;
  }
}

// semver.org 2.0.0: MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD], numbers without
// leading zeros.
std::optional<Version> ParseVersion(std::string_view text) {
  Version v;
  std::string_view core = text;
  if (const size_t plus = core.find('+'); plus != core.npos) {
    if (!SemverIdentifiers(core.substr(plus + 1), false)) return std::nullopt;
    core = core.substr(0, plus);
  }
  if (const size_t dash = core.find('-'); dash != core.npos) {
    std::optional<std::vector<std::string>> prerelease =
        SemverIdentifiers(core.substr(dash + 1), true);
    if (!prerelease) return std::nullopt;
    v.prerelease = std::move(*prerelease);
    core = core.substr(0, dash);
  }
  int64_t* parts[] = {&v.major, &v.minor, &v.patch};
  for (int i = 0; i < 3; ++i) {
    const size_t dot = i < 2 ? core.find('.') : core.size();
    if (dot == core.npos) return std::nullopt;
    const std::string_view part = core.substr(0, dot);
    if (!IsNumeric(part) || (part.size() > 1 && part[0] == '0')) return std::nullopt;
    if (std::from_chars(part.data(), part.data() + part.size(), *parts[i]).ec != std::errc())
      return std::nullopt;
    core = core.substr(std::min(dot + 1, core.size()));
  }
  return v;
}

int Sign(int64_t x) { return (x > 0) - (x < 0); }

// semver.org's precedence; prerelease identifiers compare numerically when
// both are numbers, numbers below words, words in ASCII order.
int CompareVersions(const Version& a, const Version& b) {
  for (auto part : {&Version::major, &Version::minor, &Version::patch})
    if (a.*part != b.*part) return a.*part < b.*part ? -1 : 1;
  if (a.prerelease.empty() || b.prerelease.empty())
    return int{a.prerelease.empty()} - int{b.prerelease.empty()};
  for (size_t i = 0; i < a.prerelease.size() && i < b.prerelease.size(); ++i) {
    const std::string& x = a.prerelease[i];
    const std::string& y = b.prerelease[i];
    const bool xn = IsNumeric(x), yn = IsNumeric(y);
    if (xn != yn) return xn ? -1 : 1;
    if (xn && x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
    if (const int c = x.compare(y); c != 0) return Sign(c);
  }
  return Sign(static_cast<int64_t>(a.prerelease.size()) -
              static_cast<int64_t>(b.prerelease.size()));
}

std::string TypeName(const Value& v) {
  constexpr const char* kNames[] = {"error",  "bool", "int", "string", "Quantity", "Semver",
                                    "device", "map",  "map", "map",    "map"};
  static_assert(std::size(kNames) == std::variant_size_v<Value>);
  return kNames[v.index()];
}

Value NoOverload(const std::string& what) { return Error{"no such overload: " + what}; }

Value ToValue(const DeviceAttribute& a) {
  if (const auto* b = std::get_if<bool>(&a)) return *b;
  if (const auto* i = std::get_if<int64_t>(&a)) return *i;
  if (const auto* s = std::get_if<std::string>(&a)) return *s;
  const std::string& text = std::get<DeviceVersion>(a).text;
  std::optional<Version> version = ParseVersion(text);
  if (!version) return Error{"invalid semver \"" + text + "\""};
  return *std::move(version);
}
Value ToValue(const kube::Quantity& q) { return q; }
Value ToValue(const DomainAttributes& m) { return MapRef<DeviceAttribute>{&m}; }
Value ToValue(const DomainCapacity& m) { return MapRef<kube::Quantity>{&m}; }

// Calls `f` with the map `v` refers to; nullopt when `v` is not a map.
template <typename F>
std::optional<Value> VisitMap(const Value& v, F&& f) {
  return std::visit(
      [&](const auto& x) -> std::optional<Value> {
        if constexpr (IsMapRef<std::decay_t<decltype(x)>>::value)
          return f(*x.map);
        else
          return std::nullopt;
      },
      v);
}

// m[key]. A domain the device has nothing in is an empty map, as the API
// defines for device.attributes and device.capacity.
template <typename T>
Value Lookup(const std::map<std::string, T>& m, const std::string& key) {
  if (const auto it = m.find(key); it != m.end()) return ToValue(it->second);
  if constexpr (std::is_same_v<T, DomainAttributes> || std::is_same_v<T, DomainCapacity>) {
    static const T kEmpty;
    return ToValue(kEmpty);
  }
  return Error{"no such key: " + key};
}

Value Select(const Value& v, const std::string& key) {
  if (std::holds_alternative<Error>(v)) return v;
  if (const auto* d = std::get_if<const Device*>(&v)) {
    if (key == "driver") return (*d)->driver;
    if (key == "attributes") return MapRef<DomainAttributes>{&(*d)->attributes};
    if (key == "capacity") return MapRef<DomainCapacity>{&(*d)->capacity};
    if (key == "allowMultipleAllocations") return (*d)->allow_multiple_allocations;
    return Error{"no such field: " + key};
  }
  if (auto found = VisitMap(v, [&](const auto& m) { return Lookup(m, key); })) return *found;
  return NoOverload(TypeName(v) + "." + key);
}

// The order of two values of one type, and whether < <= > >= apply to it
// (== and != do to all); nullopt when they cannot be compared.
struct Comparison {
  int order;
  bool ordered;
};
std::optional<Comparison> Compare(const Value& a, const Value& b) {
  if (a.index() != b.index()) return std::nullopt;
  if (const auto* x = std::get_if<bool>(&a)) return Comparison{*x - std::get<bool>(b), true};
  if (const auto* x = std::get_if<int64_t>(&a)) {
    const int64_t y = std::get<int64_t>(b);
    return Comparison{(*x > y) - (*x < y), true};
  }
  if (const auto* x = std::get_if<std::string>(&a))
    return Comparison{Sign(x->compare(std::get<std::string>(b))), true};
  if (const auto* x = std::get_if<kube::Quantity>(&a)) {
    const kube::Quantity& y = std::get<kube::Quantity>(b);
    return Comparison{(*x > y) - (*x < y), false};
  }
  if (const auto* x = std::get_if<Version>(&a))
    return Comparison{CompareVersions(*x, std::get<Version>(b)), false};
  return std::nullopt;
}

Value Relation(const std::string& op, const Value& a, const Value& b) {
  if (std::holds_alternative<Error>(a)) return a;
  if (std::holds_alternative<Error>(b)) return b;
  const std::optional<Comparison> c = Compare(a, b);
  // Values of two types are unequal, as cel-go's heterogeneous equality
  // has it for the dynamic values selectors read.
  if (!c && a.index() != b.index() && (op == "==" || op == "!=")) return op == "!=";
  if (!c || (!c->ordered && op != "==" && op != "!="))
    return NoOverload(TypeName(a) + " " + op + " " + TypeName(b));
  if (op == "==") return c->order == 0;
  if (op == "!=") return c->order != 0;
  if (op == "<") return c->order < 0;
  if (op == "<=") return c->order <= 0;
  if (op == ">") return c->order > 0;
  return c->order >= 0;
}

// Code points, as CEL counts a string's size.
int64_t Utf8Length(const std::string& s) {
  return std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; });
}

Value Size(const Value& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return Utf8Length(*s);
  if (auto n = VisitMap(v, [](const auto& m) -> Value { return static_cast<int64_t>(m.size()); }))
    return *n;
  return NoOverload("size(" + TypeName(v) + ")");
}

Value RegexMatches(const std::string& s, const Node& call, const std::string& pattern) {
  try {
    if (call.regex != nullptr) return std::regex_search(s, *call.regex);
    return std::regex_search(s, std::regex(pattern, std::regex::ECMAScript));
  } catch (const std::regex_error& e) {
    return Error{"regular expression '" + pattern + "': " + e.what()};
  }
}

// A function call whose arguments (receiver first) evaluated without error.
Value Call(const Node& call, const std::vector<Value>& args) {
  const std::string& f = call.name;
  const Value& self = args[0];
  const Value* arg = args.size() > 1 ? &args[1] : nullptr;
  if (f == "size") return Size(self);
  if (const auto* s = std::get_if<std::string>(&self); s != nullptr && !call.method) {
    if (f == "quantity" || f == "isQuantity") {
      Result<kube::Quantity> q = kube::Quantity::Parse(*s);
      if (f == "isQuantity") return q.ok();
      if (!q.ok()) return Error{q.status().message()};
      return *q;
    }
    std::optional<Version> v = ParseVersion(*s);
    if (f == "isSemver") return v.has_value();
    if (!v) return Error{"invalid semver \"" + *s + "\""};
    return *std::move(v);
  }
  const auto* s = std::get_if<std::string>(&self);
  const auto* t = arg != nullptr ? std::get_if<std::string>(arg) : nullptr;
  if (s != nullptr && t != nullptr) {
    if (f == "startsWith") return s->starts_with(*t);
    if (f == "endsWith") return s->ends_with(*t);
    if (f == "contains") return s->find(*t) != std::string::npos;
    if (f == "matches") return RegexMatches(*s, call, *t);
  }
  if (const auto* q = std::get_if<kube::Quantity>(&self)) {
    if (f == "asInteger" && q->Milli() % 1000 != 0)
      return Error{"cannot convert quantity " + q->ToString() + " to an integer"};
    if (f == "asInteger") return q->Milli() / 1000;
    if (f == "isInteger") return q->Milli() % 1000 == 0;
    if (f == "sign") return static_cast<int64_t>(Sign(q->Milli()));
  }
  if (const auto* v = std::get_if<Version>(&self)) {
    if (f == "major") return v->major;
    if (f == "minor") return v->minor;
    if (f == "patch") return v->patch;
  }
  if (arg != nullptr && (f == "compareTo" || f == "isGreaterThan" || f == "isLessThan") &&
      (std::holds_alternative<kube::Quantity>(self) || std::holds_alternative<Version>(self)) &&
      self.index() == arg->index()) {
    const int order = Compare(self, *arg)->order;
    if (f == "compareTo") return int64_t{order};
    return f == "isGreaterThan" ? order > 0 : order < 0;
  }
  std::string signature = call.method ? TypeName(self) + "." + f + "(" : f + "(" + TypeName(self);
  for (size_t i = 1; i < args.size(); ++i) signature += (i > 1 ? ", " : "") + TypeName(args[i]);
  return NoOverload(signature + ")");
}

struct Env {
  const Device* device;
  std::vector<std::pair<const std::string*, Value>> bound;  // cel.bind's, innermost last
};

Value Eval(const Node& n, Env& env);

bool IsBool(const Value& v, bool b) {
  const auto* x = std::get_if<bool>(&v);
  return x != nullptr && *x == b;
}

// && and ||, which CEL makes commutative over errors: an operand that
// decides the result (false for &&, true for ||) decides it whatever the
// other is, even an error; otherwise an error or non-bool operand is the
// result.
Value Logic(const Node& n, Env& env) {
  const bool deciding = n.op == Op::kOr;
  const Value left = Eval(*n.args[0], env);
  if (IsBool(left, deciding)) return deciding;
  const Value right = Eval(*n.args[1], env);
  if (IsBool(right, deciding)) return deciding;
  for (const Value* v : {&left, &right}) {
    if (std::holds_alternative<Error>(*v)) return *v;
    if (!std::holds_alternative<bool>(*v)) return NoOverload(TypeName(*v) + " " + n.name);
  }
  return !deciding;
}

Value Eval(const Node& n, Env& env) {
  switch (n.op) {
    case Op::kLiteral:
      return n.literal;
    case Op::kDevice:
      return env.device;
    case Op::kVariable:
      for (auto it = env.bound.rbegin(); it != env.bound.rend(); ++it)
        if (*it->first == n.name) return it->second;
      return Error{"unbound variable " + n.name};
    case Op::kSelect:
      return Select(Eval(*n.args[0], env), n.name);
    case Op::kIndex: {
      const Value m = Eval(*n.args[0], env);
      if (std::holds_alternative<Error>(m)) return m;
      const Value key = Eval(*n.args[1], env);
      if (std::holds_alternative<Error>(key)) return key;
      const auto* k = std::get_if<std::string>(&key);
      if (k == nullptr || std::holds_alternative<const Device*>(m))
        return NoOverload(TypeName(m) + "[" + TypeName(key) + "]");
      return Select(m, *k);
    }
    case Op::kHas: {
      const Value m = Eval(*n.args[0], env);
      if (std::holds_alternative<Error>(m)) return m;
      if (std::holds_alternative<const Device*>(m)) return Contains(kDeviceFields, n.name);
      if (auto found = VisitMap(m, [&](const auto& map) -> Value { return map.contains(n.name); }))
        return *found;
      return NoOverload("has(" + TypeName(m) + "." + n.name + ")");
    }
    case Op::kCall: {
      std::vector<Value> args;
      for (const NodePtr& arg : n.args) {
        args.push_back(Eval(*arg, env));
        if (std::holds_alternative<Error>(args.back())) return args.back();
      }
      return Call(n, args);
    }
    case Op::kNot: {
      const Value v = Eval(*n.args[0], env);
      if (const auto* b = std::get_if<bool>(&v)) return !*b;
      return std::holds_alternative<Error>(v) ? v : NoOverload("!" + TypeName(v));
    }
    case Op::kNegate: {
      const Value v = Eval(*n.args[0], env);
      if (const auto* i = std::get_if<int64_t>(&v)) {
        if (*i == std::numeric_limits<int64_t>::min()) return Error{"int overflow"};
        return -*i;
      }
      return std::holds_alternative<Error>(v) ? v : NoOverload("-" + TypeName(v));
    }
    case Op::kAnd:
    case Op::kOr:
      return Logic(n, env);
    case Op::kConditional: {
      const Value c = Eval(*n.args[0], env);
      if (const auto* b = std::get_if<bool>(&c)) return Eval(*n.args[*b ? 1 : 2], env);
      return std::holds_alternative<Error>(c) ? c : NoOverload(TypeName(c) + " ? _ : _");
    }
    case Op::kCompare:
      return Relation(n.name, Eval(*n.args[0], env), Eval(*n.args[1], env));
    case Op::kIn: {
      const Value key = Eval(*n.args[0], env);
      if (std::holds_alternative<Error>(key)) return key;
      const Value m = Eval(*n.args[1], env);
      if (std::holds_alternative<Error>(m)) return m;
      const auto* k = std::get_if<std::string>(&key);
      std::optional<Value> found;
      if (k != nullptr)
        found = VisitMap(m, [&](const auto& map) -> Value { return map.contains(*k); });
      return found ? *found : NoOverload(TypeName(key) + " in " + TypeName(m));
    }
    case Op::kInList: {
      const Value element = Eval(*n.args[0], env);
      if (std::holds_alternative<Error>(element)) return element;
      std::optional<Value> error;  // the first, reported when no item is equal
      for (size_t i = 1; i < n.args.size(); ++i) {
        const Value item = Eval(*n.args[i], env);
        const Value equal = Relation("==", element, item);
        if (IsBool(equal, true)) return true;
        if (std::holds_alternative<Error>(equal) && !error) error = equal;
      }
      return error ? *error : Value(false);
    }
    case Op::kBind: {
      env.bound.emplace_back(&n.name, Eval(*n.args[0], env));
      Value result = Eval(*n.args[1], env);
      env.bound.pop_back();
      return result;
    }
  }
  return Error{"unknown operation"};
}

}  // namespace
}  // namespace vtenant::scheduler::device_selector_internal

namespace vtenant::scheduler {

Result<DeviceSelector> DeviceSelector::Parse(std::string_view expression) {
  namespace internal = device_selector_internal;
  if (expression.size() > internal::kMaxExpressionBytes)
    return InvalidArgument("CEL expression of " + std::to_string(expression.size()) +
                           " bytes, more than the " +
                           std::to_string(internal::kMaxExpressionBytes) + " allowed");
  VT_ASSIGN_OR_RETURN(std::vector<internal::Token> tokens, internal::Tokenize(expression));
  internal::Parser parser(std::move(tokens));
  VT_ASSIGN_OR_RETURN(internal::NodePtr root, parser.ParseAll());
  return DeviceSelector(std::string(expression), std::move(root));
}

Result<bool> DeviceSelector::Matches(const Device& device) const {
  namespace internal = device_selector_internal;
  internal::Env env{&device, {}};
  const internal::Value v = internal::Eval(*root_, env);
  if (const auto* e = std::get_if<internal::Error>(&v)) return InvalidArgument(e->message);
  if (const auto* b = std::get_if<bool>(&v)) return *b;
  return InvalidArgument("CEL expression evaluated to a " + internal::TypeName(v) + ", not a bool");
}

}  // namespace vtenant::scheduler
