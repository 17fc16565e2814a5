#include "scheduler/flags.h"

#include <functional>

#include "base/cron_schedule.h"
#include "base/duration.h"
#include "base/flags.h"
#include "base/rfc3339.h"
#include "scheduler-core/options.h"

namespace vtenant::scheduler {
namespace {

struct Flag {
  const char* name;
  const char* value_name;  // "" for booleans
  const char* help;
  std::function<std::string(const SchedulerFlags&)> show_default;
  // The binding (base/flags.h) of this flag, named `name`, to its field.
  std::function<FlagBinding(std::string name, SchedulerFlags&)> bind;
};

// A DURATION flag: positive, in Go's syntax (base/duration.h), in
// milliseconds rounded up.
Result<std::chrono::milliseconds> PositiveDuration(const std::string& v) {
  Result<std::chrono::nanoseconds> d = ParseDuration(v);
  if (!d.ok() || d->count() <= 0) {
    return InvalidArgument("\"" + v + "\": want a positive duration like 500ms, 1s or 2m");
  }
  return std::chrono::ceil<std::chrono::milliseconds>(*d);
}

std::string ShowDuration(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + "s";
  return std::to_string(d.count()) + "ms";
}

std::string Quoted(const std::string& s) { return s.empty() ? "\"\"" : s; }

// The bindings of the table below, by the kind of value.
template <typename Field>
auto Bind(FlagBinding (*kind)(std::string, Field*), Field SchedulerFlags::*field) {
  return [kind, field](std::string name, SchedulerFlags& f) { return kind(name, &(f.*field)); };
}

auto Duration(std::chrono::milliseconds SchedulerFlags::*field) {
  return [field](std::string name, SchedulerFlags& f) {
    return ParsedFlag(name, &(f.*field), PositiveDuration);
  };
}

// A DURATION flag in whole seconds, rounded up, days allowed ("7d");
// `zero_ok`: 0 too (off).
auto Seconds(std::chrono::seconds SchedulerFlags::*field, bool zero_ok) {
  return [field, zero_ok](std::string name, SchedulerFlags& f) {
    return ParsedFlag(
        name, &(f.*field), [zero_ok](const std::string& v) -> Result<std::chrono::seconds> {
          Result<std::chrono::nanoseconds> d = ParseDuration(v, DurationUnits::kWithDays);
          if (!d.ok() || d->count() < 0 || (d->count() == 0 && !zero_ok))
            return InvalidArgument("\"" + v + "\": want a " + (zero_ok ? "" : "positive ") +
                                   "duration like 30m, 168h or 7d" + (zero_ok ? " (0: off)" : ""));
          return std::chrono::seconds(CeilSeconds(*d));
        });
  };
}

const std::vector<Flag>& Flags() {
  static const std::vector<Flag> flags = {
      {"kubeconfig", "PATH",
       "kubeconfig of the host cluster; empty: $KUBECONFIG, in-cluster, ~/.kube/config",
       [](auto& f) { return Quoted(f.kubeconfig); }, Bind(TextFlag, &SchedulerFlags::kubeconfig)},
      {"scheduler-name", "NAME", "schedule pods whose spec.schedulerName is NAME",
       [](auto& f) { return f.scheduler_name; },
       Bind(NonEmptyTextFlag, &SchedulerFlags::scheduler_name)},
      {"cycle-period", "DURATION", "time between scheduling cycles (sooner when pods arrive)",
       [](auto& f) { return ShowDuration(f.cycle_period); },
       Duration(&SchedulerFlags::cycle_period)},
      {"reservation-namespace", "NS", "namespace of the GPU reservation pods (created if missing)",
       [](auto& f) { return f.reservation_namespace; },
       Bind(TextFlag, &SchedulerFlags::reservation_namespace)},
      {"reservation-image", "IMAGE", "image of the reservation pods (runs vtenant-gpu-reservation)",
       [](auto& f) { return f.reservation_image; },
       Bind(TextFlag, &SchedulerFlags::reservation_image)},
      {"reservation-service-account", "NAME",
       "ServiceAccount of the reservation pods (they annotate their own pod); empty: the "
       "namespace's default",
       [](auto& f) { return Quoted(f.reservation_service_account); },
       Bind(TextFlag, &SchedulerFlags::reservation_service_account)},
      {"webhook-address", "HOST:PORT",
       "serve the mutating admission webhook over TLS here and register it; empty: no webhook "
       "(GPU-sharing pods then cannot be created)",
       [](auto& f) { return Quoted(f.webhook_address); },
       Bind(AddressFlag, &SchedulerFlags::webhook_address)},
      {"webhook-url", "URL",
       "URL the API server calls the webhook at; empty: https://<webhook-address>/mutate",
       [](auto& f) { return Quoted(f.webhook_url); }, Bind(TextFlag, &SchedulerFlags::webhook_url)},
      {"webhook-cert", "PATH",
       "serving certificate (PEM) of the webhook; empty: made at start with its own CA",
       [](auto& f) { return Quoted(f.webhook_cert); },
       Bind(TextFlag, &SchedulerFlags::webhook_cert)},
      {"webhook-key", "PATH", "private key (PEM) of --webhook-cert",
       [](auto& f) { return Quoted(f.webhook_key); }, Bind(TextFlag, &SchedulerFlags::webhook_key)},
      {"gpu-fraction-runtime-class", "NAME",
       "RuntimeClass the webhook gives a GPU-sharing pod that names none, while the cluster "
       "has it (the NVIDIA container runtime reads the pod's NVIDIA_VISIBLE_DEVICES); empty: "
       "none",
       [](auto& f) { return Quoted(f.gpu_fraction_runtime_class); },
       Bind(TextFlag, &SchedulerFlags::gpu_fraction_runtime_class)},
      {"block-nvidia-visible-devices", "",
       "the webhook sets NVIDIA_VISIBLE_DEVICES=void on every container of our pods that asks "
       "for no GPU, and refuses a pod whose GPU container sets it to other than void or none "
       "(without, a container can reach GPUs it did not ask for)",
       [](auto& f) { return f.block_nvidia_visible_devices ? "true" : "false"; },
       Bind(SwitchFlag, &SchedulerFlags::block_nvidia_visible_devices)},
      {"hami-core", "",
       "give each GPU-sharing pod CUDA_DEVICE_MEMORY_LIMIT, its share of the device's memory, "
       "for HAMi-core (libvgpu.so, preloaded on the nodes) to enforce, as KAI's hamicore "
       "plugins do",
       [](auto& f) { return f.hami_core ? "true" : "false"; },
       Bind(SwitchFlag, &SchedulerFlags::hami_core)},
      {"enable-quota-validation", "",
       "the webhook holds a Queue written with a parentQueue against its parent, and a parent "
       "against its children: refused without a parent that has resources, warned when a "
       "quota, or the children's together, exceeds the parent's (KAI's queue webhook option)",
       [](auto& f) { return f.enable_quota_validation ? "true" : "false"; },
       Bind(SwitchFlag, &SchedulerFlags::enable_quota_validation)},
      {"health-address", "HOST:PORT", "serve /healthz, /readyz and /metrics here; empty: off",
       [](auto& f) { return Quoted(f.health_address); },
       Bind(AddressFlag, &SchedulerFlags::health_address)},
      {"leader-elect", "",
       "schedule only while holding the Lease vtenant-scheduler, or vtenant-scheduler-<value> "
       "with --partition-label-value (one active replica a shard)",
       [](auto& f) { return f.leader_elect ? "true" : "false"; },
       Bind(SwitchFlag, &SchedulerFlags::leader_elect)},
      {"leader-elect-namespace", "NS", "namespace of the leader election Lease",
       [](auto& f) { return f.leader_elect_namespace; },
       Bind(TextFlag, &SchedulerFlags::leader_elect_namespace)},
      {"policy", "NAME",
       "placement policy: fgd (fragmentation-aware), binpack, spread, best-fit or random-fit",
       [](auto& f) { return f.policy; },
       [](std::string name, SchedulerFlags& f) -> FlagBinding {
         return {name, [name, &f](const std::string& v) {
                   VT_RETURN_IF_ERROR(sched::ParsePolicy(v).status().WithContext("--" + name));
                   f.policy = v;
                   return Status::Ok();
                 }};
       }},
      {"bind-workers", "N", "binds carried out at once",
       [](auto& f) { return std::to_string(f.bind_workers); },
       [](std::string name, SchedulerFlags& f) {
         return WholeNumberFlag(name, &f.bind_workers, 1, 256);
       }},
      {"status-period", "DURATION", "how often changed Queue and PodGroup status is written",
       [](auto& f) { return ShowDuration(f.status_period); },
       Duration(&SchedulerFlags::status_period)},
      {"default-staleness-grace-period", "DURATION",
       "how long a gang may run below its minMember before it is evicted, for PodGroups "
       "without spec.stalenessGracePeriod; negative: never",
       [](auto& f) { return std::to_string(f.default_staleness_grace_period.count()) + "s"; },
       [](std::string name, SchedulerFlags& f) {
         return ParsedFlag(name, &f.default_staleness_grace_period,
                           [](const std::string& v) -> Result<std::chrono::seconds> {
                             VT_ASSIGN_OR_RETURN(std::chrono::nanoseconds d, ParseDuration(v));
                             // Any negative value is never; others round up,
                             // as a PodGroup's do.
                             return std::chrono::seconds(d.count() < 0 ? -1 : CeilSeconds(d));
                           });
       }},
      {"usage-window", "DURATION",
       "time-based fairshare, as KAI's: the queues' over-quota shares follow what each held "
       "over this past window, which the scheduler keeps itself (in ConfigMap "
       "vtenant-scheduler[-<partition>]-usage in --leader-elect-namespace, across restarts); 0: "
       "off, unless --usage-window-type is cron",
       [](auto& f) { return ShowDuration(f.usage_window); },
       Seconds(&SchedulerFlags::usage_window, true)},
      {"usage-resolution", "DURATION",
       "how finely --usage-window is kept: the window moves, and usage ages, this much at a time",
       [](auto& f) { return ShowDuration(f.usage_resolution); },
       Seconds(&SchedulerFlags::usage_resolution, false)},
      {"usage-half-life", "DURATION",
       "usage this long ago counts half (KAI's halfLifePeriod); 0: all of the window alike",
       [](auto& f) { return ShowDuration(f.usage_half_life); },
       Seconds(&SchedulerFlags::usage_half_life, true)},
      {"usage-k", "K",
       "how strongly usage moves over-quota shares (KAI's kValue): a queue's weight becomes "
       "w + K * (w - usage), both as shares of the whole",
       [](auto& f) { return std::to_string(f.usage_k).substr(0, 4); },
       [](std::string name, SchedulerFlags& f) -> FlagBinding {
         return {name, [name, &f](const std::string& v) -> Status {
                   VT_ASSIGN_OR_RETURN(double k, ParseNumberFlag(name, v, 0));
                   if (k > 1000)
                     return InvalidArgument("--" + name + " \"" + v + "\" must be at most 1000");
                   f.usage_k = k;
                   return Status::Ok();
                 }};
       }},
      {"usage-window-type", "TYPE",
       "sliding (the last --usage-window), tumbling (windows of --usage-window from "
       "--usage-window-start, usage counted from the latest one's start) or cron (usage "
       "counted from the latest time --usage-cron names; on without --usage-window), as KAI's "
       "windowType",
       [](auto& f) { return f.usage_window_type; },
       [](std::string name, SchedulerFlags& f) {
         return ParsedFlag(
             name, &f.usage_window_type, [](const std::string& v) -> Result<std::string> {
               if (v != "sliding" && v != "tumbling" && v != "cron")
                 return InvalidArgument("\"" + v + "\": want sliding, tumbling or cron");
               return v;
             });
       }},
      {"usage-cron", "CRON",
       "when a cron window starts afresh, in UTC (\"0 0 * * 1\": Mondays at midnight; KAI's "
       "cronString, read as its cronexpr reads it)",
       [](auto& f) { return f.usage_cron.empty() ? std::string("\"\"") : f.usage_cron; },
       [](std::string name, SchedulerFlags& f) {
         return ParsedFlag(name, &f.usage_cron, [](const std::string& v) -> Result<std::string> {
           if (v.empty()) return v;
           VT_RETURN_IF_ERROR(CronSchedule::Parse(v).status());
           return v;
         });
       }},
      {"usage-window-start", "TIME",
       "when the first tumbling window starts, in RFC 3339 (2026-12-07T00:00:00Z; KAI's "
       "tumblingWindowStartTime)",
       [](auto& f) {
         return f.usage_window_start
                    ? FormatRfc3339(std::chrono::system_clock::from_time_t(*f.usage_window_start))
                    : std::string("\"\"");
       },
       [](std::string name, SchedulerFlags& f) {
         return ParsedFlag(
             name, &f.usage_window_start,
             [](const std::string& v) -> Result<std::optional<int64_t>> {
               auto t = ParseRfc3339(v);
               if (!t)
                 return InvalidArgument("\"" + v + "\": want a time like 2026-12-07T00:00:00Z");
               return std::optional<int64_t>(
                   std::chrono::duration_cast<std::chrono::seconds>(t->time_since_epoch()).count());
             });
       }},
      {"restrict-node-scheduling", "",
       "schedule only onto nodes labelled for a role: pods asking for a GPU onto nodes with "
       "--gpu-worker-node-label-key, others onto nodes with --cpu-worker-node-label-key; a node "
       "with neither is left alone",
       [](auto& f) { return f.restrict_node_scheduling ? "true" : "false"; },
       Bind(SwitchFlag, &SchedulerFlags::restrict_node_scheduling)},
      {"gpu-worker-node-label-key", "KEY",
       "with --restrict-node-scheduling, the node label (any value) of nodes that take GPU pods",
       [](auto& f) { return f.gpu_worker_node_label_key; },
       Bind(NonEmptyTextFlag, &SchedulerFlags::gpu_worker_node_label_key)},
      {"cpu-worker-node-label-key", "KEY",
       "with --restrict-node-scheduling, the node label (any value) of nodes that take pods "
       "asking for no GPU",
       [](auto& f) { return f.cpu_worker_node_label_key; },
       Bind(NonEmptyTextFlag, &SchedulerFlags::cpu_worker_node_label_key)},
      {"nodepool-label-key", "KEY",
       "the label whose value names the node pool of nodes, Queues, PodGroups and pods; this "
       "scheduler takes those of --partition-label-value (\"\": no pools)",
       [](auto& f) { return Quoted(f.nodepool_label_key); },
       Bind(TextFlag, &SchedulerFlags::nodepool_label_key)},
      {"partition-label-value", "VALUE",
       "the node pool this scheduler takes; \"\": the objects without --nodepool-label-key",
       [](auto& f) { return Quoted(f.partition_label_value); },
       Bind(TextFlag, &SchedulerFlags::partition_label_value)},
  };
  return flags;
}

}  // namespace

Result<SchedulerFlags> ParseFlags(const std::vector<std::string>& args) {
  SchedulerFlags f;
  std::vector<FlagBinding> table;
  for (const Flag& flag : Flags()) table.push_back(flag.bind(flag.name, f));
  VT_ASSIGN_OR_RETURN(SplitCommandLine split, ApplyFlags(args, table));
  f.help = split.help;
  if (f.usage_window_type == "tumbling" && !f.usage_window_start && !f.help)
    return InvalidArgument("--usage-window-type=tumbling needs --usage-window-start");
  if (f.usage_window_type == "cron" && f.usage_cron.empty() && !f.help)
    return InvalidArgument("--usage-window-type=cron needs --usage-cron");
  return f;
}

std::string Usage() {
  std::string out =
      "vtenant-scheduler: schedules GPU pods on the host cluster with KAI Scheduler's semantics\n"
      "(queues, fair share, gangs, fractional GPUs), binding, grouping pods and serving the\n"
      "admission webhook for GPU sharing.\n\nUsage: vtenant-scheduler [flags]\n\nFlags:\n";
  SchedulerFlags defaults;
  for (const Flag& f : Flags()) {
    std::string head =
        std::string("  --") + f.name +
        (std::string_view(f.value_name).empty() ? "" : std::string(" ") + f.value_name);
    out += head + "\n      " + f.help + " (default " + f.show_default(defaults) + ")\n";
  }
  out += "  -h, --help\n      this text\n";
  return out;
}

}  // namespace vtenant::scheduler
