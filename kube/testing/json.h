// Test data written as JSON text, for tests that read objects the way a
// server sends them.
#pragma once

#include <string>

#include "kube/object.h"

namespace vtenant::kube {

// The object `text` describes. Text that is not JSON fails the running test
// with the parse error and the text, and gives an empty object, so that the
// test goes on to say what else is wrong.
Object Json(const std::string& text);

}  // namespace vtenant::kube
