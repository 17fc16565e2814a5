// Allowlist: host objects built member by member from a virtual one.
//
// The tenant is untrusted input (docs/architecture.md, "Syncer rules",
// rule 4): a translator names every member it knows to be safe, and
// nothing else reaches the host. A Schema says, for the members of one
// JSON object, what becomes of each:
//
//   Copy     taken as it is (a deep copy: scalars, lists of scalars, maps
//            the host reads as data, such as resource lists);
//   Object   an object walked with a nested schema;
//   ArrayOf  an array whose items are objects walked with a nested schema;
//   Custom   handled by the translator's own code (translated, forced,
//            checked, or deliberately left out); the walk neither copies
//            nor reports it.
//
// Every other member is dropped and its path reported, array indices
// collapsed ("spec.containers[].foo"), so the syncer can count it
// (vtenant_syncer_dropped_fields_total) and log it once. A value of the
// wrong type where a nested schema is expected (a string for an Object)
// is dropped and reported the same way; an explicit null there is left
// out silently, as absence.
//
//   static const Schema kPort =
//       Schema().Copy({"name", "containerPort", "protocol"});
//   static const Schema kContainer =
//       Schema().Copy({"name", "image"}).ArrayOf("ports", &kPort).Custom({"env"});
//   DroppedFields dropped;
//   kContainer.Apply(virtual_container, host_container, allocator, "spec.containers[]",
//                    &dropped);
//
// Schemas are built once (function statics) and only read afterwards, so
// one schema serves every thread. Nested schemas are held by pointer and
// must outlive the schemas that name them.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "syncer/json_edit.h"

namespace vtenant::syncer {

// Paths of the members a translation left out because no schema allows
// them, in the order met: "spec.containers[].foo".
using DroppedFields = std::vector<std::string>;

class Schema {
 public:
  Schema() = default;

  // Members taken as they are.
  Schema& Copy(std::initializer_list<std::string_view> names);
  // Member `name`: an object, walked with `schema`.
  Schema& Object(std::string_view name, const Schema* schema);
  // Member `name`: an array of objects, each walked with `schema`.
  Schema& ArrayOf(std::string_view name, const Schema* schema);
  // Members the translator writes (or leaves out) with its own code.
  Schema& Custom(std::initializer_list<std::string_view> names);

  // Sets on `out` (made an object if it is not one) every member of `from`
  // this schema takes, walking nested schemas; members it does not know
  // are appended to `dropped` (when not null) as `path` + "." + name.
  // `from` not an object: nothing is added to `out`, and `path` itself is
  // dropped.
  void Apply(const rapidjson::Value& from, rapidjson::Value& out, Allocator& a,
             std::string_view path, DroppedFields* dropped) const;

  // Whether the schema says anything about member `name`.
  bool Knows(std::string_view name) const { return Find(name) != nullptr; }

 private:
  enum class Rule { kCopy, kObject, kArrayOf, kCustom };
  struct Entry {
    std::string name;
    Rule rule;
    const Schema* nested = nullptr;
  };

  Schema& Add(std::string_view name, Rule rule, const Schema* nested);
  void Walk(const rapidjson::Value& from, rapidjson::Value& out, Allocator& a, std::string& path,
            DroppedFields* dropped) const;
  const Entry* Find(std::string_view name) const;

  std::vector<Entry> entries_;  // sorted by name's length, then name
};

// `path` + "." + `name` (or `name` alone when `path` is empty): how dropped
// members are named.
std::string FieldPath(std::string_view path, std::string_view name);

}  // namespace vtenant::syncer
