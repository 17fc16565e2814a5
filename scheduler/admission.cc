#include "scheduler/admission.h"

#include <openssl/rand.h>

#include <algorithm>
#include <iterator>
#include <optional>

#include "kai/gpu_environment.h"
#include "kai/gpu_request.h"
#include "kai/podgroup_admission.h"
#include "kai/queue_admission.h"
#include "kube/base64.h"
#include "kube/json_builder.h"
#include "scheduler/kai_names.h"

namespace vtenant::scheduler {
namespace {

using rapidjson::Value;

// KAI keeps "<prefix>-<container>-vol" within 63 characters.
std::string ConfigMapPrefix(const Value& pod, const std::string& suffix) {
  std::string base;
  if (const Value* meta = kube::Find(pod, {"metadata"}); meta != nullptr) {
    auto owners = meta->FindMember("ownerReferences");
    if (owners != meta->MemberEnd() && owners->value.IsArray() && !owners->value.Empty())
      base = std::string(kube::GetString(owners->value[0], {"name"}));
  }
  if (base.empty()) base = std::string(kube::Name(pod));
  if (base.empty()) base = std::string(kube::GetString(pod, {"metadata", "generateName"}));
  // No "-" or "." before the "-" that follows (a name cut there, or a
  // generateName), as KAI trims it.
  auto trim = [&base] {
    while (!base.empty() && (base.back() == '-' || base.back() == '.')) base.pop_back();
  };
  trim();
  constexpr size_t kMaxBase = 63 - 13 - 10 - 2 - 5;  // KAI's budget
  if (base.size() > kMaxBase) base.resize(kMaxBase);
  trim();
  if (base.empty()) base = "pod";
  return base + "-" + suffix + "-shared-gpu";
}

// Sets `response` to what `verdict` says: allowed unless it has errors (one
// per line in the refusal's message), with its warnings.
void Answer(const kai::Verdict& verdict, kube::JsonObject& response) {
  response.Set("allowed", verdict.errors.empty());
  if (!verdict.errors.empty()) {
    std::string message;
    for (const std::string& e : verdict.errors) message += (message.empty() ? "" : "\n") + e;
    response.Set(
        "status",
        kube::JsonObject{{"code", 400}, {"reason", "BadRequest"}, {"message", std::move(message)}});
  }
  if (!verdict.warnings.empty()) {
    kube::JsonArray warnings;
    for (const std::string& w : verdict.warnings) warnings.Add(w);
    response.Set("warnings", std::move(warnings));
  }
}

// Adds to `ops` what a GPU-sharing pod gets (the header's first list), for
// its share container `target`.
void AddSharingEnvironment(const Value& pod, const kai::ContainerRef& target,
                           const AdmissionOptions& options, kube::JsonArray& ops) {
  const std::string list = target.init ? "initContainers" : "containers";
  const Value* containers = kube::Find(pod, {"spec", list});
  if (containers == nullptr || !containers->IsArray() ||
      static_cast<rapidjson::SizeType>(target.index) >= containers->Size())
    return;  // no container to give the environment to
  const Value& container = (*containers)[static_cast<rapidjson::SizeType>(target.index)];

  auto add = [&](const std::string& path, kube::JsonValue value) {
    ops.Add(kube::JsonObject{{"op", "add"}, {"path", path}, {"value", std::move(value)}});
  };
  std::string prefix(kube::Annotation(pod, kSharedGpuConfigMapAnnotation).value_or(""));
  if (prefix.empty()) {
    prefix = ConfigMapPrefix(pod, options.random_suffix ? options.random_suffix() : RandomSuffix());
    if (kube::Find(pod, {"metadata", "annotations"}) == nullptr)
      add("/metadata/annotations", kube::JsonObject{{kSharedGpuConfigMapAnnotation, prefix}});
    else
      add("/metadata/annotations/runai~1shared-gpu-configmap", prefix);
  }
  const std::string configmap = kai::GpuConfigMapName(prefix, target);
  const std::string direct_env = kai::DirectEnvConfigMapName(prefix, target);
  const std::string volume = kai::GpuConfigMapVolumeName(prefix, target);
  const std::string path = "/spec/" + list + "/" + std::to_string(target.index);

  // env: the author's entries but ours, then ours from the ConfigMap ("add"
  // of an existing member replaces it): the three, and with hamicore the
  // memory limit, optional as KAI makes it (the binder writes it only for
  // a node whose GPU memory it knows).
  kube::JsonArray env;
  std::vector<std::string_view> keys = {kVisibleDevicesKey, kNumGpusKey, kGpuPortionKey};
  if (options.hami_core) keys.push_back(kCudaDeviceMemoryLimitKey);
  if (const Value* written = kube::Find(container, {"env"}); written && written->IsArray()) {
    for (const Value& e : written->GetArray()) {
      const std::string_view name = kube::GetString(e, {"name"});
      if (std::find(keys.begin(), keys.end(), name) == keys.end()) env.Add(kube::JsonValue(e));
    }
  }
  for (std::string_view key : keys) {
    kube::JsonObject ref{{"name", configmap}, {"key", key}};
    if (key == kCudaDeviceMemoryLimitKey) ref.Set("optional", true);
    env.Add(kube::JsonObject{{"name", key},
                             {"valueFrom", kube::JsonObject{{"configMapKeyRef", std::move(ref)}}}});
  }
  add(path + "/env", std::move(env));

  const kube::JsonObject env_from{
      {"configMapRef", kube::JsonObject{{"name", direct_env}, {"optional", false}}}};
  const Value* written_env_from = kube::Find(container, {"envFrom"});
  if (written_env_from == nullptr || !written_env_from->IsArray()) {
    add(path + "/envFrom", kube::JsonArray{env_from});
  } else {
    bool present = false;
    for (const Value& e : written_env_from->GetArray())
      present = present || kube::GetString(e, {"configMapRef", "name"}) == direct_env;
    if (!present) add(path + "/envFrom/-", env_from);
  }

  kube::JsonArray volumes;
  if (const Value* written = kube::Find(pod, {"spec", "volumes"}); written && written->IsArray()) {
    for (const Value& v : written->GetArray())
      if (kube::GetString(v, {"name"}) != volume) volumes.Add(kube::JsonValue(v));
  }
  volumes.Add(
      kube::JsonObject{{"name", volume}, {"configMap", kube::JsonObject{{"name", configmap}}}});
  add("/spec/volumes", std::move(volumes));

  const std::string& runtime = options.gpu_fraction_runtime_class;
  if (!runtime.empty() && kube::GetString(pod, {"spec", "runtimeClassName"}).empty() &&
      (!options.runtime_class_exists || options.runtime_class_exists(runtime)))
    add("/spec/runtimeClassName", runtime);
}

// KAI's --block-nvidia-visible-devices (the header): refuses a GPU
// container's NVIDIA_VISIBLE_DEVICES other than "void" or "none", and adds
// to `ops` the variable at "void" for every container without GPUs (its
// env written anew, as the share container's is: the patch only adds).
// The share container of a sharing pod (`share`) is left alone.
Status BlockDeviceAccess(const Value& pod, const std::optional<kai::ContainerRef>& share,
                         kube::JsonArray& ops) {
  for (const bool init : {true, false}) {
    const std::string list = init ? "initContainers" : "containers";
    const Value* containers = kube::Find(pod, {"spec", list});
    if (containers == nullptr || !containers->IsArray()) continue;
    for (rapidjson::SizeType i = 0; i < containers->Size(); ++i) {
      if (share && share->init == init && static_cast<rapidjson::SizeType>(share->index) == i)
        continue;
      const Value& c = (*containers)[i];
      // Whether it asks for GPUs of its own (whole or MIG), read as the
      // request was; the pod passed that reading already.
      Result<kai::ContainerGpus> asked = kai::ReadContainerGpus(c, "");
      const bool gpus = asked.ok() && (asked->whole > 0 || asked->mig_count > 0);
      kube::JsonArray env;                  // for a container without GPUs: its env, blocked
      bool named = false, all_void = true;  // blocked already: named, and void each time
      if (const Value* written = kube::Find(c, {"env"}); written && written->IsArray()) {
        for (const Value& e : written->GetArray()) {
          if (kube::GetString(e, {"name"}) != kVisibleDevicesKey) {
            env.Add(kube::JsonValue(e));
            continue;
          }
          const std::string_view value = kube::GetString(e, {"value"});
          const bool plain = kube::Find(e, {"valueFrom"}) == nullptr;
          if (gpus && (!plain || (value != "void" && value != "none" && !value.empty())))
            return InvalidArgument(
                "vtenant-scheduler: container " + std::string(kube::GetString(c, {"name"})) +
                " sets " + kVisibleDevicesKey +
                (plain ? " to \"" + std::string(value) + "\"" : " from a reference") +
                ": with --block-nvidia-visible-devices it may be only \"void\" or \"none\"; a "
                "container gets its GPUs by asking for nvidia.com/gpu");
          named = true;
          all_void = all_void && plain && value == "void";
        }
      }
      if (gpus || (named && all_void)) continue;
      env.Add(kube::JsonObject{{"name", kVisibleDevicesKey}, {"value", "void"}});
      ops.Add(kube::JsonObject{{"op", "add"},
                               {"path", "/spec/" + list + "/" + std::to_string(i) + "/env"},
                               {"value", std::move(env)}});
    }
  }
  return Status::Ok();
}

}  // namespace

std::string RandomSuffix() {
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";  // as Kubernetes' rand.String
  unsigned char bytes[7];
  if (RAND_bytes(bytes, sizeof bytes) != 1) {
    for (unsigned char& b : bytes) b = static_cast<unsigned char>(std::rand());
  }
  std::string out;
  for (unsigned char b : bytes) out += kAlphabet[b % (sizeof kAlphabet - 1)];
  return out;
}

Result<std::string> MutatePod(const Value& pod, const AdmissionOptions& options) {
  if (kube::GetString(pod, {"spec", "schedulerName"}) != options.scheduler_name)
    return std::string();
  // The syncer checks a tenant's pods by the same rule before they reach
  // the host, so a pod it passes is never refused here.
  Result<kai::GpuRequest> gpus = kai::ParseGpuRequest(pod);
  if (!gpus.ok()) return InvalidArgument("vtenant-scheduler: " + gpus.status().message());
  kube::JsonArray ops;
  std::optional<kai::ContainerRef> share;
  if (gpus->IsShared()) {
    share = gpus->share_container;
    AddSharingEnvironment(pod, *share, options, ops);
  }
  if (options.block_visible_devices) VT_RETURN_IF_ERROR(BlockDeviceAccess(pod, share, ops));
  if (ops.empty()) return std::string();
  return kube::ToJson(kube::BuildJson(ops));
}

Result<std::string> Review(std::string_view review, const AdmissionOptions& options) {
  VT_ASSIGN_OR_RETURN(kube::Object doc, kube::ParseJson(review));
  const Value* request = kube::Find(doc, {"request"});
  if (request == nullptr) return InvalidArgument("not an AdmissionReview request");
  kube::JsonObject response{{"uid", std::string(kube::GetString(*request, {"uid"}))}};
  const std::string_view kind = kube::GetString(*request, {"kind", "kind"});
  const std::string_view operation = kube::GetString(*request, {"operation"});
  // What is written; for a DELETE, what goes.
  const Value* object = kube::Find(*request, {operation == "DELETE" ? "oldObject" : "object"});
  if (object == nullptr || !object->IsObject()) {
    response.Set("allowed", true);
  } else if (kind == kai::kQueueKind) {
    const Value* old_object = kube::Find(*request, {"oldObject"});
    Answer(kai::ReviewQueue(operation, *object,
                            old_object != nullptr && old_object->IsObject() ? old_object : nullptr,
                            &options.queues),
           response);
  } else if (kind == kai::kPodGroupKind) {
    Answer(kai::ReviewPodGroup(*object, operation == "CREATE"), response);
  } else if (Result<std::string> patch = MutatePod(*object, options); !patch.ok()) {
    Answer({.errors = {patch.status().message()}}, response);
  } else {
    response.Set("allowed", true);
    if (!patch->empty()) {
      response.Set("patchType", "JSONPatch");
      response.Set("patch", kube::EncodeBase64(*patch));
    }
  }
  return kube::ToJson(kube::BuildJson(kube::JsonObject{{"apiVersion", "admission.k8s.io/v1"},
                                                       {"kind", "AdmissionReview"},
                                                       {"response", std::move(response)}}));
}

}  // namespace vtenant::scheduler
