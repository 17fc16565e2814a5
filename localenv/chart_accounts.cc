#include "localenv/chart_accounts.h"

#include <set>

#include "base/file.h"
#include "base/secret_file.h"
#include "kube/json_builder.h"
#include "kube/kubeconfig.h"
#include "kube/manifest.h"
#include "kube/yaml.h"
#include "localenv/command.h"
#include "localenv/tools.h"
#include "pki/pki.h"

namespace vtenant::localenv {

using pki::CertificateAndKey;
using pki::IssueCertificate;

namespace {

// What the local cluster takes from the chart: identities, their rights,
// the admission objects that bound them, and KAI's PriorityClasses, which
// workloads name. Deployments, Services, Secrets and CRDs are not taken: the
// programs run as processes, and the CRDs come from charts/vtenant/crds.
const std::set<std::string>& AccountKinds() {
  static const std::set<std::string> kinds = {"ServiceAccount",
                                              "ClusterRole",
                                              "ClusterRoleBinding",
                                              "Role",
                                              "RoleBinding",
                                              "ValidatingAdmissionPolicy",
                                              "ValidatingAdmissionPolicyBinding",
                                              "MutatingWebhookConfiguration",
                                              "PriorityClass"};
  return kinds;
}

// The admission policy kinds, which only the chart's accounts need.
const kube::ResourceType kPolicies{"admissionregistration.k8s.io", "v1",
                                   "validatingadmissionpolicies", "ValidatingAdmissionPolicy",
                                   false};
const kube::ResourceType kPolicyBindings{"admissionregistration.k8s.io", "v1",
                                         "validatingadmissionpolicybindings",
                                         "ValidatingAdmissionPolicyBinding", false};

// Server-side apply of `object`, as kube::ApplyObject, for the kinds it knows
// and the admission policies.
Status Apply(kube::Client& admin, const kube::Object& object, const kube::ApplyOptions& options) {
  const std::string_view kind = kube::GetString(object, {"kind"});
  const kube::ResourceType* policy = kind == kPolicies.kind         ? &kPolicies
                                     : kind == kPolicyBindings.kind ? &kPolicyBindings
                                                                    : nullptr;
  if (policy == nullptr) return kube::ApplyObject(admin, object, options).status();
  return admin
      .Patch(*policy, "", kube::Name(object), kube::PatchType::kApply, kube::ToJson(object),
             {.field_manager = options.field_manager, .force = options.force})
      .status();
}

}  // namespace

Result<std::vector<kube::Object>> RenderChartAccounts(const ChartAccountsOptions& options) {
  VT_ASSIGN_OR_RETURN(std::string helm, FindTool("helm"));
  std::vector<std::string> argv = {helm,          "template", "vtenant",        options.chart_dir,
                                   "--namespace", options.ns, "--kube-version", "1.37.2"};
  for (const std::string& s : options.set_values) argv.insert(argv.end(), {"--set", s});
  VT_ASSIGN_OR_RETURN(CommandResult rendered, RunCommand(argv));
  if (rendered.exit_code != 0) {
    return FailedPrecondition("helm template " + options.chart_dir + ": " + rendered.err);
  }
  VT_ASSIGN_OR_RETURN(std::vector<kube::Object> docs, kube::ParseYamlDocuments(rendered.out));
  std::vector<kube::Object> accounts;
  for (kube::Object& doc : docs) {
    if (!doc.IsObject()) continue;
    if (AccountKinds().contains(std::string(kube::GetString(doc, {"kind"})))) {
      accounts.push_back(std::move(doc));
    }
  }
  if (accounts.empty()) return FailedPrecondition("the chart rendered no ServiceAccounts or roles");
  return accounts;
}

Status InstallChartAccounts(kube::Client& admin, const ChartAccountsOptions& options) {
  VT_ASSIGN_OR_RETURN(std::vector<kube::Object> accounts, RenderChartAccounts(options));
  kube::Object ns =
      kube::BuildJson(kube::JsonObject{{"apiVersion", "v1"},
                                       {"kind", "Namespace"},
                                       {"metadata", kube::JsonObject{{"name", options.ns}}}});
  VT_RETURN_IF_ERROR(kube::ApplyObject(admin, ns).status());
  const kube::ApplyOptions apply{.field_manager = "vtenant-local", .default_namespace = options.ns};
  for (const kube::Object& object : accounts) {
    if (Status s = Apply(admin, object, apply); !s.ok()) {
      return s.WithContext(std::string(kube::GetString(object, {"kind"})) + " " +
                           std::string(kube::Name(object)));
    }
  }
  return Status::Ok();
}

std::string ServiceAccountUser(const std::string& ns, const std::string& name) {
  return "system:serviceaccount:" + ns + ":" + name;
}

Status WriteServiceAccountKubeconfig(const ApiServer& server, const std::string& ns,
                                     const std::string& name, const std::string& path) {
  const std::string pki = server.pki_dir();
  const CertificateAndKey ca{ReadFileOrEmpty(pki + "/ca.crt"), ReadFileOrEmpty(pki + "/ca.key")};
  VT_ASSIGN_OR_RETURN(CertificateAndKey cert,
                      IssueCertificate(ca, {.common_name = ServiceAccountUser(ns, name),
                                            .organizations = {"system:serviceaccounts",
                                                              "system:serviceaccounts:" + ns},
                                            .client = true}));
  kube::RestConfig config = server.admin_config();
  config.client_certificate_pem = cert.certificate_pem;
  config.client_key_pem = cert.private_key_pem;
  return WriteSecretFile(path, kube::RenderKubeconfig(config, name));
}

}  // namespace vtenant::localenv
