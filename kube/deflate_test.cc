// Unit tests of DeflateWithDictionary / InflateWithDictionary.
#include "kube/deflate.h"

#include <gtest/gtest.h>

#include <string>

#include "kube/json_builder.h"
#include "kube/object.h"

namespace vtenant::kube {
namespace {

// A host pod's JSON as the syncer writes it: the text the dictionary
// compresses, so its bytes (compact, members in this order) matter.
std::string PodJson(const std::string& name, const std::string& uid) {
  return ToJson(BuildJson(JsonObject{
      {"metadata", JsonObject{{"name", name},
                              {"namespace", "vtenant-nlp"},
                              {"uid", uid},
                              {"labels", JsonObject{{"vtenant.io/tenant", "nlp"},
                                                    {"vtenant.io/managed-by", "vtenant-syncer"},
                                                    {"kai.scheduler/queue", "nlp"}}}}},
      {"spec",
       JsonObject{
           {"schedulerName", "kai-scheduler"},
           {"containers", JsonArray{JsonObject{{"name", "main"},
                                               {"image", "registry.k8s.io/pause:3.10"},
                                               {"terminationMessagePath", "/dev/termination-log"},
                                               {"imagePullPolicy", "IfNotPresent"}}}},
           {"tolerations", JsonArray{JsonObject{{"key", "node.kubernetes.io/not-ready"},
                                                {"operator", "Exists"},
                                                {"effect", "NoExecute"},
                                                {"tolerationSeconds", 300}}}}}},
      {"status", JsonObject{{"phase", "Pending"}}}}));
}

TEST(DeflateTest, RoundTripsWithAndWithoutADictionary) {
  const std::string dictionary =
      PodJson("a-x-default-x-nlp", "0f3c2a9e-1b7d-4e55-9a61-3c2f0d9e8b17");
  for (const std::string& text :
       {PodJson("b-x-default-x-nlp", "7d1e0b44-5c2a-4f39-8e0d-91a6b3c4d5e6"), std::string(),
        std::string("not json at all \x01\xff", 18), std::string(100000, 'x')}) {
    Result<std::string> back =
        InflateWithDictionary(DeflateWithDictionary(text, dictionary), dictionary);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, text);
    back = InflateWithDictionary(DeflateWithDictionary(text, ""), "");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, text);
  }
}

TEST(DeflateTest, ASimilarDictionaryLeavesLittleMoreThanWhatDiffers) {
  const std::string dictionary =
      PodJson("a-x-default-x-nlp", "0f3c2a9e-1b7d-4e55-9a61-3c2f0d9e8b17");
  const std::string text = PodJson("b-x-default-x-nlp", "7d1e0b44-5c2a-4f39-8e0d-91a6b3c4d5e6");
  const size_t alone = DeflateWithDictionary(text, "").size();
  const size_t against = DeflateWithDictionary(text, dictionary).size();
  EXPECT_LT(alone, text.size());
  // What differs is a name letter and a 36-character UID.
  EXPECT_LT(against, 90u) << "text " << text.size() << ", alone " << alone;
  EXPECT_LT(against * 4, alone);
}

TEST(DeflateTest, CorruptOrMismatchedInputIsAnErrorNotGarbage) {
  const std::string dictionary = PodJson("a", "1");
  const std::string text = PodJson("b", "2");
  const std::string data = DeflateWithDictionary(text, dictionary);
  EXPECT_FALSE(InflateWithDictionary(data.substr(0, data.size() / 2), dictionary).ok());
  EXPECT_FALSE(InflateWithDictionary("ab", dictionary).ok());
  std::string flipped = data;
  flipped[0] ^= 0x01;  // the length no longer matches
  EXPECT_FALSE(InflateWithDictionary(flipped, dictionary).ok());
  EXPECT_FALSE(InflateWithDictionary(data, PodJson("zzzz", "9999")).ok());
  EXPECT_FALSE(InflateWithDictionary(data, "").ok());
  std::string damaged = data;
  damaged[damaged.size() / 2] ^= 0x20;
  EXPECT_FALSE(InflateWithDictionary(damaged, dictionary).ok());
}

}  // namespace
}  // namespace vtenant::kube
