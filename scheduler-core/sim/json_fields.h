// Named fields of the simulator's JSON summaries, so each summary writer is
// a list of its fields.
#pragma once

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <cstdint>

namespace vtenant::sched::sim {

using JsonWriter = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

// Writes `"key": v` into the object `w` is writing.
inline void IntField(JsonWriter& w, const char* key, int64_t v) {
  w.Key(key);
  w.Int64(v);
}

inline void RealField(JsonWriter& w, const char* key, double v) {
  w.Key(key);
  w.Double(v);
}

}  // namespace vtenant::sched::sim
