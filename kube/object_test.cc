#include "kube/object.h"

#include <gtest/gtest.h>

#include "kube/testing/json.h"

namespace vtenant::kube {
namespace {

// Path steps are string_views: a step cut out of a longer string must be
// looked up by its length, not up to the next NUL.
TEST(ObjectTest, PathStepsAreMatchedByTheirLength) {
  Object o = Json(R"({"metadata":{"name":"a","labels":{"team":"x","team-b":"y"}}})");
  const std::string dotted = "metadata.name";
  const std::string_view metadata = std::string_view(dotted).substr(0, 8);
  EXPECT_EQ(GetString(o, {metadata, "name"}), "a");
  const std::string longer = "team-b";
  EXPECT_EQ(Label(o, std::string_view(longer).substr(0, 4)).value_or(""), "x");
  EXPECT_EQ(Label(o, longer).value_or(""), "y");

  SetString(o, {std::string_view(dotted).substr(0, 8)}, "name", "b");
  EXPECT_EQ(Name(o), "b");
  EXPECT_EQ(o["metadata"].MemberCount(), 2u) << "updated in place, not added";
  RemoveMember(o, {"metadata", "labels"}, std::string_view(longer).substr(0, 4));
  EXPECT_FALSE(Label(o, "team").has_value());
  EXPECT_TRUE(Label(o, "team-b").has_value());
}

TEST(ObjectTest, StringListsAndMapsSkipWhatIsNotAString) {
  Object o = Json(R"({"spec":{"modes":["a",1,"b"],"labels":{"x":"1","y":2},"one":"s"}})");
  EXPECT_EQ(GetStrings(o, {"spec", "modes"}), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(GetStrings(o, {"spec", "one"}).empty());
  EXPECT_TRUE(GetStrings(o, {"spec", "none"}).empty());
  EXPECT_EQ(GetStringMap(o, {"spec", "labels"}),
            (std::map<std::string, std::string, std::less<>>{{"x", "1"}}));
  EXPECT_TRUE(GetStringMap(o, {"spec", "modes"}).empty());
}

TEST(ObjectTest, KeysRoundTrip) {
  Object namespaced = Json(R"({"metadata":{"name":"a","namespace":"ns"}})");
  Object cluster = Json(R"({"metadata":{"name":"n1"}})");
  EXPECT_EQ(KeyOf(namespaced), "ns/a");
  EXPECT_EQ(KeyOf(cluster), "n1");
  EXPECT_EQ(SplitKey("ns/a"), (std::pair<std::string, std::string>{"ns", "a"}));
  EXPECT_EQ(SplitKey("n1"), (std::pair<std::string, std::string>{"", "n1"}));
}

TEST(ObjectTest, ShareCompactIsAWholeCopyThatOutlivesItsSource) {
  ObjectPtr shared;
  {
    Result<Object> source = ParseJson(
        R"({"metadata":{"name":"p","labels":{"a":"b"}},"spec":{"containers":[{"name":"c"}]},)"
        R"("x":[1,2.5,true,null,"s"]})");
    ASSERT_TRUE(source.ok());
    shared = ShareCompact(*source);
    EXPECT_EQ(*shared, *source);
  }
  EXPECT_EQ(ToJson(*shared),
            R"({"metadata":{"name":"p","labels":{"a":"b"}},"spec":{"containers":[{"name":"c"}]},)"
            R"("x":[1,2.5,true,null,"s"]})");
  ObjectPtr copy = shared;
  shared.reset();
  EXPECT_EQ(Name(*copy), "p") << "the allocator lives as long as any pointer";
}

}  // namespace
}  // namespace vtenant::kube
