#include "cli/tenant_kubeconfig.h"

#include <cpprest/asyncrt_utils.h>

#include <algorithm>

namespace vtenant::cli {
namespace {

Status NoSuchTenant(kube::Client& host, std::string_view tenant) {
  std::string message = "tenant \"" + std::string(tenant) + "\" does not exist";
  Result<kube::ObjectList> all = host.ListAll(kube::resources::kTenants, "");
  if (!all.ok()) return NotFound(message);
  std::vector<std::string> names;
  for (const auto& t : all->items) names.emplace_back(kube::Name(t));
  std::sort(names.begin(), names.end());
  if (names.empty()) return NotFound(message + "; there are no tenants yet");
  message += "; tenants:";
  for (const std::string& n : names) message += " " + n;
  return NotFound(message);
}

}  // namespace

Result<std::string> TenantKubeconfig(kube::Client& host, std::string_view tenant) {
  Result<kube::Object> t = host.Get(kube::resources::kTenants, "", tenant);
  if (!t.ok()) {
    if (t.status().code() == StatusCode::kNotFound) return NoSuchTenant(host, tenant);
    return t.status().WithContext("reading tenant " + std::string(tenant));
  }
  std::string secret_name(kube::GetString(*t, {"status", "kubeconfigSecret"}));
  if (secret_name.empty()) secret_name = "vc-" + std::string(tenant);
  std::string ns(kube::GetString(*t, {"status", "hostNamespace"}));
  if (ns.empty()) ns = "vtenant-" + std::string(tenant);
  std::string phase(kube::GetString(*t, {"status", "phase"}));
  if (phase.empty()) phase = "Pending";
  const std::string not_yet =
      "tenant \"" + std::string(tenant) + "\" (phase " + phase + ") has no kubeconfig yet: ";
  Result<kube::Object> secret = host.Get(kube::resources::kSecrets, ns, secret_name);
  if (!secret.ok()) {
    if (secret.status().code() == StatusCode::kNotFound) {
      return FailedPrecondition(not_yet + "Secret " + secret_name + " in namespace " + ns +
                                " does not exist; `vtenant tenants` shows when it is Ready");
    }
    return secret.status().WithContext("reading Secret " + ns + "/" + secret_name);
  }
  std::string_view encoded = kube::GetString(*secret, {"data", "config"});
  if (encoded.empty()) {
    return FailedPrecondition(not_yet + "Secret " + ns + "/" + secret_name +
                              " has no key \"config\"");
  }
  try {
    std::vector<unsigned char> bytes = utility::conversions::from_base64(std::string(encoded));
    return std::string(bytes.begin(), bytes.end());
  } catch (const std::exception& e) {
    return Internal("Secret " + ns + "/" + secret_name + " key config is not base64: " + e.what());
  }
}

}  // namespace vtenant::cli
