#include "syncer/object_translators.h"

#include "syncer/json_edit.h"
#include "syncer/names.h"

namespace vtenant::syncer {
namespace {

constexpr char kLastAppliedAnnotation[] = "kubectl.kubernetes.io/last-applied-configuration";

// Every member an object's metadata may have: the translator reads name,
// namespace, labels and annotations; the rest is the virtual API server's
// bookkeeping (uid, versions, timestamps) or ties to virtual objects the
// host does not have (ownerReferences, finalizers), so none of it travels.
const Schema& MetadataSchema() {
  static const Schema kSchema = Schema().Custom(
      {"name", "namespace", "labels", "annotations", "uid", "resourceVersion", "generation",
       "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "managedFields",
       "selfLink", "ownerReferences", "finalizers", "generateName"});
  return kSchema;
}

// Copies the annotations of `from` that `rules` keep into `to`; the others
// go to `dropped`, except kubectl's record of the last apply, expected on
// most objects and left out without a word.
void CopyAnnotations(const rapidjson::Value* from, rapidjson::Value& to, Allocator& a,
                     const MetadataRules& rules, DroppedFields* dropped) {
  if (from == nullptr || !from->IsObject()) return;
  for (const auto& m : from->GetObject()) {
    const std::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (key == kLastAppliedAnnotation) continue;
    const bool keep = rules.annotation_allowlist != nullptr
                          ? rules.annotation_allowlist->contains(key)
                          : !IsReservedKey(key, rules.annotations);
    if (keep) {
      SetMember(to, key, rapidjson::Value(m.value, a), a);
    } else if (dropped != nullptr) {
      dropped->push_back("metadata.annotations['" + std::string(key) + "']");
    }
  }
}

}  // namespace

const MetadataRules& DefaultMetadataRules() {
  // kubernetes.io/description is prose for people (kube-root-ca.crt has
  // one); no controller acts on it.
  static const MetadataRules kRules{
      .labels = {.prefixes = {"app.kubernetes.io/"}},
      .annotations = {.keys = {"kubernetes.io/description"}, .prefixes = {"app.kubernetes.io/"}}};
  return kRules;
}

void CopyOrRemoveMember(const rapidjson::Value& from, rapidjson::Value& to, std::string_view key,
                        Allocator& a) {
  const rapidjson::Value* v = kube::Find(from, {key});
  if (v != nullptr) {
    SetMember(to, key, rapidjson::Value(*v, a), a);
  } else {
    EraseMember(to, key);
  }
}

std::optional<kube::Object> WithFields(const rapidjson::Value& desired,
                                       const rapidjson::Value& host,
                                       std::initializer_list<std::string_view> fields) {
  kube::Object out = kube::Clone(host);
  Allocator& a = out.GetAllocator();
  rapidjson::Value& meta = ObjectMember(out, "metadata", a);
  CopyOrRemoveMember(desired["metadata"], meta, "labels", a);
  CopyOrRemoveMember(desired["metadata"], meta, "annotations", a);
  for (std::string_view f : fields) CopyOrRemoveMember(desired, out, f, a);
  if (out == host) return std::nullopt;
  return out;
}

kube::Object HostObjectBase(const rapidjson::Value& virtual_object, const SyncerConfig& config,
                            const MetadataRules& rules, TranslationNotes* notes) {
  DroppedFields* dropped = notes != nullptr ? &notes->dropped : nullptr;
  kube::Object out(rapidjson::kObjectType);
  Allocator& a = out.GetAllocator();
  const std::string_view ns = kube::Namespace(virtual_object);
  SetStringMember(out, "apiVersion", kube::GetString(virtual_object, {"apiVersion"}), a);
  SetStringMember(out, "kind", kube::GetString(virtual_object, {"kind"}), a);
  rapidjson::Value& meta = ObjectMember(out, "metadata", a);
  SetStringMember(meta, "name", HostName(kube::Name(virtual_object), ns, config.tenant), a);
  SetStringMember(meta, "namespace", config.host_namespace, a);
  if (const rapidjson::Value* vmeta = kube::Find(virtual_object, {"metadata"})) {
    rapidjson::Value scratch(rapidjson::kObjectType);
    MetadataSchema().Apply(*vmeta, scratch, a, "metadata", dropped);
  }

  rapidjson::Value& labels = ObjectMember(meta, "labels", a);
  CopyTenantKeys(kube::Find(virtual_object, {"metadata", "labels"}), labels, a, rules.labels,
                 "metadata.labels", dropped);
  SetStringMember(labels, kTenantLabel, config.tenant, a);
  SetStringMember(labels, kVirtualNamespaceLabel, ns, a);
  SetStringMember(labels, kManagedByLabel, kManagedByValue, a);

  rapidjson::Value& annotations = ObjectMember(meta, "annotations", a);
  CopyAnnotations(kube::Find(virtual_object, {"metadata", "annotations"}), annotations, a, rules,
                  dropped);
  SetStringMember(annotations, kVirtualNameAnnotation, kube::Name(virtual_object), a);
  SetStringMember(annotations, kVirtualNamespaceAnnotation, ns, a);
  SetStringMember(annotations, kVirtualUidAnnotation, kube::Uid(virtual_object), a);
  return out;
}

}  // namespace vtenant::syncer
