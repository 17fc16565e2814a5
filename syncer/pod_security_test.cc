#include "syncer/pod_security.h"

#include <gtest/gtest.h>

#include "kube/json_builder.h"
#include "syncer/testing/test_objects.h"

namespace vtenant::syncer {
namespace {

using testing::Json;
using testing::WithMembers;
constexpr PodSecurityLevel kBaseline = PodSecurityLevel::kBaseline;
constexpr PodSecurityLevel kRestricted = PodSecurityLevel::kRestricted;

// A container that meets the restricted level, with `context` (JSON) as its
// securityContext instead of the compliant one ("" keeps that).
kube::JsonObject Restricted(const std::string& context = "") {
  const std::string compliant =
      R"({"allowPrivilegeEscalation":false,"runAsNonRoot":true,)"
      R"("seccompProfile":{"type":"RuntimeDefault"},"capabilities":{"drop":["ALL"]}})";
  return kube::JsonObject{
      {"name", "c"},
      {"image", "i"},
      {"securityContext", kube::JsonValue(Json(context.empty() ? compliant : context))}};
}

// The spec of a pod with one plain container, with the members of `members`
// (JSON) added to the spec before it.
kube::Object SpecWithPod(const std::string& members = "{}") {
  return kube::BuildJson(
      WithMembers({}, members)
          .Set("containers", kube::JsonArray{kube::JsonObject{{"name", "c"}, {"image", "i"}}}));
}

// The spec of a pod with one plain container, with the members of `members`
// (JSON) added to the container.
kube::Object SpecWithContainer(const std::string& members) {
  return kube::BuildJson(kube::JsonObject{
      {"containers", kube::JsonArray{WithMembers({{"name", "c"}, {"image", "i"}}, members)}}});
}

// The spec of a pod with the members of `pod_members` (JSON) and one
// Restricted(`context`) container.
kube::Object RestrictedSpec(const std::string& pod_members, const std::string& context = "") {
  return kube::BuildJson(
      WithMembers({}, pod_members).Set("containers", kube::JsonArray{Restricted(context)}));
}

// Pod ml/p of `spec`, with `annotations` (JSON).
kube::Object Pod(const rapidjson::Value& spec, const std::string& annotations = "{}") {
  return kube::BuildJson(kube::JsonObject{
      {"metadata", kube::JsonObject{{"name", "p"},
                                    {"namespace", "ml"},
                                    {"annotations", kube::JsonValue(Json(annotations))}}},
      {"spec", kube::JsonValue(spec)}});
}

struct Row {
  const char* rule;
  PodSecurityLevel level;
  kube::Object spec;
  std::string field;    // the one violation's field
  std::string feature;  // what lifts it ("" = nothing)
  std::string annotations = "{}";
};

// One row per rule of pod_security.h: the pod breaks exactly that rule,
// and the exception it names (if any) lifts exactly it.
TEST(PodSecurityTest, EveryRuleRefusesItsFieldAndItsExceptionLiftsIt) {
  const Row rows[] = {
      // baseline
      {"pod hostProcess", kBaseline,
       SpecWithPod(R"({"securityContext":{"windowsOptions":{"hostProcess":true}}})"),
       "spec.securityContext.windowsOptions.hostProcess", "windowsHostProcess"},
      {"container hostProcess", kBaseline,
       SpecWithContainer(R"({"securityContext":{"windowsOptions":{"hostProcess":true}}})"),
       "spec.containers[c].securityContext.windowsOptions.hostProcess", "windowsHostProcess"},
      {"hostNetwork", kBaseline, SpecWithPod(R"({"hostNetwork":true})"), "spec.hostNetwork",
       "hostNetwork"},
      {"hostPID", kBaseline, SpecWithPod(R"({"hostPID":true})"), "spec.hostPID", "hostPID"},
      {"hostIPC", kBaseline, SpecWithPod(R"({"hostIPC":true})"), "spec.hostIPC", "hostIPC"},
      {"privileged", kBaseline, SpecWithContainer(R"({"securityContext":{"privileged":true}})"),
       "spec.containers[c].securityContext.privileged", "privileged"},
      {"privileged init container", kBaseline,
       Json(R"({"containers":[{"name":"c","image":"i"}],)"
            R"("initContainers":[{"name":"i","image":"i",)"
            R"("securityContext":{"privileged":true}}]})"),
       "spec.initContainers[i].securityContext.privileged", "privileged"},
      {"privileged ephemeral container", kBaseline,
       Json(R"({"containers":[{"name":"c","image":"i"}],)"
            R"("ephemeralContainers":[{"name":"e","image":"i",)"
            R"("securityContext":{"privileged":true}}]})"),
       "spec.ephemeralContainers[e].securityContext.privileged", "privileged"},
      {"capabilities beyond the baseline set", kBaseline,
       SpecWithContainer(R"({"securityContext":{"capabilities":{"add":["CHOWN","NET_ADMIN"]}}})"),
       "spec.containers[c].securityContext.capabilities.add", "capabilities"},
      {"hostPath", kBaseline,
       SpecWithPod(R"({"volumes":[{"name":"root","hostPath":{"path":"/"}}]})"),
       "spec.volumes[root].hostPath", "hostPath"},
      {"hostPort", kBaseline,
       SpecWithContainer(R"({"ports":[{"containerPort":80,"hostPort":8080}]})"),
       "spec.containers[c].ports[80].hostPort", "hostPorts"},
      {"pod AppArmor unconfined", kBaseline,
       SpecWithPod(R"({"securityContext":{"appArmorProfile":{"type":"Unconfined"}}})"),
       "spec.securityContext.appArmorProfile.type", "unconfinedAppArmor"},
      {"container AppArmor unconfined", kBaseline,
       SpecWithContainer(R"({"securityContext":{"appArmorProfile":{"type":"Unconfined"}}})"),
       "spec.containers[c].securityContext.appArmorProfile.type", "unconfinedAppArmor"},
      {"AppArmor annotation unconfined", kBaseline, SpecWithPod(),
       "metadata.annotations['container.apparmor.security.beta.kubernetes.io/c']",
       "unconfinedAppArmor",
       R"({"container.apparmor.security.beta.kubernetes.io/c":"unconfined"})"},
      {"SELinux type", kBaseline,
       SpecWithContainer(R"({"securityContext":{"seLinuxOptions":{"type":"spc_t"}}})"),
       "spec.containers[c].securityContext.seLinuxOptions.type", "seLinux"},
      {"SELinux user", kBaseline,
       SpecWithPod(R"({"securityContext":{"seLinuxOptions":{"user":"system_u"}}})"),
       "spec.securityContext.seLinuxOptions.user", "seLinux"},
      {"SELinux role", kBaseline,
       SpecWithContainer(R"({"securityContext":{"seLinuxOptions":{"role":"system_r"}}})"),
       "spec.containers[c].securityContext.seLinuxOptions.role", "seLinux"},
      {"procMount", kBaseline, SpecWithContainer(R"({"securityContext":{"procMount":"Unmasked"}})"),
       "spec.containers[c].securityContext.procMount", "procMount"},
      {"pod seccomp unconfined", kBaseline,
       SpecWithPod(R"({"securityContext":{"seccompProfile":{"type":"Unconfined"}}})"),
       "spec.securityContext.seccompProfile.type", "unconfinedSeccomp"},
      {"container seccomp unconfined", kBaseline,
       SpecWithContainer(R"({"securityContext":{"seccompProfile":{"type":"Unconfined"}}})"),
       "spec.containers[c].securityContext.seccompProfile.type", "unconfinedSeccomp"},
      {"unsafe sysctl", kBaseline,
       SpecWithPod(R"({"securityContext":{"sysctls":[{"name":"kernel.msgmax","value":"1"}]}})"),
       "spec.securityContext.sysctls[kernel.msgmax]", "unsafeSysctls"},
      {"liveness probe host", kBaseline,
       SpecWithContainer(R"({"livenessProbe":{"httpGet":{"host":"169.254.169.254","port":80}}})"),
       "spec.containers[c].livenessProbe.httpGet.host", ""},
      {"readiness probe tcp host", kBaseline,
       SpecWithContainer(R"({"readinessProbe":{"tcpSocket":{"host":"10.0.0.1","port":6443}}})"),
       "spec.containers[c].readinessProbe.tcpSocket.host", ""},
      {"startup probe host of an init container", kBaseline,
       Json(R"({"containers":[{"name":"c","image":"i"}],)"
            R"("initContainers":[{"name":"i","image":"i",)"
            R"("startupProbe":{"httpGet":{"host":"x","port":1}}}]})"),
       "spec.initContainers[i].startupProbe.httpGet.host", ""},
      {"postStart hook host", kBaseline,
       SpecWithContainer(
           R"({"lifecycle":{"postStart":{"httpGet":{"host":"10.0.0.1","port":80}}}})"),
       "spec.containers[c].lifecycle.postStart.httpGet.host", ""},
      {"preStop hook tcp host", kBaseline,
       SpecWithContainer(
           R"({"lifecycle":{"preStop":{"tcpSocket":{"host":"10.0.0.1","port":80}}}})"),
       "spec.containers[c].lifecycle.preStop.tcpSocket.host", ""},
      // restricted
      {"volume type", kRestricted,
       RestrictedSpec(R"({"volumes":[{"name":"share","nfs":{"server":"n","path":"/"}}]})"),
       "spec.volumes[share].nfs", ""},
      {"privilege escalation", kRestricted,
       RestrictedSpec("{}", R"({"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"},)"
                            R"("capabilities":{"drop":["ALL"]}})"),
       "spec.containers[c].securityContext.allowPrivilegeEscalation", "privileged"},
      {"run as non-root unset", kRestricted,
       RestrictedSpec(
           "{}", R"({"allowPrivilegeEscalation":false,"seccompProfile":{"type":"RuntimeDefault"},)"
                 R"("capabilities":{"drop":["ALL"]}})"),
       "spec.containers[c].securityContext.runAsNonRoot", ""},
      {"run as non-root false over the pod's true", kRestricted,
       RestrictedSpec(
           R"({"securityContext":{"runAsNonRoot":true}})",
           R"({"allowPrivilegeEscalation":false,"runAsNonRoot":false,)"
           R"("seccompProfile":{"type":"RuntimeDefault"},"capabilities":{"drop":["ALL"]}})"),
       "spec.containers[c].securityContext.runAsNonRoot", ""},
      {"run as root", kRestricted, RestrictedSpec(R"({"securityContext":{"runAsUser":0}})"),
       "spec.securityContext.runAsUser", ""},
      {"seccomp unset", kRestricted,
       RestrictedSpec("{}", R"({"allowPrivilegeEscalation":false,"runAsNonRoot":true,)"
                            R"("capabilities":{"drop":["ALL"]}})"),
       "spec.containers[c].securityContext.seccompProfile.type", "unconfinedSeccomp"},
      {"capabilities not dropped", kRestricted,
       RestrictedSpec("{}", R"({"allowPrivilegeEscalation":false,"runAsNonRoot":true,)"
                            R"("seccompProfile":{"type":"RuntimeDefault"}})"),
       "spec.containers[c].securityContext.capabilities.drop", "capabilities"},
      {"capability added from the baseline set", kRestricted,
       RestrictedSpec("{}", R"({"allowPrivilegeEscalation":false,"runAsNonRoot":true,)"
                            R"("seccompProfile":{"type":"RuntimeDefault"},)"
                            R"("capabilities":{"drop":["ALL"],"add":["CHOWN"]}})"),
       "spec.containers[c].securityContext.capabilities.add", "capabilities"},
      {"procMount even in a user namespace", kRestricted,
       RestrictedSpec(
           R"({"hostUsers":false})",
           R"({"allowPrivilegeEscalation":false,"runAsNonRoot":true,)"
           R"("seccompProfile":{"type":"RuntimeDefault"},"capabilities":{"drop":["ALL"]},)"
           R"("procMount":"Unmasked"})"),
       "spec.containers[c].securityContext.procMount", "procMount"},
  };
  for (const Row& row : rows) {
    kube::Object pod = Pod(row.spec, row.annotations);
    std::vector<PodSecurityViolation> found = CheckPodSecurity(pod, row.level, {});
    ASSERT_EQ(found.size(), 1u) << row.rule << ": " << found.size() << " violations"
                                << (found.empty() ? "" : ", first " + found[0].field);
    EXPECT_EQ(found[0].field, row.field) << row.rule;
    EXPECT_EQ(found[0].feature, row.feature) << row.rule;
    EXPECT_EQ(found[0].level, row.level) << row.rule;
    if (!row.feature.empty()) {
      EXPECT_TRUE(CheckPodSecurity(pod, row.level, {row.feature}).empty()) << row.rule;
    }
  }
}

// Pods each level admits, so no rule is broader than the standard.
TEST(PodSecurityTest, WhatTheStandardAllowsPasses) {
  const std::pair<PodSecurityLevel, kube::Object> allowed[] = {
      {kBaseline, SpecWithPod()},
      {kBaseline, SpecWithContainer(
                      R"({"securityContext":{"capabilities":{"add":["CHOWN","NET_BIND_SERVICE"]},)"
                      R"("privileged":false,"procMount":"Default",)"
                      R"("seccompProfile":{"type":"Localhost","localhostProfile":"p.json"},)"
                      R"("appArmorProfile":{"type":"RuntimeDefault"},)"
                      R"("seLinuxOptions":{"type":"container_t","level":"s0:c1,c2"}}})")},
      {kBaseline, Json(R"({"hostNetwork":false,"securityContext":{"sysctls":[)"
                       R"({"name":"net.ipv4.tcp_keepalive_time","value":"60"},)"
                       R"({"name":"net.ipv4.tcp_notsent_lowat","value":"1"},)"
                       R"({"name":"net.ipv4.ip_unprivileged_port_start","value":"0"}],)"
                       R"("seLinuxOptions":{"type":"container_engine_t"}},"containers":[)"
                       R"({"name":"c","image":"i","ports":[{"containerPort":80,"hostPort":0}],)"
                       R"("livenessProbe":{"httpGet":{"host":"","port":80}}}]})")},
      {kBaseline, Json(R"({"hostUsers":false,"containers":[{"name":"c","image":"i",)"
                       R"("securityContext":{"procMount":"Unmasked"}}]})")},
      {kRestricted, RestrictedSpec("{}")},
      {kRestricted,
       RestrictedSpec(
           R"({"securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},)"
           R"("volumes":[{"name":"a","csi":{"driver":"d"}},{"name":"b","image":{"reference":"r"}},)"
           R"({"name":"c","ephemeral":{}},{"name":"d","projected":{}}]})",
           R"({"allowPrivilegeEscalation":false,)"
           R"("capabilities":{"drop":["ALL"],"add":["NET_BIND_SERVICE"]}})")},
      {kRestricted, RestrictedSpec(R"({"hostUsers":false,"securityContext":{"runAsUser":0}})",
                                   R"({"allowPrivilegeEscalation":false,)"
                                   R"("seccompProfile":{"type":"RuntimeDefault"},)"
                                   R"("capabilities":{"drop":["ALL"]}})")},
      {kRestricted,
       SpecWithPod(R"({"os":{"name":"windows"},"securityContext":{"runAsNonRoot":true}})")},
  };
  for (const auto& [level, spec] : allowed) {
    std::vector<PodSecurityViolation> found = CheckPodSecurity(Pod(spec), level, {});
    EXPECT_TRUE(found.empty()) << kube::ToJson(spec) << "\n"
                               << (found.empty() ? "" : found[0].field + " " + found[0].what);
  }
  // AppArmor annotations the baseline allows.
  for (const char* value : {"runtime/default", "localhost/my-profile", ""}) {
    kube::Object pod = Pod(SpecWithPod());
    kube::SetString(pod, {"metadata", "annotations"},
                    "container.apparmor.security.beta.kubernetes.io/c", value);
    EXPECT_TRUE(CheckPodSecurity(pod, kBaseline, {}).empty()) << value;
  }
}

TEST(PodSecurityTest, RestrictedIncludesBaselineAndReportsEachFieldOnce) {
  kube::Object pod = Pod(Json(R"({"hostPID":true,"containers":[{"name":"c","image":"i",)"
                              R"("securityContext":{"seccompProfile":{"type":"Unconfined"},)"
                              R"("capabilities":{"add":["SYS_ADMIN"]}}}]})"));
  std::vector<PodSecurityViolation> found = CheckPodSecurity(pod, kRestricted, {});
  std::vector<std::string> fields;
  for (const PodSecurityViolation& v : found) fields.push_back(v.field);
  EXPECT_EQ(fields, (std::vector<std::string>{
                        "spec.hostPID",
                        "spec.containers[c].securityContext.capabilities.add",
                        "spec.containers[c].securityContext.seccompProfile.type",
                        "spec.containers[c].securityContext.allowPrivilegeEscalation",
                        "spec.containers[c].securityContext.runAsNonRoot",
                        "spec.containers[c].securityContext.capabilities.drop",
                    }));
}

}  // namespace
}  // namespace vtenant::syncer
