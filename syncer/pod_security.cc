#include "syncer/pod_security.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "syncer/pod_schema.h"

namespace vtenant::syncer {
namespace {

template <size_t N>
bool OneOf(std::string_view value, const std::array<std::string_view, N>& set) {
  return std::find(set.begin(), set.end(), value) != set.end();
}

constexpr std::array<std::string_view, 13> kBaselineCapabilities = {
    "AUDIT_WRITE",      "CHOWN",   "DAC_OVERRIDE", "FOWNER",  "FSETID", "KILL",      "MKNOD",
    "NET_BIND_SERVICE", "SETFCAP", "SETGID",       "SETPCAP", "SETUID", "SYS_CHROOT"};
constexpr std::array<std::string_view, 5> kSeLinuxTypes = {"", "container_t", "container_init_t",
                                                           "container_kvm_t", "container_engine_t"};
// e2e/support/baseline_check.cc lists the same sysctls on purpose: the
// escape suite's own reading of the standard, kept apart so that the two
// cannot share a mistake.
constexpr std::array<std::string_view, 14> kSafeSysctls = {"kernel.shm_rmid_forced",
                                                           "net.ipv4.ip_local_port_range",
                                                           "net.ipv4.tcp_syncookies",
                                                           "net.ipv4.ping_group_range",
                                                           "net.ipv4.ip_unprivileged_port_start",
                                                           "net.ipv4.ip_local_reserved_ports",
                                                           "net.ipv4.tcp_keepalive_time",
                                                           "net.ipv4.tcp_fin_timeout",
                                                           "net.ipv4.tcp_keepalive_intvl",
                                                           "net.ipv4.tcp_keepalive_probes",
                                                           "net.ipv4.tcp_rmem",
                                                           "net.ipv4.tcp_wmem",
                                                           "net.ipv4.tcp_slow_start_after_idle",
                                                           "net.ipv4.tcp_notsent_lowat"};
constexpr std::array<std::string_view, 9> kRestrictedVolumes = {
    "configMap", "csi",       "downwardAPI",           "emptyDir", "ephemeral",
    "image",     "projected", "persistentVolumeClaim", "secret"};
constexpr std::string_view kAppArmorAnnotationPrefix =
    "container.apparmor.security.beta.kubernetes.io/";

bool IsTrue(const rapidjson::Value* v) { return v != nullptr && v->IsBool() && v->GetBool(); }
bool IsFalse(const rapidjson::Value* v) { return v != nullptr && v->IsBool() && !v->GetBool(); }

const rapidjson::Value* Member(const rapidjson::Value& v, std::string_view key) {
  if (!v.IsObject()) return nullptr;
  auto it = v.FindMember(rapidjson::Value(rapidjson::StringRef(key.data(), key.size())));
  return it == v.MemberEnd() ? nullptr : &it->value;
}

std::string_view Str(const rapidjson::Value* v) {
  return v != nullptr && v->IsString() ? std::string_view(v->GetString(), v->GetStringLength())
                                       : std::string_view();
}

class Checker {
 public:
  Checker(const rapidjson::Value& pod, PodSecurityLevel level,
          const std::set<std::string, std::less<>>& allowed)
      : pod_(pod), level_(level), allowed_(allowed) {
    static const rapidjson::Value kEmpty(rapidjson::kObjectType);
    const rapidjson::Value* spec = kube::Find(pod, {"spec"});
    spec_ = spec != nullptr && spec->IsObject() ? spec : &kEmpty;
    const rapidjson::Value* context = Member(*spec_, "securityContext");
    pod_context_ = context != nullptr && context->IsObject() ? context : &kEmpty;
    user_namespace_ = IsFalse(Member(*spec_, "hostUsers"));
    windows_ = kube::GetString(*spec_, {"os", "name"}) == "windows";
  }

  std::vector<PodSecurityViolation> Run() {
    Baseline();
    if (level_ == PodSecurityLevel::kRestricted) Restricted();
    return std::move(violations_);
  }

 private:
  using ContainerFn = void (Checker::*)(const rapidjson::Value& c, const std::string& where);

  void Add(std::string field, std::string what, std::string_view feature,
           PodSecurityLevel level = PodSecurityLevel::kBaseline) {
    if (!feature.empty() && allowed_.contains(feature)) return;
    violations_.push_back({std::move(field), std::move(what), std::string(feature), level});
  }

  void EachContainer(ContainerFn fn) {
    for (std::string_view list : {"initContainers", "containers", "ephemeralContainers"}) {
      const rapidjson::Value* containers = Member(*spec_, list);
      if (containers == nullptr || !containers->IsArray()) continue;
      for (const rapidjson::Value& c : containers->GetArray()) {
        std::string where =
            "spec." + std::string(list) + "[" + std::string(kube::GetString(c, {"name"})) + "]";
        (this->*fn)(c, where);
      }
    }
  }

  static const rapidjson::Value* ContainerContext(const rapidjson::Value& c, std::string_view key) {
    const rapidjson::Value* context = Member(c, "securityContext");
    return context != nullptr ? Member(*context, key) : nullptr;
  }

  // --- baseline ---

  void Baseline() {
    if (IsTrue(kube::Find(*pod_context_, {"windowsOptions", "hostProcess"}))) {
      Add("spec.securityContext.windowsOptions.hostProcess", "is true", "windowsHostProcess");
    }
    for (std::string_view ns : {"hostNetwork", "hostPID", "hostIPC"}) {
      if (IsTrue(Member(*spec_, ns))) Add("spec." + std::string(ns), "is true", ns);
    }
    if (const rapidjson::Value* volumes = Member(*spec_, "volumes");
        volumes != nullptr && volumes->IsArray()) {
      for (const rapidjson::Value& v : volumes->GetArray()) {
        if (Member(v, "hostPath") != nullptr) {
          Add("spec.volumes[" + std::string(kube::GetString(v, {"name"})) + "].hostPath",
              "mounts a directory of the node", "hostPath");
        }
      }
    }
    PodAppArmor();
    PodSeLinux();
    if (Str(kube::Find(*pod_context_, {"seccompProfile", "type"})) == "Unconfined") {
      Add("spec.securityContext.seccompProfile.type", "is Unconfined", "unconfinedSeccomp");
    }
    if (const rapidjson::Value* sysctls = Member(*pod_context_, "sysctls");
        sysctls != nullptr && sysctls->IsArray()) {
      for (const rapidjson::Value& s : sysctls->GetArray()) {
        std::string_view name = kube::GetString(s, {"name"});
        if (!OneOf(name, kSafeSysctls)) {
          Add("spec.securityContext.sysctls[" + std::string(name) + "]",
              "is not a sysctl the node isolates between pods", "unsafeSysctls");
        }
      }
    }
    EachContainer(&Checker::BaselineContainer);
  }

  void PodAppArmor() {
    if (Str(kube::Find(*pod_context_, {"appArmorProfile", "type"})) == "Unconfined") {
      Add("spec.securityContext.appArmorProfile.type", "is Unconfined", "unconfinedAppArmor");
    }
    const rapidjson::Value* annotations = kube::Find(pod_, {"metadata", "annotations"});
    if (annotations == nullptr || !annotations->IsObject()) return;
    for (const auto& m : annotations->GetObject()) {
      std::string_view key(m.name.GetString(), m.name.GetStringLength());
      if (!key.starts_with(kAppArmorAnnotationPrefix)) continue;
      std::string_view value = Str(&m.value);
      if (value.empty() || value == "runtime/default" || value.starts_with("localhost/")) continue;
      Add("metadata.annotations['" + std::string(key) + "']", "is \"" + std::string(value) + "\"",
          "unconfinedAppArmor");
    }
  }

  void SeLinux(const rapidjson::Value* options, const std::string& where) {
    if (options == nullptr || !options->IsObject()) return;
    std::string_view type = Str(Member(*options, "type"));
    if (!OneOf(type, kSeLinuxTypes)) {
      Add(where + ".seLinuxOptions.type", "is \"" + std::string(type) + "\"", "seLinux");
    }
    for (std::string_view key : {"user", "role"}) {
      if (!Str(Member(*options, key)).empty()) {
        Add(where + ".seLinuxOptions." + std::string(key), "is set", "seLinux");
      }
    }
  }

  void PodSeLinux() { SeLinux(Member(*pod_context_, "seLinuxOptions"), "spec.securityContext"); }

  void BaselineContainer(const rapidjson::Value& c, const std::string& where) {
    const std::string context = where + ".securityContext";
    if (IsTrue(ContainerContext(c, "privileged"))) {
      Add(context + ".privileged", "is true", "privileged");
    }
    if (const rapidjson::Value* add = kube::Find(c, {"securityContext", "capabilities", "add"});
        add != nullptr && add->IsArray()) {
      for (const rapidjson::Value& cap : add->GetArray()) {
        if (!OneOf(Str(&cap), kBaselineCapabilities)) {
          Add(context + ".capabilities.add", "adds " + std::string(Str(&cap)), "capabilities");
        }
      }
    }
    if (const rapidjson::Value* ports = Member(c, "ports"); ports != nullptr && ports->IsArray()) {
      for (const rapidjson::Value& p : ports->GetArray()) {
        int64_t host_port = kube::GetInt(p, {"hostPort"});
        if (host_port != 0) {
          Add(where + ".ports[" + std::to_string(kube::GetInt(p, {"containerPort"})) + "].hostPort",
              "is " + std::to_string(host_port), "hostPorts");
        }
      }
    }
    if (IsTrue(kube::Find(c, {"securityContext", "windowsOptions", "hostProcess"}))) {
      Add(context + ".windowsOptions.hostProcess", "is true", "windowsHostProcess");
    }
    if (Str(kube::Find(c, {"securityContext", "appArmorProfile", "type"})) == "Unconfined") {
      Add(context + ".appArmorProfile.type", "is Unconfined", "unconfinedAppArmor");
    }
    SeLinux(ContainerContext(c, "seLinuxOptions"), context);
    std::string_view proc_mount = Str(ContainerContext(c, "procMount"));
    if (!proc_mount.empty() && proc_mount != "Default" && !user_namespace_) {
      Add(context + ".procMount", "is " + std::string(proc_mount), "procMount");
    }
    if (Str(kube::Find(c, {"securityContext", "seccompProfile", "type"})) == "Unconfined") {
      Add(context + ".seccompProfile.type", "is Unconfined", "unconfinedSeccomp");
    }
    for (std::string_view probe : {"livenessProbe", "readinessProbe", "startupProbe"}) {
      ProbeHost(Member(c, probe), where + "." + std::string(probe));
    }
    for (std::string_view hook : {"postStart", "preStop"}) {
      ProbeHost(kube::Find(c, {"lifecycle", hook}), where + ".lifecycle." + std::string(hook));
    }
  }

  void ProbeHost(const rapidjson::Value* handler, const std::string& where) {
    if (handler == nullptr) return;
    for (std::string_view action : {"httpGet", "tcpSocket"}) {
      std::string_view host = Str(kube::Find(*handler, {action, "host"}));
      if (!host.empty()) {
        Add(where + "." + std::string(action) + ".host",
            "is \"" + std::string(host) + "\" (the node's kubelet would connect there)", "");
      }
    }
  }

  // --- restricted ---

  void Restricted() {
    constexpr PodSecurityLevel kR = PodSecurityLevel::kRestricted;
    if (const rapidjson::Value* volumes = Member(*spec_, "volumes");
        volumes != nullptr && volumes->IsArray()) {
      for (const rapidjson::Value& v : volumes->GetArray()) {
        std::string_view type = VolumeType(v);
        if (type == "hostPath" || OneOf(type, kRestrictedVolumes)) continue;  // hostPath: baseline
        Add("spec.volumes[" + std::string(kube::GetString(v, {"name"})) + "]." + std::string(type),
            "is not a volume type the restricted level allows", "", kR);
      }
    }
    if (!user_namespace_) {
      pod_non_root_ = IsTrue(Member(*pod_context_, "runAsNonRoot"));
      if (IsFalse(Member(*pod_context_, "runAsNonRoot"))) {
        Add("spec.securityContext.runAsNonRoot", "is false", "", kR);
      }
      if (RunsAsRoot(Member(*pod_context_, "runAsUser"))) {
        Add("spec.securityContext.runAsUser", "is 0", "", kR);
      }
    }
    std::string_view pod_seccomp = Str(kube::Find(*pod_context_, {"seccompProfile", "type"}));
    pod_seccomp_ = pod_seccomp == "RuntimeDefault" || pod_seccomp == "Localhost";
    pod_unconfined_ = pod_seccomp == "Unconfined";
    EachContainer(&Checker::RestrictedContainer);
  }

  static bool RunsAsRoot(const rapidjson::Value* user) {
    return user != nullptr && user->IsInt64() && user->GetInt64() == 0;
  }

  void RestrictedContainer(const rapidjson::Value& c, const std::string& where) {
    constexpr PodSecurityLevel kR = PodSecurityLevel::kRestricted;
    const std::string context = where + ".securityContext";
    if (!windows_ && !IsFalse(ContainerContext(c, "allowPrivilegeEscalation"))) {
      Add(context + ".allowPrivilegeEscalation", "is not false", "privileged", kR);
    }
    if (!user_namespace_) {
      const rapidjson::Value* non_root = ContainerContext(c, "runAsNonRoot");
      if (IsFalse(non_root) || (non_root == nullptr && !pod_non_root_)) {
        Add(context + ".runAsNonRoot",
            IsFalse(non_root) ? "is false" : "is not true (nor spec.securityContext.runAsNonRoot)",
            "", kR);
      }
      if (RunsAsRoot(ContainerContext(c, "runAsUser"))) Add(context + ".runAsUser", "is 0", "", kR);
    }
    if (!windows_) {
      std::string_view seccomp = Str(kube::Find(c, {"securityContext", "seccompProfile", "type"}));
      bool explicit_ok = seccomp == "RuntimeDefault" || seccomp == "Localhost";
      // Unconfined, here or on the pod, is the baseline rule's to report.
      bool baseline_said = seccomp == "Unconfined" || (seccomp.empty() && pod_unconfined_);
      if (!explicit_ok && !baseline_said && !(seccomp.empty() && pod_seccomp_)) {
        Add(context + ".seccompProfile.type",
            seccomp.empty() ? "is not set (nor spec.securityContext.seccompProfile.type)"
                            : "is " + std::string(seccomp),
            "unconfinedSeccomp", kR);
      }
      const rapidjson::Value* drop = kube::Find(c, {"securityContext", "capabilities", "drop"});
      bool drops_all = drop != nullptr && drop->IsArray() &&
                       std::any_of(drop->Begin(), drop->End(),
                                   [](const rapidjson::Value& d) { return Str(&d) == "ALL"; });
      if (!drops_all) Add(context + ".capabilities.drop", "does not drop ALL", "capabilities", kR);
      if (const rapidjson::Value* add = kube::Find(c, {"securityContext", "capabilities", "add"});
          add != nullptr && add->IsArray()) {
        for (const rapidjson::Value& cap : add->GetArray()) {
          // Beyond the baseline set, the baseline rule already said so.
          if (Str(&cap) != "NET_BIND_SERVICE" && OneOf(Str(&cap), kBaselineCapabilities)) {
            Add(context + ".capabilities.add", "adds " + std::string(Str(&cap)), "capabilities",
                kR);
          }
        }
      }
    }
    std::string_view proc_mount = Str(ContainerContext(c, "procMount"));
    if (!proc_mount.empty() && proc_mount != "Default" && user_namespace_) {
      // Without a user namespace the baseline rule already said so.
      Add(context + ".procMount", "is " + std::string(proc_mount), "procMount", kR);
    }
  }

  const rapidjson::Value& pod_;
  const PodSecurityLevel level_;
  const std::set<std::string, std::less<>>& allowed_;
  const rapidjson::Value* spec_;
  const rapidjson::Value* pod_context_;
  bool user_namespace_ = false;
  bool windows_ = false;
  bool pod_non_root_ = false;
  bool pod_seccomp_ = false;
  bool pod_unconfined_ = false;
  std::vector<PodSecurityViolation> violations_;
};

}  // namespace

std::vector<PodSecurityViolation> CheckPodSecurity(
    const rapidjson::Value& pod, PodSecurityLevel level,
    const std::set<std::string, std::less<>>& allowed) {
  return Checker(pod, level, allowed).Run();
}

}  // namespace vtenant::syncer
