#include "syncer/data_translator.h"

#include <gtest/gtest.h>

#include "kube/json_builder.h"
#include "syncer/names.h"
#include "syncer/testing/test_objects.h"

namespace vtenant::syncer {
namespace {

using testing::Json;
using testing::NlpConfig;
using testing::WithMembers;

// The host copy's top-level members besides apiVersion, kind and metadata.
std::string Body(const kube::Object& host) {
  kube::Object body = kube::Clone(host);
  for (const char* m : {"apiVersion", "kind", "metadata"}) body.RemoveMember(m);
  return kube::ToJson(body);
}

// One row per decision on a ConfigMap's or Secret's members.
TEST(DataTranslatorTest, Table) {
  const SyncerConfig config = NlpConfig();
  DataTranslator translator(config);
  struct Row {
    const char* decision;
    std::string kind;
    std::string body;       // JSON: the virtual object's members but apiVersion, kind, metadata
    std::string host_body;  // the host copy's, exactly
    DroppedFields dropped;
  } rows[] = {
      {"a ConfigMap's data, binaryData and immutable travel",
       "ConfigMap",
       R"({"data":{"k":"v"},"binaryData":{"b":"AA=="},"immutable":true})",
       R"({"data":{"k":"v"},"binaryData":{"b":"AA=="},"immutable":true})",
       {}},
      {"a member no translator knows is left out and reported",
       "ConfigMap",
       R"({"data":{"k":"v"},"shiny":1})",
       R"({"data":{"k":"v"}})",
       {"shiny"}},
      {"an Opaque Secret's data and immutable travel",
       "Secret",
       R"({"type":"Opaque","data":{"k":"dg=="},"immutable":false})",
       R"({"type":"Opaque","data":{"k":"dg=="},"immutable":false})",
       {}},
      {"no type is Opaque, as the API server defaults it",
       "Secret",
       R"({"data":{"k":"dg=="}})",
       R"({"data":{"k":"dg=="},"type":"Opaque"})",
       {}},
      {"image pull Secrets keep their type",
       "Secret",
       R"({"type":"kubernetes.io/dockerconfigjson","data":{".dockerconfigjson":"e30="}})",
       R"({"type":"kubernetes.io/dockerconfigjson","data":{".dockerconfigjson":"e30="}})",
       {}},
      {"legacy image pull Secrets keep their type",
       "Secret",
       R"({"type":"kubernetes.io/dockercfg","data":{".dockercfg":"e30="}})",
       R"({"type":"kubernetes.io/dockercfg","data":{".dockercfg":"e30="}})",
       {}},
      {"TLS Secrets keep their type",
       "Secret",
       R"({"type":"kubernetes.io/tls","data":{"tls.crt":"Yw==","tls.key":"aw=="}})",
       R"({"type":"kubernetes.io/tls","data":{"tls.crt":"Yw==","tls.key":"aw=="}})",
       {}},
      {"basic-auth Secrets keep their type",
       "Secret",
       R"({"type":"kubernetes.io/basic-auth","data":{"username":"dQ=="}})",
       R"({"type":"kubernetes.io/basic-auth","data":{"username":"dQ=="}})",
       {}},
      {"ssh-auth Secrets keep their type",
       "Secret",
       R"({"type":"kubernetes.io/ssh-auth","data":{"ssh-privatekey":"aw=="}})",
       R"({"type":"kubernetes.io/ssh-auth","data":{"ssh-privatekey":"aw=="}})",
       {}},
      {"hostile: a service-account token Secret is Opaque, so no host token controller fills "
       "it; the virtual token it holds travels as data",
       "Secret",
       R"({"type":"kubernetes.io/service-account-token","data":{"token":"dg=="}})",
       R"({"type":"Opaque","data":{"token":"dg=="}})",
       {}},
      {"hostile: a bootstrap token Secret is Opaque",
       "Secret",
       R"({"type":"bootstrap.kubernetes.io/token","data":{"token-id":"YQ=="}})",
       R"({"type":"Opaque","data":{"token-id":"YQ=="}})",
       {}},
      {"any other type is Opaque",
       "Secret",
       R"({"type":"helm.sh/release.v1","data":{"r":"YQ=="}})",
       R"({"type":"Opaque","data":{"r":"YQ=="}})",
       {}},
      {"stringData is write-only and never read back: left out if it ever is",
       "Secret",
       R"({"type":"Opaque","stringData":{"k":"v"}})",
       R"({"type":"Opaque"})",
       {"stringData"}},
  };
  for (const Row& row : rows) {
    kube::Object virt = kube::BuildJson(WithMembers(
        {{"apiVersion", "v1"},
         {"kind", row.kind},
         {"metadata", kube::JsonObject{{"name", "d"}, {"namespace", "ml"}, {"uid", "u1"}}}},
        row.body));
    TranslationNotes notes;
    kube::Object host = translator.ToHost(virt, &notes);
    EXPECT_EQ(kube::Name(host), HostName("d", "ml", "nlp")) << row.decision;
    EXPECT_EQ(kube::GetString(host, {"kind"}), row.kind) << row.decision;
    EXPECT_EQ(Json(Body(host)), Json(row.host_body)) << row.decision << ": " << Body(host);
    EXPECT_EQ(notes.dropped, row.dropped) << row.decision;
    EXPECT_FALSE(notes.refusal) << row.decision;
    EXPECT_TRUE(notes.warnings.empty()) << row.decision;
  }
}

TEST(DataTranslatorTest, HostSecretTypes) {
  EXPECT_EQ(HostSecretType("kubernetes.io/tls"), "kubernetes.io/tls");
  EXPECT_EQ(HostSecretType("kubernetes.io/service-account-token"), "Opaque");
  EXPECT_EQ(HostSecretType(""), "Opaque");
  EXPECT_EQ(HostSecretType("kubernetes.io/TLS"), "Opaque");
}

TEST(DataTranslatorTest, UpdateFollowsTheDataAndKeepsTheHostsVersion) {
  const SyncerConfig config = NlpConfig();
  DataTranslator translator(config);
  kube::Object cm = Json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg",
      "namespace":"ml","uid":"u1","resourceVersion":"5","labels":{"a":"b"}},"data":{"k":"v"}})");
  kube::Object host = translator.ToHost(cm);
  kube::SetString(host, {"metadata"}, "resourceVersion", "77");
  EXPECT_FALSE(translator.Update(translator.ToHost(cm), host));
  kube::SetString(cm, {"data"}, "k", "v2");
  std::optional<kube::Object> update = translator.Update(translator.ToHost(cm), host);
  ASSERT_TRUE(update);
  EXPECT_EQ(kube::GetString(*update, {"data", "k"}), "v2");
  EXPECT_EQ(kube::ResourceVersion(*update), "77");
}

TEST(DataTranslatorTest, ImmutableFieldsChangedAreAReplacement) {
  const SyncerConfig config = NlpConfig();
  DataTranslator translator(config);
  kube::Object secret = Json(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s",
      "namespace":"ml"},"type":"Opaque","data":{"k":"dg=="}})");
  kube::Object host = translator.ToHost(secret);
  EXPECT_FALSE(translator.NeedsReplace(translator.ToHost(secret), host));
  kube::SetString(secret, {}, "type", "kubernetes.io/dockerconfigjson");
  EXPECT_TRUE(translator.NeedsReplace(translator.ToHost(secret), host));
  // A type the host holds as Opaque is no change on the host.
  kube::SetString(secret, {}, "type", "kubernetes.io/service-account-token");
  EXPECT_FALSE(translator.NeedsReplace(translator.ToHost(secret), host));

  kube::Object frozen = Json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c",
      "namespace":"ml"},"data":{"k":"v"},"immutable":true})");
  kube::Object frozen_host = translator.ToHost(frozen);
  EXPECT_FALSE(translator.NeedsReplace(translator.ToHost(frozen), frozen_host));
  kube::SetString(frozen, {"data"}, "k", "v2");
  EXPECT_TRUE(translator.NeedsReplace(translator.ToHost(frozen), frozen_host));
  frozen.RemoveMember("immutable");
  kube::SetString(frozen, {"data"}, "k", "v");
  EXPECT_TRUE(translator.NeedsReplace(translator.ToHost(frozen), frozen_host));
}

}  // namespace
}  // namespace vtenant::syncer
