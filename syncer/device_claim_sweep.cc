#include "syncer/device_claim_sweep.h"

#include <string>

#include "syncer/host_identity.h"
#include "syncer/names.h"
#include "syncer/resources.h"

namespace vtenant::syncer {

Status DeleteDeviceClaimCopies(kube::Client& host, std::string_view host_namespace,
                               std::string_view tenant, int* deleted) {
  const kube::ListOptions ours{.label_selector = std::string(kManagedByLabel) + "=" +
                                                 kManagedByValue + "," + kTenantLabel + "=" +
                                                 std::string(tenant)};
  for (const kube::ResourceType* type :
       {&resources::kResourceClaims, &resources::kResourceClaimTemplates}) {
    Result<kube::ObjectList> copies = host.ListAll(*type, host_namespace, ours);
    if (copies.status().code() == StatusCode::kNotFound) continue;  // not served: none
    VT_RETURN_IF_ERROR(copies.status());
    for (const kube::Object& copy : copies->items) {
      if (!RecordedIdentity(copy, type->kind, tenant)) continue;
      Status gone = host.Delete(*type, host_namespace, kube::Name(copy),
                                {.precondition_uid = std::string(kube::Uid(copy))});
      if (gone.ok()) ++*deleted;
      // Gone already, or another object of its name since: not ours to do.
      if (!gone.ok() && gone.code() != StatusCode::kNotFound &&
          gone.code() != StatusCode::kConflict)
        return gone;
    }
  }
  return Status::Ok();
}

}  // namespace vtenant::syncer
