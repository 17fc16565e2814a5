#include "bench/workload.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "scheduler-core/fair_share.h"

namespace vtenant::bench {
namespace {

using sched::kMilliPerGpu;
using sched::kUnlimited;
using sched::Milli;

constexpr int64_t kGiB = int64_t{1} << 30;

std::vector<QueueSpec> QueueTreeSpecs(int leaves, Milli capacity_gpu, std::mt19937_64& rng) {
  std::vector<QueueSpec> queues;
  const int parents = std::max(1, leaves / 10);
  // Quotas add up to 80% of the cluster: the rest is over-quota territory.
  const Milli leaf_quota = capacity_gpu * 8 / 10 / std::max(1, leaves);
  std::vector<Milli> parent_quota(parents, 0);
  for (int l = 0; l < leaves; ++l) parent_quota[l % parents] += leaf_quota;
  for (int p = 0; p < parents; ++p)
    queues.push_back(sched::GpuQueue("dept-" + std::to_string(p), "", parent_quota[p]));
  std::uniform_int_distribution<int> weight(1, 4);
  for (int l = 0; l < leaves; ++l)
    queues.push_back(sched::GpuQueue("team-" + std::to_string(l),
                                     "dept-" + std::to_string(l % parents), leaf_quota, kUnlimited,
                                     weight(rng)));
  return queues;
}

NodeSpec MakeNode(const WorkloadConfig& c, int i) {
  NodeSpec n;
  n.name = "node-" + std::to_string(i);
  n.cpu_milli = 128000;
  n.memory_bytes = 2048 * kGiB;
  n.max_pods = 256;
  n.gpus = c.gpus_per_node;
  n.gpu_memory_mib = c.gpu_memory_mib;
  n.gpu_model = c.gpu_model;
  n.labels = {{sched::sim::kGpuModelLabel, c.gpu_model},
              {"topology.kubernetes.io/zone", "zone-" + std::to_string(i / 256)},
              {"network.vtenant.io/rack", "rack-" + std::to_string(i / 16)}};
  return n;
}

}  // namespace

JobMix JobMix::Fractional() {
  return {.fraction_25 = 30,
          .fraction_33 = 20,
          .fraction_50 = 20,
          .gpu_memory = 10,
          .one_gpu = 12,
          .eight_gpu = 2,
          .gang_8x8 = 0,
          .cpu_only = 6};
}

Workload Generate(const WorkloadConfig& c) {
  std::mt19937_64 rng(c.seed);
  Workload w;
  for (int i = 0; i < c.nodes; ++i) w.nodes.push_back(MakeNode(c, i));
  const Milli capacity = Milli{c.nodes} * c.gpus_per_node * kMilliPerGpu;
  w.queues = QueueTreeSpecs(c.leaf_queues, capacity, rng);
  const JobMix& m = c.mix;
  std::discrete_distribution<int> kind({m.fraction_25, m.fraction_33, m.fraction_50, m.gpu_memory,
                                        m.one_gpu, m.eight_gpu, m.gang_8x8, m.cpu_only});
  std::uniform_int_distribution<int> leaf(0, c.leaf_queues - 1);
  std::uniform_int_distribution<int> priority(0, 2);
  std::uniform_real_distribution<double> unit(0, 1);
  std::exponential_distribution<double> lifetime(c.mean_lifetime_s > 0 ? 1.0 / c.mean_lifetime_s
                                                                       : 1);

  // Running pods first: whole GPUs and halves, node after node, until the
  // fill is reached.
  const Milli fill = static_cast<Milli>(c.running_fill * capacity);
  Milli filled = 0;
  int job = 0;
  for (int n = 0; n < c.nodes && filled < fill; ++n) {
    for (int d = 0; d < c.gpus_per_node && filled < fill; ++d) {
      const std::string queue = "team-" + std::to_string(leaf(rng));
      const bool halves = unit(rng) < 0.3;
      for (int h = 0; h < (halves ? 2 : 1); ++h) {
        PodSpec p;
        p.name = "run-" + std::to_string(job++);
        p.queue = queue;
        p.priority = priority(rng);
        p.cpu_milli = halves ? 2000 : 8000;
        p.memory_bytes = (halves ? 16 : 64) * kGiB;
        if (halves)
          p.gpu_fraction = 500;
        else
          p.whole_gpus = 1;
        p.node = w.nodes[n].name;
        p.devices = {d};
        w.pods.push_back(p);
        w.deletion_time.push_back(-1);
      }
      filled += kMilliPerGpu;
    }
  }

  int pods = 0;
  while (pods < c.pods) {
    const int k = kind(rng);
    const std::string queue = "team-" + std::to_string(leaf(rng));
    const int64_t created = c.duration_s > 0 ? static_cast<int64_t>(unit(rng) * c.duration_s) : job;
    const int64_t deleted =
        c.mean_lifetime_s > 0 ? created + 1 + static_cast<int64_t>(lifetime(rng)) : -1;
    PodSpec p;
    p.queue = queue;
    p.priority = priority(rng);
    p.creation_time = created;
    p.cpu_milli = 1000;
    p.memory_bytes = 4 * kGiB;
    switch (k) {
      case 0:
        p.gpu_fraction = 250;
        break;
      case 1:
        p.gpu_fraction = 330;
        break;
      case 2:
        p.gpu_fraction = 500;
        break;
      case 3:
        p.gpu_memory_mib = unit(rng) < 0.5 ? 10000 : 20000;
        break;
      case 4:
        p.whole_gpus = 1;
        p.cpu_milli = 8000;
        p.memory_bytes = 64 * kGiB;
        break;
      case 5:
        p.whole_gpus = 8;
        p.cpu_milli = 64000;
        p.memory_bytes = 512 * kGiB;
        break;
      case 6: {
        GroupSpec g;
        g.name = "gang-" + std::to_string(job++);
        g.queue = queue;
        g.min_member = 8;
        g.priority = p.priority;
        g.creation_time = created;
        w.groups.push_back(g);
        for (int i = 0; i < 8; ++i) {
          PodSpec member = p;
          member.name = g.name + "-" + std::to_string(i);
          member.group = g.name;
          member.queue.clear();
          member.whole_gpus = 8;
          member.cpu_milli = 64000;
          member.memory_bytes = 512 * kGiB;
          w.pods.push_back(member);
          w.deletion_time.push_back(deleted);
        }
        pods += 8;
        continue;
      }
      default:
        p.cpu_milli = 4000;
        break;
    }
    p.name = "job-" + std::to_string(job++);
    w.pods.push_back(p);
    w.deletion_time.push_back(deleted);
    ++pods;
  }
  return w;
}

Result<sched::Snapshot> BuildSnapshot(const Workload& w) {
  sched::SnapshotBuilder b;
  b.SetNow(1 << 30);
  for (const NodeSpec& n : w.nodes) b.AddNode(n);
  for (const QueueSpec& q : w.queues) b.AddQueue(q);
  for (const GroupSpec& g : w.groups) b.AddGroup(g);
  for (const PodSpec& p : w.pods) b.AddPod(p);
  return b.Build();
}

sched::sim::Trace ToTrace(const Workload& w) {
  sched::sim::Trace t;
  t.nodes = w.nodes;
  t.queues = w.queues;
  std::map<std::string, const GroupSpec*> groups;
  for (const GroupSpec& g : w.groups) groups[g.name] = &g;
  for (size_t i = 0; i < w.pods.size(); ++i) {
    sched::sim::PodRecord r;
    r.spec = w.pods[i];
    r.spec.node.clear();
    r.spec.devices.clear();
    r.qos = r.spec.priority > 0 ? "LS" : "BE";
    r.phase = "Pending";
    r.deletion_time = w.deletion_time[i];
    if (!r.spec.group.empty()) {
      const GroupSpec* g = groups.at(r.spec.group);
      r.gang = g->name;
      r.min_member = g->min_member;
      r.spec.queue = g->queue;
      r.spec.group.clear();
    }
    // A fraction in the trace format is gpu_milli on num_gpu devices.
    t.pods.push_back(std::move(r));
  }
  return t;
}

Workload ReclaimScenario(int nodes, uint64_t seed) {
  WorkloadConfig c;
  c.nodes = nodes;
  Workload w;
  for (int i = 0; i < nodes; ++i) w.nodes.push_back(MakeNode(c, i));
  const Milli capacity = Milli{nodes} * 8 * kMilliPerGpu;
  w.queues.push_back(sched::GpuQueue("hog", "", 0));
  w.queues.push_back(sched::GpuQueue("starved", "", capacity / 2));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> start(0, 100000);
  int id = 0;
  for (int n = 0; n < nodes; ++n) {
    for (int d = 0; d < 8; ++d) {
      PodSpec p;
      p.name = "hog-" + std::to_string(id++);
      p.queue = "hog";
      p.whole_gpus = 1;
      p.cpu_milli = 8000;
      p.memory_bytes = 64 * kGiB;
      p.node = w.nodes[n].name;
      p.devices = {d};
      p.start_time = start(rng);
      w.pods.push_back(p);
      w.deletion_time.push_back(-1);
    }
  }
  // Large jobs: gangs of 8 pods x 8 GPUs, for 80% of the cluster in total.
  const int gangs = std::max(1, nodes / 10);
  for (int g = 0; g < gangs; ++g) {
    GroupSpec group;
    group.name = "train-" + std::to_string(g);
    group.queue = "starved";
    group.min_member = 8;
    group.creation_time = g;
    w.groups.push_back(group);
    for (int i = 0; i < 8; ++i) {
      PodSpec p;
      p.name = group.name + "-" + std::to_string(i);
      p.group = group.name;
      p.whole_gpus = 8;
      p.cpu_milli = 64000;
      p.memory_bytes = 512 * kGiB;
      p.creation_time = g;
      w.pods.push_back(p);
      w.deletion_time.push_back(-1);
    }
  }
  return w;
}

QueueTree MakeQueueTree(int leaves, uint64_t seed) {
  std::mt19937_64 rng(seed);
  QueueTree t;
  t.capacity = sched::MakeResources(Milli{8000} * 1000, 128000LL * 1000, 2048 * kGiB * 1000);
  std::vector<QueueSpec> specs = QueueTreeSpecs(leaves, t.capacity[sched::kGpu], rng);
  std::map<std::string, sched::QueueId> ids;
  for (const QueueSpec& s : specs) {
    sched::Queue q;
    q.name = s.name;
    q.parent = s.parent.empty() ? sched::kNone : ids.at(s.parent);
    q.resources = s.resources;
    ids[s.name] = static_cast<sched::QueueId>(t.queues.size());
    t.queues.push_back(q);
  }
  for (sched::QueueId q = 0; q < t.queues.size(); ++q)
    if (t.queues[q].parent != sched::kNone) t.queues[t.queues[q].parent].children.push_back(q);
  std::vector<sched::ResourceVector> leaf(t.queues.size());
  std::uniform_int_distribution<Milli> want(0, 400000);
  for (sched::QueueId q = 0; q < t.queues.size(); ++q)
    if (t.queues[q].children.empty())
      leaf[q] = sched::MakeResources(want(rng), want(rng) * 16, want(rng) * kGiB / 1000);
  t.requested = sched::RollUp(t.queues, leaf);
  return t;
}

}  // namespace vtenant::bench
