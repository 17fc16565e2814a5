#include "scheduler-core/sim/trace.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "scheduler-core/annotations.h"
#include "scheduler-core/sim/csv.h"

namespace vtenant::sched::sim {
namespace {

constexpr int64_t kMiB = 1024 * 1024;
constexpr int64_t kMB = 1000 * 1000;

std::vector<std::string> SplitOn(std::string_view text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(sep, start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) out.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path + ": cannot open");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace

int32_t KnownGpuMemoryMib(std::string_view model) {
  // Values as nvidia.com/gpu.memory reports them on common nodes.
  static const std::map<std::string_view, int32_t> kKnown = {
      {"L40S", 46068},    {"NVIDIA-L40S", 46068}, {"L4", 23034},      {"A10", 23028},
      {"T4", 15360},      {"P100", 16384},        {"V100", 16384},    {"V100M16", 16384},
      {"V100M32", 32768}, {"A100", 40960},        {"A100-80", 81920}, {"H100", 81559},
      {"G2", 16384},      {"G3", 16384},          {"MISC", 16384},
  };
  auto it = kKnown.find(model);
  return it == kKnown.end() ? 0 : it->second;
}

Result<std::vector<NodeSpec>> ParseNodesCsv(const std::string& name, std::string text) {
  VT_ASSIGN_OR_RETURN(CsvReader csv, CsvReader::FromText(name, std::move(text)));
  VT_ASSIGN_OR_RETURN(int c_sn, csv.RequiredColumn("sn"));
  VT_ASSIGN_OR_RETURN(int c_cpu, csv.RequiredColumn("cpu_milli"));
  VT_ASSIGN_OR_RETURN(int c_mem, csv.RequiredColumn("memory_mib"));
  VT_ASSIGN_OR_RETURN(int c_gpu, csv.RequiredColumn("gpu"));
  VT_ASSIGN_OR_RETURN(int c_model, csv.RequiredColumn("model"));
  const int c_gpu_mem = csv.Column("gpu_memory_mib");
  const int c_labels = csv.Column("labels");
  std::vector<NodeSpec> nodes;
  while (csv.Next()) {
    NodeSpec n;
    n.name = std::string(csv.Field(c_sn));
    if (n.name.empty()) return csv.Error("sn", "is empty; every node needs a name");
    VT_ASSIGN_OR_RETURN(n.cpu_milli, csv.Int(c_cpu, "cpu_milli"));
    VT_ASSIGN_OR_RETURN(int64_t mem_mib, csv.Int(c_mem, "memory_mib"));
    VT_ASSIGN_OR_RETURN(int64_t gpus, csv.Int(c_gpu, "gpu"));
    if (n.cpu_milli < 0) return csv.Error("cpu_milli", "is negative");
    if (mem_mib < 0) return csv.Error("memory_mib", "is negative");
    if (gpus < 0 || gpus > kMaxDevicesPerNode)
      return csv.Error(
          "gpu", std::to_string(gpus) + " is outside 0.." + std::to_string(kMaxDevicesPerNode));
    n.memory_bytes = mem_mib * kMiB;
    n.gpus = static_cast<int32_t>(gpus);
    n.gpu_model = std::string(csv.Field(c_model));
    n.max_pods = 1 << 20;  // traces do not limit pod count
    int64_t fallback = KnownGpuMemoryMib(n.gpu_model);
    VT_ASSIGN_OR_RETURN(int64_t gpu_mib, csv.OptionalInt(c_gpu_mem, "gpu_memory_mib", fallback));
    if (gpu_mib < 0) return csv.Error("gpu_memory_mib", "is negative");
    n.gpu_memory_mib = static_cast<int32_t>(gpu_mib);
    if (!n.gpu_model.empty()) n.labels.emplace_back(kGpuModelLabel, n.gpu_model);
    for (const std::string& kv : SplitOn(csv.Field(c_labels), ';')) {
      size_t eq = kv.find('=');
      if (eq == std::string::npos || eq == 0)
        return csv.Error("labels", "\"" + kv + "\" is not key=value");
      n.labels.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    nodes.push_back(std::move(n));
  }
  return nodes;
}

// ParseNodesCsv's form, on purpose: the two files share how they are read,
// not their columns or checks.
Result<std::vector<PodRecord>> ParsePodsCsv(const std::string& name, std::string text) {
  VT_ASSIGN_OR_RETURN(CsvReader csv, CsvReader::FromText(name, std::move(text)));
  VT_ASSIGN_OR_RETURN(int c_name, csv.RequiredColumn("name"));
  VT_ASSIGN_OR_RETURN(int c_cpu, csv.RequiredColumn("cpu_milli"));
  VT_ASSIGN_OR_RETURN(int c_mem, csv.RequiredColumn("memory_mib"));
  VT_ASSIGN_OR_RETURN(int c_num_gpu, csv.RequiredColumn("num_gpu"));
  VT_ASSIGN_OR_RETURN(int c_gpu_milli, csv.RequiredColumn("gpu_milli"));
  VT_ASSIGN_OR_RETURN(int c_spec, csv.RequiredColumn("gpu_spec"));
  VT_ASSIGN_OR_RETURN(int c_qos, csv.RequiredColumn("qos"));
  VT_ASSIGN_OR_RETURN(int c_phase, csv.RequiredColumn("pod_phase"));
  VT_ASSIGN_OR_RETURN(int c_created, csv.RequiredColumn("creation_time"));
  VT_ASSIGN_OR_RETURN(int c_deleted, csv.RequiredColumn("deletion_time"));
  VT_ASSIGN_OR_RETURN(int c_scheduled, csv.RequiredColumn("scheduled_time"));
  const int c_queue = csv.Column("queue");
  const int c_gang = csv.Column("gang");
  const int c_min = csv.Column("min_member");
  const int c_priority = csv.Column("priority");
  const int c_gpu_mem = csv.Column("gpu_memory_mib");
  std::vector<PodRecord> pods;
  while (csv.Next()) {
    PodRecord r;
    PodSpec& p = r.spec;
    p.name = std::string(csv.Field(c_name));
    if (p.name.empty()) return csv.Error("name", "is empty; every pod needs a name");
    VT_ASSIGN_OR_RETURN(p.cpu_milli, csv.Int(c_cpu, "cpu_milli"));
    VT_ASSIGN_OR_RETURN(int64_t mem_mib, csv.Int(c_mem, "memory_mib"));
    VT_ASSIGN_OR_RETURN(int64_t num_gpu, csv.Int(c_num_gpu, "num_gpu"));
    VT_ASSIGN_OR_RETURN(int64_t gpu_milli, csv.Int(c_gpu_milli, "gpu_milli"));
    VT_ASSIGN_OR_RETURN(int64_t gpu_mib, csv.OptionalInt(c_gpu_mem, "gpu_memory_mib", 0));
    if (p.cpu_milli < 0) return csv.Error("cpu_milli", "is negative");
    if (mem_mib < 0) return csv.Error("memory_mib", "is negative");
    if (num_gpu < 0 || num_gpu > kMaxDevicesPerNode)
      return csv.Error("num_gpu", std::to_string(num_gpu) + " is outside 0.." +
                                      std::to_string(kMaxDevicesPerNode));
    if (gpu_milli < 0 || gpu_milli > kMilliPerGpu)
      return csv.Error("gpu_milli",
                       std::to_string(gpu_milli) + " is outside 0..1000 (a share of one device)");
    if (gpu_mib < 0) return csv.Error("gpu_memory_mib", "is negative");
    if (gpu_mib > 0 && gpu_milli > 0)
      return csv.Error("gpu_memory_mib", "set together with gpu_milli; ask for one of them");
    p.memory_bytes = mem_mib * kMiB;
    if (gpu_mib > 0) {
      if (num_gpu == 0) return csv.Error("num_gpu", "is 0 while gpu_memory_mib asks for a GPU");
      p.gpu_memory_mib = static_cast<int32_t>(gpu_mib);
      p.num_devices = static_cast<int32_t>(num_gpu);
    } else if (num_gpu > 0 && (gpu_milli == 0 || gpu_milli == kMilliPerGpu)) {
      p.whole_gpus = static_cast<int32_t>(num_gpu);
    } else if (num_gpu > 0) {
      p.gpu_fraction = gpu_milli;
      p.num_devices = static_cast<int32_t>(num_gpu);
    } else if (gpu_milli > 0) {
      return csv.Error("num_gpu",
                       "is 0 while gpu_milli asks for " + std::to_string(gpu_milli) + "m of a GPU");
    }
    std::vector<std::string> models = SplitOn(csv.Field(c_spec), '|');
    if (!models.empty()) p.node_affinity_in.emplace_back(kGpuModelLabel, models);
    r.qos = std::string(csv.Field(c_qos));
    r.phase = std::string(csv.Field(c_phase));
    VT_ASSIGN_OR_RETURN(p.creation_time, csv.Int(c_created, "creation_time"));
    VT_ASSIGN_OR_RETURN(r.deletion_time, csv.OptionalInt(c_deleted, "deletion_time", -1));
    VT_ASSIGN_OR_RETURN(r.scheduled_time, csv.OptionalInt(c_scheduled, "scheduled_time", -1));
    if (r.deletion_time >= 0 && r.deletion_time < p.creation_time)
      return csv.Error("deletion_time", "is before creation_time");
    p.queue = c_queue >= 0 && !csv.Field(c_queue).empty() ? std::string(csv.Field(c_queue))
                                                          : kDefaultQueue;
    r.gang = std::string(csv.Field(c_gang));
    VT_ASSIGN_OR_RETURN(int64_t min_member, csv.OptionalInt(c_min, "min_member", 1));
    if (min_member < 1) return csv.Error("min_member", "must be at least 1");
    r.min_member = static_cast<int32_t>(min_member);
    // Latency-sensitive pods outrank best-effort ones unless told otherwise.
    int64_t qos_priority = r.qos == "LS" ? 100 : r.qos == "BE" ? 0 : 50;
    VT_ASSIGN_OR_RETURN(int64_t priority, csv.OptionalInt(c_priority, "priority", qos_priority));
    p.priority = static_cast<int32_t>(priority);
    r.line = csv.line();
    pods.push_back(std::move(r));
  }
  return pods;
}

namespace {

std::string At(const std::string& name, const YAML::Node& node, std::string_view field) {
  return name + ":" + std::to_string(node.Mark().line + 1) + ": field " + std::string(field);
}

Status ParseResource(const std::string& name, const YAML::Node& spec, Resource r,
                     QueueResource& out) {
  const std::string prefix = "spec.resources." + std::string(ResourceName(r)) + ".";
  auto amount = [&](const char* key, int64_t& dest) -> Status {
    YAML::Node v = spec[key];
    if (!v) return Status::Ok();
    std::string field = prefix + key;
    if (!v.IsScalar()) return InvalidArgument(At(name, v, field) + ": expected a number");
    Result<int64_t> amount = ParseQueueAmount(v.Scalar(), r, field);
    if (!amount.ok()) return InvalidArgument(At(name, v, field) + ": " + amount.status().message());
    dest = *amount;
    return Status::Ok();
  };
  VT_RETURN_IF_ERROR(amount("quota", out.quota));
  VT_RETURN_IF_ERROR(amount("limit", out.limit));
  if (YAML::Node w = spec["overQuotaWeight"]) {
    std::string field = prefix + "overQuotaWeight";
    if (!w.IsScalar()) return InvalidArgument(At(name, w, field) + ": expected a number");
    Result<int64_t> weight = ParseQueueWeight(w.Scalar(), field);
    if (!weight.ok()) return InvalidArgument(At(name, w, field) + ": " + weight.status().message());
    out.over_quota_weight_milli = *weight;
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<QueueSpec>> ParseQueuesYaml(const std::string& name, const std::string& text) {
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    return InvalidArgument(name + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  std::vector<QueueSpec> queues;
  try {
    for (const YAML::Node& doc : docs) {
      if (!doc || doc.IsNull()) continue;
      if (!doc.IsMap())
        return InvalidArgument(At(name, doc, "(document)") + ": expected a Queue object");
      if (doc["kind"] && doc["kind"].as<std::string>() != "Queue")
        return InvalidArgument(At(name, doc["kind"], "kind") + ": \"" +
                               doc["kind"].as<std::string>() + "\" is not Queue");
      QueueSpec q;
      // Every resource starts as KAI's default: no quota, no limit, weight 1.
      YAML::Node meta = doc["metadata"];
      if (!meta || !meta["name"])
        return InvalidArgument(At(name, doc, "metadata.name") + ": missing");
      q.name = meta["name"].as<std::string>();
      YAML::Node spec = doc["spec"];
      if (spec) {
        if (spec["parentQueue"]) q.parent = spec["parentQueue"].as<std::string>();
        if (YAML::Node p = spec["priority"]) {
          try {
            q.priority = p.as<int32_t>();
          } catch (const YAML::Exception&) {
            return InvalidArgument(At(name, p, "spec.priority") + ": \"" + p.Scalar() +
                                   "\" is not a whole number");
          }
        }
        for (const char* key : {"preemptMinRuntime", "reclaimMinRuntime"}) {
          YAML::Node v = spec[key];
          if (!v) continue;
          Result<int64_t> seconds = ParseMinRuntimeSeconds(v.Scalar());
          if (!seconds.ok())
            return InvalidArgument(At(name, v, std::string("spec.") + key) + ": " +
                                   seconds.status().message());
          (std::string_view(key) == "preemptMinRuntime" ? q.preempt_min_runtime_s
                                                        : q.reclaim_min_runtime_s) = *seconds;
        }
        if (YAML::Node res = spec["resources"]) {
          for (Resource r : kAllResources) {
            YAML::Node one = res[std::string(ResourceName(r))];
            if (one) VT_RETURN_IF_ERROR(ParseResource(name, one, r, q.resources[r]));
          }
        }
      }
      queues.push_back(std::move(q));
    }
  } catch (const YAML::Exception& e) {
    return InvalidArgument(name + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return queues;
}

Status CheckTrace(const Trace& trace, const std::string& pods_name) {
  std::map<std::string, bool> is_leaf;  // queue name -> has no children
  for (const QueueSpec& q : trace.queues) is_leaf.emplace(q.name, true);
  for (const QueueSpec& q : trace.queues)
    if (!q.parent.empty()) is_leaf[q.parent] = false;
  is_leaf.emplace(kDefaultQueue, true);
  std::map<std::string, const PodRecord*> gangs;
  for (const PodRecord& r : trace.pods) {
    auto at = [&](std::string_view field) {
      return pods_name + ":" + std::to_string(r.line) + ": field " + std::string(field) + ": ";
    };
    auto q = is_leaf.find(r.spec.queue);
    if (q == is_leaf.end())
      return InvalidArgument(at("queue") + "queue \"" + r.spec.queue +
                             "\" is not defined in the queues file");
    if (!q->second)
      return InvalidArgument(at("queue") + "queue \"" + r.spec.queue +
                             "\" has child queues; only leaf queues hold jobs");
    if (r.gang.empty()) continue;
    auto [first, fresh] = gangs.emplace(r.gang, &r);
    if (fresh) continue;
    if (first->second->spec.queue != r.spec.queue)
      return InvalidArgument(at("queue") + "gang " + r.gang + " was in queue " +
                             first->second->spec.queue + " on line " +
                             std::to_string(first->second->line));
    if (first->second->min_member != r.min_member)
      return InvalidArgument(at("min_member") + "gang " + r.gang + " had min_member " +
                             std::to_string(first->second->min_member) + " on line " +
                             std::to_string(first->second->line));
  }
  return Status::Ok();
}

Result<std::vector<NodeSpec>> LoadNodesCsv(const std::string& path) {
  VT_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseNodesCsv(path, std::move(text));
}

Result<std::vector<PodRecord>> LoadPodsCsv(const std::string& path) {
  VT_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParsePodsCsv(path, std::move(text));
}

Result<std::vector<QueueSpec>> LoadQueuesYaml(const std::string& path) {
  VT_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseQueuesYaml(path, text);
}

namespace {

std::string Decimal(int64_t milli) {
  if (milli == kUnlimited) return "-1";
  std::string out = std::to_string(milli / 1000);
  if (int64_t rest = milli % 1000) {
    std::string frac = std::to_string(1000 + rest).substr(1);
    while (frac.back() == '0') frac.pop_back();
    out += "." + frac;
  }
  return out;
}

}  // namespace

Status WriteNodesCsv(const std::string& path, const std::vector<NodeSpec>& nodes) {
  std::ofstream out(path);
  if (!out) return Unavailable(path + ": cannot write");
  out << "sn,cpu_milli,memory_mib,gpu,model,gpu_memory_mib,labels\n";
  for (const NodeSpec& n : nodes) {
    std::string labels;
    for (const auto& [k, v] : n.labels) {
      if (k == kGpuModelLabel) continue;
      labels += (labels.empty() ? "" : ";") + k + "=" + v;
    }
    out << n.name << ',' << n.cpu_milli << ',' << n.memory_bytes / kMiB << ',' << n.gpus << ','
        << n.gpu_model << ',' << n.gpu_memory_mib << ',' << labels << '\n';
  }
  return out ? Status::Ok() : Unavailable(path + ": write failed");
}

Status WritePodsCsv(const std::string& path, const std::vector<PodRecord>& pods) {
  std::ofstream out(path);
  if (!out) return Unavailable(path + ": cannot write");
  out << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
         "deletion_time,scheduled_time,queue,gang,min_member,priority,gpu_memory_mib\n";
  for (const PodRecord& r : pods) {
    const PodSpec& p = r.spec;
    int64_t num_gpu = p.whole_gpus > 0                               ? p.whole_gpus
                      : (p.gpu_fraction > 0 || p.gpu_memory_mib > 0) ? p.num_devices
                                                                     : 0;
    int64_t gpu_milli = p.whole_gpus > 0 ? kMilliPerGpu : p.gpu_fraction;
    std::string spec;
    for (const auto& [key, values] : p.node_affinity_in)
      for (const std::string& v : values) spec += (spec.empty() ? "" : "|") + v;
    out << p.name << ',' << p.cpu_milli << ',' << p.memory_bytes / kMiB << ',' << num_gpu << ','
        << gpu_milli << ',' << spec << ',' << r.qos << ',' << r.phase << ',' << p.creation_time
        << ',' << (r.deletion_time >= 0 ? std::to_string(r.deletion_time) : "") << ','
        << (r.scheduled_time >= 0 ? std::to_string(r.scheduled_time) : "") << ',' << p.queue << ','
        << r.gang << ',' << r.min_member << ',' << p.priority << ',' << p.gpu_memory_mib << '\n';
  }
  return out ? Status::Ok() : Unavailable(path + ": write failed");
}

Status WriteQueuesYaml(const std::string& path, const std::vector<QueueSpec>& queues) {
  std::ofstream out(path);
  if (!out) return Unavailable(path + ": cannot write");
  for (const QueueSpec& q : queues) {
    out << "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata:\n  name: " << q.name
        << "\nspec:\n";
    if (!q.parent.empty()) out << "  parentQueue: " << q.parent << "\n";
    if (q.priority != 0) out << "  priority: " << q.priority << "\n";
    out << "  resources:\n";
    for (Resource r : kAllResources) {
      const QueueResource& qr = q.resources[r];
      auto as_written = [&](int64_t v) -> std::string {
        if (v == kUnlimited) return "-1";
        if (r == kGpu) return Decimal(v);
        if (r == kCpu) return std::to_string(v);
        return std::to_string(v / kMB);
      };
      out << "    " << ResourceName(r) << ":\n      quota: " << as_written(qr.quota)
          << "\n      limit: " << as_written(qr.limit)
          << "\n      overQuotaWeight: " << Decimal(qr.over_quota_weight_milli) << "\n";
    }
    out << "---\n";
  }
  return out ? Status::Ok() : Unavailable(path + ": write failed");
}

}  // namespace vtenant::sched::sim
