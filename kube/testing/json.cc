#include "kube/testing/json.h"

#include <gtest/gtest.h>

namespace vtenant::kube {

Object Json(const std::string& text) {
  Result<Object> o = ParseJson(text);
  EXPECT_TRUE(o.ok()) << o.status().ToString() << " in " << text;
  return o.ok() ? std::move(o).value() : Object(rapidjson::kObjectType);
}

}  // namespace vtenant::kube
