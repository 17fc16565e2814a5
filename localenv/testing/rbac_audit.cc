#include "localenv/testing/rbac_audit.h"

#include <yaml-cpp/yaml.h>

#include "kube/json_builder.h"
#include "kube/rest_client.h"

namespace vtenant::localenv {

namespace {

const kube::ResourceType kRulesReviews{"authorization.k8s.io", "v1", "selfsubjectrulesreviews",
                                       "SelfSubjectRulesReview", false};

std::vector<std::string> Strings(const rapidjson::Value* list) {
  std::vector<std::string> out;
  if (list == nullptr || !list->IsArray()) return out;
  for (const auto& v : list->GetArray()) {
    if (v.IsString()) out.emplace_back(v.GetString());
  }
  return out;
}

}  // namespace

std::string Right::ToString() const {
  return (scope.empty() ? "" : scope + ": ") + verb + " " + (group.empty() ? "" : group + "/") +
         resource + (name.empty() ? "" : " " + name);
}

Result<std::map<std::string, AccountRights>> LoadRightsTable(const std::string& path) {
  std::map<std::string, AccountRights> table;
  try {
    YAML::Node root = YAML::LoadFile(path);
    for (const auto& account : root["accounts"]) {
      const std::string name = account.first.as<std::string>();
      AccountRights& a = table[name];
      a.namespace_scope = account.second["namespace"].as<std::string>("");
      for (const auto& entry : account.second["rights"]) {
        const std::string scope = entry["scope"].as<std::string>("");
        const std::string resource = entry["resource"].as<std::string>("");
        const std::string code = entry["code"].as<std::string>("");
        if (scope.empty() || resource.empty() || code.empty() || !entry["verbs"]) {
          return InvalidArgument(path + ": " + name +
                                 " has an entry without scope, resource, verbs or code");
        }
        std::vector<std::string> names = {""};
        if (entry["names"]) names = entry["names"].as<std::vector<std::string>>();
        for (const auto& verb : entry["verbs"].as<std::vector<std::string>>()) {
          for (const auto& object : names) {
            Right r{scope, entry["group"].as<std::string>(""), resource, verb, object};
            a.rights.insert(r);
            a.code[r] = code;
          }
        }
      }
    }
  } catch (const YAML::Exception& e) {
    return InvalidArgument(path + ": " + e.what());
  }
  return table;
}

Result<std::string> ServiceAccountToken(kube::Client& admin, const std::string& ns,
                                        const std::string& name) {
  kube::Object request = kube::BuildJson(
      kube::JsonObject{{"apiVersion", "authentication.k8s.io/v1"},
                       {"kind", "TokenRequest"},
                       {"metadata", kube::JsonObject{{"name", name}, {"namespace", ns}}},
                       {"spec", kube::JsonObject{{"expirationSeconds", 3600}}}});
  VT_ASSIGN_OR_RETURN(kube::Object answer,
                      admin.Create(kube::resources::kServiceAccounts, ns, request, "token"));
  std::string token(kube::GetString(answer, {"status", "token"}));
  if (token.empty()) return Internal("TokenRequest for " + ns + "/" + name + " gave no token");
  return token;
}

Result<std::set<Right>> ReviewRights(const kube::RestConfig& as, const std::string& ns) {
  VT_ASSIGN_OR_RETURN(std::unique_ptr<kube::RestClient> client, kube::RestClient::Create(as));
  kube::Object review =
      kube::BuildJson(kube::JsonObject{{"apiVersion", "authorization.k8s.io/v1"},
                                       {"kind", "SelfSubjectRulesReview"},
                                       {"spec", kube::JsonObject{{"namespace", ns}}}});
  VT_ASSIGN_OR_RETURN(kube::Object answer, client->Create(kRulesReviews, "", review));
  if (const rapidjson::Value* incomplete = kube::Find(answer, {"status", "incomplete"});
      incomplete != nullptr && incomplete->IsBool() && incomplete->GetBool()) {
    return Internal("the rules review in " + ns + " is incomplete: " +
                    std::string(kube::GetString(answer, {"status", "evaluationError"})));
  }
  std::set<Right> rights;
  const rapidjson::Value* rules = kube::Find(answer, {"status", "resourceRules"});
  if (rules == nullptr || !rules->IsArray()) return rights;
  for (const auto& rule : rules->GetArray()) {
    std::vector<std::string> names = Strings(kube::Find(rule, {"resourceNames"}));
    if (names.empty()) names.push_back("");
    for (const auto& group : Strings(kube::Find(rule, {"apiGroups"}))) {
      for (const auto& resource : Strings(kube::Find(rule, {"resources"}))) {
        for (const auto& verb : Strings(kube::Find(rule, {"verbs"}))) {
          for (const auto& name : names) rights.insert({"", group, resource, verb, name});
        }
      }
    }
  }
  return rights;
}

}  // namespace vtenant::localenv
