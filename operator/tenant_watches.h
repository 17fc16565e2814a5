// Which Tenants a change to a host object concerns: the key mappers with
// which the operator's tenant controller watches its inputs. Pure functions
// of the object and the Tenants cached, so each rule has a unit test and the
// wiring (operator_app.cc) only names them.
#pragma once

#include <string>
#include <vector>

#include "kube/object.h"

namespace vtenant::op {

// The Tenant an object the operator made belongs to: its vtenant.io/tenant
// label (a namespace, a StatefulSet). None when the label is missing.
std::vector<std::string> TenantOfLabel(const kube::Object& object);

// The Tenants a KAI Queue matters to: its own tenant (by label); the tenant
// of its name (one refused while the name was taken); and every tenant whose
// spec.queue.parentQueue it is (ParentQueueMissing, QuotaOvercommitted).
std::vector<std::string> TenantsOfQueue(const kube::Object& queue,
                                        const std::vector<kube::ObjectPtr>& tenants);

// Every Tenant: what a change to a host-wide input (a PriorityClass, which
// decides the classes a tenant's pods may name) concerns.
std::vector<std::string> AllTenants(const std::vector<kube::ObjectPtr>& tenants);

}  // namespace vtenant::op
