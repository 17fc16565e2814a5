// NodeTranslator: host Nodes mirrored into the virtual cluster (from host),
// so a virtual pod can be bound to the node its host pod runs on, and the
// team sees that node's labels and GPU capacity. Virtual Nodes have the
// host node's name, labels, taints and status (capacity, allocatable,
// conditions, addresses, nodeInfo), plus vtenant.io/managed-by so the
// syncer removes only its own.
#pragma once

#include <optional>

#include "kube/object.h"

namespace vtenant::syncer {

class NodeTranslator {
 public:
  // The virtual Node for `host_node`, status included.
  kube::Object FromHost(const rapidjson::Value& host_node) const;

  // The virtual Node with the host node's labels and taints, when they differ.
  std::optional<kube::Object> Update(const rapidjson::Value& host_node,
                                     const rapidjson::Value& virtual_node) const;

  // The virtual Node with the host node's status, when it differs.
  std::optional<kube::Object> StatusUpdate(const rapidjson::Value& host_node,
                                           const rapidjson::Value& virtual_node) const;
};

// Whether the syncer created `virtual_node`.
bool IsManagedNode(const rapidjson::Value& virtual_node);

}  // namespace vtenant::syncer
