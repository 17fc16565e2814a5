// Device taints (resource.k8s.io/v1, GA in Kubernetes 1.37): a driver, or
// an admin with a DeviceTaintRule, marks a device that is not to be given
// out (a GPU that failed its health check, one being drained). A request
// gets a tainted device only when its tolerations tolerate every taint of
// effect NoSchedule or NoExecute the device has, as the structured
// allocator has it; effect None, and effects this code does not know, are
// ignored. Evicting the pods of a NoExecute device is the device taint
// eviction controller's (kube-controller-manager), not the scheduler's.
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <vector>

namespace vtenant::scheduler {

struct Device;

// spec.devices[].taints[] of a ResourceSlice, or a DeviceTaintRule's
// spec.taint.
struct DeviceTaint {
  std::string key;
  std::string value;
  std::string effect;  // "NoSchedule", "NoExecute", "None", or one not known yet
  bool operator==(const DeviceTaint&) const = default;
};

// A request's exactly.tolerations[] (or a firstAvailable subrequest's).
struct DeviceToleration {
  std::string key;      // empty: every key (with exists)
  bool exists = false;  // operator Exists; else Equal, the default
  std::string value;
  std::string effect;  // empty: every effect
  bool operator==(const DeviceToleration&) const = default;
};

// A DeviceTaintRule: its taint, on the devices its spec.deviceSelector
// names by driver, pool and device (each unset: any).
struct DeviceTaintRule {
  std::optional<std::string> driver, pool, device;
  DeviceTaint taint;
  bool operator==(const DeviceTaintRule&) const = default;
};

// The taints in `taints` (a JSON array; null or another type: none).
std::vector<DeviceTaint> ReadDeviceTaints(const rapidjson::Value* taints);

// The tolerations in `tolerations` (a JSON array; null or another type:
// none).
std::vector<DeviceToleration> ReadDeviceTolerations(const rapidjson::Value* tolerations);

// DeviceTaintRule `rule`; nullopt when it has no spec.deviceSelector, which
// selects no device.
std::optional<DeviceTaintRule> ReadDeviceTaintRule(const rapidjson::Value& rule);

// Whether `toleration` tolerates `taint`: the same effect (or none named),
// the same key (or none named, with Exists), and with Equal the same value.
bool Tolerates(const DeviceToleration& toleration, const DeviceTaint& taint);

// Whether `taint` keeps a device from a request with `tolerations`: its
// effect is NoSchedule or NoExecute and none of them tolerates it.
bool PreventsAllocation(const DeviceTaint& taint, const std::vector<DeviceToleration>& tolerations);

// Whether `rule` taints `device`.
bool Applies(const DeviceTaintRule& rule, const Device& device);

}  // namespace vtenant::scheduler
