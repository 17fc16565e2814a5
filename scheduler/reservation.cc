#include "scheduler/reservation.h"

#include <cstdio>
#include <thread>

#include "kube/json_builder.h"
#include "scheduler/kai_names.h"

namespace vtenant::scheduler {
namespace {

// FNV-1a: a stable hash for names; nothing here needs it to be secret.
uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string Hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string Key(std::string_view node, int index) {
  return std::string(node) + "/" + std::to_string(index);
}

}  // namespace

std::string ReservationPodName(std::string_view node, int index) {
  std::string name = "gpu-reservation-" + std::string(node) + "-" + std::to_string(index);
  if (name.size() <= 63) return name;
  return "gpu-reservation-" + std::string(node.substr(0, 30)) + "-" + Hex(Fnv1a(Key(node, index)));
}

std::string GpuGroupName(std::string_view node, int index) {
  return "gpu-" + Hex(Fnv1a(Key(node, index)));
}

std::string FakeGpuUuid(std::string_view node, int index) {
  std::string h = Hex(Fnv1a(Key(node, index))) + Hex(Fnv1a("uuid:" + Key(node, index)));
  return "GPU-" + h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" +
         h.substr(16, 4) + "-" + h.substr(20, 12);
}

kube::Object ReservationPodManifest(const ReservationOptions& o, std::string_view node, int index,
                                    bool simulated) {
  kube::Object pod(rapidjson::kObjectType);
  auto& a = pod.GetAllocator();
  using rapidjson::Value;
  auto str = [&](std::string_view s) {
    return Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
  };
  pod.AddMember("apiVersion", "v1", a);
  pod.AddMember("kind", "Pod", a);
  Value meta(rapidjson::kObjectType);
  meta.AddMember("name", str(ReservationPodName(node, index)), a);
  meta.AddMember("namespace", str(o.ns), a);
  Value labels(rapidjson::kObjectType);
  labels.AddMember(str(kReservationLabel), str(kReservationLabelValue), a);
  labels.AddMember(str(kReservationAppLabel), str(kReservationAppValue), a);
  labels.AddMember(str(kGpuGroupLabel), str(GpuGroupName(node, index)), a);
  meta.AddMember("labels", labels, a);
  Value ann(rapidjson::kObjectType);
  ann.AddMember(str(kReservationIndexAnnotation), str(std::to_string(index)), a);
  if (simulated) ann.AddMember(str(kReservedGpuAnnotation), str(FakeGpuUuid(node, index)), a);
  meta.AddMember("annotations", ann, a);
  pod.AddMember("metadata", meta, a);

  Value spec(rapidjson::kObjectType);
  // Placed directly: the GPU is already chosen, no scheduler must move it.
  spec.AddMember("nodeName", str(node), a);
  if (!o.service_account.empty()) spec.AddMember("serviceAccountName", str(o.service_account), a);
  Value container(rapidjson::kObjectType);
  container.AddMember("name", "reservation", a);
  container.AddMember("image", str(o.image), a);
  Value env(rapidjson::kArrayType);
  for (auto [name, path] :
       {std::pair{"POD_NAME", "metadata.name"}, {"POD_NAMESPACE", "metadata.namespace"}}) {
    Value e(rapidjson::kObjectType);
    e.AddMember("name", str(name), a);
    Value from(rapidjson::kObjectType), ref(rapidjson::kObjectType);
    ref.AddMember("fieldPath", str(path), a);
    from.AddMember("fieldRef", ref, a);
    e.AddMember("valueFrom", from, a);
    env.PushBack(e, a);
  }
  container.AddMember("env", env, a);
  Value res(rapidjson::kObjectType), limits(rapidjson::kObjectType);
  limits.AddMember(str(kGpuResource), Value("1"), a);
  limits.AddMember("cpu", "2m", a);
  limits.AddMember("memory", "20Mi", a);
  res.AddMember("limits", limits, a);
  container.AddMember("resources", res, a);
  Value containers(rapidjson::kArrayType);
  containers.PushBack(container, a);
  spec.AddMember("containers", containers, a);
  Value tolerations(rapidjson::kArrayType), all(rapidjson::kObjectType);
  all.AddMember("operator", "Exists", a);
  tolerations.PushBack(all, a);
  spec.AddMember("tolerations", tolerations, a);
  spec.AddMember("terminationGracePeriodSeconds", 0, a);
  pod.AddMember("spec", spec, a);
  return pod;
}

Result<std::string> Reservations::Ensure(std::string_view node, int index, bool simulated_node) {
  const std::string name = ReservationPodName(node, index);
  const auto deadline = std::chrono::steady_clock::now() + options_.uuid_timeout;
  auto delay = std::chrono::milliseconds(50);
  while (true) {
    Result<kube::Object> pod = client_.Get(kube::resources::kPods, options_.ns, name);
    if (!pod.ok() && pod.status().code() == StatusCode::kNotFound) {
      Result<kube::Object> created =
          client_.Create(kube::resources::kPods, options_.ns,
                         ReservationPodManifest(options_, node, index, simulated_node));
      if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists)
        return created.status().WithContext("creating reservation pod " + name);
      continue;
    }
    if (!pod.ok()) return pod.status().WithContext("reading reservation pod " + name);
    if (kube::Label(*pod, kReservationLabel) != kReservationLabelValue)
      return FailedPrecondition("pod " + options_.ns + "/" + name +
                                " is not a reservation pod (no " + kReservationLabel + "=" +
                                kReservationLabelValue +
                                "; one made by an older scheduler needs that label added); its "
                                "GPU's UUID is not taken from it");
    if (kube::IsBeingDeleted(*pod))
      return Unavailable("reservation pod " + name + " is being deleted; the GPU is tried again");
    if (auto uuid = kube::Annotation(*pod, kReservedGpuAnnotation); uuid && !uuid->empty())
      return std::string(*uuid);
    if (std::chrono::steady_clock::now() >= deadline)
      return Status(StatusCode::kTimeout, "reservation pod " + options_.ns + "/" + name +
                                              " has not published its GPU's UUID (annotation " +
                                              kReservedGpuAnnotation + ")");
    std::this_thread::sleep_for(delay);
    delay = std::min(delay * 2, std::chrono::milliseconds(1000));
  }
}

Status Reservations::Release(std::string_view name) {
  kube::DeleteOptions opts;
  opts.grace_period_seconds = 0;
  Status s = client_.Delete(kube::resources::kPods, options_.ns, name, opts);
  if (s.code() == StatusCode::kNotFound) return Status::Ok();
  return s;
}

Status Reservations::EnsureNamespace() {
  Result<kube::Object> existing = client_.Get(kube::resources::kNamespaces, "", options_.ns);
  if (existing.ok()) return Status::Ok();
  if (existing.status().code() != StatusCode::kNotFound) return existing.status();
  const kube::Object ns =
      kube::BuildJson(kube::JsonObject{{"apiVersion", "v1"},
                                       {"kind", "Namespace"},
                                       {"metadata", kube::JsonObject{{"name", options_.ns}}}});
  Result<kube::Object> created = client_.Create(kube::resources::kNamespaces, "", ns);
  if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists)
    return created.status();
  return Status::Ok();
}

}  // namespace vtenant::scheduler
