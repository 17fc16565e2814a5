// EtcdAdmin's key ranges and the checks it makes before asking etcd
// anything; no etcd runs here (etcd_admin_test has one).
#include <gtest/gtest.h>

#include "localenv/etcd_admin.h"

namespace vtenant::localenv {
namespace {

using namespace std::string_literals;

TEST(EtcdRangeEndTest, IncrementsTheLastByte) {
  EXPECT_EQ(EtcdAdmin::RangeEnd("/vtenant/nlp/"), "/vtenant/nlp0");
  EXPECT_EQ(EtcdAdmin::RangeEnd("a"), "b");
  EXPECT_EQ(EtcdAdmin::RangeEnd("a\xfe"), "a\xff");
}

TEST(EtcdRangeEndTest, DropsTrailingFfBytesInsteadOfWrapping) {
  EXPECT_EQ(EtcdAdmin::RangeEnd("a\xff"), "b");
  EXPECT_EQ(EtcdAdmin::RangeEnd("a\xff\xff"), "b");
  EXPECT_EQ(EtcdAdmin::RangeEnd("\x01\xff"), "\x02");
}

TEST(EtcdRangeEndTest, AnEmptyOrAllFfPrefixRunsToTheEnd) {
  EXPECT_EQ(EtcdAdmin::RangeEnd(""), "\0"s);
  EXPECT_EQ(EtcdAdmin::RangeEnd("\xff"), "\0"s);
  EXPECT_EQ(EtcdAdmin::RangeEnd("\xff\xff"), "\0"s);
}

TEST(EtcdDeletePrefixTest, RefusesTheEmptyPrefix) {
  // An admin of an etcd that asks for no credentials connects without a
  // call; the address answers nothing, so only a refusal made before any
  // call can be InvalidArgument.
  Result<std::unique_ptr<EtcdAdmin>> admin = EtcdAdmin::Connect("http://127.0.0.1:1", {});
  ASSERT_TRUE(admin.ok()) << admin.status().ToString();
  Status deleted = (*admin)->DeletePrefix("");
  EXPECT_EQ(deleted.code(), StatusCode::kInvalidArgument) << deleted.ToString();
}

}  // namespace
}  // namespace vtenant::localenv
