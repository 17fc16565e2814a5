// NodeTranslator: host Nodes mirrored into the virtual cluster (from host),
// so a virtual pod can be bound to the node its host pod runs on, and the
// team sees that node's labels and GPU capacity. Virtual Nodes have the
// host node's name, labels, taints and status (capacity, allocatable,
// conditions, addresses, nodeInfo, daemonEndpoints), plus
// vtenant.io/managed-by so the syncer removes only its own.
//
// With a kubelet endpoint (SyncerConfig::kubelet_address), a virtual Node's
// addresses and kubelet port are that endpoint instead of the host node's:
// the virtual API server sends the team's logs, exec, attach and
// port-forward there, and the team does not learn the host node's address.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "kube/object.h"

namespace vtenant::syncer {

class NodeTranslator {
 public:
  // `kubelet_address` empty: the host node's addresses and kubelet port.
  explicit NodeTranslator(std::string kubelet_address = {}, int kubelet_port = 0)
      : kubelet_address_(std::move(kubelet_address)), kubelet_port_(kubelet_port) {}

  // The virtual Node for `host_node`, status included.
  kube::Object FromHost(const rapidjson::Value& host_node) const;

  // The virtual Node with the host node's labels and taints, when they differ.
  std::optional<kube::Object> Update(const rapidjson::Value& host_node,
                                     const rapidjson::Value& virtual_node) const;

  // The virtual Node with the host node's status, when it differs.
  std::optional<kube::Object> StatusUpdate(const rapidjson::Value& host_node,
                                           const rapidjson::Value& virtual_node) const;

 private:
  kube::Object Mirrored(const rapidjson::Value& host_node) const;

  std::string kubelet_address_;
  int kubelet_port_;
};

// Whether the syncer created `virtual_node`.
bool IsManagedNode(const rapidjson::Value& virtual_node);

}  // namespace vtenant::syncer
