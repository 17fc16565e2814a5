#include "scheduler/testing/fake_cluster.h"

#include <gtest/gtest.h>

namespace vtenant::scheduler::testing {

FakeCluster::FakeCluster() : view_({}), events_(client_, "test"), reservations_(client_, {}) {}

kube::Object FakeCluster::Add(const kube::ResourceType& type, const std::string& ns,
                              const std::string& json) {
  Result<kube::Object> o = client_.Create(type, ns, Json(json));
  EXPECT_TRUE(o.ok()) << o.status().ToString();
  if (!o.ok()) return kube::Object(rapidjson::kObjectType);
  if (type.resource == "nodes") view_.UpsertNode(*o);
  if (type.resource == "queues") view_.UpsertQueue(*o);
  if (type.resource == "podgroups") view_.UpsertPodGroup(*o);
  if (type.resource == "pods") view_.UpsertPod(*o);
  return std::move(o).value();
}

std::string FakeCluster::NodeOf(const std::string& ns, const std::string& name) {
  Result<kube::Object> p = client_.Get(kube::resources::kPods, ns, name);
  return p.ok() ? std::string(kube::GetString(*p, {"spec", "nodeName"})) : "<gone>";
}

kube::ObjectPtr FakeCluster::Live(const kube::ResourceType& type, const std::string& key) {
  auto [ns, name] = kube::SplitKey(key);
  Result<kube::Object> o = client_.Get(type, ns, name);
  return o.ok() ? std::make_shared<const kube::Object>(std::move(o).value()) : nullptr;
}

}  // namespace vtenant::scheduler::testing
