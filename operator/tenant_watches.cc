#include "operator/tenant_watches.h"

#include "operator/tenant.h"

namespace vtenant::op {

std::vector<std::string> TenantOfLabel(const kube::Object& object) {
  std::optional<std::string_view> tenant = kube::Label(object, kTenantLabel);
  if (!tenant.has_value() || tenant->empty()) return {};
  return {std::string(*tenant)};
}

std::vector<std::string> TenantsOfQueue(const kube::Object& queue,
                                        const std::vector<kube::ObjectPtr>& tenants) {
  std::vector<std::string> keys = TenantOfLabel(queue);
  for (const kube::ObjectPtr& t : tenants) {
    if (kube::Name(*t) == kube::Name(queue) ||
        kube::GetString(*t, {"spec", "queue", "parentQueue"}) == kube::Name(queue)) {
      keys.push_back(kube::KeyOf(*t));
    }
  }
  return keys;
}

std::vector<std::string> AllTenants(const std::vector<kube::ObjectPtr>& tenants) {
  std::vector<std::string> keys;
  for (const kube::ObjectPtr& t : tenants) keys.push_back(kube::KeyOf(*t));
  return keys;
}

}  // namespace vtenant::op
