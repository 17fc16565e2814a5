#include "e2e/support/baseline_check.h"

#include <set>
#include <string_view>

namespace vtenant::e2e {
namespace {

using Violations = std::vector<std::string>;

const rapidjson::Value* Member(const rapidjson::Value& v, const char* name) {
  if (!v.IsObject()) return nullptr;
  auto it = v.FindMember(name);
  return it == v.MemberEnd() ? nullptr : &it->value;
}

bool IsTrue(const rapidjson::Value& v, const char* name) {
  const rapidjson::Value* m = Member(v, name);
  return m != nullptr && m->IsBool() && m->GetBool();
}

std::string Text(const rapidjson::Value* v) {
  return v != nullptr && v->IsString() ? std::string(v->GetString(), v->GetStringLength()) : "";
}

// Each container of each kind, with the path a message names it by.
template <typename Fn>
void ForEachContainer(const rapidjson::Value& spec, Fn fn) {
  for (const char* kind : {"initContainers", "containers", "ephemeralContainers"}) {
    const rapidjson::Value* list = Member(spec, kind);
    if (list == nullptr || !list->IsArray()) continue;
    for (const rapidjson::Value& c : list->GetArray()) {
      fn(c, "spec." + std::string(kind) + "[" + Text(Member(c, "name")) + "]");
    }
  }
}

// The pod's securityContext, then each container's (either may be null),
// with the path a message names its owner by.
template <typename Fn>
void ForEachSecurityContext(const rapidjson::Value& spec, Fn fn) {
  fn(Member(spec, "securityContext"), "spec");
  ForEachContainer(spec, [&](const rapidjson::Value& c, const std::string& where) {
    fn(Member(c, "securityContext"), where);
  });
}

// A profile field (appArmorProfile, seccompProfile) of any securityContext:
// its type not Unconfined.
void CheckProfileConfined(const rapidjson::Value& spec, const char* field, Violations& out) {
  ForEachSecurityContext(spec, [&](const rapidjson::Value* context, const std::string& where) {
    const rapidjson::Value* profile = context ? Member(*context, field) : nullptr;
    if (profile != nullptr && Text(Member(*profile, "type")) == "Unconfined") {
      out.push_back(where + ".securityContext." + field + ".type is Unconfined");
    }
  });
}

// HostProcess: Windows pods may not run as host processes.
void CheckHostProcess(const rapidjson::Value& spec, Violations& out) {
  ForEachSecurityContext(spec, [&](const rapidjson::Value* context, const std::string& where) {
    if (context == nullptr) return;
    const rapidjson::Value* windows = Member(*context, "windowsOptions");
    if (windows != nullptr && IsTrue(*windows, "hostProcess")) {
      out.push_back(where + ".securityContext.windowsOptions.hostProcess is true");
    }
  });
}

// Host namespaces: no sharing of the node's network, PID or IPC namespace.
void CheckHostNamespaces(const rapidjson::Value& spec, Violations& out) {
  for (const char* field : {"hostNetwork", "hostPID", "hostIPC"}) {
    if (IsTrue(spec, field)) out.push_back("spec." + std::string(field) + " is true");
  }
}

// Privileged containers.
void CheckPrivileged(const rapidjson::Value& spec, Violations& out) {
  ForEachContainer(spec, [&](const rapidjson::Value& c, const std::string& where) {
    const rapidjson::Value* context = Member(c, "securityContext");
    if (context != nullptr && IsTrue(*context, "privileged")) {
      out.push_back(where + ".securityContext.privileged is true");
    }
  });
}

// Capabilities: nothing added beyond the default set of container runtimes.
void CheckCapabilities(const rapidjson::Value& spec, Violations& out) {
  static const std::set<std::string, std::less<>> kAllowed = {
      "AUDIT_WRITE",      "CHOWN",   "DAC_OVERRIDE", "FOWNER",  "FSETID", "KILL",      "MKNOD",
      "NET_BIND_SERVICE", "SETFCAP", "SETGID",       "SETPCAP", "SETUID", "SYS_CHROOT"};
  ForEachContainer(spec, [&](const rapidjson::Value& c, const std::string& where) {
    const rapidjson::Value* context = Member(c, "securityContext");
    const rapidjson::Value* caps = context ? Member(*context, "capabilities") : nullptr;
    const rapidjson::Value* add = caps ? Member(*caps, "add") : nullptr;
    if (add == nullptr || !add->IsArray()) return;
    for (const rapidjson::Value& cap : add->GetArray()) {
      if (!kAllowed.contains(Text(&cap))) {
        out.push_back(where + ".securityContext.capabilities.add has " + Text(&cap));
      }
    }
  });
}

// HostPath volumes.
void CheckHostPath(const rapidjson::Value& spec, Violations& out) {
  const rapidjson::Value* volumes = Member(spec, "volumes");
  if (volumes == nullptr || !volumes->IsArray()) return;
  for (const rapidjson::Value& v : volumes->GetArray()) {
    if (Member(v, "hostPath") != nullptr) {
      out.push_back("spec.volumes[" + Text(Member(v, "name")) + "] is a hostPath");
    }
  }
}

// Host ports: none, or 0.
void CheckHostPorts(const rapidjson::Value& spec, Violations& out) {
  ForEachContainer(spec, [&](const rapidjson::Value& c, const std::string& where) {
    const rapidjson::Value* ports = Member(c, "ports");
    if (ports == nullptr || !ports->IsArray()) return;
    for (const rapidjson::Value& p : ports->GetArray()) {
      const rapidjson::Value* host_port = Member(p, "hostPort");
      if (host_port != nullptr && host_port->IsInt() && host_port->GetInt() != 0) {
        out.push_back(where + ".ports hostPort " + std::to_string(host_port->GetInt()));
      }
    }
  });
}

// AppArmor: not Unconfined, by field or by the older annotation.
void CheckAppArmor(const rapidjson::Value& pod, const rapidjson::Value& spec, Violations& out) {
  CheckProfileConfined(spec, "appArmorProfile", out);
  const rapidjson::Value* metadata = Member(pod, "metadata");
  const rapidjson::Value* annotations = metadata ? Member(*metadata, "annotations") : nullptr;
  if (annotations == nullptr || !annotations->IsObject()) return;
  constexpr std::string_view kPrefix = "container.apparmor.security.beta.kubernetes.io/";
  for (const auto& [key, value] : annotations->GetObject()) {
    std::string_view k(key.GetString(), key.GetStringLength());
    if (!k.starts_with(kPrefix)) continue;
    const std::string v = Text(&value);
    if (v != "runtime/default" && !v.starts_with("localhost/")) {
      out.push_back("annotation " + std::string(k) + " is " + v);
    }
  }
}

// SELinux: only the container types, and no user or role.
void CheckSeLinux(const rapidjson::Value& spec, Violations& out) {
  static const std::set<std::string, std::less<>> kTypes = {
      "", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"};
  ForEachSecurityContext(spec, [&](const rapidjson::Value* context, const std::string& where) {
    const rapidjson::Value* options = context ? Member(*context, "seLinuxOptions") : nullptr;
    if (options == nullptr) return;
    if (!kTypes.contains(Text(Member(*options, "type")))) {
      out.push_back(where + ".securityContext.seLinuxOptions.type is " +
                    Text(Member(*options, "type")));
    }
    for (const char* field : {"user", "role"}) {
      if (!Text(Member(*options, field)).empty()) {
        out.push_back(where + ".securityContext.seLinuxOptions." + field + " is set");
      }
    }
  });
}

// /proc mount: Default, unless the pod runs in a user namespace
// (hostUsers false), where an unmasked /proc is the namespace's own.
void CheckProcMount(const rapidjson::Value& spec, Violations& out) {
  const rapidjson::Value* host_users = Member(spec, "hostUsers");
  if (host_users != nullptr && host_users->IsBool() && !host_users->GetBool()) return;
  ForEachContainer(spec, [&](const rapidjson::Value& c, const std::string& where) {
    const rapidjson::Value* context = Member(c, "securityContext");
    const std::string mount = context ? Text(Member(*context, "procMount")) : "";
    if (!mount.empty() && mount != "Default") {
      out.push_back(where + ".securityContext.procMount is " + mount);
    }
  });
}

// Seccomp: not Unconfined.
void CheckSeccomp(const rapidjson::Value& spec, Violations& out) {
  CheckProfileConfined(spec, "seccompProfile", out);
}

// Sysctls: only the namespaced, safe set, as of policy version 1.37
// (k8s.io/pod-security-admission policy/check_sysctls.go, v0.37.2, which
// added tcp_slow_start_after_idle and tcp_notsent_lowat). The same list as
// syncer/pod_security.cc's on purpose: a second reading (see the header).
void CheckSysctls(const rapidjson::Value& spec, Violations& out) {
  static const std::set<std::string, std::less<>> kSafe = {"kernel.shm_rmid_forced",
                                                           "net.ipv4.ip_local_port_range",
                                                           "net.ipv4.ip_unprivileged_port_start",
                                                           "net.ipv4.tcp_syncookies",
                                                           "net.ipv4.ping_group_range",
                                                           "net.ipv4.ip_local_reserved_ports",
                                                           "net.ipv4.tcp_keepalive_time",
                                                           "net.ipv4.tcp_fin_timeout",
                                                           "net.ipv4.tcp_keepalive_intvl",
                                                           "net.ipv4.tcp_keepalive_probes",
                                                           "net.ipv4.tcp_rmem",
                                                           "net.ipv4.tcp_wmem",
                                                           "net.ipv4.tcp_slow_start_after_idle",
                                                           "net.ipv4.tcp_notsent_lowat"};
  const rapidjson::Value* context = Member(spec, "securityContext");
  const rapidjson::Value* sysctls = context ? Member(*context, "sysctls") : nullptr;
  if (sysctls == nullptr || !sysctls->IsArray()) return;
  for (const rapidjson::Value& s : sysctls->GetArray()) {
    const std::string name = Text(Member(s, "name"));
    if (!kSafe.contains(name)) out.push_back("spec.securityContext.sysctls has " + name);
  }
}

// Probes and lifecycle hooks: no host field, which would make the kubelet
// send requests to another machine on the pod's behalf.
void CheckProbeHosts(const rapidjson::Value& spec, Violations& out) {
  auto check = [&](const rapidjson::Value* handler, const std::string& where) {
    if (handler == nullptr) return;
    for (const char* kind : {"httpGet", "tcpSocket"}) {
      const rapidjson::Value* action = Member(*handler, kind);
      if (action != nullptr && !Text(Member(*action, "host")).empty()) {
        out.push_back(where + "." + kind + ".host is set");
      }
    }
  };
  ForEachContainer(spec, [&](const rapidjson::Value& c, const std::string& where) {
    for (const char* probe : {"livenessProbe", "readinessProbe", "startupProbe"}) {
      check(Member(c, probe), where + "." + probe);
    }
    const rapidjson::Value* lifecycle = Member(c, "lifecycle");
    if (lifecycle == nullptr) return;
    for (const char* hook : {"postStart", "preStop"}) {
      check(Member(*lifecycle, hook), where + ".lifecycle." + hook);
    }
  });
}

}  // namespace

std::vector<std::string> BaselineViolations(const rapidjson::Value& pod) {
  Violations out;
  const rapidjson::Value* spec = Member(pod, "spec");
  if (spec == nullptr) return {"the pod has no spec"};
  CheckHostProcess(*spec, out);
  CheckHostNamespaces(*spec, out);
  CheckPrivileged(*spec, out);
  CheckCapabilities(*spec, out);
  CheckHostPath(*spec, out);
  CheckHostPorts(*spec, out);
  CheckAppArmor(pod, *spec, out);
  CheckSeLinux(*spec, out);
  CheckProcMount(*spec, out);
  CheckSeccomp(*spec, out);
  CheckSysctls(*spec, out);
  CheckProbeHosts(*spec, out);
  return out;
}

}  // namespace vtenant::e2e
