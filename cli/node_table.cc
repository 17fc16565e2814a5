#include "cli/node_table.h"

#include <iomanip>
#include <thread>

#include "kai/names.h"

namespace vtenant::cli {
namespace {

bool IsReady(const rapidjson::Value& node) {
  const rapidjson::Value* conditions = kube::Find(node, {"status", "conditions"});
  if (conditions == nullptr || !conditions->IsArray()) return false;
  for (const auto& c : conditions->GetArray()) {
    if (kube::GetString(c, {"type"}) == "Ready") return kube::GetString(c, {"status"}) == "True";
  }
  return false;
}

}  // namespace

Status PrintNodes(kube::Client& client, std::ostream& out) {
  VT_ASSIGN_OR_RETURN(kube::ObjectList nodes, client.ListAll(kube::resources::kNodes, ""));
  out << std::left << std::setw(20) << "NODE" << std::setw(7) << "READY" << std::setw(6) << "GPUS"
      << std::setw(22) << "PRODUCT" << std::setw(12) << "GPU-MiB" << std::setw(6) << "CPU"
      << "MEMORY\n";
  for (const auto& node : nodes.items) {
    std::string_view gpus = kube::GetString(node, {"status", "capacity", kai::kGpuResource});
    out << std::setw(20) << kube::Name(node) << std::setw(7) << (IsReady(node) ? "True" : "False")
        << std::setw(6) << (gpus.empty() ? "0" : gpus) << std::setw(22)
        << kube::Label(node, kai::kGpuProductLabel).value_or("-") << std::setw(12)
        << kube::Label(node, kai::kGpuMemoryLabel).value_or("-") << std::setw(6)
        << kube::GetString(node, {"status", "capacity", "cpu"})
        << kube::GetString(node, {"status", "capacity", "memory"}) << "\n";
  }
  return Status::Ok();
}

int WaitForReadyNodes(kube::Client& client, int seconds) {
  int ready = 0;
  for (int i = 0; i < seconds * 5; ++i) {
    Result<kube::ObjectList> nodes = client.ListAll(kube::resources::kNodes, "");
    if (nodes.ok()) {
      ready = 0;
      for (const auto& n : nodes->items) ready += IsReady(n) ? 1 : 0;
      if (ready == static_cast<int>(nodes->items.size())) return ready;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return ready;
}

}  // namespace vtenant::cli
