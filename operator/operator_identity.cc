#include "operator/operator_identity.h"

#include "kube/json_builder.h"

namespace vtenant::op {
namespace {

const kube::ResourceType kSelfSubjectReviews{"authentication.k8s.io", "v1", "selfsubjectreviews",
                                             "SelfSubjectReview", false};
constexpr std::string_view kServiceAccountPrefix = "system:serviceaccount:";

}  // namespace

RbacSubject SubjectOfUser(std::string_view username) {
  if (username.starts_with(kServiceAccountPrefix)) {
    const std::string_view rest = username.substr(kServiceAccountPrefix.size());
    const size_t colon = rest.find(':');
    if (colon != std::string_view::npos && colon > 0 && colon + 1 < rest.size()) {
      return {"ServiceAccount", std::string(rest.substr(colon + 1)),
              std::string(rest.substr(0, colon))};
    }
  }
  return {"User", std::string(username), ""};
}

Result<std::string> WhoAmI(kube::Client& client) {
  kube::Object review = kube::BuildJson(
      kube::JsonObject{{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "SelfSubjectReview"}});
  VT_ASSIGN_OR_RETURN(kube::Object answer, client.Create(kSelfSubjectReviews, "", review));
  const std::string username(kube::GetString(answer, {"status", "userInfo", "username"}));
  if (username.empty()) return Internal("SelfSubjectReview answered without a user name");
  return username;
}

}  // namespace vtenant::op
