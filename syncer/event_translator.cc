#include "syncer/event_translator.h"

#include <cctype>

#include "kube/json_builder.h"
#include "syncer/names.h"

namespace vtenant::syncer {
namespace {

constexpr size_t kMaxName = 253;
constexpr size_t kHashDigits = 16;
constexpr size_t kMaxReason = 128;
// Longer messages are cut: the API server refuses Events past 1 KiB of
// note for events.k8s.io, and nobody reads further in `kubectl describe`.
constexpr size_t kMaxMessage = 1024;

bool IsWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '/' ||
         c == '-';
}

bool IsUid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

// "2026-12-02T11:50:22.123456Z" (a MicroTime) as a Time: "2026-12-02T11:50:22Z".
std::string WholeSeconds(std::string_view time) {
  if (time.empty()) return "";
  size_t dot = time.find('.');
  if (dot == std::string_view::npos) return std::string(time);
  return std::string(time.substr(0, dot)) + "Z";
}

// `text` cut to at most `max` bytes, at the start of a UTF-8 character:
// a character cut in two would make the Event invalid to the API server.
void CutAtCharacter(std::string& text, size_t max) {
  if (text.size() <= max) return;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  text.resize(cut);
}

}  // namespace

EventTranslator::EventTranslator(const SyncerConfig& config)
    : tenant_(config.tenant), queue_(config.queue), host_namespace_(config.host_namespace) {}

std::string EventTranslator::VirtualEventName(std::string_view object_name,
                                              std::string_view host_event_uid) {
  std::string prefix(object_name.substr(0, kMaxName - kHashDigits - 1));
  // A cut may leave a '.' or '-' where a DNS subdomain may not end.
  while (!prefix.empty() && (prefix.back() == '.' || prefix.back() == '-')) prefix.pop_back();
  return prefix + "." + HexSha256Prefix(host_event_uid, kHashDigits);
}

std::optional<std::string> EventTranslator::TranslateWord(std::string_view word,
                                                          std::string_view ns, bool after_queue,
                                                          const HostNameLookup& names) const {
  if (std::optional<std::string> known = names(word)) return known;
  const std::string own_prefix = host_namespace_ + "/";
  if (word.starts_with(own_prefix)) {
    if (std::optional<std::string> known = names(word.substr(own_prefix.size()))) return known;
  }
  // pg-<host pod>-<UID>: the host pod grouper's group of a bare pod.
  std::string_view bare = word.starts_with(own_prefix) ? word.substr(own_prefix.size()) : word;
  if (bare.starts_with("pg-") && bare.size() > 3 + 37 && bare[bare.size() - 37] == '-' &&
      IsUid(bare.substr(bare.size() - 36))) {
    if (std::optional<std::string> pod = names(bare.substr(3, bare.size() - 3 - 37))) return pod;
  }
  // This tenant's host name, in vCluster's form, of an object of the same
  // namespace that the syncer has not copied (a ConfigMap a pod names
  // before the team made it): read back only when it reads back one way.
  const std::string own_suffix = "-x-" + std::string(ns) + "-x-" + tenant_;
  if (bare.size() > own_suffix.size() && bare.ends_with(own_suffix)) {
    std::string_view name = bare.substr(0, bare.size() - own_suffix.size());
    if (HostName(name, ns, tenant_) == bare) return std::string(ns) + "/" + std::string(name);
  }
  if (word == host_namespace_) return std::string(ns);
  if (word.starts_with("vtenant-") || word.find("-x-") != std::string_view::npos) {
    return std::string(kHiddenName);
  }
  if (after_queue && word != queue_) return std::string(kAnotherQueue);
  return std::nullopt;
}

std::string EventTranslator::TranslateText(std::string_view text, std::string_view ns,
                                           const HostNameLookup& names) const {
  std::string out;
  out.reserve(text.size());
  std::string_view previous;  // the last word, as written
  size_t i = 0;
  while (i < text.size()) {
    if (!IsWordChar(text[i])) {
      out += text[i++];
      continue;
    }
    size_t end = i;
    while (end < text.size() && IsWordChar(text[end])) ++end;
    std::string_view word = text.substr(i, end - i);
    // A full stop (or several) ending a sentence is not part of the name.
    std::string_view tail;
    while (!word.empty() && word.back() == '.') {
      word.remove_suffix(1);
      tail = text.substr(i + word.size(), end - i - word.size());
    }
    const bool after_queue = previous == "queue" || previous == "Queue";
    std::optional<std::string> replaced =
        word.empty() ? std::nullopt : TranslateWord(word, ns, after_queue, names);
    if (replaced && *replaced == kAnotherQueue && out.size() >= 6) {
      // "queue vision" becomes "another queue", not "queue another queue".
      std::string_view before = std::string_view(out).substr(out.size() - 6);
      if (before == "queue " || before == "Queue ") {
        if (before[0] == 'Q') replaced->front() = 'A';
        out.resize(out.size() - 6);
      }
    }
    out += replaced ? *replaced : std::string(word);
    out += tail;
    previous = word;
    i = end;
  }
  return out;
}

kube::Object EventTranslator::FromHost(const rapidjson::Value& host, const VirtualTarget& target,
                                       const HostNameLookup& names) const {
  std::string type(kube::GetString(host, {"type"}));
  if (type != "Warning") type = "Normal";
  std::string reason(kube::GetString(host, {"reason"}));
  CutAtCharacter(reason, kMaxReason);
  std::string message = TranslateText(kube::GetString(host, {"message"}), target.ns, names);
  CutAtCharacter(message, kMaxMessage);

  int64_t count = kube::GetInt(host, {"count"}, 0);
  std::string first(kube::GetString(host, {"firstTimestamp"}));
  std::string last(kube::GetString(host, {"lastTimestamp"}));
  const std::string event_time = WholeSeconds(kube::GetString(host, {"eventTime"}));
  if (first.empty()) first = event_time;
  if (last.empty()) {
    last = WholeSeconds(kube::GetString(host, {"series", "lastObservedTime"}));
    if (last.empty()) last = first;
  }
  if (count < 1) count = std::max<int64_t>(1, kube::GetInt(host, {"series", "count"}, 1));

  kube::JsonObject involved{{"apiVersion", target.api_version},
                            {"kind", target.kind},
                            {"namespace", target.ns},
                            {"name", target.name},
                            {"uid", target.uid}};
  std::string_view field_path = kube::GetString(host, {"involvedObject", "fieldPath"});
  if (!field_path.empty()) involved.Set("fieldPath", field_path);
  kube::JsonObject event{
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata",
       kube::JsonObject{{"name", VirtualEventName(target.name, kube::Uid(host))},
                        {"namespace", target.ns},
                        {"labels", kube::JsonObject{{kManagedByLabel, kManagedByValue}}}}},
      {"involvedObject", std::move(involved)},
      {"type", type},
      {"reason", reason},
      {"message", message},
      {"count", count}};
  if (!first.empty()) event.Set("firstTimestamp", first);
  if (!last.empty()) event.Set("lastTimestamp", last);
  std::string_view component = kube::GetString(host, {"source", "component"});
  if (component.empty()) component = kube::GetString(host, {"reportingComponent"});
  if (!component.empty()) event.Set("source", kube::JsonObject{{"component", component}});
  return kube::BuildJson(std::move(event));
}

std::optional<kube::Object> EventTranslator::Update(const rapidjson::Value& existing,
                                                    const rapidjson::Value& wanted) const {
  kube::Object out = kube::Clone(existing);
  auto& a = out.GetAllocator();
  bool changed = false;
  for (const char* member : {"involvedObject", "type", "reason", "message", "count",
                             "firstTimestamp", "lastTimestamp", "source"}) {
    auto want = wanted.FindMember(member);
    auto have = out.FindMember(member);
    if (want == wanted.MemberEnd()) {
      if (have != out.MemberEnd()) {
        out.RemoveMember(member);
        changed = true;
      }
      continue;
    }
    if (have != out.MemberEnd() && have->value == want->value) continue;
    out.RemoveMember(member);
    out.AddMember(rapidjson::Value(member, a), rapidjson::Value(want->value, a), a);
    changed = true;
  }
  if (!changed) return std::nullopt;
  return out;
}

}  // namespace vtenant::syncer
