// Test data written as JSON text, for tests that read objects the way a
// server sends them. Inline, so a test that links vtenant_kube (directly or
// through a program's library) needs nothing more to use it.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "kube/object.h"

namespace vtenant::kube {

// The object `text` describes. Text that is not JSON fails the running test
// with the parse error and the text, and gives an empty object, so that the
// test goes on to say what else is wrong.
inline Object Json(const std::string& text) {
  Result<Object> o = ParseJson(text);
  EXPECT_TRUE(o.ok()) << o.status().ToString() << " in " << text;
  return o.ok() ? std::move(o).value() : Object(rapidjson::kObjectType);
}

}  // namespace vtenant::kube
