// Unit: the GitOps examples are well-formed before any server sees them.
//
// Every YAML file under examples/tenants/ parses; every document is an
// object with apiVersion, kind and metadata.name (or a kustomization whose
// resources exist); every manifest is reachable from some kustomization, so
// `kubectl apply -k` applies all of it; GPU pods follow KAI's contract; and
// the teams' guaranteed quotas fit in their parent queue.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "localenv/testing/source_tree.h"

namespace vtenant {
namespace {
namespace fs = std::filesystem;

fs::path TenantsDir() { return localenv::SourcePath("examples/tenants"); }

struct Manifest {
  fs::path file;
  YAML::Node doc;
};

// Every document of every YAML file under examples/tenants/. A parse error
// fails the test naming the file.
std::vector<Manifest> LoadAll(std::set<fs::path>* files = nullptr) {
  std::vector<Manifest> all;
  for (const auto& entry : fs::recursive_directory_iterator(TenantsDir())) {
    if (!entry.is_regular_file() || entry.path().extension() != ".yaml") continue;
    if (files != nullptr) files->insert(fs::canonical(entry.path()));
    try {
      for (const YAML::Node& doc : YAML::LoadAllFromFile(entry.path().string())) {
        if (!doc.IsNull()) all.push_back({entry.path(), doc});
      }
    } catch (const YAML::Exception& e) {
      ADD_FAILURE() << entry.path() << " does not parse: " << e.what();
    }
  }
  return all;
}

bool IsKustomization(const Manifest& m) { return m.file.filename() == "kustomization.yaml"; }

std::string Str(const YAML::Node& node) { return node && node.IsScalar() ? node.Scalar() : ""; }

TEST(ExampleManifestsTest, EveryDocumentNamesItsApiVersionKindAndName) {
  std::vector<Manifest> all = LoadAll();
  ASSERT_GT(all.size(), 10u) << "examples/tenants looks empty: " << TenantsDir();
  for (const Manifest& m : all) {
    SCOPED_TRACE(m.file.string());
    ASSERT_TRUE(m.doc.IsMap());
    EXPECT_FALSE(Str(m.doc["apiVersion"]).empty());
    EXPECT_FALSE(Str(m.doc["kind"]).empty());
    if (IsKustomization(m)) {
      EXPECT_EQ(Str(m.doc["kind"]), "Kustomization");
      continue;
    }
    EXPECT_FALSE(Str(m.doc["metadata"]["name"]).empty());
  }
}

TEST(ExampleManifestsTest, EveryManifestIsReachableFromAKustomization) {
  std::set<fs::path> files;
  std::vector<Manifest> all = LoadAll(&files);
  std::set<fs::path> listed;
  for (const Manifest& m : all) {
    if (!IsKustomization(m)) continue;
    listed.insert(fs::canonical(m.file));
    for (const YAML::Node& resource : m.doc["resources"]) {
      const fs::path target = m.file.parent_path() / Str(resource);
      ASSERT_TRUE(fs::exists(target)) << m.file << " lists missing " << Str(resource);
      if (fs::is_directory(target)) {
        EXPECT_TRUE(fs::exists(target / "kustomization.yaml"))
            << m.file << " lists folder " << Str(resource) << " without a kustomization.yaml";
      } else {
        listed.insert(fs::canonical(target));
      }
    }
  }
  for (const fs::path& file : files) {
    EXPECT_TRUE(listed.contains(file)) << file << " is in no kustomization: apply -k skips it";
  }
}

// The pod templates of a manifest: the pod itself, or the template of a
// Deployment, Job, StatefulSet...
std::vector<YAML::Node> PodsOf(const YAML::Node& doc) {
  if (Str(doc["kind"]) == "Pod") return {doc};
  if (doc["spec"] && doc["spec"]["template"]) return {doc["spec"]["template"]};
  return {};
}

TEST(ExampleManifestsTest, GpuPodsFollowKaisContract) {
  int gpu_pods = 0;
  for (const Manifest& m : LoadAll()) {
    for (const YAML::Node& pod : PodsOf(m.doc)) {
      SCOPED_TRACE(m.file.string() + " " + Str(m.doc["metadata"]["name"]));
      const YAML::Node annotations = pod["metadata"]["annotations"];
      const std::string fraction = Str(annotations["gpu-fraction"]);
      const std::string memory = Str(annotations["gpu-memory"]);
      if (fraction.empty() && memory.empty()) continue;
      ++gpu_pods;
      EXPECT_EQ(Str(pod["spec"]["schedulerName"]), "kai-scheduler");
      EXPECT_FALSE(Str(pod["metadata"]["labels"]["kai.scheduler/queue"]).empty());
      if (!fraction.empty()) {
        const double f = std::stod(fraction);
        EXPECT_GT(f, 0.0);
        EXPECT_LE(f, 1.0);
      }
      if (!memory.empty()) {
        EXPECT_EQ(memory.find_first_not_of("0123456789"), std::string::npos) << memory;
        EXPECT_GT(std::stoll(memory), 0);
      }
    }
  }
  EXPECT_GE(gpu_pods, 10) << "the scenarios' GPU pods went missing";
}

TEST(ExampleManifestsTest, GuaranteedQuotasFitInTheirParentQueue) {
  std::map<std::string, double> parent_quota;             // queue -> gpu quota
  std::map<std::string, double> children_quota;           // parent -> sum of tenants' quotas
  std::map<std::string, std::vector<std::string>> teams;  // parent -> tenants
  for (const Manifest& m : LoadAll()) {
    const std::string kind = Str(m.doc["kind"]);
    if (kind == "Queue") {
      parent_quota[Str(m.doc["metadata"]["name"])] =
          m.doc["spec"]["resources"]["gpu"]["quota"].as<double>();
    } else if (kind == "Tenant") {
      const YAML::Node queue = m.doc["spec"]["queue"];
      const std::string parent = Str(queue["parentQueue"]);
      children_quota[parent] += queue["resources"]["gpu"]["quota"].as<double>();
      teams[parent].push_back(Str(m.doc["metadata"]["name"]));
    }
  }
  ASSERT_TRUE(parent_quota.contains("ml-org"));
  EXPECT_EQ(teams["ml-org"].size(), 3u);
  for (const auto& [parent, sum] : children_quota) {
    ASSERT_TRUE(parent_quota.contains(parent)) << "no Queue " << parent << " in the examples";
    EXPECT_LE(sum, parent_quota[parent] + 1e-9) << "tenants of " << parent << " overcommit it";
  }
}

}  // namespace
}  // namespace vtenant
