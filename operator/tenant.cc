#include "operator/tenant.h"

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

#include "syncer/isolation_vocabulary.h"

namespace vtenant::op {
namespace {

std::string FormatNumber(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// Collects problems so the admin sees all of them at once.
class Problems {
 public:
  void Add(std::string problem) { list_.push_back(std::move(problem)); }
  bool empty() const { return list_.empty(); }
  std::string Join() const {
    std::string out;
    for (const auto& p : list_) out += (out.empty() ? "" : "; ") + p;
    return out;
  }

 private:
  std::vector<std::string> list_;
};

// Reads a number field; absent keeps `*out`, a non-number is a problem.
void ReadNumber(const rapidjson::Value& obj, const char* key, const std::string& path, double* out,
                Problems* problems) {
  if (!obj.IsObject() || !obj.HasMember(key)) return;
  const rapidjson::Value& v = obj[key];
  if (!v.IsNumber()) {
    problems->Add(path + "." + key + " must be a number");
    return;
  }
  *out = v.GetDouble();
}

void ReadShare(const rapidjson::Value& resources, const char* name, ResourceShare* share,
               Problems* problems) {
  if (!resources.IsObject() || !resources.HasMember(name)) return;
  const rapidjson::Value& v = resources[name];
  const std::string path = std::string("spec.queue.resources.") + name;
  if (!v.IsObject()) {
    problems->Add(path + " must be an object");
    return;
  }
  ReadNumber(v, "quota", path, &share->quota, problems);
  ReadNumber(v, "limit", path, &share->limit, problems);
  ReadNumber(v, "overQuotaWeight", path, &share->over_quota_weight, problems);
  if (share->quota != -1 && share->quota < 0) {
    problems->Add(path + ".quota " + FormatNumber(share->quota) +
                  " must be non-negative, or -1 for unlimited");
  }
  if (share->limit != -1 && share->limit < 0) {
    problems->Add(path + ".limit " + FormatNumber(share->limit) +
                  " must be non-negative, or -1 for unlimited");
  }
  if (share->limit != -1 && (share->quota == -1 || share->quota > share->limit)) {
    problems->Add(path + ": quota " + FormatNumber(share->quota) + " exceeds limit " +
                  FormatNumber(share->limit));
  }
  if (share->over_quota_weight < 0) problems->Add(path + ".overQuotaWeight must be non-negative");
}

std::vector<std::string> ReadStrings(const rapidjson::Value* v, const std::string& path,
                                     Problems* problems) {
  std::vector<std::string> out;
  if (v == nullptr) return out;
  if (!v->IsArray()) {
    problems->Add(path + " must be a list of strings");
    return out;
  }
  for (const auto& item : v->GetArray()) {
    if (!item.IsString() || item.GetStringLength() == 0) {
      problems->Add(path + " must hold non-empty strings");
      continue;
    }
    out.emplace_back(item.GetString(), item.GetStringLength());
  }
  return out;
}

std::string JoinList(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Reads a list of names each of which must be one of `known`.
std::vector<std::string> ReadEnumList(const rapidjson::Value* v, const std::string& path,
                                      const std::vector<std::string>& known, Problems* problems) {
  std::vector<std::string> out = ReadStrings(v, path, problems);
  for (const auto& item : out) {
    if (std::find(known.begin(), known.end(), item) == known.end()) {
      problems->Add(path + ": \"" + item + "\" is not one of " + JoinList(known));
    }
  }
  return out;
}

// spec.isolation.allowedTolerations: entries {key (required), operator
// (Exists or Equal), value (not with Exists), effect}.
void ReadAllowedTolerations(const rapidjson::Value* v, Problems* problems, std::string* json) {
  if (v == nullptr) return;
  const std::string path = "spec.isolation.allowedTolerations";
  if (!v->IsArray()) {
    problems->Add(path + " must be a list");
    return;
  }
  for (const rapidjson::Value& t : v->GetArray()) {
    if (!t.IsObject()) {
      problems->Add(path + " must hold objects");
      continue;
    }
    const std::string_view key = kube::GetString(t, {"key"});
    const std::string_view op = kube::GetString(t, {"operator"});
    const std::string_view effect = kube::GetString(t, {"effect"});
    for (const auto& m : t.GetObject()) {
      const std::string_view name(m.name.GetString(), m.name.GetStringLength());
      if (name != "key" && name != "operator" && name != "value" && name != "effect") {
        problems->Add(path + ": \"" + std::string(name) +
                      "\" is not one of key, operator, value, effect");
      } else if (!m.value.IsString()) {
        problems->Add(path + "." + std::string(name) + " must be a string");
      }
    }
    if (key.empty()) {
      problems->Add(path +
                    ": every entry needs a key (a toleration of every taint is never "
                    "allowed)");
    }
    if (op != "" && op != "Exists" && op != "Equal") {
      problems->Add(path + ": operator \"" + std::string(op) + "\" is not one of Exists, Equal");
    }
    if (op == "Exists" && !kube::GetString(t, {"value"}).empty()) {
      problems->Add(path + ": the entry for \"" + std::string(key) +
                    "\" has operator Exists and a value; Exists takes none");
    }
    if (effect != "" && effect != "NoSchedule" && effect != "PreferNoSchedule" &&
        effect != "NoExecute") {
      problems->Add(path + ": effect \"" + std::string(effect) +
                    "\" is not one of NoSchedule, PreferNoSchedule, NoExecute");
    }
  }
  *json = kube::ToJson(*v);
}

std::map<std::string, std::string> ReadStringMap(const rapidjson::Value* v, const std::string& path,
                                                 Problems* problems) {
  std::map<std::string, std::string> out;
  if (v == nullptr) return out;
  if (!v->IsObject()) {
    problems->Add(path + " must be a map");
    return out;
  }
  for (const auto& m : v->GetObject()) {
    if (m.value.IsString()) {
      out[m.name.GetString()] = m.value.GetString();
    } else if (m.value.IsNumber()) {
      out[m.name.GetString()] = kube::ToJson(m.value);  // int-or-string quantities
    } else {
      problems->Add(path + "." + m.name.GetString() + " must be a string");
    }
  }
  return out;
}

}  // namespace

std::string_view BackendName(Backend backend) {
  return backend == Backend::kProcess ? "process" : "statefulset";
}

Result<Backend> ParseBackend(std::string_view name) {
  if (name == "process") return Backend::kProcess;
  if (name == "statefulset") return Backend::kStatefulSet;
  return InvalidArgument("backend \"" + std::string(name) +
                         "\" is not one of process, statefulset");
}

const std::vector<std::string>& KnownPrivilegedFeatures() {
  return syncer::PrivilegedFeatureNames();
}

const std::vector<std::string>& KnownVolumeTypes() { return syncer::VolumeTypeNames(); }

const std::vector<std::string>& DefaultVolumeTypes() { return syncer::DefaultVolumeTypeNames(); }

std::vector<std::string> AllowedPriorityClasses(const IsolationSpec& spec,
                                                const std::vector<std::string>& host_classes) {
  std::set<std::string> allowed;
  for (const std::string& c : host_classes) {
    bool named =
        std::find(spec.allowed_priority_classes.begin(), spec.allowed_priority_classes.end(), c) !=
        spec.allowed_priority_classes.end();
    if (spec.allowed_priority_classes.empty() ? !c.starts_with("system-") : named) {
      allowed.insert(c);
    }
  }
  return {allowed.begin(), allowed.end()};
}

Status CheckNamespaceNotReserved(std::string_view ns,
                                 const std::vector<std::string>& also_reserved) {
  for (std::string_view reserved : kReservedNamespaces) {
    if (ns == reserved) {
      return InvalidArgument("namespace " + std::string(ns) +
                             " is reserved for the cluster or for vtenant itself");
    }
  }
  for (const std::string& reserved : also_reserved) {
    if (ns == reserved) {
      return InvalidArgument("namespace " + std::string(ns) +
                             " is where this vtenant deployment runs (its operator or its "
                             "scheduler's reservation pods)");
    }
  }
  return Status::Ok();
}

std::map<std::string, std::string> PodSecurityLabels(const IsolationSpec& isolation) {
  const std::string& level = isolation.pod_security;
  const bool lifts_a_rule =
      std::any_of(isolation.allowed_privileged_features.begin(),
                  isolation.allowed_privileged_features.end(), syncer::IsPodSecurityException);
  return {{"pod-security.kubernetes.io/enforce", lifts_a_rule ? "privileged" : level},
          {"pod-security.kubernetes.io/warn", level},
          {"pod-security.kubernetes.io/audit", level}};
}

Status ValidateTenantName(std::string_view name) {
  static const std::regex kLabel("^[a-z]([-a-z0-9]*[a-z0-9])?$");
  if (name.empty()) return InvalidArgument("a Tenant needs a name");
  if (name.size() > 55) {
    return InvalidArgument("name \"" + std::string(name) + "\" is longer than 55 characters");
  }
  if (!std::regex_match(name.begin(), name.end(), kLabel)) {
    return InvalidArgument("name \"" + std::string(name) +
                           "\" is not a DNS label (lower-case letters, digits and '-', starting "
                           "with a letter, not ending with '-')");
  }
  if (Status reserved = CheckNamespaceNotReserved(HostNamespace(name)); !reserved.ok()) {
    return InvalidArgument("name \"" + std::string(name) + "\" is reserved: its host " +
                           reserved.message());
  }
  return Status::Ok();
}

Result<TenantSpec> ParseTenant(const rapidjson::Value& tenant, Backend default_backend) {
  TenantSpec spec;
  spec.name = std::string(kube::Name(tenant));
  Problems problems;
  if (Status s = ValidateTenantName(spec.name); !s.ok()) problems.Add(s.message());

  static const rapidjson::Value kEmpty(rapidjson::kObjectType);
  const rapidjson::Value* found = kube::Find(tenant, {"spec"});
  const rapidjson::Value& s = found != nullptr && found->IsObject() ? *found : kEmpty;
  spec.display_name = std::string(kube::GetString(s, {"displayName"}));
  spec.admin_users =
      ReadStrings(kube::Find(s, {"admins", "users"}), "spec.admins.users", &problems);
  spec.admin_groups =
      ReadStrings(kube::Find(s, {"admins", "groups"}), "spec.admins.groups", &problems);

  spec.queue.parent_queue = std::string(kube::GetString(s, {"queue", "parentQueue"}));
  if (const rapidjson::Value* p = kube::Find(s, {"queue", "priority"}); p != nullptr) {
    if (p->IsInt64()) {
      spec.queue.priority = p->GetInt64();
    } else {
      problems.Add("spec.queue.priority must be an integer");
    }
  }
  if (const rapidjson::Value* r = kube::Find(s, {"queue", "resources"}); r != nullptr) {
    ReadShare(*r, "gpu", &spec.queue.gpu, &problems);
    ReadShare(*r, "cpu", &spec.queue.cpu, &problems);
    ReadShare(*r, "memory", &spec.queue.memory, &problems);
  }
  if (spec.queue.parent_queue == spec.name && !spec.name.empty()) {
    problems.Add("spec.queue.parentQueue cannot be the tenant's own queue \"" + spec.name + "\"");
  }

  std::string_view backend = kube::GetString(s, {"controlPlane", "backend"});
  spec.control_plane.backend = default_backend;
  if (!backend.empty()) {
    spec.control_plane.backend_defaulted = false;
    if (Result<Backend> b = ParseBackend(backend); b.ok()) {
      spec.control_plane.backend = *b;
    } else {
      problems.Add("spec.controlPlane." + b.status().message());
    }
  }
  spec.control_plane.kubernetes_version =
      std::string(kube::GetString(s, {"controlPlane", "kubernetesVersion"}));
  if (const rapidjson::Value* size = kube::Find(s, {"controlPlane", "storage", "size"});
      size != nullptr) {
    if (size->IsString()) {
      spec.control_plane.storage_size = size->GetString();
    } else if (size->IsInt64()) {
      spec.control_plane.storage_size = std::to_string(size->GetInt64());
    } else {
      problems.Add("spec.controlPlane.storage.size must be a quantity");
    }
  }
  spec.control_plane.requests =
      ReadStringMap(kube::Find(s, {"controlPlane", "resources", "requests"}),
                    "spec.controlPlane.resources.requests", &problems);
  spec.control_plane.limits = ReadStringMap(kube::Find(s, {"controlPlane", "resources", "limits"}),
                                            "spec.controlPlane.resources.limits", &problems);

  const rapidjson::Value* iso = kube::Find(s, {"isolation"});
  static const rapidjson::Value kNoIsolation(rapidjson::kObjectType);
  if (iso == nullptr || !iso->IsObject()) iso = &kNoIsolation;
  if (const rapidjson::Value* level = kube::Find(*iso, {"podSecurity"}); level != nullptr) {
    std::string_view text = level->IsString() ? level->GetString() : "";
    if (text == "baseline" || text == "restricted") {
      spec.isolation.pod_security = std::string(text);
    } else {
      problems.Add("spec.isolation.podSecurity must be baseline or restricted");
    }
  }
  spec.isolation.allowed_privileged_features = ReadEnumList(
      kube::Find(*iso, {"allowedPrivilegedFeatures"}), "spec.isolation.allowedPrivilegedFeatures",
      KnownPrivilegedFeatures(), &problems);
  ReadAllowedTolerations(kube::Find(*iso, {"allowedTolerations"}), &problems,
                         &spec.isolation.allowed_tolerations_json);
  spec.isolation.allowed_runtime_classes =
      ReadStrings(kube::Find(*iso, {"allowedRuntimeClasses"}),
                  "spec.isolation.allowedRuntimeClasses", &problems);
  spec.isolation.allowed_volume_types =
      ReadEnumList(kube::Find(*iso, {"allowedVolumeTypes"}), "spec.isolation.allowedVolumeTypes",
                   KnownVolumeTypes(), &problems);
  spec.isolation.allowed_csi_drivers = ReadStrings(kube::Find(*iso, {"allowedCSIDrivers"}),
                                                   "spec.isolation.allowedCSIDrivers", &problems);
  spec.isolation.allowed_device_classes = ReadStrings(
      kube::Find(*iso, {"allowedDeviceClasses"}), "spec.isolation.allowedDeviceClasses", &problems);
  spec.isolation.allowed_priority_classes =
      ReadStrings(kube::Find(*iso, {"allowedPriorityClasses"}),
                  "spec.isolation.allowedPriorityClasses", &problems);
  if (const rapidjson::Value* types = kube::Find(*iso, {"allowedServiceTypes"})) {
    static const std::vector<std::string> kServiceTypes = {"ClusterIP", "NodePort", "LoadBalancer"};
    std::vector<std::string> read =
        ReadEnumList(types, "spec.isolation.allowedServiceTypes", kServiceTypes, &problems);
    std::set<std::string> unique(read.begin(), read.end());
    unique.insert("ClusterIP");
    spec.isolation.allowed_service_types.assign(unique.begin(), unique.end());
  }
  spec.isolation.node_selector =
      ReadStringMap(kube::Find(*iso, {"nodeSelector"}), "spec.isolation.nodeSelector", &problems);
  if (const rapidjson::Value* t = kube::Find(*iso, {"tolerations"}); t != nullptr) {
    if (t->IsArray()) {
      spec.isolation.tolerations_json = kube::ToJson(*t);
    } else {
      problems.Add("spec.isolation.tolerations must be a list");
    }
  }
  if (const rapidjson::Value* np = kube::Find(*iso, {"networkPolicy", "enabled"}); np != nullptr) {
    if (np->IsBool()) {
      spec.isolation.network_policy = np->GetBool();
    } else {
      problems.Add("spec.isolation.networkPolicy.enabled must be true or false");
    }
  }
  if (!problems.empty()) return InvalidArgument(problems.Join());
  return spec;
}

Status CheckImmutable(const TenantSpec& spec, Backend current) {
  if (spec.control_plane.backend != current) {
    return InvalidArgument(
        "spec.controlPlane.backend is immutable: the control plane runs on the " +
        std::string(BackendName(current)) + " backend, the spec asks for " +
        std::string(BackendName(spec.control_plane.backend)) +
        "; delete and re-create the Tenant to move it");
  }
  return Status::Ok();
}

QuotaCheck CheckChildrenQuota(std::string_view parent, double parent_gpu_quota,
                              const std::map<std::string, double>& children) {
  QuotaCheck check;
  double sum = 0;
  std::vector<std::string> unlimited;
  for (const auto& [name, quota] : children) {
    if (quota == -1) {
      unlimited.push_back(name);
    } else {
      sum += quota;
    }
  }
  const std::string p(parent);
  if (parent_gpu_quota == -1) {
    check.message = "parent queue " + p + " has unlimited GPU quota; its " +
                    std::to_string(children.size()) + " children ask for " + FormatNumber(sum);
    return check;
  }
  // Quotas are compared in milli-GPUs, as the scheduler counts them, so
  // 3 x 0.33 under 1 is not a floating-point accident.
  const auto milli = [](double v) { return static_cast<int64_t>(v * 1000 + 0.5); };
  if (!unlimited.empty()) {
    check.overcommitted = true;
    std::string names;
    for (const auto& n : unlimited) names += (names.empty() ? "" : ", ") + n;
    check.message = "children of queue " + p + " with unlimited GPU quota (" + names +
                    ") exceed its GPU quota " + FormatNumber(parent_gpu_quota);
    return check;
  }
  check.overcommitted = milli(sum) > milli(parent_gpu_quota);
  check.message = "children of queue " + p + " have GPU quota " + FormatNumber(sum) +
                  " in total; " + p + " has " + FormatNumber(parent_gpu_quota) +
                  (check.overcommitted ? ": the guarantees cannot all be met" : "");
  return check;
}

}  // namespace vtenant::op
