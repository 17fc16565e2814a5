#include "kube/yaml.h"

#include <gtest/gtest.h>

namespace vtenant::kube {
namespace {

TEST(YamlTest, PlainScalarsTakeTheirTypesAndQuotedOnesStayStrings) {
  Result<Object> doc = ParseYaml(R"(
metadata:
  name: trainer
  annotations:
    gpu-fraction: "0.5"
    gpu-memory: '4000'
spec:
  replicas: 3
  ratio: 0.33
  suspend: false
  nothing: ~
  empty:
  version: v1.37.2
)");
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_TRUE((*doc)["metadata"]["annotations"]["gpu-fraction"].IsString());
  EXPECT_EQ(GetString(*doc, {"metadata", "annotations", "gpu-memory"}), "4000");
  EXPECT_EQ(GetInt(*doc, {"spec", "replicas"}), 3);
  EXPECT_DOUBLE_EQ((*doc)["spec"]["ratio"].GetDouble(), 0.33);
  EXPECT_TRUE((*doc)["spec"]["suspend"].IsFalse());
  EXPECT_TRUE((*doc)["spec"]["nothing"].IsNull());
  EXPECT_TRUE((*doc)["spec"]["empty"].IsNull());
  EXPECT_EQ(GetString(*doc, {"spec", "version"}), "v1.37.2");
}

TEST(YamlTest, AnchorsAndMultipleDocuments) {
  Result<std::vector<Object>> docs = ParseYamlDocuments(R"(
a: &share {quota: 1, limit: -1}
b: *share
---
# an empty document is skipped
---
kind: Second
)");
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ(GetInt((*docs)[0], {"b", "limit"}), -1);
  EXPECT_EQ(GetString((*docs)[1], {"kind"}), "Second");
}

TEST(YamlTest, SyntaxErrorNamesTheLine) {
  Result<std::vector<Object>> docs = ParseYamlDocuments("a: 1\nb: [unclosed\n");
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(docs.status().message().find("line"), std::string::npos) << docs.status().ToString();
}

TEST(YamlTest, KeyThatIsNotAScalarIsAnErrorNamingTheLine) {
  Result<std::vector<Object>> docs = ParseYamlDocuments("a: 1\n? [b, c]\n: d\n");
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(docs.status().message().find("line 2"), std::string::npos) << docs.status().ToString();
}

TEST(YamlTest, ParseYamlWantsExactlyOneDocument) {
  EXPECT_FALSE(ParseYaml("a: 1\n---\nb: 2\n").ok());
  EXPECT_FALSE(ParseYaml("").ok());
}

}  // namespace
}  // namespace vtenant::kube
