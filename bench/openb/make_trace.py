#!/usr/bin/env python3
"""Makes the inflated openb trace that FGD's artifact replays, for vtenant-sim.

The protocol of Weng et al. (USENIX ATC'23) and their simulator
(hkust-adsl/kubernetes-scheduler-simulator), so numbers compare:

  1. every pod of the trace, CPU-only pods included, sorted by name and
     shuffled once with a fixed seed;
  2. then pods drawn uniformly with replacement from those and appended
     until the arrived GPU demand would pass `--arrival` (1.3 = 130 %) of
     the cluster's GPU capacity;
  3. no deletions; each pod arrives one second after the previous one, so
     `vtenant-sim --no-deletions --allocate-only` tries each once, in order.

GPU demand of a pod is num_gpu * gpu_milli (a whole-GPU pod: num_gpu * 1000).

  make_trace.py --nodes openb_node_list_gpu_node.csv \\
      --pods openb_pod_list_default.csv --seed 42 --arrival 1.3 --out /tmp/openb-42.csv

Writes the simulator's pods CSV (scheduler-core/sim/trace.h) and prints a
one-line JSON summary (pods, capacity and demand in milli-GPU).
"""

import argparse
import csv
import json
import random
import sys


def gpu_demand(row):
    num = int(row["num_gpu"])
    milli = int(row["gpu_milli"])
    return num * (1000 if milli in (0, 1000) else milli)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", required=True, help="openb node list CSV")
    ap.add_argument("--pods", required=True, help="openb pod list CSV")
    ap.add_argument("--seed", type=int, default=42, help="shuffle and draw seed")
    ap.add_argument("--arrival", type=float, default=1.3,
                    help="stop before arrived GPU demand passes this share of capacity")
    ap.add_argument("--out", required=True, help="pods CSV to write")
    args = ap.parse_args()
    if args.arrival <= 0:
        sys.exit("make_trace.py: --arrival must be positive")

    with open(args.nodes, newline="") as f:
        capacity = sum(int(r["gpu"]) * 1000 for r in csv.DictReader(f))
    with open(args.pods, newline="") as f:
        pods = list(csv.DictReader(f))
    if not pods or capacity == 0:
        sys.exit("make_trace.py: no pods or no GPUs in the input")

    rng = random.Random(args.seed)
    pods.sort(key=lambda r: r["name"])
    rng.shuffle(pods)
    limit = args.arrival * capacity
    demand = 0
    out = []
    for row in pods:
        if demand + gpu_demand(row) > limit:
            break
        demand += gpu_demand(row)
        out.append(dict(row))
    if len(out) == len(pods):
        clone = 0
        while True:
            row = dict(rng.choice(pods))
            if demand + gpu_demand(row) > limit:
                break
            demand += gpu_demand(row)
            row["name"] = "%s-clone-%d" % (row["name"], clone)
            clone += 1
            out.append(row)

    fields = ["name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "qos",
              "pod_phase", "creation_time", "deletion_time", "scheduled_time"]
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for i, row in enumerate(out):
            row["creation_time"] = i
            row["deletion_time"] = ""
            row["scheduled_time"] = ""
            w.writerow(row)
    print(json.dumps({"pods": len(out), "gpu_milli_capacity": capacity,
                      "gpu_milli_demand": demand, "seed": args.seed}))


if __name__ == "__main__":
    main()
