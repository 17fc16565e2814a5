// The names a Tenant's spec.isolation may use for what the syncer lets a
// team's pods do: privileged features and volume types. The syncer enforces
// them (pod_security.h, pod_policy.h); the operator refuses a Tenant naming
// anything else (operator/tenant.h), and the CRD's enums list the same.
// Header-only, so that the operator shares the words without linking the
// syncer.
#pragma once

#include <string>
#include <vector>

namespace vtenant::syncer {

// Exceptions to the Pod Security level a Tenant may allow
// (spec.isolation.allowedPrivilegedFeatures), each named after what it
// lets a pod use; pod_security.h says which rule each one lifts.
inline const std::vector<std::string>& PrivilegedFeatureNames() {
  static const std::vector<std::string> kFeatures = {
      "hostPath",           "hostNetwork", "hostPID",      "hostIPC",
      "hostPorts",          "privileged",  "capabilities", "unconfinedSeccomp",
      "unconfinedAppArmor", "seLinux",     "procMount",    "unsafeSysctls",
      "windowsHostProcess"};
  return kFeatures;
}

// Volume types a Tenant may name in spec.isolation.allowedVolumeTypes: the
// in-tree types of a v1.37 pod, less three that other settings govern:
// hostPath (the privileged feature of that name), csi (allowedCSIDrivers
// names the drivers) and gitRepo (never: it runs git on the node as root
// with the tenant's arguments).
inline const std::vector<std::string>& VolumeTypeNames() {
  static const std::vector<std::string> kTypes = {"awsElasticBlockStore",
                                                  "azureDisk",
                                                  "azureFile",
                                                  "cephfs",
                                                  "cinder",
                                                  "configMap",
                                                  "downwardAPI",
                                                  "emptyDir",
                                                  "ephemeral",
                                                  "fc",
                                                  "flexVolume",
                                                  "flocker",
                                                  "gcePersistentDisk",
                                                  "glusterfs",
                                                  "image",
                                                  "iscsi",
                                                  "nfs",
                                                  "persistentVolumeClaim",
                                                  "photonPersistentDisk",
                                                  "portworxVolume",
                                                  "projected",
                                                  "quobyte",
                                                  "rbd",
                                                  "scaleIO",
                                                  "secret",
                                                  "storageos",
                                                  "vsphereVolume"};
  return kTypes;
}

// The volume types of a Tenant that names none.
inline const std::vector<std::string>& DefaultVolumeTypeNames() {
  static const std::vector<std::string> kTypes = {"configMap", "secret",    "downwardAPI",
                                                  "emptyDir",  "projected", "persistentVolumeClaim",
                                                  "ephemeral"};
  return kTypes;
}

}  // namespace vtenant::syncer
