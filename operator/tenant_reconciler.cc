#include "operator/tenant_reconciler.h"

#include <glog/logging.h>

#include <algorithm>

#include "base/rfc3339.h"
#include "kai/names.h"
#include "kube/base64.h"
#include "kube/conditions.h"
#include "kube/kubeconfig.h"
#include "operator/ensure_object.h"
#include "operator/host_credentials.h"
#include "operator/host_objects.h"
#include "operator/manifest.h"

namespace vtenant::op {
namespace {

using kube::Condition;
namespace res = kube::resources;

Condition True(std::string type, std::string reason, std::string message) {
  return {std::move(type), "True", std::move(reason), std::move(message)};
}
Condition False(std::string type, std::string reason, std::string message) {
  return {std::move(type), "False", std::move(reason), std::move(message)};
}
Condition Unknown(std::string type, std::string reason, std::string message) {
  return {std::move(type), "Unknown", std::move(reason), std::move(message)};
}

bool HasFinalizer(const rapidjson::Value& object) {
  const rapidjson::Value* f = kube::Find(object, {"metadata", "finalizers"});
  if (f == nullptr || !f->IsArray()) return false;
  for (const auto& v : f->GetArray()) {
    if (v.IsString() && std::string_view(v.GetString()) == kFinalizer) return true;
  }
  return false;
}

Status SetFinalizer(kube::Object& object, bool present) {
  auto& alloc = object.GetAllocator();
  rapidjson::Value& meta = kube::EnsurePath(object, {"metadata"});
  if (!meta.HasMember("finalizers") || !meta["finalizers"].IsArray()) {
    meta.RemoveMember("finalizers");
    meta.AddMember("finalizers", rapidjson::Value(rapidjson::kArrayType), alloc);
  }
  rapidjson::Value& list = meta["finalizers"];
  for (auto it = list.Begin(); it != list.End();) {
    if (it->IsString() && std::string_view(it->GetString()) == kFinalizer) {
      it = list.Erase(it);
    } else {
      ++it;
    }
  }
  if (present) list.PushBack(rapidjson::Value(kFinalizer, alloc), alloc);
  return Status::Ok();
}

std::string EventVerb(Ensured e) { return e == Ensured::kCreated ? "created" : "updated"; }

std::string FormatQuota(double v) {
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

}  // namespace

struct TenantReconciler::Pass {
  int64_t generation = 0;
  bool invalid = false;
  Condition invalid_condition;
  Condition control_plane = Unknown("ControlPlaneReady", "Pending", "not reconciled yet");
  Condition queue = Unknown("QueueReady", "Pending", "not reconciled yet");
  Condition syncer = Unknown("SyncerReady", "Pending", "not reconciled yet");
  Condition parent_missing = False("ParentQueueMissing", "ParentQueueFound", "");
  Condition overcommitted = False("QuotaOvercommitted", "WithinParentQuota", "");
  bool syncer_enabled = true;
  std::string host_namespace;
  std::string endpoint;
  std::string queue_name;
  std::string kubeconfig_secret;
  std::string gpu_allocated;

  bool Ready() const {
    return !invalid && control_plane.status == "True" && queue.status == "True" &&
           (syncer.status == "True" || !syncer_enabled);
  }
};

TenantReconciler::TenantReconciler(kube::Client& host,
                                   std::map<Backend, ControlPlaneBackend*> backends,
                                   VirtualClusterConnector& connector, kube::EventRecorder& events,
                                   TenantReconcilerOptions options)
    : host_(host),
      backends_(std::move(backends)),
      connector_(connector),
      events_(events),
      options_(std::move(options)) {
  auto phases = options_.registry->AddGauge("vtenant_operator_tenants",
                                            "Tenants by phase, as last reconciled.", {"phase"});
  auto errors =
      options_.registry->AddCounter("vtenant_operator_reconcile_errors_total",
                                    "Tenant reconcile steps that failed, by step.", {"step"});
  CHECK(phases.ok() && errors.ok()) << "metrics registration failed";
  tenants_by_phase_ = *phases;
  step_errors_ = *errors;
  for (const char* p : {"Pending", "Provisioning", "Ready", "Failed", "Terminating"}) {
    tenants_by_phase_->WithLabelValues({p}).Set(0);
  }
}

void TenantReconciler::RecordPhase(const std::string& tenant, const std::string& phase) {
  std::lock_guard lock(mu_);
  auto it = phases_.find(tenant);
  if (it != phases_.end()) {
    if (it->second == phase) return;
    tenants_by_phase_->WithLabelValues({it->second}).Dec();
  }
  if (phase.empty()) {
    if (it != phases_.end()) phases_.erase(it);
    return;
  }
  phases_[tenant] = phase;
  tenants_by_phase_->WithLabelValues({phase}).Inc();
}

Result<kube::ReconcileResult> TenantReconciler::Reconcile(const std::string& key) {
  const std::string name = kube::SplitKey(key).second;
  Result<kube::Object> got = host_.Get(res::kTenants, "", name);
  if (got.status().code() == StatusCode::kNotFound) {
    RecordPhase(name, "");
    return kube::ReconcileResult{};
  }
  if (!got.ok()) return got.status().WithContext("reading tenant " + name);
  kube::Object tenant = std::move(got).value();
  if (kube::IsBeingDeleted(tenant)) return Finalize(tenant);

  if (!HasFinalizer(tenant)) {
    VT_ASSIGN_OR_RETURN(tenant, host_.UpdateWithRetry(res::kTenants, "", name, [](kube::Object& t) {
      return SetFinalizer(t, true);
    }));
  }

  Pass pass;
  pass.generation = kube::Generation(tenant);
  Result<TenantSpec> parsed = ParseTenant(tenant, options_.default_backend);
  if (!parsed.ok()) {
    pass.invalid = true;
    pass.invalid_condition = False("Ready", "InvalidSpec", parsed.status().message());
    events_.Warning(tenant, "InvalidSpec", parsed.status().message());
    VT_RETURN_IF_ERROR(WriteStatus(tenant, pass));
    return kube::ReconcileResult{};  // nothing to retry until the spec changes
  }
  const TenantSpec& spec = *parsed;
  pass.host_namespace = HostNamespace(spec.name);

  // What is not the operator's is refused, never taken over; looked at
  // again, since the name may be freed.
  auto refuse = [&](const char* reason,
                    const std::string& message) -> Result<kube::ReconcileResult> {
    pass.invalid = true;
    pass.invalid_condition = False("Ready", reason, message);
    events_.Warning(tenant, reason, message);
    VT_RETURN_IF_ERROR(WriteStatus(tenant, pass));
    return kube::ReconcileResult{.requeue_after = options_.not_ready_requeue};
  };
  constexpr char kTakenHint[] = "; remove it or name the Tenant otherwise";
  std::vector<std::string> reserved = options_.reserved_namespaces;
  reserved.push_back(options_.operator_namespace);
  if (Status s = CheckNamespaceNotReserved(pass.host_namespace, reserved); !s.ok()) {
    return refuse("ReservedName", "Tenant " + spec.name + " would take " + s.message() +
                                      "; name the Tenant otherwise");
  }
  Result<kube::Object> own_queue = host_.Get(res::kQueues, "", spec.name);
  if (own_queue.ok()) {
    if (Status s = CheckOwnedByOperator(*own_queue, res::kQueues, spec.name); !s.ok()) {
      return refuse("QueueTaken", s.message() + kTakenHint);
    }
  } else if (own_queue.status().code() != StatusCode::kNotFound) {
    return own_queue.status().WithContext("reading queue " + spec.name);
  }

  // The backend the control plane was built with is recorded on the
  // namespace; the spec may not move it (CEL says so too, but a CRD without
  // that rule, or an empty backend that meant another default, must not
  // leave two control planes behind).
  Result<kube::Object> ns = host_.Get(res::kNamespaces, "", pass.host_namespace);
  if (ns.ok()) {
    if (Status s = CheckOwnedByOperator(*ns, res::kNamespaces, spec.name); !s.ok()) {
      return refuse("NamespaceTaken", s.message() + kTakenHint);
    }
    if (kube::IsBeingDeleted(*ns)) {
      pass.control_plane = False(
          "ControlPlaneReady", "NamespaceTerminating",
          "namespace " + pass.host_namespace + " is still being deleted; waiting to recreate it");
      VT_RETURN_IF_ERROR(WriteStatus(tenant, pass));
      return kube::ReconcileResult{.requeue_after = options_.not_ready_requeue};
    }
    if (auto recorded = kube::Annotation(*ns, kBackendAnnotation); recorded.has_value()) {
      if (Result<Backend> b = ParseBackend(*recorded); b.ok()) {
        if (Status s = CheckImmutable(spec, *b); !s.ok()) {
          pass.invalid = true;
          pass.invalid_condition = False("Ready", "ImmutableFieldChanged", s.message());
          events_.Warning(tenant, "ImmutableFieldChanged", s.message());
          VT_RETURN_IF_ERROR(WriteStatus(tenant, pass));
          return kube::ReconcileResult{};
        }
      }
    }
  } else if (ns.status().code() != StatusCode::kNotFound) {
    return ns.status().WithContext("reading namespace " + pass.host_namespace);
  }

  Status steps = EnsureHostObjects(tenant, spec, pass);
  if (!steps.ok()) {
    step_errors_->WithLabelValues({"host-objects"}).Inc();
    pass.control_plane = False("ControlPlaneReady", "HostObjectsFailed", steps.message());
    events_.Warning(tenant, "ReconcileFailed", steps.message());
    (void)WriteStatus(tenant, pass);
    return steps;
  }
  Status queue = EnsureQueue(tenant, spec, pass);
  if (!queue.ok()) {
    step_errors_->WithLabelValues({"queue"}).Inc();
    pass.queue = False("QueueReady", "QueueWriteFailed", queue.message());
  }
  VT_RETURN_IF_ERROR(WriteStatus(tenant, pass));
  if (!queue.ok()) return queue;
  return kube::ReconcileResult{.requeue_after = pass.Ready() ? options_.ready_requeue
                                                             : options_.not_ready_requeue};
}

Status TenantReconciler::EnsureHostObjects(const kube::Object& tenant, const TenantSpec& spec,
                                           Pass& pass) {
  const std::string& ns = pass.host_namespace;
  VT_ASSIGN_OR_RETURN(
      Ensured n, EnsureOwnedObject(host_, res::kNamespaces, "", RenderNamespace(spec), spec.name));
  if (n == Ensured::kCreated) events_.Normal(tenant, "NamespaceCreated", "created namespace " + ns);
  VT_RETURN_IF_ERROR(EnsureOperatorBinding(tenant, spec));

  VT_ASSIGN_OR_RETURN(TenantCertificates certs, EnsureCertificates(tenant, spec));

  struct Owned {
    const kube::ResourceType& type;
    kube::Object object;
  };
  std::vector<Owned> owned;
  owned.push_back({res::kServiceAccounts, RenderSyncerServiceAccount(spec)});
  owned.push_back({res::kRoleBindings, RenderSyncerRoleBinding(spec)});
  owned.push_back({res::kRoles, RenderKubeconfigReaderRole(spec)});
  owned.push_back({res::kRoleBindings, RenderKubeconfigReaderBinding(spec)});
  for (Owned& o : owned) {
    VT_ASSIGN_OR_RETURN(Ensured e, EnsureObject(host_, o.type, ns, o.object));
    if (e != Ensured::kUnchanged) {
      events_.Normal(tenant, "RbacApplied",
                     EventVerb(e) + " " + o.type.kind + " " + std::string(kube::Name(o.object)));
    }
    // The syncer's binding replaces the Role and RoleBinding an older
    // operator made; they would still grant what the binding no longer does.
    if (e == Ensured::kCreated && kube::Name(o.object) == kSyncerRoleBinding) {
      VT_RETURN_IF_ERROR(DeleteIfPresent(host_, res::kRoleBindings, ns, kLegacySyncerRole));
      VT_RETURN_IF_ERROR(DeleteIfPresent(host_, res::kRoles, ns, kLegacySyncerRole));
    }
  }
  // A cluster-scoped name anyone may have taken: only the operator's own is
  // written. (The ClusterRole it binds is the chart's.)
  VT_ASSIGN_OR_RETURN(Ensured crb,
                      EnsureOwnedObject(host_, res::kClusterRoleBindings, "",
                                        RenderSyncerNodeReaderBinding(spec), spec.name));
  (void)crb;
  if (spec.isolation.network_policy) {
    VT_ASSIGN_OR_RETURN(Ensured np, EnsureObject(host_, kube::resources::kNetworkPolicies, ns,
                                                 RenderNetworkPolicy(spec)));
    VT_ASSIGN_OR_RETURN(Ensured cp_np, EnsureObject(host_, kube::resources::kNetworkPolicies, ns,
                                                    RenderControlPlaneNetworkPolicy(
                                                        spec, options_.operator_namespace)));
    (void)cp_np;
    if (np == Ensured::kCreated) {
      events_.Normal(tenant, "NetworkPolicyCreated",
                     "pods in " + ns + " take traffic from " + ns + " only and send it to " + ns +
                         ", DNS and outside the cluster only; a control-plane pod also takes " +
                         options_.operator_namespace + " on port 6443 and sends anywhere");
    }
  } else {
    for (const char* name : {kNetworkPolicyName, kControlPlaneNetworkPolicyName}) {
      VT_ASSIGN_OR_RETURN(
          Deleted d, DeleteIfOwned(host_, kube::resources::kNetworkPolicies, ns, name, spec.name));
      (void)d;
    }
  }

  auto backend = backends_.find(spec.control_plane.backend);
  if (backend == backends_.end()) {
    pass.control_plane =
        False("ControlPlaneReady", "BackendUnavailable",
              "this operator does not run the " +
                  std::string(BackendName(spec.control_plane.backend)) + " backend");
    return Status::Ok();
  }
  // The priority classes the host really offers, as the Tenant allows them;
  // a class added or removed re-queues every tenant (operator_app.cc).
  Result<kube::ObjectList> classes = host_.List(kube::resources::kPriorityClasses, "");
  if (!classes.ok()) {
    step_errors_->WithLabelValues({"priority-classes"}).Inc();
    return classes.status().WithContext("listing the host's PriorityClasses");
  }
  std::vector<std::string> host_classes;
  for (const kube::Object& c : classes->items) host_classes.emplace_back(kube::Name(c));
  ControlPlaneRequest request{
      .spec = spec,
      .host_namespace = ns,
      .certificates = certs,
      .syncer_virtual_token = SyncerToken(spec.name),
      .allowed_priority_classes = AllowedPriorityClasses(spec.isolation, host_classes),
      .scheduler_name = options_.scheduler_name};
  Result<ControlPlaneStatus> cp = backend->second->Ensure(request);
  if (!cp.ok()) {
    step_errors_->WithLabelValues({"control-plane"}).Inc();
    pass.control_plane = False("ControlPlaneReady", "BackendError", cp.status().message());
    pass.syncer = False("SyncerReady", "ControlPlaneNotReady", "waiting for the control plane");
    return Status::Ok();
  }
  pass.syncer_enabled = cp->syncer_enabled;
  pass.syncer = cp->syncer.ready ? True("SyncerReady", cp->syncer.reason, cp->syncer.message)
                                 : False("SyncerReady", cp->syncer.reason, cp->syncer.message);
  pass.control_plane =
      cp->control_plane.ready
          ? True("ControlPlaneReady", cp->control_plane.reason, cp->control_plane.message)
          : False("ControlPlaneReady", cp->control_plane.reason, cp->control_plane.message);
  if (cp->endpoint.empty()) return Status::Ok();
  pass.endpoint = cp->endpoint;

  VT_ASSIGN_OR_RETURN(Ensured kc, EnsureObject(host_, res::kSecrets, ns,
                                               RenderKubeconfigSecret(spec, certs, cp->endpoint)));
  pass.kubeconfig_secret = KubeconfigSecretName(spec.name);
  if (kc != Ensured::kUnchanged) {
    events_.Normal(tenant, "KubeconfigWritten",
                   EventVerb(kc) + " Secret " + ns + "/" + pass.kubeconfig_secret +
                       " (key config) for " + cp->endpoint);
  }
  if (cp->control_plane.ready && EnsureVirtualCluster(tenant, spec, certs, pass)) {
    // A new token for the syncer: the backend has it now, not on the next pass.
    request.syncer_virtual_token = SyncerToken(spec.name);
    if (Result<ControlPlaneStatus> again = backend->second->Ensure(request); !again.ok()) {
      return again.status().WithContext("handing the syncer its token");
    }
  }
  return Status::Ok();
}

std::string TenantReconciler::SyncerToken(const std::string& tenant) {
  std::lock_guard lock(mu_);
  auto it = syncer_tokens_.find(tenant);
  return it == syncer_tokens_.end() ? "" : it->second.token;
}

Status TenantReconciler::EnsureOperatorBinding(const kube::Object& tenant, const TenantSpec& spec) {
  const std::string ns = HostNamespace(spec.name);
  kube::Object binding = RenderOperatorRoleBinding(spec, options_.self);
  Result<Ensured> e = EnsureObject(host_, res::kRoleBindings, ns, binding);
  // Until the binding exists the operator may not even read it: it may
  // only create RoleBindings (and bind its tenant role) anywhere.
  if (e.status().code() == StatusCode::kForbidden) {
    Result<kube::Object> created = host_.Create(res::kRoleBindings, ns, binding);
    if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
      return created.status().WithContext("creating the operator's RoleBinding in " + ns);
    }
    e = Ensured::kCreated;
  }
  VT_RETURN_IF_ERROR(e.status());
  if (*e != Ensured::kUnchanged) {
    events_.Normal(tenant, "RbacApplied",
                   EventVerb(*e) + " RoleBinding " + kOperatorRoleBinding + " in " + ns);
  }
  return Status::Ok();
}

Result<TenantCertificates> TenantReconciler::EnsureCertificates(const kube::Object& tenant,
                                                                const TenantSpec& spec) {
  const std::string ns = HostNamespace(spec.name);
  const std::string& home = options_.credentials_namespace;
  const std::string name = CertificateSecretName(spec.name);
  auto read = [&](const std::string& in, std::map<std::string, std::string>& out) -> Result<bool> {
    Result<kube::Object> secret = host_.Get(res::kSecrets, in, name);
    if (secret.status().code() == StatusCode::kNotFound) return false;
    if (!secret.ok()) return secret.status().WithContext("reading certificates in " + in);
    if (const rapidjson::Value* data = kube::Find(*secret, {"data"}); data && data->IsObject()) {
      for (const auto& m : data->GetObject()) {
        if (!m.value.IsString()) continue;
        Result<std::string> bytes = kube::DecodeBase64(m.value.GetString());
        if (bytes.ok()) out[m.name.GetString()] = std::move(bytes).value();
      }
    }
    return true;
  };
  std::map<std::string, std::string> existing;
  VT_ASSIGN_OR_RETURN(bool found, read(home, existing));
  // An older operator kept the Secret in the tenant's namespace, where the
  // syncer can read it: it moves, CA and all, so every credential stays valid.
  bool legacy = false;
  if (!found) {
    VT_ASSIGN_OR_RETURN(legacy, read(ns, existing));
  }
  CertificatePolicy policy = DefaultCertificatePolicy(spec.name, ns);
  policy.ip_addresses.insert(policy.ip_addresses.end(), options_.apiserver_ip_addresses.begin(),
                             options_.apiserver_ip_addresses.end());
  policy.tenant_admin_valid_for = options_.tenant_credential_lifetime;
  policy.rotation =
      std::string(kube::Annotation(tenant, kRotateCredentialsAnnotation).value_or(""));
  CertificateChanges changes;
  VT_ASSIGN_OR_RETURN(TenantCertificates certs,
                      op::EnsureCertificates(existing, policy, options_.now(), &changes));
  if (changes.any() || legacy) {
    VT_ASSIGN_OR_RETURN(Ensured e, EnsureObject(host_, res::kSecrets, home,
                                                RenderCertificateSecret(spec, certs, home)));
    (void)e;
  }
  if (legacy) {
    VT_RETURN_IF_ERROR(DeleteIfPresent(host_, res::kSecrets, ns, name));
    events_.Normal(tenant, "CertificatesMoved",
                   "Secret " + ns + "/" + name + " moved to " + home + "/" + name);
  }
  if (changes.tenant_admin_rotated) {
    events_.Normal(tenant, "CredentialsRotated",
                   "the team's credential was revoked" +
                       (policy.rotation.empty() ? "" : " (rotation " + policy.rotation + ")") +
                       ": the old kubeconfig stops working within a minute, the new one is in "
                       "Secret " +
                       ns + "/" + KubeconfigSecretName(spec.name));
  } else if (changes.any()) {
    events_.Normal(tenant, existing.empty() ? "CertificatesIssued" : "CertificatesRenewed",
                   "Secret " + home + "/" + name + ": " + changes.reason);
  }
  return certs;
}

bool TenantReconciler::EnsureVirtualCluster(const kube::Object& tenant, const TenantSpec& spec,
                                            const TenantCertificates& certs, Pass& pass) {
  kube::RestConfig config;
  config.server = pass.endpoint;
  config.ca_pem = certs.ca.certificate_pem;
  config.client_certificate_pem = certs.operator_client.certificate_pem;
  config.client_key_pem = certs.operator_client.private_key_pem;
  auto unreachable = [&](const Status& s) {
    step_errors_->WithLabelValues({"virtual-cluster"}).Inc();
    pass.control_plane = False(
        "ControlPlaneReady", "Unreachable",
        "virtual API server " + pass.endpoint + " with the operator's credential: " + s.ToString());
    return false;
  };
  Result<std::shared_ptr<kube::Client>> client = connector_.Connect(config);
  if (!client.ok()) return unreachable(client.status());
  Result<kube::Object> crd = PodGroupCrd();
  if (!crd.ok()) return unreachable(crd.status().WithContext("the compiled-in PodGroup CRD"));
  Result<Ensured> e = EnsureObject(**client, res::kCustomResourceDefinitions, "", *crd);
  if (!e.ok()) return unreachable(e.status());
  if (*e != Ensured::kUnchanged) {
    events_.Normal(tenant, "PodGroupCrdInstalled",
                   EventVerb(*e) + " CRD podgroups.scheduling.run.ai in the virtual cluster");
  }
  struct Virtual {
    const kube::ResourceType& type;
    kube::Object object;
  };
  Virtual objects[] = {{res::kClusterRoleBindings, RenderTenantAdminsBinding()},
                       {res::kServiceAccounts, RenderVirtualSyncerServiceAccount()},
                       {res::kClusterRoleBindings, RenderVirtualSyncerBinding()}};
  for (const Virtual& v : objects) {
    Result<Ensured> written = EnsureObject(**client, v.type, kube::Namespace(v.object), v.object);
    if (!written.ok()) return unreachable(written.status());
  }

  // The syncer's token there, renewed at half its life.
  const auto now = options_.now();
  {
    std::lock_guard lock(mu_);
    auto it = syncer_tokens_.find(spec.name);
    if (it != syncer_tokens_.end() &&
        now < it->second.issued + (it->second.expires - it->second.issued) / 2) {
      return false;
    }
  }
  TokenRequestIssuer issuer(**client);
  Result<ServiceAccountToken> token =
      issuer.Issue(kVirtualSyncerNamespace, kSyncerServiceAccount, options_.syncer_token_lifetime);
  if (!token.ok()) return unreachable(token.status().WithContext("the syncer's token"));
  std::lock_guard lock(mu_);
  syncer_tokens_[spec.name] = {token->token, now, token->expires};
  return true;
}

Status TenantReconciler::EnsureQueue(const kube::Object& tenant, const TenantSpec& spec,
                                     Pass& pass) {
  const std::string& parent = spec.queue.parent_queue;
  double parent_quota = -1;
  if (!parent.empty()) {
    Result<kube::Object> p = host_.Get(res::kQueues, "", parent);
    if (p.status().code() == StatusCode::kNotFound) {
      const std::string message = "parent queue " + parent + " does not exist; queue " + spec.name +
                                  " is created once it does";
      pass.parent_missing = True("ParentQueueMissing", "ParentQueueNotFound", message);
      pass.queue = False("QueueReady", "ParentQueueMissing", message);
      events_.Warning(tenant, "ParentQueueMissing", message);
      return Status::Ok();
    }
    if (!p.ok()) return p.status().WithContext("reading parent queue " + parent);
    if (const rapidjson::Value* q = kube::Find(*p, {"spec", "resources", "gpu", "quota"});
        q != nullptr && q->IsNumber()) {
      parent_quota = q->GetDouble();
    }
    pass.parent_missing =
        False("ParentQueueMissing", "ParentQueueFound", "parent queue " + parent + " exists");
  }

  VT_ASSIGN_OR_RETURN(Ensured e,
                      EnsureOwnedObject(host_, res::kQueues, "", RenderQueue(spec), spec.name));
  if (e != Ensured::kUnchanged) {
    events_.Normal(tenant, e == Ensured::kCreated ? "QueueCreated" : "QueueUpdated",
                   EventVerb(e) + " queue " + spec.name +
                       (parent.empty() ? "" : " under " + parent) + ": GPU quota " +
                       FormatQuota(spec.queue.gpu.quota) + ", limit " +
                       FormatQuota(spec.queue.gpu.limit) + ", over-quota weight " +
                       FormatQuota(spec.queue.gpu.over_quota_weight));
  }
  pass.queue_name = spec.name;
  pass.queue =
      True("QueueReady", "QueueApplied",
           "queue " + spec.name + (parent.empty() ? "" : " under " + parent) + ", GPU quota " +
               FormatQuota(spec.queue.gpu.quota) + " limit " + FormatQuota(spec.queue.gpu.limit));
  Result<kube::Object> own = host_.Get(res::kQueues, "", spec.name);
  if (own.ok()) {
    if (const rapidjson::Value* a = kube::Find(*own, {"status", "allocated"});
        a != nullptr && a->IsObject() && a->HasMember(kai::kGpuResource)) {
      const rapidjson::Value& v = (*a)[kai::kGpuResource];
      pass.gpu_allocated = v.IsString() ? v.GetString() : kube::ToJson(v);
    } else {
      pass.gpu_allocated = "0";
    }
  }

  if (parent.empty()) return Status::Ok();
  VT_ASSIGN_OR_RETURN(kube::ObjectList queues, host_.ListAll(res::kQueues, ""));
  std::map<std::string, double> children;
  for (const auto& q : queues.items) {
    if (kube::GetString(q, {"spec", "parentQueue"}) != parent) continue;
    const rapidjson::Value* quota = kube::Find(q, {"spec", "resources", "gpu", "quota"});
    children[std::string(kube::Name(q))] =
        quota != nullptr && quota->IsNumber() ? quota->GetDouble() : 0;
  }
  children[spec.name] = spec.queue.gpu.quota;
  QuotaCheck check = CheckChildrenQuota(parent, parent_quota, children);
  if (check.overcommitted) {
    if (kube::FindCondition(tenant, "QuotaOvercommitted").value_or(Condition{}).status != "True") {
      events_.Warning(tenant, "QuotaOvercommitted", check.message);
    }
    pass.overcommitted = True("QuotaOvercommitted", "ChildrenExceedParentQuota", check.message);
  } else {
    pass.overcommitted = False("QuotaOvercommitted", "WithinParentQuota", check.message);
  }
  return Status::Ok();
}

Status TenantReconciler::WriteStatus(const kube::Object& tenant, const Pass& pass) {
  std::string phase;
  Condition ready;
  if (pass.invalid) {
    phase = "Failed";
    ready = pass.invalid_condition;
  } else if (pass.Ready()) {
    phase = "Ready";
    ready = True("Ready", "AllComponentsReady",
                 pass.syncer_enabled ? "control plane, queue and syncer are ready"
                                     : "control plane and queue are ready; no syncer is "
                                       "configured, so pods are not synced to the host");
  } else {
    phase = pass.parent_missing.status == "True" ? "Pending" : "Provisioning";
    for (const Condition* c : {&pass.control_plane, &pass.queue, &pass.syncer}) {
      if (c->status == "True" || (c == &pass.syncer && !pass.syncer_enabled)) continue;
      ready = False("Ready", c->type.substr(0, c->type.size() - 5) + "NotReady",
                    c->type + ": " + c->message);
      break;
    }
  }
  const std::string now = FormatRfc3339(options_.now());
  auto apply = [&](kube::Object& t) {
    auto& alloc = t.GetAllocator();
    rapidjson::Value& status = kube::EnsurePath(t, {"status"});
    auto set = [&](const char* key, const std::string& value) {
      status.RemoveMember(key);
      if (!value.empty()) {
        status.AddMember(rapidjson::Value(key, alloc), rapidjson::Value(value.c_str(), alloc),
                         alloc);
      }
    };
    set("phase", phase);
    set("hostNamespace", pass.host_namespace);
    set("queue", pass.queue_name);
    set("endpoint", pass.endpoint);
    set("kubeconfigSecret", pass.kubeconfig_secret);
    set("gpuAllocated", pass.gpu_allocated);
    status.RemoveMember("observedGeneration");
    status.AddMember("observedGeneration", pass.generation, alloc);
    bool changed = false;
    for (Condition c : {pass.control_plane, pass.queue, pass.syncer, ready, pass.parent_missing,
                        pass.overcommitted}) {
      if (pass.invalid && c.type != "Ready") continue;
      c.observed_generation = pass.generation;
      changed |= kube::SetCondition(t, c, now);
    }
    (void)changed;
    return Status::Ok();
  };
  kube::Object desired = kube::Clone(tenant);
  (void)apply(desired);
  const rapidjson::Value* before = kube::Find(tenant, {"status"});
  if (before != nullptr && *before == desired["status"]) {
    RecordPhase(std::string(kube::Name(tenant)), phase);
    return Status::Ok();
  }
  if (phase == "Ready" && kube::GetString(tenant, {"status", "phase"}) != "Ready") {
    events_.Normal(tenant, "Ready",
                   "tenant is ready: kubeconfig in Secret " + pass.host_namespace + "/" +
                       pass.kubeconfig_secret + ", queue " + pass.queue_name);
  }
  Result<kube::Object> written =
      host_.UpdateWithRetry(res::kTenants, "", kube::Name(tenant), apply, "status");
  if (!written.ok()) {
    step_errors_->WithLabelValues({"status"}).Inc();
    return written.status().WithContext("writing tenant status");
  }
  RecordPhase(std::string(kube::Name(tenant)), phase);
  return Status::Ok();
}

Result<kube::ReconcileResult> TenantReconciler::Finalize(const kube::Object& tenant) {
  const std::string name(kube::Name(tenant));
  if (!HasFinalizer(tenant)) return kube::ReconcileResult{};
  const std::string ns = HostNamespace(name);
  if (kube::GetString(tenant, {"status", "phase"}) != "Terminating") {
    events_.Normal(tenant, "Deleting", "removing the control plane, queue and namespace " + ns);
    (void)host_.UpdateWithRetry(
        res::kTenants, "", name,
        [](kube::Object& t) {
          kube::SetString(t, {"status"}, "phase", "Terminating");
          return Status::Ok();
        },
        "status");
    RecordPhase(name, "Terminating");
  }
  // The syncer stops first, so nothing recreates host pods while the
  // namespace goes. Once the namespace is going (it is deleted only after
  // every backend was done), what the StatefulSet backend made in it goes
  // with it, and so does the operator's own RoleBinding there: asking that
  // backend again would only be refused. A namespace that was never this
  // Tenant's (refused as NamespaceTaken) holds nothing the backend made and
  // grants the operator nothing, so it is not asked either.
  Result<kube::Object> host_ns = host_.Get(res::kNamespaces, "", ns);
  if (!host_ns.ok() && host_ns.status().code() != StatusCode::kNotFound) return host_ns.status();
  const bool namespace_going = !host_ns.ok() || kube::IsBeingDeleted(*host_ns);
  const bool namespace_foreign =
      host_ns.ok() && !CheckOwnedByOperator(*host_ns, res::kNamespaces, name).ok();
  bool removed = true;
  for (const auto& [kind, backend] : backends_) {
    if ((namespace_going || namespace_foreign) && kind == Backend::kStatefulSet) continue;
    VT_ASSIGN_OR_RETURN(bool done, backend->Remove(name, ns));
    removed = removed && done;
  }
  if (!removed) return kube::ReconcileResult{.requeue_after = options_.not_ready_requeue};

  // Only what the operator made for this Tenant goes: a queue, binding or
  // namespace of the same name that is not its own is left alone.
  VT_ASSIGN_OR_RETURN(Deleted queue, DeleteIfOwned(host_, res::kQueues, "", name, name));
  VT_ASSIGN_OR_RETURN(Deleted binding, DeleteIfOwned(host_, res::kClusterRoleBindings, "",
                                                     SyncerNodeReaderBinding(name), name));
  (void)binding;
  if (queue == Deleted::kNotOurs) {
    events_.Normal(tenant, "QueueLeft", "queue " + name + " is not this Tenant's and stays");
  }
  VT_ASSIGN_OR_RETURN(Deleted certificates,
                      DeleteIfOwned(host_, res::kSecrets, options_.credentials_namespace,
                                    CertificateSecretName(name), name));
  (void)certificates;
  VT_ASSIGN_OR_RETURN(Deleted namespace_deleted,
                      DeleteIfOwned(host_, res::kNamespaces, "", ns, name));
  if (namespace_deleted == Deleted::kNotOurs) {
    events_.Normal(tenant, "NamespaceLeft", "namespace " + ns + " is not this Tenant's and stays");
  } else {
    Result<kube::Object> left = host_.Get(res::kNamespaces, "", ns);
    if (left.ok()) return kube::ReconcileResult{.requeue_after = options_.not_ready_requeue};
    if (left.status().code() != StatusCode::kNotFound) return left.status();
  }

  Result<kube::Object> done = host_.UpdateWithRetry(
      res::kTenants, "", name, [](kube::Object& t) { return SetFinalizer(t, false); });
  if (!done.ok() && done.status().code() != StatusCode::kNotFound) return done.status();
  events_.Normal(tenant, "Deleted", "control plane, queue and namespace " + ns + " removed");
  {
    std::lock_guard lock(mu_);
    syncer_tokens_.erase(name);
  }
  RecordPhase(name, "");
  return kube::ReconcileResult{};
}

}  // namespace vtenant::op
