// KAI's PodGroup webhook, restated: what it refuses, in its words, and what
// it only warns about, on create and on update.
#include "kai/podgroup_admission.h"

#include <gtest/gtest.h>

#include "kube/testing/json.h"

namespace vtenant::kai {
namespace {

using Lines = std::vector<std::string>;

Verdict On(const std::string& spec, bool create = true) {
  return ReviewPodGroup(kube::Json(R"({"metadata":{"name":"g"},"spec":)" + spec + "}"), create);
}

struct Row {
  const char* what;
  std::string spec;
  Lines errors;
  Lines warnings = {};
};

TEST(PodGroupAdmissionTest, KaisTable) {
  const std::vector<Row> rows = {
      {"a tree with one root",
       R"({"subGroups":[{"name":"a","minSubGroup":1},
          {"name":"b","parent":"a","minMember":1}]})",
       {}},
      {"several roots",
       R"({"subGroups":[{"name":"a","minMember":1},{"name":"b","minMember":2}]})",
       {}},
      {"no sub-groups at all", R"({"minMember":2})", {}},
      {"an empty list", R"({"subGroups":[]})", {}},
      {"a missing parent",
       R"({"subGroups":[{"name":"a","minMember":1},
          {"name":"b","parent":"x","minMember":1}]})",
       {"parent x of b was not found"}},
      {"a leaf without minMember",
       R"({"subGroups":[{"name":"a"}]})",
       {"subgroup a: minMember is required"}},
      {"a parent may omit minMember; its leaf may not",
       R"({"subGroups":[{"name":"p"},{"name":"l","parent":"p"}]})",
       {"subgroup l: minMember is required"}},
      {"a repeated name, found before the cycle it makes",
       R"({"subGroups":[
          {"name":"a","parent":"c","minMember":1},{"name":"b","parent":"a","minMember":1},
          {"name":"c","parent":"b","minMember":1},{"name":"a","minMember":1}]})",
       {"duplicate subgroup name a"}},
      {"its own parent",
       R"({"subGroups":[{"name":"a","parent":"a","minMember":1}]})",
       {"cycle detected in subgroups"}},
      {"a cycle of three",
       R"({"subGroups":[{"name":"a","parent":"c","minMember":1},
          {"name":"b","parent":"a","minMember":1},{"name":"c","parent":"b","minMember":1}]})",
       {"cycle detected in subgroups"}},
      {"a leaf with minSubGroup, even 0",
       R"({"subGroups":[{"name":"A","minSubGroup":0}]})",
       {R"(subgroup "A": minSubGroup cannot be set on a leaf SubGroup (no child SubGroups))",
        "subgroup A: minMember is required"}},
      {"a parent with minMember, on create",
       R"({"subGroups":[{"name":"parent","minMember":2},
          {"name":"c","parent":"parent","minMember":1}]})",
       {R"(subgroup "parent": minMember cannot be set on a mid-level SubGroup (has child SubGroups); use minSubGroup instead)"}},
      {"both counts on a sub-group",
       R"({"subGroups":[{"name":"parent","minMember":1,
          "minSubGroup":1},{"name":"c","parent":"parent","minMember":1}]})",
       {R"(subgroup "parent": minMember and minSubGroup are mutually exclusive)"}},
      {"a minSubGroup above its children warns",
       R"({"subGroups":[
          {"name":"parent","minSubGroup":3},{"name":"a","parent":"parent","minMember":1},
          {"name":"b","parent":"parent","minMember":1}]})",
       {},
       {R"(subgroup "parent": minSubGroup (3) exceeds the number of direct child SubGroups (2))"}},
      {"both counts on the group",
       R"({"minMember":1,"minSubGroup":1})",
       {"minMember and minSubGroup are mutually exclusive: set minMember (1) to schedule a fixed "
        "number of pods, or set minSubGroup to require a minimum number of child SubGroups, but "
        "not both"}},
      {"the group's minSubGroup above its roots warns",
       R"({"minSubGroup":1})",
       {},
       {"minSubGroup (1) exceeds the number of direct child SubGroups (0)"}},
      {"a group's minSubGroup of 0",
       R"({"minSubGroup":0,"subGroups":[{"name":"a","minMember":1}]})",
       {}},
  };
  for (const Row& row : rows) {
    const Verdict r = On(row.spec);
    EXPECT_EQ(r.errors, row.errors) << row.what;
    EXPECT_EQ(r.warnings, row.warnings) << row.what;
  }
}

// On update KAI only warns about a parent's minMember: a group written
// before the rule still takes its status.
TEST(PodGroupAdmissionTest, AParentsMinMemberOnlyWarnsOnUpdate) {
  const std::string spec = R"({"subGroups":[{"name":"p","minMember":2},
      {"name":"c","parent":"p","minMember":1}]})";
  EXPECT_EQ(On(spec, /*create=*/true).errors.size(), 1u);
  const Verdict update = On(spec, /*create=*/false);
  EXPECT_TRUE(update.errors.empty());
  ASSERT_EQ(update.warnings.size(), 1u);
  EXPECT_NE(update.warnings[0].find("mid-level"), std::string::npos);
}

TEST(PodGroupAdmissionTest, WhatTheSchemaRefusesIsLeftToIt) {
  EXPECT_TRUE(On(R"("not an object")").errors.empty());
  EXPECT_TRUE(On(R"({"subGroups":"not a list"})").errors.empty());
}

}  // namespace
}  // namespace vtenant::kai
