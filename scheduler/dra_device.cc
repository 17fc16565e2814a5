#include "scheduler/dra_device.h"

#include <optional>
#include <string_view>
#include <utility>

#include "kube/object.h"

namespace vtenant::scheduler {
namespace {

std::string_view SliceMemberName(const rapidjson::Value::Member& member) {
  return {member.name.GetString(), member.name.GetStringLength()};
}

// "gpu.nvidia.com/model" as {"gpu.nvidia.com", "model"}; a name without a
// domain ("index") is in the driver's.
std::pair<std::string, std::string> SplitQualifiedName(std::string_view qualified,
                                                       std::string_view driver) {
  const size_t slash = qualified.find('/');
  if (slash == std::string_view::npos) return {std::string(driver), std::string(qualified)};
  return {std::string(qualified.substr(0, slash)), std::string(qualified.substr(slash + 1))};
}

// An attribute's value: exactly one of its bool, int, string, version fields.
Result<DeviceAttribute> ReadSliceAttribute(const rapidjson::Value& attribute) {
  if (!attribute.IsObject()) return InvalidArgument("not an object");
  std::optional<DeviceAttribute> value;
  int fields = 0;
  for (const auto& member : attribute.GetObject()) {
    const std::string_view field = SliceMemberName(member);
    const rapidjson::Value& v = member.value;
    if (field == "bool" && v.IsBool()) {
      value = v.GetBool();
    } else if (field == "int" && v.IsInt64()) {
      value = v.GetInt64();
    } else if ((field == "string" || field == "version") && v.IsString()) {
      std::string text(v.GetString(), v.GetStringLength());
      if (field == "string")
        value = std::move(text);
      else
        value = DeviceVersion{std::move(text)};
    } else if (field == "bool" || field == "int" || field == "string" || field == "version") {
      return InvalidArgument(std::string(field) + " value of the wrong type");
    } else {
      continue;
    }
    ++fields;
  }
  if (fields != 1)
    return InvalidArgument(fields == 0 ? "no value (bool, int, string or version)"
                                       : "more than one of bool, int, string, version");
  return *std::move(value);
}

Result<kube::Quantity> ReadSliceCapacity(const rapidjson::Value& capacity) {
  const rapidjson::Value* value = kube::Find(capacity, {"value"});
  if (value == nullptr || !value->IsString()) return InvalidArgument("no value");
  return kube::Quantity::Parse({value->GetString(), value->GetStringLength()});
}

// A "counters" object: {name: {value: quantity}}.
Result<Counters> ReadCounters(const rapidjson::Value* counters, const std::string& where) {
  Counters out;
  if (counters == nullptr) return out;
  if (!counters->IsObject()) return InvalidArgument(where + ": counters is not an object");
  for (const auto& member : counters->GetObject()) {
    Result<kube::Quantity> value = ReadSliceCapacity(member.value);
    if (!value.ok())
      return InvalidArgument(where + ": counter " + std::string(SliceMemberName(member)) + ": " +
                             value.status().message());
    out[std::string(SliceMemberName(member))] = value->Milli();
  }
  return out;
}

}  // namespace

Result<std::map<std::string, Counters>> ReadSliceCounterSets(const rapidjson::Value& slice) {
  std::map<std::string, Counters> sets;
  const rapidjson::Value* list = kube::Find(slice, {"spec", "sharedCounters"});
  if (list == nullptr || !list->IsArray()) return sets;
  const std::string context = "ResourceSlice " + std::string(kube::Name(slice));
  for (const rapidjson::Value& set : list->GetArray()) {
    const std::string name(kube::GetString(set, {"name"}));
    VT_ASSIGN_OR_RETURN(
        sets[name], ReadCounters(kube::Find(set, {"counters"}), context + ": counter set " + name));
  }
  return sets;
}

const rapidjson::Value& DeviceProperties(const rapidjson::Value& entry) {
  const rapidjson::Value* basic = kube::Find(entry, {"basic"});
  return basic != nullptr && basic->IsObject() ? *basic : entry;
}

Result<std::vector<Device>> ReadSliceDevices(const rapidjson::Value& slice) {
  const std::string context = "ResourceSlice " + std::string(kube::Name(slice));
  const std::string driver(kube::GetString(slice, {"spec", "driver"}));
  const std::string pool(kube::GetString(slice, {"spec", "pool", "name"}));
  std::vector<Device> devices;
  const rapidjson::Value* list = kube::Find(slice, {"spec", "devices"});
  if (list == nullptr) return devices;
  if (!list->IsArray()) return InvalidArgument(context + ": spec.devices is not a list");
  if (driver.empty() && !list->Empty()) return InvalidArgument(context + ": no spec.driver");
  for (const rapidjson::Value& d : list->GetArray()) {
    Device device{
        .driver = driver, .pool = pool, .name = std::string(kube::GetString(d, {"name"}))};
    if (device.name.empty()) return InvalidArgument(context + ": a device without a name");
    const std::string where = context + ": device " + device.name;
    const rapidjson::Value& properties = DeviceProperties(d);

    if (const rapidjson::Value* attributes = kube::Find(properties, {"attributes"})) {
      if (!attributes->IsObject()) return InvalidArgument(where + ": attributes is not an object");
      for (const auto& member : attributes->GetObject()) {
        const std::string_view qualified = SliceMemberName(member);
        Result<DeviceAttribute> value = ReadSliceAttribute(member.value);
        if (!value.ok())
          return value.status().WithContext(where + ": attribute " + std::string(qualified));
        auto [domain, name] = SplitQualifiedName(qualified, driver);
        if (!device.attributes[domain].emplace(name, std::move(value).value()).second)
          return InvalidArgument(where + ": attribute " + std::string(qualified) + " given twice");
      }
    }
    if (const rapidjson::Value* capacity = kube::Find(properties, {"capacity"})) {
      if (!capacity->IsObject()) return InvalidArgument(where + ": capacity is not an object");
      for (const auto& member : capacity->GetObject()) {
        const std::string_view qualified = SliceMemberName(member);
        Result<kube::Quantity> value = ReadSliceCapacity(member.value);
        if (!value.ok())
          return InvalidArgument(where + ": capacity " + std::string(qualified) + ": " +
                                 value.status().message());
        auto [domain, name] = SplitQualifiedName(qualified, driver);
        if (!device.capacity[domain].emplace(name, *value).second)
          return InvalidArgument(where + ": capacity " + std::string(qualified) + " given twice");
      }
    }
    if (const rapidjson::Value* multiple = kube::Find(properties, {"allowMultipleAllocations"})) {
      if (!multiple->IsBool())
        return InvalidArgument(where + ": allowMultipleAllocations is not a bool");
      device.allow_multiple_allocations = multiple->GetBool();
    }
    device.taints = ReadDeviceTaints(kube::Find(properties, {"taints"}));
    if (const rapidjson::Value* consumes = kube::Find(properties, {"consumesCounters"});
        consumes != nullptr && consumes->IsArray()) {
      for (const rapidjson::Value& c : consumes->GetArray()) {
        CounterConsumption consumption{.counter_set =
                                           std::string(kube::GetString(c, {"counterSet"}))};
        VT_ASSIGN_OR_RETURN(consumption.counters,
                            ReadCounters(kube::Find(c, {"counters"}),
                                         where + ": consumesCounters " + consumption.counter_set));
        device.consumes.push_back(std::move(consumption));
      }
    }
    devices.push_back(std::move(device));
  }
  return devices;
}

}  // namespace vtenant::scheduler
