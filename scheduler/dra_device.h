// Device: one device a ResourceSlice (resource.k8s.io/v1) publishes, as a
// DeviceClass's or a request's CEL selector sees it (`device.driver`,
// `device.attributes[domain].name`, `device.capacity[domain].name`), and
// the identity a claim's allocation names it by (driver, pool, device).
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "base/status.h"
#include "kube/quantity.h"
#include "scheduler/device_taints.h"

namespace vtenant::scheduler {

// A semantic version attribute ("version": "1.2.3"), kept as written.
struct DeviceVersion {
  std::string text;
  bool operator==(const DeviceVersion&) const = default;
};

// An attribute's value: exactly one of bool, int, string, version.
using DeviceAttribute = std::variant<bool, int64_t, std::string, DeviceVersion>;

// Counters by name, in thousandths (a quantity's milli value).
using Counters = std::map<std::string, int64_t>;

// One entry of a device's consumesCounters.
struct CounterConsumption {
  std::string counter_set;
  Counters counters;
  bool operator==(const CounterConsumption&) const = default;
};

struct Device {
  std::string driver;
  std::string pool;
  std::string name;
  // By domain, then name: a name the slice wrote without a domain
  // ("index") is in the driver's domain, as the API defines, so a selector
  // reads it as device.attributes["<driver>"].index.
  std::map<std::string, std::map<std::string, DeviceAttribute>> attributes;
  std::map<std::string, std::map<std::string, kube::Quantity>> capacity;
  bool allow_multiple_allocations = false;
  // Its own taints (device_taints.h); a DeviceTaintRule's are not here.
  std::vector<DeviceTaint> taints;
  // consumesCounters: what it takes, while allocated, of its pool's
  // counter sets (partitionable devices: the partitions of one GPU share
  // its memory and compute slices).
  std::vector<CounterConsumption> consumes;
};

// The devices of ResourceSlice `slice` (spec.driver, spec.pool.name,
// spec.devices, each with its taints and counters). InvalidArgument when an
// attribute, capacity or counter cannot be read (no or several value
// fields, an unparsable quantity).
Result<std::vector<Device>> ReadSliceDevices(const rapidjson::Value& slice);

// Where an entry of a slice's spec.devices holds the device's properties:
// the entry itself, or its "basic" (resource.k8s.io/v1beta1).
const rapidjson::Value& DeviceProperties(const rapidjson::Value& entry);

// The counter sets ResourceSlice `slice` shares with its pool
// (spec.sharedCounters), by name. InvalidArgument when a counter cannot be
// read.
Result<std::map<std::string, Counters>> ReadSliceCounterSets(const rapidjson::Value& slice);

}  // namespace vtenant::scheduler
