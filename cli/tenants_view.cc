#include "cli/tenants_view.h"

#include <algorithm>
#include <set>

#include "cli/table.h"

namespace vtenant::cli {
namespace {

// Conditions whose healthy status is "False": True means trouble.
const std::set<std::string_view> kProblemConditions = {"ParentQueueMissing", "QuotaOvercommitted"};

bool IsProblem(const rapidjson::Value& condition) {
  const std::string_view type = kube::GetString(condition, {"type"});
  const std::string_view status = kube::GetString(condition, {"status"});
  if (kProblemConditions.contains(type)) return status == "True";
  return status != "True";
}

std::string OrDash(std::string_view s) { return s.empty() ? "-" : std::string(s); }

}  // namespace

Status PrintTenants(kube::Client& client, std::ostream& out) {
  Result<kube::ObjectList> tenants = client.ListAll(kube::resources::kTenants, "");
  if (!tenants.ok()) {
    if (tenants.status().code() == StatusCode::kNotFound) {
      return NotFound(
          "the Tenant API (tenants.vtenant.io) is not installed on this cluster; "
          "`vtenant up` installs it locally, `helm install vtenant charts/vtenant` on a cluster");
    }
    return tenants.status().WithContext("listing tenants");
  }
  std::vector<const kube::Object*> sorted;
  for (const auto& t : tenants->items) sorted.push_back(&t);
  std::sort(sorted.begin(), sorted.end(),
            [](const auto* a, const auto* b) { return kube::Name(*a) < kube::Name(*b); });
  if (sorted.empty()) {
    out << "No tenants. Create one with `kubectl apply -k examples/tenants`.\n";
    return Status::Ok();
  }
  Table table({"NAME", "PHASE", "QUEUE", "PARENT", "GPU-ALLOCATED", "ENDPOINT"});
  std::vector<std::string> problems;
  for (const kube::Object* t : sorted) {
    const std::string name(kube::Name(*t));
    std::string phase(kube::GetString(*t, {"status", "phase"}));
    if (phase.empty()) phase = "Pending";
    if (kube::IsBeingDeleted(*t)) phase = "Terminating";
    std::string allocated;
    if (const rapidjson::Value* g = kube::Find(*t, {"status", "gpuAllocated"}); g != nullptr) {
      allocated = g->IsString() ? g->GetString() : g->IsNumber() ? kube::ToJson(*g) : "";
    }
    table.AddRow({name, phase, OrDash(kube::GetString(*t, {"status", "queue"})),
                  OrDash(kube::GetString(*t, {"spec", "queue", "parentQueue"})), OrDash(allocated),
                  OrDash(kube::GetString(*t, {"status", "endpoint"}))});
    const rapidjson::Value* conditions = kube::Find(*t, {"status", "conditions"});
    if (conditions == nullptr || !conditions->IsArray()) continue;
    for (const auto& c : conditions->GetArray()) {
      const bool ready_condition = kube::GetString(c, {"type"}) == "Ready";
      if (!IsProblem(c) || (ready_condition && phase == "Ready")) continue;
      std::string line = "  " + name + ": " + std::string(kube::GetString(c, {"type"}));
      if (kProblemConditions.contains(kube::GetString(c, {"type"})) == false) {
        line += "=" + std::string(kube::GetString(c, {"status"}));
      }
      if (auto reason = kube::GetString(c, {"reason"}); !reason.empty()) {
        line += " (" + std::string(reason) + ")";
      }
      if (auto message = kube::GetString(c, {"message"}); !message.empty()) {
        line += ": " + std::string(message);
      }
      problems.push_back(line);
    }
  }
  table.Print(out);
  if (!problems.empty()) {
    out << "\nConditions:\n";
    for (const std::string& p : problems) out << p << "\n";
  }
  return Status::Ok();
}

}  // namespace vtenant::cli
