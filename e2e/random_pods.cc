#include "e2e/random_pods.h"

#include <vector>

#include "kube/json_builder.h"

namespace vtenant::e2e {
namespace {

using kube::JsonArray;
using kube::JsonObject;

class Draw {
 public:
  explicit Draw(std::mt19937& random) : random_(random) {}

  // True with probability `p`.
  bool Chance(double p) { return std::bernoulli_distribution(p)(random_); }

  template <typename T>
  const T& OneOf(const std::vector<T>& values) {
    return values[std::uniform_int_distribution<size_t>(0, values.size() - 1)(random_)];
  }

 private:
  std::mt19937& random_;
};

const std::vector<std::string> kCapabilities = {
    "CHOWN",     "NET_BIND_SERVICE", "KILL",    "NET_ADMIN",
    "SYS_ADMIN", "SYS_PTRACE",       "NET_RAW", "SETUID"};
const std::vector<std::string> kSysctls = {"kernel.shm_rmid_forced",
                                           "net.ipv4.tcp_syncookies",
                                           "net.ipv4.ip_local_port_range",
                                           "kernel.msgmax",
                                           "kernel.sem",
                                           "net.core.somaxconn"};
const std::vector<std::string> kSeccomp = {"RuntimeDefault", "Unconfined"};
const std::vector<std::string> kAppArmor = {"RuntimeDefault", "Unconfined"};
const std::vector<std::string> kSeLinuxTypes = {"container_t", "spc_t", "unconfined_t"};

// A security context for a container, or for the pod (`pod`), drawn.
JsonObject SecurityContext(Draw& draw, bool pod) {
  JsonObject context;
  if (draw.Chance(0.08)) {
    context.Set("seccompProfile", JsonObject{{"type", draw.OneOf(kSeccomp)}});
  }
  if (draw.Chance(0.08)) {
    context.Set("appArmorProfile", JsonObject{{"type", draw.OneOf(kAppArmor)}});
  }
  if (draw.Chance(0.06)) {
    JsonObject options{{"type", draw.OneOf(kSeLinuxTypes)}};
    if (draw.Chance(0.3)) options.Set("user", "system_u");
    context.Set("seLinuxOptions", std::move(options));
  }
  if (pod) {
    if (draw.Chance(0.1)) {
      context.Set("sysctls", JsonArray{JsonObject{{"name", draw.OneOf(kSysctls)}, {"value", "1"}}});
    }
    return context;
  }
  if (draw.Chance(0.07)) context.Set("privileged", true);
  if (draw.Chance(0.15)) {
    JsonArray add;
    add.Add(draw.OneOf(kCapabilities));
    if (draw.Chance(0.3)) add.Add(draw.OneOf(kCapabilities));
    context.Set("capabilities", JsonObject{{"add", std::move(add)}});
  }
  return context;
}

JsonObject Container(Draw& draw, const std::string& name) {
  JsonObject c{{"name", name}, {"image", "busybox"}};
  if (JsonObject context = SecurityContext(draw, false); !context.empty()) {
    c.Set("securityContext", std::move(context));
  }
  if (draw.Chance(0.08)) {
    c.Set("ports", JsonArray{JsonObject{{"containerPort", 8080}, {"hostPort", 8080}}});
  }
  if (draw.Chance(0.08)) {
    JsonObject get{{"path", "/"}, {"port", 80}};
    if (draw.Chance(0.5)) get.Set("host", "169.254.169.254");
    c.Set("livenessProbe", JsonObject{{"httpGet", std::move(get)}});
  }
  return c;
}

}  // namespace

kube::Object RandomPod(const std::string& name, std::mt19937& random) {
  Draw draw(random);
  JsonObject spec;
  const bool host_process = draw.Chance(0.03);
  const bool host_network = host_process || draw.Chance(0.05);
  if (host_network) spec.Set("hostNetwork", true);
  if (draw.Chance(0.04)) spec.Set("hostPID", true);
  if (draw.Chance(0.04)) spec.Set("hostIPC", true);
  JsonObject context = SecurityContext(draw, true);
  if (host_process) context.Set("windowsOptions", JsonObject{{"hostProcess", true}});
  if (!context.empty()) spec.Set("securityContext", std::move(context));
  if (draw.Chance(0.2)) spec.Set("schedulerName", "default-scheduler");
  if (draw.Chance(0.25)) {
    const std::vector<JsonObject> tolerations = {
        JsonObject{{"operator", "Exists"}},
        JsonObject{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}},
        JsonObject{{"key", "node-role.kubernetes.io/control-plane"},
                   {"operator", "Exists"},
                   {"effect", "NoSchedule"}}};
    spec.Set("tolerations", JsonArray{draw.OneOf(tolerations)});
  }
  JsonArray volumes;
  if (draw.Chance(0.08)) {
    volumes.Add(JsonObject{{"name", "logs"}, {"hostPath", JsonObject{{"path", "/var/log"}}}});
  }
  if (draw.Chance(0.3)) volumes.Add(JsonObject{{"name", "scratch"}, {"emptyDir", JsonObject{}}});
  if (!volumes.empty()) spec.Set("volumes", std::move(volumes));
  JsonArray containers{Container(draw, "c0")};
  if (draw.Chance(0.3)) containers.Add(Container(draw, "c1"));
  spec.Set("containers", std::move(containers));
  if (draw.Chance(0.2)) spec.Set("initContainers", JsonArray{Container(draw, "init")});

  JsonObject labels{{"escape", "random"}};
  if (draw.Chance(0.15)) labels.Set("vtenant.io/tenant", "vision");
  if (draw.Chance(0.15)) labels.Set("kai.scheduler/queue", "vision");
  JsonObject annotations;
  if (draw.Chance(0.1)) annotations.Set("runai-gpu", "0");
  if (draw.Chance(0.05)) {
    annotations.Set("container.apparmor.security.beta.kubernetes.io/c0",
                    draw.Chance(0.5) ? "unconfined" : "runtime/default");
  }
  JsonObject metadata{{"name", name}, {"labels", std::move(labels)}};
  if (!annotations.empty()) metadata.Set("annotations", std::move(annotations));
  return kube::BuildJson(JsonObject{{"apiVersion", "v1"},
                                    {"kind", "Pod"},
                                    {"metadata", std::move(metadata)},
                                    {"spec", std::move(spec)}});
}

}  // namespace vtenant::e2e
