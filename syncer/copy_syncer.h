// CopySyncer: keeps host copies of one kind of virtual object (ConfigMaps,
// Secrets, PersistentVolumeClaims, ResourceClaims and their templates on
// demand; Services always) equal to
// the virtual objects, through that kind's translator.
//
// Keys are virtual "namespace/name". Reconcile creates or updates the host
// copy while the virtual object exists (and, for on-demand kinds, while a
// virtual pod refers to it); otherwise it deletes the copy. Level-triggered:
// virtual objects, host copies and virtual pods all enqueue the keys they
// concern, and a relist after a restart finds copies nothing needs any more.
//
// What a translation tells (object_translators.h) is told once per version
// of the virtual object: a refusal or a warning as a Warning Event on it
// (and in vtenant_syncer_objects_refused_total{kind,reason}); the members
// left out, with each write, in vtenant_syncer_dropped_fields_total. A
// refused object gets no host copy, and one already there keeps what it
// had: nothing is deleted for a refused edit.
// A kind whose translator says how (status_from_host) has the virtual
// object's status follow its copy's, and cleared when the copy goes.
// A host object is updated or deleted only when it records this virtual
// object (host_identity.h). One that holds the host name for something else
// is left alone: a Warning Event HostNameClash on the virtual object says
// what holds it, and the key is looked at again after a while (the holder
// may be an object the host caches never see go).
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "kube/controller.h"
#include "kube/event_recorder.h"
#include "syncer/object_translators.h"
#include "syncer/sync_metrics.h"
#include "syncer/syncer_config.h"
#include "syncer/syncer_informers.h"

namespace vtenant::syncer {

struct CopyTranslator {
  // The host copy of a virtual object; a refusal, warnings and the members
  // left out go to `notes` (never null), and a refused copy is not written.
  std::function<kube::Object(const rapidjson::Value& virtual_object, TranslationNotes* notes)>
      to_host;
  // `host` brought level with `desired`, a to_host answer; nullopt when it is.
  std::function<std::optional<kube::Object>(const rapidjson::Value& desired,
                                            const rapidjson::Value& host)>
      update;
  // Optional: the copy must be deleted and created again to become
  // `desired` (immutable fields).
  std::function<bool(const rapidjson::Value& desired, const rapidjson::Value& host)> needs_replace;
  // Optional: whether this virtual object gets a host copy at all (e.g.
  // Endpoints only of selector-less Services); a copy of one that is not
  // wanted any more is deleted. Unset: every object in scope is.
  std::function<bool(const rapidjson::Value& virtual_object)> wanted;
  // Before deleting a copy whose virtual object the cache does not hold,
  // ask the virtual API server: a Service the syncer itself deleted and
  // created again a moment ago (service_address_syncer.h) must keep its
  // copy, whose address it is taking.
  bool confirm_absence = false;
  // Optional: whether the copy of virtual `key` must stay although its
  // virtual object is away for now (being created again).
  std::function<bool(const std::string& key)> keep_copy;
  // Optional: when the host refuses `desired` as invalid, the copy to
  // create instead, or nullopt to let the refusal stand (a Service whose
  // cluster IP another holds on the host asks for none).
  std::function<std::optional<kube::Object>(const rapidjson::Value& desired)> instead_of_invalid;
  // Optional: the virtual object to write through its status subresource
  // so that its status tells what the host did with the copy `host` (null:
  // there is no copy, or none of this object's), or nullopt when it does.
  std::function<std::optional<kube::Object>(const rapidjson::Value* host,
                                            const rapidjson::Value& virtual_object)>
      status_from_host;
};

class CopySyncer : public kube::Reconciler {
 public:
  enum class Scope {
    kReferenced,  // only while a virtual pod refers to it (index value "<prefix>/<ns>/<name>")
    kAll,         // every virtual object of the kind
  };

  // `reference_prefix` is the kind's prefix in the pods' reference index
  // ("configmap", "secret", "pvc"); unused for kAll. `events` records on
  // virtual objects.
  CopySyncer(SyncerInformers& informers, const SyncerConfig& config, kube::ResourceType type,
             CopyTranslator translator, Scope scope, std::string reference_prefix,
             SyncMetrics& metrics, kube::EventRecorder& events);

  Result<kube::ReconcileResult> Reconcile(const std::string& key) override;

  // Makes the host copy of virtual ns/name exist and match, now (a pod about
  // to be created needs it). OK when the virtual object does not exist or
  // is refused: the pod waits for it on the host as it would in any
  // cluster, and a refused object says why on itself. AlreadyExists when
  // its host name is held by another object (see above; read from the host
  // itself when neither cache knows the name, as for an object the virtual
  // cache has not shown yet): a pod must not be created naming it.
  Status Ensure(std::string_view ns, std::string_view name);

  const kube::ResourceType& type() const { return type_; }

 private:
  bool Needed(std::string_view ns, std::string_view name) const;
  Status DeleteCopy(const rapidjson::Value& host);
  // Writes translator_.status_from_host's answer for `virt`, if any.
  Status StatusUp(const rapidjson::Value* host, const rapidjson::Value& virt);
  // Tells what `notes` hold about `virt` (see above), once per version.
  void Tell(const rapidjson::Value& virt, const TranslationNotes& notes);
  // Records `clash` (a CheckIdentity answer) on `virt`, when there is one,
  // and returns it.
  Status Clash(const rapidjson::Value* virt, Status clash);

  SyncerInformers& informers_;
  const SyncerConfig& config_;
  const kube::ResourceType type_;
  const CopyTranslator translator_;
  const Scope scope_;
  const std::string reference_prefix_;
  SyncMetrics& metrics_;
  kube::EventRecorder& events_;

  std::mutex mu_;
  std::map<std::string, std::string> told_;  // key → "uid/resourceVersion" last told of
};

}  // namespace vtenant::syncer
