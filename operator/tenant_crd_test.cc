// The Tenant CRD's schema and the words the operator and the syncer accept
// are written twice, once for the API server and once for the programs;
// this keeps them the same list, so a word one accepts the other does too.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <set>
#include <string>

#include "localenv/testing/source_tree.h"
#include "syncer/isolation_vocabulary.h"

namespace vtenant::op {
namespace {

// The enum of spec.isolation.<field> in the Tenant CRD's first version.
std::set<std::string> IsolationEnum(const std::string& field) {
  YAML::Node crd = YAML::LoadFile(localenv::CrdManifest("vtenant.io_tenants.yaml"));
  YAML::Node items = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
                        ["properties"]["isolation"]["properties"][field]["items"];
  std::set<std::string> words;
  for (const YAML::Node& word : items["enum"]) words.insert(word.as<std::string>());
  return words;
}

std::set<std::string> SetOf(const std::vector<std::string>& words) {
  return {words.begin(), words.end()};
}

TEST(TenantCrdTest, IsolationEnumsListWhatTheSyncerEnforces) {
  EXPECT_EQ(IsolationEnum("allowedPrivilegedFeatures"), SetOf(syncer::PrivilegedFeatureNames()));
  EXPECT_EQ(IsolationEnum("allowedVolumeTypes"), SetOf(syncer::VolumeTypeNames()));
}

}  // namespace
}  // namespace vtenant::op
