#include "cli/queues_view.h"

#include <cmath>
#include <map>
#include <set>

#include "cli/table.h"
#include "kai/names.h"
#include "kube/quantity.h"
#include "scheduler/kai_names.h"

namespace vtenant::cli {
namespace {

std::string Milli(int64_t milli) { return kube::Quantity::FromMilli(milli).ToString(); }

// A spec number (devices, fractions allowed; -1 unlimited) as a quantity.
std::string SpecShare(const rapidjson::Value& queue, std::string_view field) {
  const rapidjson::Value* v = kube::Find(queue, {"spec", "resources", "gpu", field});
  if (v == nullptr || !v->IsNumber()) return "-";
  const double d = v->GetDouble();
  if (d < 0) return "unlimited";
  return Milli(std::llround(d * 1000));
}

// A reported quantity (string or number); unparseable text is shown as is.
std::string Reported(const rapidjson::Value* v) {
  if (v == nullptr) return "-";
  if (v->IsNumber()) return Milli(std::llround(v->GetDouble() * 1000));
  if (!v->IsString()) return "-";
  Result<kube::Quantity> q = kube::Quantity::Parse(v->GetString());
  return q.ok() ? q->ToString() : v->GetString();
}

struct Tree {
  std::map<std::string, const kube::Object*> queues;
  std::map<std::string, std::set<std::string>> children;
};

// Adds `name` labelled `branch` + name, then its children, each drawn under
// `child_prefix` with a tree branch.
void AddRows(const Tree& tree, const std::string& name, const std::string& branch,
             const std::string& child_prefix, bool root, std::set<std::string>& seen,
             Table& table) {
  if (!seen.insert(name).second) return;  // a cycle in parentQueue: show each queue once
  const kube::Object& q = *tree.queues.at(name);
  std::string label = branch + name;
  const std::string parent(kube::GetString(q, {"spec", "parentQueue"}));
  if (root && !parent.empty()) {
    label += tree.queues.contains(parent) ? " (in a parentQueue cycle)"
                                          : " (parent " + parent + " missing)";
  }
  const auto annotation = kube::Annotation(q, scheduler::kFairShareAnnotation);
  rapidjson::Value fair_share;
  if (annotation) fair_share.SetString(annotation->data(), annotation->size());
  table.AddRow({label, SpecShare(q, "quota"), SpecShare(q, "limit"),
                SpecShare(q, "overQuotaWeight"), Reported(annotation ? &fair_share : nullptr),
                Reported(kube::Find(q, {"status", "allocated", kai::kGpuResource})),
                Reported(kube::Find(q, {"status", "requested", kai::kGpuResource}))});
  auto it = tree.children.find(name);
  if (it == tree.children.end()) return;
  size_t i = 0;
  for (const std::string& child : it->second) {
    const bool last = ++i == it->second.size();
    AddRows(tree, child, child_prefix + (last ? "└─ " : "├─ "),
            child_prefix + (last ? "   " : "│  "), false, seen, table);
  }
}

}  // namespace

Status PrintQueues(kube::Client& client, std::ostream& out) {
  Result<kube::ObjectList> queues = client.ListAll(kube::resources::kQueues, "");
  if (!queues.ok()) {
    if (queues.status().code() == StatusCode::kNotFound) {
      return NotFound("the KAI Queue API (queues.scheduling.run.ai) is not installed here");
    }
    return queues.status().WithContext("listing queues");
  }
  Tree tree;
  for (const auto& q : queues->items) tree.queues[std::string(kube::Name(q))] = &q;
  std::vector<std::string> roots;
  for (const auto& [name, q] : tree.queues) {
    const std::string parent(kube::GetString(*q, {"spec", "parentQueue"}));
    if (!parent.empty() && tree.queues.contains(parent)) {
      tree.children[parent].insert(name);
    } else {
      roots.push_back(name);
    }
  }
  if (tree.queues.empty()) {
    out << "No queues.\n";
    return Status::Ok();
  }
  Table table({"QUEUE", "GPU-QUOTA", "LIMIT", "WEIGHT", "FAIR-SHARE", "ALLOCATED", "REQUESTED"});
  std::set<std::string> seen;
  for (const std::string& root : roots) AddRows(tree, root, "", "", true, seen, table);
  for (const auto& [name, q] : tree.queues) {  // queues only reachable through a cycle
    if (!seen.contains(name)) AddRows(tree, name, "", "", true, seen, table);
  }
  table.Print(out);
  return Status::Ok();
}

}  // namespace vtenant::cli
