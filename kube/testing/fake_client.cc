#include "kube/testing/fake_client.h"

#include <chrono>
#include <cstdio>
#include <utility>

#include "base/rfc3339.h"
#include "kube/testing/hung_server.h"

namespace vtenant::kube {
namespace {

using Value = rapidjson::Value;
using Allocator = rapidjson::Document::AllocatorType;

// A member name for lookups. A Value, not a StringRef: a StringRef would
// convert to const char* and be looked up up to the first NUL, not s.size().
Value Ref(std::string_view s) {
  return Value(Value::StringRefType(s.data(), static_cast<rapidjson::SizeType>(s.size())));
}

std::string TypeId(const ResourceType& type) { return type.group + "/" + type.resource; }

std::string Quoted(const ResourceType& type, std::string_view name) {
  return type.resource + " \"" + std::string(name) + "\"";
}

Status NotFoundError(const ResourceType& type, std::string_view name) {
  return NotFound(Quoted(type, name) + " not found");
}

Status ConflictError(const ResourceType& type, std::string_view name, std::string_view why) {
  return {StatusCode::kConflict,
          "Operation cannot be fulfilled on " + Quoted(type, name) + ": " + std::string(why)};
}

Status BadRequest(std::string message) { return {StatusCode::kBadRequest, std::move(message)}; }
Status InvalidError(std::string message) { return {StatusCode::kInvalid, std::move(message)}; }

void SetMember(Value& target, std::string_view key, Value value, Allocator& alloc) {
  auto it = target.FindMember(Ref(key));
  if (it != target.MemberEnd()) {
    it->value = value;
  } else {
    target.AddMember(Value(key.data(), static_cast<rapidjson::SizeType>(key.size()), alloc), value,
                     alloc);
  }
}

// ---- selectors

struct Requirement {
  enum class Op { kEquals, kNotEquals, kExists, kNotExists } op;
  std::string key;
  std::string value;
};

std::string Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

// Equality-based selectors: "a=b,c==d,e!=f,g,!h". Set-based ones ("in",
// "notin") are not supported and say so.
Result<std::vector<Requirement>> ParseSelector(std::string_view selector, bool allow_existence) {
  std::vector<Requirement> out;
  size_t start = 0;
  while (start <= selector.size() && !selector.empty()) {
    size_t comma = selector.find(',', start);
    std::string_view term = selector.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    start = comma == std::string_view::npos ? selector.size() + 1 : comma + 1;
    std::string t = Trim(term);
    if (t.empty()) return BadRequest("empty term in selector \"" + std::string(selector) + "\"");
    if (t.find(" in ") != std::string::npos || t.find(" notin ") != std::string::npos ||
        t.find('(') != std::string::npos) {
      return BadRequest("FakeClient supports equality selectors only: \"" + t + "\"");
    }
    Requirement r;
    size_t op;
    if ((op = t.find("!=")) != std::string::npos) {
      r = {Requirement::Op::kNotEquals, Trim(t.substr(0, op)), Trim(t.substr(op + 2))};
    } else if ((op = t.find("==")) != std::string::npos) {
      r = {Requirement::Op::kEquals, Trim(t.substr(0, op)), Trim(t.substr(op + 2))};
    } else if ((op = t.find('=')) != std::string::npos) {
      r = {Requirement::Op::kEquals, Trim(t.substr(0, op)), Trim(t.substr(op + 1))};
    } else if (!allow_existence) {
      return BadRequest("field selector term needs an operator: \"" + t + "\"");
    } else if (t[0] == '!') {
      r = {Requirement::Op::kNotExists, Trim(t.substr(1)), ""};
    } else {
      r = {Requirement::Op::kExists, t, ""};
    }
    if (r.key.empty()) return BadRequest("selector term without a key: \"" + t + "\"");
    out.push_back(std::move(r));
  }
  return out;
}

bool Satisfies(const Requirement& r, std::optional<std::string_view> actual) {
  switch (r.op) {
    case Requirement::Op::kEquals:
      return actual && *actual == r.value;
    case Requirement::Op::kNotEquals:
      return !actual || *actual != r.value;
    case Requirement::Op::kExists:
      return actual.has_value();
    case Requirement::Op::kNotExists:
      return !actual.has_value();
  }
  return false;
}

// The string at a dotted path ("spec.nodeName"), if there is one.
std::optional<std::string_view> FieldAt(const Value& object, std::string_view path) {
  const Value* current = &object;
  while (!path.empty()) {
    size_t dot = path.find('.');
    std::string_view step = path.substr(0, dot);
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
    if (!current->IsObject()) return std::nullopt;
    auto it = current->FindMember(Ref(step));
    if (it == current->MemberEnd()) return std::nullopt;
    current = &it->value;
  }
  if (!current->IsString()) return std::nullopt;
  return std::string_view(current->GetString(), current->GetStringLength());
}

struct Selectors {
  std::vector<Requirement> labels;
  std::vector<Requirement> fields;

  bool Match(const Value& object) const {
    for (const Requirement& r : labels) {
      if (!Satisfies(r, Label(object, r.key))) return false;
    }
    for (const Requirement& r : fields) {
      // Unset fields compare as "", as the server's field selectors do.
      std::optional<std::string_view> v = FieldAt(object, r.key);
      if (!Satisfies(r, v.value_or(""))) return false;
    }
    return true;
  }
};

Result<Selectors> ParseSelectors(const ListOptions& options) {
  Selectors s;
  VT_ASSIGN_OR_RETURN(s.labels, ParseSelector(options.label_selector, true));
  VT_ASSIGN_OR_RETURN(s.fields, ParseSelector(options.field_selector, false));
  return s;
}

// ---- patches

// RFC 7386: members of `patch` replace those of `target`, null removes,
// objects merge recursively, anything else replaces.
void MergePatch(Value& target, const Value& patch, Allocator& alloc) {
  if (!patch.IsObject()) {
    target.CopyFrom(patch, alloc);
    return;
  }
  if (!target.IsObject()) target.SetObject();
  for (const auto& m : patch.GetObject()) {
    std::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (m.value.IsNull()) {
      target.EraseMember(Ref(key));
      continue;
    }
    auto it = target.FindMember(Ref(key));
    if (it == target.MemberEnd()) {
      Value fresh(rapidjson::kObjectType);
      MergePatch(fresh, m.value, alloc);
      target.AddMember(Value(m.name, alloc), fresh, alloc);
    } else {
      MergePatch(it->value, m.value, alloc);
    }
  }
}

Result<std::vector<std::string>> ParsePointer(std::string_view pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty()) return tokens;
  if (pointer[0] != '/')
    return InvalidError("JSON pointer must start with '/': " + std::string(pointer));
  size_t start = 1;
  while (true) {
    size_t slash = pointer.find('/', start);
    std::string_view raw = pointer.substr(
        start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    std::string token;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '~' && i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
        token += raw[i + 1] == '0' ? '~' : '/';
        ++i;
      } else {
        token += raw[i];
      }
    }
    tokens.push_back(std::move(token));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return tokens;
}

Result<size_t> ArrayIndex(const std::string& token, size_t size, bool allow_end) {
  if (allow_end && token == "-") return size;
  if (token.empty() || token.find_first_not_of("0123456789") != std::string::npos) {
    return InvalidError("bad array index \"" + token + "\"");
  }
  size_t index = std::stoul(token);
  if (index > size || (!allow_end && index == size)) {
    return InvalidError("array index " + token + " out of range");
  }
  return index;
}

// The value at the first `count` tokens, or an error naming the missing step.
Result<Value*> Walk(Value& root, const std::vector<std::string>& tokens, size_t count) {
  Value* current = &root;
  for (size_t i = 0; i < count; ++i) {
    if (current->IsObject()) {
      auto it = current->FindMember(Ref(tokens[i]));
      if (it == current->MemberEnd()) return InvalidError("no member \"" + tokens[i] + "\"");
      current = &it->value;
    } else if (current->IsArray()) {
      VT_ASSIGN_OR_RETURN(size_t index, ArrayIndex(tokens[i], current->Size(), false));
      current = &(*current)[static_cast<rapidjson::SizeType>(index)];
    } else {
      return InvalidError("cannot descend into a scalar at \"" + tokens[i] + "\"");
    }
  }
  return current;
}

Status AddAt(Value& root, const std::vector<std::string>& tokens, Value value, Allocator& alloc) {
  if (tokens.empty()) {
    root = value;
    return Status::Ok();
  }
  VT_ASSIGN_OR_RETURN(Value * parent, Walk(root, tokens, tokens.size() - 1));
  const std::string& last = tokens.back();
  if (parent->IsObject()) {
    SetMember(*parent, last, std::move(value), alloc);
  } else if (parent->IsArray()) {
    VT_ASSIGN_OR_RETURN(size_t index, ArrayIndex(last, parent->Size(), true));
    parent->PushBack(value, alloc);
    for (size_t i = parent->Size() - 1; i > index; --i) {
      (*parent)[static_cast<rapidjson::SizeType>(i)].Swap(
          (*parent)[static_cast<rapidjson::SizeType>(i - 1)]);
    }
  } else {
    return InvalidError("cannot add into a scalar");
  }
  return Status::Ok();
}

Status RemoveAt(Value& root, const std::vector<std::string>& tokens) {
  if (tokens.empty()) return InvalidError("cannot remove the whole document");
  VT_ASSIGN_OR_RETURN(Value * parent, Walk(root, tokens, tokens.size() - 1));
  const std::string& last = tokens.back();
  if (parent->IsObject()) {
    if (!parent->EraseMember(Ref(last))) return InvalidError("no member \"" + last + "\"");
  } else if (parent->IsArray()) {
    VT_ASSIGN_OR_RETURN(size_t index, ArrayIndex(last, parent->Size(), false));
    parent->Erase(parent->Begin() + index);
  } else {
    return InvalidError("cannot remove from a scalar");
  }
  return Status::Ok();
}

// Whether anything but metadata and status differs: what the generation
// counts. Member order does not matter.
bool SpecChanged(const Value& a, const Value& b) {
  auto strip = [](const Value& object) {
    Object copy;
    copy.CopyFrom(object, copy.GetAllocator());
    copy.RemoveMember("metadata");
    copy.RemoveMember("status");
    return copy;
  };
  return strip(a) != strip(b);
}

Object StatusObject() {
  Object status(rapidjson::kObjectType);
  SetString(status, {}, "apiVersion", "v1");
  SetString(status, {}, "kind", "Status");
  SetString(status, {}, "status", "Success");
  return status;
}

}  // namespace

Status ApplyJsonPatch(Object& doc, const Value& patch) {
  if (!patch.IsArray()) return BadRequest("a JSON patch is an array of operations");
  Object work;
  work.CopyFrom(doc, work.GetAllocator());
  Allocator& alloc = work.GetAllocator();
  for (const Value& op : patch.GetArray()) {
    std::string_view name = GetString(op, {"op"});
    VT_ASSIGN_OR_RETURN(std::vector<std::string> path, ParsePointer(GetString(op, {"path"})));
    const Value* value = Find(op, {"value"});
    if (name == "add" || name == "replace" || name == "test") {
      if (value == nullptr) return InvalidError(std::string(name) + " needs a value");
    }
    if (name == "add") {
      VT_RETURN_IF_ERROR(AddAt(work, path, Value(*value, alloc), alloc));
    } else if (name == "remove") {
      VT_RETURN_IF_ERROR(RemoveAt(work, path));
    } else if (name == "replace") {
      VT_ASSIGN_OR_RETURN(Value * target, Walk(work, path, path.size()));
      target->CopyFrom(*value, alloc);
    } else if (name == "test") {
      VT_ASSIGN_OR_RETURN(Value * target, Walk(work, path, path.size()));
      if (*target != *value) {
        return InvalidError("test operation failed at \"" + std::string(GetString(op, {"path"})) +
                            "\"");
      }
    } else if (name == "move" || name == "copy") {
      VT_ASSIGN_OR_RETURN(std::vector<std::string> from, ParsePointer(GetString(op, {"from"})));
      VT_ASSIGN_OR_RETURN(Value * source, Walk(work, from, from.size()));
      Value copy(*source, alloc);
      if (name == "move") VT_RETURN_IF_ERROR(RemoveAt(work, from));
      VT_RETURN_IF_ERROR(AddAt(work, path, std::move(copy), alloc));
    } else {
      return InvalidError("unknown JSON patch operation \"" + std::string(name) + "\"");
    }
  }
  doc.Swap(work);
  return Status::Ok();
}

struct FakeClient::Event {
  uint64_t sequence;
  int64_t resource_version;
  std::string type_id;  // "" for bookmarks, which go to every watch
  std::string ns;
  WatchEvent::Type type;
  std::shared_ptr<const Object> object;
};

struct FakeClient::State {
  struct Injected {
    std::string verb;
    std::string resource;
    Status status;
    int times;
  };

  mutable std::mutex mu;
  std::condition_variable cv;
  int64_t resource_version = 0;  // the latest handed out
  int64_t compacted = 0;         // history at or below this is gone
  uint64_t next_sequence = 0;    // of the next event
  uint64_t next_uid = 0;
  // type id -> key -> object
  std::map<std::string, std::map<std::string, std::shared_ptr<Object>, std::less<>>> objects;
  std::deque<Event> history;
  std::vector<Injected> errors;
  std::map<std::string, int, std::less<>> calls;
  // (resource, subresource) -> test-provided answer to a create.
  std::map<std::pair<std::string, std::string>, SubresourceHandler> subresource_handlers;
  uint64_t end_generation = 0;
  bool held = false;
  bool calls_held = false;
  int held_calls = 0;
  int open_watches = 0;

  // Waits while calls are held (WaitWhileHung), then counts the call. The
  // caller registered a wake-up with call.cancel first.
  Status EnterLocked(std::unique_lock<std::mutex>& lock, std::string_view verb,
                     const ResourceType& type, const CallOptions& call, const Clock& clock) {
    const Clock::TimePoint deadline =
        call.deadline || call.timeout > Clock::Duration::zero()
            ? CallDeadline(call, clock.Now(), Clock::Duration::max() / 4)
            : Clock::TimePoint::max();
    VT_RETURN_IF_ERROR(WaitWhileHung(lock, cv, calls_held, &held_calls, clock, deadline,
                                     call.cancel, std::string(verb) + " " + type.resource));
    return CheckLocked(verb, type);
  }

  // Counts the call and returns an injected error for it, if any.
  Status CheckLocked(std::string_view verb, const ResourceType& type) {
    ++calls[std::string(verb)];
    for (auto it = errors.begin(); it != errors.end(); ++it) {
      if (it->verb != verb || (!it->resource.empty() && it->resource != type.resource)) continue;
      Status status = it->status;
      if (it->times > 0 && --it->times == 0) errors.erase(it);
      return status;
    }
    return Status::Ok();
  }

  std::map<std::string, std::shared_ptr<Object>, std::less<>>& Objects(const ResourceType& type) {
    return objects[TypeId(type)];
  }

  void RecordLocked(const ResourceType& type, WatchEvent::Type event_type,
                    std::shared_ptr<const Object> object) {
    history.push_back({next_sequence++, resource_version, TypeId(type),
                       std::string(Namespace(*object)), event_type, std::move(object)});
    cv.notify_all();
  }

  // The namespace a request acts in: the path's, or the object's when the
  // path has none. Empty for cluster-scoped types.
  Result<std::string> ResolveNamespace(const ResourceType& type, std::string_view ns,
                                       const Value* object) {
    if (!type.namespaced) return std::string();
    std::string_view from_object = object ? Namespace(*object) : std::string_view();
    if (!ns.empty() && !from_object.empty() && ns != from_object) {
      return BadRequest(
          "the namespace of the provided object does not match the namespace sent on the request");
    }
    std::string resolved(ns.empty() ? from_object : ns);
    if (resolved.empty()) return BadRequest("a namespace is required for " + type.resource);
    return resolved;
  }

  Result<Object> CreateLocked(const ResourceType& type, std::string_view ns, const Value& object) {
    if (!object.IsObject()) return BadRequest("the object must be a JSON object");
    Object doc = Clone(object);
    VT_ASSIGN_OR_RETURN(std::string resolved, ResolveNamespace(type, ns, &doc));
    std::string name(Name(doc));
    if (name.empty()) {
      std::string_view prefix = GetString(doc, {"metadata", "generateName"});
      if (prefix.empty()) return InvalidError("metadata.name or generateName is required");
      static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
      uint64_t n = ++next_uid;
      name = std::string(prefix);
      for (int i = 0; i < 5; ++i, n /= 27) name += kAlphabet[n % 27];
      SetString(doc, {"metadata"}, "name", name);
    }
    auto& objects_of_type = Objects(type);
    const std::string key = MakeKey(resolved, name);
    if (objects_of_type.count(key) != 0) {
      return Status(StatusCode::kAlreadyExists, Quoted(type, name) + " already exists");
    }
    if (type.namespaced) {
      SetString(doc, {"metadata"}, "namespace", resolved);
    } else {
      RemoveMember(doc, {"metadata"}, "namespace");
    }
    if (!doc.HasMember("apiVersion")) SetString(doc, {}, "apiVersion", type.ApiVersion());
    if (!doc.HasMember("kind")) SetString(doc, {}, "kind", type.kind);
    char uid[40];
    std::snprintf(uid, sizeof(uid), "00000000-0000-4000-8000-%012llx",
                  static_cast<unsigned long long>(++next_uid));
    SetString(doc, {"metadata"}, "uid", uid);
    SetString(doc, {"metadata"}, "creationTimestamp",
              FormatRfc3339(std::chrono::system_clock::now()));
    RemoveMember(doc, {"metadata"}, "deletionTimestamp");
    SetMember(EnsurePath(doc, {"metadata"}), "generation", Value(int64_t{1}), doc.GetAllocator());
    SetString(doc, {"metadata"}, "resourceVersion", std::to_string(++resource_version));
    auto stored = std::make_shared<Object>(Clone(doc));
    objects_of_type[key] = stored;
    RecordLocked(type, WatchEvent::Type::kAdded, stored);
    return doc;
  }

  // Writes `next` over `stored` (key `key`) with the server's rules for
  // status, immutable metadata, generation, no-op writes and finalizers.
  Result<Object> WriteLocked(const ResourceType& type, const std::string& key,
                             const std::shared_ptr<Object>& stored, Object next,
                             std::string_view subresource) {
    if (!next.IsObject()) return BadRequest("the object must be a JSON object");
    if (subresource == "status") {
      // Only the status changes.
      Object merged = Clone(*stored);
      merged.EraseMember("status");
      if (next.HasMember("status")) {
        merged.AddMember("status", Value(next["status"], merged.GetAllocator()),
                         merged.GetAllocator());
      }
      next.Swap(merged);
    } else if (subresource.empty()) {
      next.EraseMember("status");
      if (stored->HasMember("status")) {
        next.AddMember("status", Value((*stored)["status"], next.GetAllocator()),
                       next.GetAllocator());
      }
    } else {
      return NotFound("FakeClient has no subresource \"" + std::string(subresource) + "\"");
    }
    // After the Swap above: the allocator is the one `next` owns now.
    Allocator& alloc = next.GetAllocator();
    Value& meta = EnsurePath(next, {"metadata"});
    for (std::string_view field :
         {"uid", "creationTimestamp", "name", "namespace", "deletionTimestamp"}) {
      meta.EraseMember(Ref(field));
      if (const Value* v = Find(*stored, {"metadata", field})) {
        meta.AddMember(Value(field.data(), static_cast<rapidjson::SizeType>(field.size()), alloc),
                       Value(*v, alloc), alloc);
      }
    }
    int64_t generation = Generation(*stored);
    if (SpecChanged(next, *stored)) ++generation;
    SetMember(meta, "generation", Value(generation), alloc);
    SetString(next, {"metadata"}, "resourceVersion", ResourceVersion(*stored));
    if (next == *stored) return Clone(*stored);  // a no-op makes no new version

    auto& objects_of_type = Objects(type);
    const Value* finalizers = Find(next, {"metadata", "finalizers"});
    const bool no_finalizers =
        finalizers == nullptr || !finalizers->IsArray() || finalizers->Empty();
    SetString(next, {"metadata"}, "resourceVersion", std::to_string(++resource_version));
    if (IsBeingDeleted(next) && no_finalizers) {
      objects_of_type.erase(key);
      RecordLocked(type, WatchEvent::Type::kDeleted, std::make_shared<Object>(Clone(next)));
      return next;
    }
    auto replacement = std::make_shared<Object>(Clone(next));
    objects_of_type[key] = replacement;
    RecordLocked(type, WatchEvent::Type::kModified, replacement);
    return next;
  }

  Status DeleteLocked(const ResourceType& type, const std::string& ns, std::string_view name,
                      const DeleteOptions& options) {
    auto& objects_of_type = Objects(type);
    auto it = objects_of_type.find(MakeKey(ns, name));
    if (it == objects_of_type.end()) return NotFoundError(type, name);
    const Object& stored = *it->second;
    if (!options.precondition_uid.empty() && options.precondition_uid != Uid(stored)) {
      return ConflictError(type, name,
                           "Precondition failed: UID in precondition: " + options.precondition_uid +
                               ", UID in object meta: " + std::string(Uid(stored)));
    }
    if (!options.precondition_resource_version.empty() &&
        options.precondition_resource_version != ResourceVersion(stored)) {
      return ConflictError(
          type, name,
          "Precondition failed: ResourceVersion in precondition: " +
              options.precondition_resource_version +
              ", ResourceVersion in object meta: " + std::string(ResourceVersion(stored)));
    }
    Object final_state = Clone(stored);
    SetString(final_state, {"metadata"}, "resourceVersion", std::to_string(++resource_version));
    const Value* finalizers = Find(stored, {"metadata", "finalizers"});
    if (finalizers != nullptr && finalizers->IsArray() && !finalizers->Empty()) {
      if (IsBeingDeleted(stored)) {
        --resource_version;  // nothing changes
        return Status::Ok();
      }
      SetString(final_state, {"metadata"}, "deletionTimestamp",
                FormatRfc3339(std::chrono::system_clock::now()));
      auto marked = std::make_shared<Object>(std::move(final_state));
      it->second = marked;
      RecordLocked(type, WatchEvent::Type::kModified, marked);
      return Status::Ok();
    }
    objects_of_type.erase(it);
    RecordLocked(type, WatchEvent::Type::kDeleted,
                 std::make_shared<Object>(std::move(final_state)));
    return Status::Ok();
  }
};

namespace {

// Wakes calls waiting in EnterLocked when `cancel` fires. Made before the
// state's lock is taken: an already-cancelled Cancellation runs the callback
// at once, and the callback takes that lock.
template <typename State>
class WakeOnCancel {
 public:
  WakeOnCancel(const std::shared_ptr<State>& state, Cancellation* cancel)
      : registration_(cancel, [weak = std::weak_ptr<State>(state)] {
          if (std::shared_ptr<State> s = weak.lock()) {
            std::lock_guard lock(s->mu);
            s->cv.notify_all();
          }
        }) {}

 private:
  CancellationRegistration registration_;
};

// One call's hold on the client: a wake-up on call.cancel registered first,
// then the client's lock, held until the call returns.
template <typename State>
class LockedCall {
 public:
  LockedCall(const std::shared_ptr<State>& state, const CallOptions& call)
      : wake_(state, call.cancel), lock_(state->mu), state_(*state), call_(call) {}

  // State::EnterLocked for this call.
  Status Enter(std::string_view verb, const ResourceType& type, const Clock& clock) {
    return state_.EnterLocked(lock_, verb, type, call_, clock);
  }

 private:
  WakeOnCancel<State> wake_;
  std::unique_lock<std::mutex> lock_;
  State& state_;
  const CallOptions& call_;
};

}  // namespace

FakeClient::FakeClient(Clock* clock) : state_(std::make_shared<State>()), clock_(clock) {
  waker_ = clock_->AddWaker([weak = std::weak_ptr<State>(state_)] {
    if (std::shared_ptr<State> s = weak.lock()) {
      std::lock_guard lock(s->mu);
      s->cv.notify_all();
    }
  });
}

FakeClient::~FakeClient() {
  EndWatches();
  clock_->RemoveWaker(waker_);
}

Result<Object> FakeClient::Get(const ResourceType& type, std::string_view ns, std::string_view name,
                               const CallOptions& call) {
  LockedCall locked(state_, call);
  VT_RETURN_IF_ERROR(locked.Enter("get", type, *clock_));
  auto& objects = state_->Objects(type);
  auto it = objects.find(MakeKey(type.namespaced ? ns : "", name));
  if (it == objects.end()) return NotFoundError(type, name);
  return Clone(*it->second);
}

Result<ObjectList> FakeClient::List(const ResourceType& type, std::string_view ns,
                                    const ListOptions& options, const CallOptions& call) {
  LockedCall locked(state_, call);
  VT_RETURN_IF_ERROR(locked.Enter("list", type, *clock_));
  VT_ASSIGN_OR_RETURN(Selectors selectors, ParseSelectors(options));
  auto& objects = state_->Objects(type);
  auto it = objects.begin();
  if (!options.continue_token.empty()) {
    constexpr std::string_view kPrefix = "fake:";
    if (options.continue_token.rfind(kPrefix, 0) != 0) {
      return BadRequest("invalid continue token \"" + options.continue_token + "\"");
    }
    it = objects.upper_bound(std::string_view(options.continue_token).substr(kPrefix.size()));
  }
  ObjectList out;
  out.resource_version = std::to_string(state_->resource_version);
  for (; it != objects.end(); ++it) {
    const Object& object = *it->second;
    if (type.namespaced && !ns.empty() && Namespace(object) != ns) continue;
    if (!selectors.Match(object)) continue;
    if (options.limit > 0 && static_cast<int64_t>(out.items.size()) == options.limit) {
      out.continue_token = "fake:" + KeyOf(out.items.back());
      break;
    }
    out.items.push_back(Clone(object));
  }
  return out;
}

Result<Object> FakeClient::Create(const ResourceType& type, std::string_view ns,
                                  const rapidjson::Value& object, std::string_view subresource,
                                  const CallOptions& call) {
  LockedCall locked(state_, call);
  VT_RETURN_IF_ERROR(locked.Enter("create", type, *clock_));
  if (subresource.empty()) return state_->CreateLocked(type, ns, object);
  VT_ASSIGN_OR_RETURN(std::string resolved, state_->ResolveNamespace(type, ns, &object));
  const std::string name(Name(object));
  auto& objects = state_->Objects(type);
  auto it = objects.find(MakeKey(resolved, name));
  if (it == objects.end()) return NotFoundError(type, name);
  if (TypeId(type) == TypeId(resources::kPods) && subresource == "binding") {
    std::string_view node = GetString(object, {"target", "name"});
    std::string_view current = GetString(*it->second, {"spec", "nodeName"});
    if (!current.empty()) {
      return ConflictError(
          type, name,
          "pod " + name + " is already assigned to node \"" + std::string(current) + "\"");
    }
    Object next = Clone(*it->second);
    SetString(next, {"spec"}, "nodeName", node);
    // As the API server does: the binding's annotations join the pod's.
    if (const rapidjson::Value* annotations = Find(object, {"metadata", "annotations"});
        annotations != nullptr && annotations->IsObject()) {
      for (const auto& m : annotations->GetObject())
        if (m.value.IsString())
          SetString(next, {"metadata", "annotations"}, m.name.GetString(), m.value.GetString());
    }
    VT_RETURN_IF_ERROR(
        state_->WriteLocked(type, MakeKey(resolved, name), it->second, std::move(next), "")
            .status());
    return StatusObject();
  }
  if (TypeId(type) == TypeId(resources::kPods) && subresource == "eviction") {
    VT_RETURN_IF_ERROR(state_->DeleteLocked(type, resolved, name, {}));
    return StatusObject();
  }
  if (auto handler = state_->subresource_handlers.find({type.resource, std::string(subresource)});
      handler != state_->subresource_handlers.end()) {
    return handler->second(resolved, name, object);
  }
  return NotFound("FakeClient has no subresource \"" + std::string(subresource) + "\" of " +
                  type.resource);
}

void FakeClient::HandleSubresource(std::string resource, std::string subresource,
                                   SubresourceHandler handler) {
  std::lock_guard lock(state_->mu);
  state_->subresource_handlers[{std::move(resource), std::move(subresource)}] = std::move(handler);
}

Result<Object> FakeClient::Update(const ResourceType& type, std::string_view ns,
                                  const rapidjson::Value& object, std::string_view subresource,
                                  const CallOptions& call) {
  LockedCall locked(state_, call);
  VT_RETURN_IF_ERROR(locked.Enter("update", type, *clock_));
  const std::string name(Name(object));
  if (name.empty()) return InvalidError("update needs metadata.name");
  VT_ASSIGN_OR_RETURN(std::string resolved, state_->ResolveNamespace(type, ns, &object));
  const std::string key = MakeKey(resolved, name);
  auto& objects = state_->Objects(type);
  auto it = objects.find(key);
  if (it == objects.end()) return NotFoundError(type, name);
  std::string_view version = ResourceVersion(object);
  if (!version.empty() && version != ResourceVersion(*it->second)) {
    return ConflictError(type, name,
                         "the object has been modified; please apply your changes to the latest "
                         "version and try again");
  }
  return state_->WriteLocked(type, key, it->second, Clone(object), subresource);
}

Result<Object> FakeClient::Patch(const ResourceType& type, std::string_view ns,
                                 std::string_view name, PatchType patch_type,
                                 std::string_view patch, const PatchOptions& options,
                                 const CallOptions& call) {
  LockedCall locked(state_, call);
  VT_RETURN_IF_ERROR(locked.Enter("patch", type, *clock_));
  Result<Object> parsed = ParseJson(patch);
  if (!parsed.ok()) {
    return BadRequest("FakeClient takes JSON patches only: " + parsed.status().message());
  }
  VT_ASSIGN_OR_RETURN(std::string resolved, state_->ResolveNamespace(type, ns, nullptr));
  const std::string key = MakeKey(resolved, name);
  auto& objects = state_->Objects(type);
  auto it = objects.find(key);
  if (it == objects.end()) {
    if (patch_type != PatchType::kApply || !options.subresource.empty()) {
      return NotFoundError(type, name);
    }
    SetString(*parsed, {"metadata"}, "name", name);
    return state_->CreateLocked(type, resolved, *parsed);
  }
  Object next = Clone(*it->second);
  if (patch_type == PatchType::kJson) {
    VT_RETURN_IF_ERROR(ApplyJsonPatch(next, *parsed));
  } else {
    std::string_view version = GetString(*parsed, {"metadata", "resourceVersion"});
    if (!version.empty() && version != ResourceVersion(*it->second)) {
      return ConflictError(type, name,
                           "the object has been modified; please apply your changes to the "
                           "latest version and try again");
    }
    MergePatch(next, *parsed, next.GetAllocator());
  }
  return state_->WriteLocked(type, key, it->second, std::move(next), options.subresource);
}

Status FakeClient::Delete(const ResourceType& type, std::string_view ns, std::string_view name,
                          const DeleteOptions& options, const CallOptions& call) {
  LockedCall locked(state_, call);
  VT_RETURN_IF_ERROR(locked.Enter("delete", type, *clock_));
  VT_ASSIGN_OR_RETURN(std::string resolved, state_->ResolveNamespace(type, ns, nullptr));
  return state_->DeleteLocked(type, resolved, name, options);
}

Status FakeClient::Watch(const ResourceType& type, std::string_view ns, const ListOptions& options,
                         const WatchHandler& handler, Cancellation* cancel) {
  std::shared_ptr<State> state = state_;
  std::weak_ptr<State> weak = state;
  CancellationRegistration on_cancel(cancel, [weak] {
    if (std::shared_ptr<State> s = weak.lock()) {
      std::lock_guard lock(s->mu);
      s->cv.notify_all();
    }
  });
  std::unique_lock lock(state->mu);
  VT_RETURN_IF_ERROR(state->CheckLocked("watch", type));
  VT_ASSIGN_OR_RETURN(Selectors selectors, ParseSelectors(options));
  const std::string type_id = TypeId(type);
  const std::string watch_ns = type.namespaced ? std::string(ns) : std::string();
  auto matches = [&](const std::string& event_ns, const Object& object) {
    return (watch_ns.empty() || event_ns == watch_ns) && selectors.Match(object);
  };

  std::deque<Object> initial;
  uint64_t next = state->next_sequence;
  if (options.resource_version.empty() || options.resource_version == "0") {
    for (const auto& [key, object] : state->Objects(type)) {
      if (matches(std::string(Namespace(*object)), *object)) initial.push_back(Clone(*object));
    }
  } else {
    int64_t from = 0;
    try {
      from = std::stoll(options.resource_version);
    } catch (const std::exception&) {
      return BadRequest("invalid resourceVersion \"" + options.resource_version + "\"");
    }
    if (from < state->compacted) {
      return Status(StatusCode::kGone, "too old resource version: " + options.resource_version +
                                           " (" + std::to_string(state->compacted) + ")");
    }
    for (const Event& e : state->history) {
      if (e.resource_version > from) {
        next = e.sequence;
        break;
      }
    }
  }

  const auto deadline =
      options.timeout_seconds > 0
          ? std::chrono::steady_clock::now() + std::chrono::seconds(options.timeout_seconds)
          : std::chrono::steady_clock::time_point::max();
  const uint64_t end_generation = state->end_generation;
  ++state->open_watches;
  Status result;
  bool announced = !options.start_bookmark;
  while (true) {
    if (cancel != nullptr && cancel->cancelled()) {
      result = Status(StatusCode::kCancelled, "watch cancelled");
      break;
    }
    if (state->end_generation != end_generation) break;
    if (std::chrono::steady_clock::now() >= deadline) break;
    if (!state->held) {
      std::optional<WatchEvent> event;
      if (!announced) {
        announced = true;
        event = WatchEvent{WatchEvent::Type::kBookmark, Object(rapidjson::kObjectType)};
        SetString(event->object, {"metadata"}, "resourceVersion",
                  options.resource_version.empty() || options.resource_version == "0"
                      ? std::to_string(state->resource_version)
                      : options.resource_version);
      } else if (!initial.empty()) {
        event = WatchEvent{WatchEvent::Type::kAdded, std::move(initial.front())};
        initial.pop_front();
      } else {
        const uint64_t first =
            state->history.empty() ? state->next_sequence : state->history.front().sequence;
        if (next < first) {
          result = Status(StatusCode::kGone, "watch fell behind a compaction");
          break;
        }
        if (next < state->next_sequence) {
          const Event& e = state->history[next - first];
          ++next;
          if (e.type_id.empty() ? !options.allow_watch_bookmarks
                                : e.type_id != type_id || !matches(e.ns, *e.object)) {
            continue;  // not for this watch; look at the next one
          }
          event = WatchEvent{e.type, Clone(*e.object)};
        }
      }
      if (event) {
        lock.unlock();
        const bool more = handler(*event);
        lock.lock();
        if (!more) break;
        continue;
      }
    }
    if (deadline == std::chrono::steady_clock::time_point::max()) {
      state->cv.wait(lock);
    } else {
      state->cv.wait_until(lock, deadline);
    }
  }
  --state->open_watches;
  state->cv.notify_all();
  return result;
}

void FakeClient::InjectError(std::string verb, std::string resource, Status status, int times) {
  std::lock_guard lock(state_->mu);
  state_->errors.push_back({std::move(verb), std::move(resource), std::move(status), times});
}

void FakeClient::ClearErrors() {
  std::lock_guard lock(state_->mu);
  state_->errors.clear();
}

void FakeClient::HoldCalls(bool hold) {
  std::lock_guard lock(state_->mu);
  state_->calls_held = hold;
  state_->cv.notify_all();
}

int FakeClient::HeldCalls() const {
  std::lock_guard lock(state_->mu);
  return state_->held_calls;
}

void FakeClient::EndWatches() {
  std::lock_guard lock(state_->mu);
  ++state_->end_generation;
  state_->cv.notify_all();
}

void FakeClient::Compact() {
  std::lock_guard lock(state_->mu);
  state_->compacted = state_->resource_version;
  state_->history.clear();
  state_->cv.notify_all();
}

void FakeClient::HoldWatches(bool hold) {
  std::lock_guard lock(state_->mu);
  state_->held = hold;
  state_->cv.notify_all();
}

void FakeClient::SendBookmarks() {
  std::lock_guard lock(state_->mu);
  auto bookmark = std::make_shared<Object>(rapidjson::kObjectType);
  SetString(*bookmark, {"metadata"}, "resourceVersion", std::to_string(state_->resource_version));
  state_->history.push_back({state_->next_sequence++, state_->resource_version, "", "",
                             WatchEvent::Type::kBookmark, std::move(bookmark)});
  state_->cv.notify_all();
}

int FakeClient::Calls(std::string_view verb) const {
  std::lock_guard lock(state_->mu);
  auto it = state_->calls.find(verb);
  return it == state_->calls.end() ? 0 : it->second;
}

int64_t FakeClient::CurrentResourceVersion() const {
  std::lock_guard lock(state_->mu);
  return state_->resource_version;
}

int FakeClient::OpenWatches() const {
  std::lock_guard lock(state_->mu);
  return state_->open_watches;
}

}  // namespace vtenant::kube
