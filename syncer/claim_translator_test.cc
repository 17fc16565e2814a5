#include "syncer/claim_translator.h"

#include <gtest/gtest.h>

#include "kube/json_builder.h"
#include "syncer/names.h"
#include "syncer/testing/test_objects.h"

namespace vtenant::syncer {
namespace {

using testing::Json;
using testing::NlpConfig;
using testing::WithMembers;

// A claim of ReadWriteOnce and 10Gi, with the members of `spec` set on its
// spec (resources of its own replace the 10Gi).
kube::Object Claim(const kube::JsonObject& spec = {}) {
  kube::JsonObject claim_spec{
      {"accessModes", kube::JsonArray{"ReadWriteOnce"}},
      {"resources", kube::JsonObject{{"requests", kube::JsonObject{{"storage", "10Gi"}}}}}};
  for (const auto& [key, value] : spec.members()) claim_spec.Set(key, value);
  return kube::BuildJson(kube::JsonObject{
      {"apiVersion", "v1"},
      {"kind", "PersistentVolumeClaim"},
      {"metadata", kube::JsonObject{{"name", "data"}, {"namespace", "ml"}, {"uid", "c1"}}},
      {"spec", std::move(claim_spec)}});
}

// One row per decision on a claim's spec.
TEST(ClaimTranslatorTest, Table) {
  const SyncerConfig config = NlpConfig();
  ClaimTranslator translator(config);
  const kube::JsonObject clone_of_own{{"kind", "PersistentVolumeClaim"},
                                      {"name", HostName("golden", "ml", "nlp")}};
  struct Row {
    const char* decision;
    std::string spec;            // JSON: members added to the virtual spec
    kube::JsonObject host_spec;  // members added to the host spec; unused when refused
    std::string refusal;         // the refusal's reason and a word of its message, or ""
    DroppedFields dropped;
  } rows[] = {
      {"access modes and the storage request travel", "{}", {}, "", {}},
      {"volumeMode and a storage limit travel",
       R"({"volumeMode":"Block",)"
       R"("resources":{"requests":{"storage":"10Gi"},"limits":{"storage":"20Gi"}}})",
       WithMembers({},
                   R"({"volumeMode":"Block",)"
                   R"("resources":{"requests":{"storage":"10Gi"},"limits":{"storage":"20Gi"}}})"),
       "",
       {}},
      {"the host's storage and volume attributes classes are the platform's offer: kept",
       R"({"storageClassName":"fast","volumeAttributesClassName":"gold"})",
       WithMembers({}, R"({"storageClassName":"fast","volumeAttributesClassName":"gold"})"),
       "",
       {}},
      {"a clone of a claim of the same namespace clones its host copy",
       R"({"dataSource":{"kind":"PersistentVolumeClaim","name":"golden"},
          "dataSourceRef":{"kind":"PersistentVolumeClaim","name":"golden"}})",
       {{"dataSource", clone_of_own}, {"dataSourceRef", clone_of_own}},
       "",
       {}},
      {"a dataSourceRef naming the claim's own namespace is the same",
       R"({"dataSourceRef":{"kind":"PersistentVolumeClaim","name":"golden","namespace":"ml"}})",
       {{"dataSourceRef", clone_of_own}},
       "",
       {}},
      {"hostile: a name that is not the tenant's cannot be reached (its host copy's name is)",
       R"({"dataSource":{"kind":"PersistentVolumeClaim","name":"data-vc-nlp-0"}})",
       {{"dataSource", kube::JsonObject{{"kind", "PersistentVolumeClaim"},
                                        {"name", HostName("data-vc-nlp-0", "ml", "nlp")}}}},
       "",
       {}},
      {"hostile: a claim of another namespace is refused",
       R"({"dataSourceRef":{"kind":"PersistentVolumeClaim","name":"weights",)"
       R"("namespace":"vtenant-vision"}})",
       {},
       "VolumeClaimNotAllowed: namespace vtenant-vision",
       {}},
      {"hostile: binding a named volume is refused",
       R"({"volumeName":"pv-vision-weights"})",
       {},
       "VolumeClaimNotAllowed: spec.volumeName",
       {}},
      {"hostile: picking volumes by label is refused",
       R"({"selector":{"matchLabels":{"team":"vision"}}})",
       {},
       "VolumeClaimNotAllowed: selector",
       {}},
      {"hostile: even an empty selector (every volume) is refused",
       R"({"selector":{}})",
       {},
       "VolumeClaimNotAllowed: selector",
       {}},
      {"a VolumeSnapshot never reaches the host: refused",
       R"({"dataSource":{"apiGroup":"snapshot.storage.k8s.io","kind":"VolumeSnapshot","name":"s1"}})",
       {},
       "VolumeClaimNotAllowed: VolumeSnapshot",
       {}},
      {"a volume populator's object is refused",
       R"({"dataSourceRef":{"apiGroup":"example.com","kind":"Dataset","name":"imagenet"}})",
       {},
       "VolumeClaimNotAllowed: Dataset",
       {}},
      {"empty volumeName and null selector are no request",
       R"({"volumeName":"","selector":null})",
       {},
       "",
       {}},
      {"a member no translator knows is left out and reported",
       R"({"shiny":true})",
       {},
       "",
       {"spec.shiny"}},
  };
  for (const Row& row : rows) {
    TranslationNotes notes;
    kube::Object host = translator.ToHost(Claim(WithMembers({}, row.spec)), &notes);
    EXPECT_EQ(kube::Name(host), HostName("data", "ml", "nlp")) << row.decision;
    EXPECT_EQ(notes.dropped, row.dropped) << row.decision;
    EXPECT_TRUE(notes.warnings.empty()) << row.decision;
    if (!row.refusal.empty()) {
      ASSERT_TRUE(notes.refusal) << row.decision;
      const std::string reason = row.refusal.substr(0, row.refusal.find(':'));
      const std::string word = row.refusal.substr(row.refusal.find(':') + 2);
      EXPECT_EQ(notes.refusal->reason, reason) << row.decision;
      EXPECT_NE(notes.refusal->message.find(word), std::string::npos)
          << row.decision << ": " << notes.refusal->message;
      continue;
    }
    EXPECT_FALSE(notes.refusal) << row.decision << ": " << notes.refusal->message;
    EXPECT_EQ(host["spec"], Claim(row.host_spec)["spec"])
        << row.decision << ": " << kube::ToJson(host["spec"]);
    EXPECT_FALSE(kube::Find(host, {"status"})) << row.decision;
  }
}

TEST(ClaimTranslatorTest, UpdateGrowsTheRequestAndKeepsWhatTheHostBound) {
  const SyncerConfig config = NlpConfig();
  ClaimTranslator translator(config);
  kube::Object pvc = Claim();
  kube::Object host = translator.ToHost(pvc);
  kube::SetString(host, {"spec"}, "volumeName", "pvc-1234");  // the host's binder
  // ... and the annotations the host's volume controller and scheduler write.
  for (const char* key : {"pv.kubernetes.io/bind-completed", "pv.kubernetes.io/bound-by-controller",
                          "volume.kubernetes.io/selected-node"})
    kube::SetString(host, {"metadata", "annotations"}, key, "yes");
  EXPECT_FALSE(translator.Update(translator.ToHost(pvc), host));
  kube::SetString(pvc, {"spec", "resources", "requests"}, "storage", "20Gi");
  kube::SetString(pvc, {"spec"}, "volumeAttributesClassName", "gold");
  std::optional<kube::Object> update = translator.Update(translator.ToHost(pvc), host);
  ASSERT_TRUE(update);
  EXPECT_EQ(kube::GetString(*update, {"spec", "resources", "requests", "storage"}), "20Gi");
  EXPECT_EQ(kube::GetString(*update, {"spec", "volumeAttributesClassName"}), "gold");
  EXPECT_EQ(kube::GetString(*update, {"spec", "volumeName"}), "pvc-1234");
  EXPECT_EQ(kube::Annotation(*update, "pv.kubernetes.io/bind-completed").value_or(""), "yes");

  // A tenant's own annotation it removed goes from the copy too.
  kube::SetString(pvc, {"metadata", "annotations"}, "team/owner", "nlp");
  host = *translator.Update(translator.ToHost(pvc), *update);
  EXPECT_EQ(kube::Annotation(host, "team/owner").value_or(""), "nlp");
  pvc["metadata"]["annotations"].RemoveMember("team/owner");
  update = translator.Update(translator.ToHost(pvc), host);
  ASSERT_TRUE(update);
  EXPECT_FALSE(kube::Annotation(*update, "team/owner").has_value());
  EXPECT_EQ(kube::Annotation(*update, "volume.kubernetes.io/selected-node").value_or(""), "yes");
}

}  // namespace
}  // namespace vtenant::syncer
