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

// The privileged feature that lets a pod pick its GPUs in its environment
// (pod_policy.h): a vtenant rule, not a Pod Security one.
inline constexpr char kGpuDevicesFeature[] = "gpuDevices";

// What a Tenant may allow a pod beyond its Pod Security level
// (spec.isolation.allowedPrivilegedFeatures), each named after what it
// lets a pod use: exceptions to that level, whose rules pod_security.h
// lists, and kGpuDevicesFeature.
inline const std::vector<std::string>& PrivilegedFeatureNames() {
  static const std::vector<std::string> kFeatures = {
      "hostPath",           "hostNetwork",     "hostPID",      "hostIPC",
      "hostPorts",          "privileged",      "capabilities", "unconfinedSeccomp",
      "unconfinedAppArmor", "seLinux",         "procMount",    "unsafeSysctls",
      "windowsHostProcess", kGpuDevicesFeature};
  return kFeatures;
}

// Whether the privileged feature `name` lifts a Pod Security rule, so that
// the host's Pod Security Admission must let it through too.
inline bool IsPodSecurityException(const std::string& name) { return name != kGpuDevicesFeature; }

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
