#include "cli/rotate_credentials.h"

#include <random>
#include <thread>

#include "base/rfc3339.h"
#include "kube/json_builder.h"
#include "operator/certificates.h"
#include "operator/host_objects.h"
#include "operator/tenant.h"

namespace vtenant::cli {

Status RequestRotation(kube::Client& host, std::string_view tenant, const std::string& request) {
  const std::string patch = kube::ToJson(kube::BuildJson(kube::JsonObject{
      {"metadata",
       kube::JsonObject{
           {"annotations", kube::JsonObject{{op::kRotateCredentialsAnnotation, request}}}}}}));
  Result<kube::Object> patched =
      host.Patch(kube::resources::kTenants, "", tenant, kube::PatchType::kMerge, patch);
  if (patched.status().code() == StatusCode::kNotFound) {
    return NotFound("tenant \"" + std::string(tenant) + "\" does not exist");
  }
  return patched.status().WithContext("asking for a rotation of tenant " + std::string(tenant));
}

Status WaitForRotation(kube::Client& host, std::string_view tenant, const std::string& request,
                       std::chrono::milliseconds limit, std::chrono::milliseconds poll) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::string seen = "no Secret yet";
  while (true) {
    std::string ns = op::HostNamespace(tenant);
    std::string name = op::KubeconfigSecretName(tenant);
    if (Result<kube::Object> t = host.Get(kube::resources::kTenants, "", tenant); t.ok()) {
      if (auto s = kube::GetString(*t, {"status", "hostNamespace"}); !s.empty()) ns = s;
      if (auto s = kube::GetString(*t, {"status", "kubeconfigSecret"}); !s.empty()) name = s;
    }
    Result<kube::Object> secret = host.Get(kube::resources::kSecrets, ns, name);
    if (secret.ok()) {
      const std::string done(
          kube::Annotation(*secret, op::kCredentialsRotationAnnotation).value_or(""));
      if (done == request) return Status::Ok();
      seen = "Secret " + ns + "/" + name + " shows rotation \"" + done + "\"";
    } else {
      seen = secret.status().ToString();
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return Status(StatusCode::kTimeout, "the operator has not carried out rotation " + request +
                                              " of tenant " + std::string(tenant) + " yet (" +
                                              seen + "); is vtenant-operator running?");
    }
    std::this_thread::sleep_for(poll);
  }
}

std::string NewRotationRequest() {
  std::random_device random;
  char suffix[9];
  std::snprintf(suffix, sizeof(suffix), "%08x", random());
  return FormatRfc3339(std::chrono::system_clock::now()) + "-" + suffix;
}

}  // namespace vtenant::cli
