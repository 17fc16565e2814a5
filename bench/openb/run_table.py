#!/usr/bin/env python3
"""Unallocated GPUs on the inflated openb trace, every policy side by side.

For each seed: make_trace.py makes the trace (130 % arrival), then
`vtenant-sim --each-pod-once` places it with every policy. Prints one
markdown table: unallocated GPUs (capacity minus allocated) when the arrived
GPU demand first reaches 100 % of capacity and at the end (130 %), per seed,
with the mean.

  run_table.py --sim build/scheduler-core/sim/vtenant-sim \\
      --data /work/shared/data/openb --seeds 1 2 3 4 5
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

POLICIES = ["fgd", "binpack", "best-fit", "random-fit", "spread"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sim", required=True, help="vtenant-sim binary")
    ap.add_argument("--data", required=True, help="folder with the two openb CSV files")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    ap.add_argument("--policies", nargs="+", default=POLICIES)
    ap.add_argument("--extra", nargs="*", default=[],
                    help="more vtenant-sim flags, e.g. --extra=--fgd-candidates=64")
    args = ap.parse_args()
    nodes = os.path.join(args.data, "openb_node_list_gpu_node.csv")
    pods = os.path.join(args.data, "openb_pod_list_default.csv")
    here = os.path.dirname(os.path.abspath(__file__))
    results = {}  # (policy, seed) -> (at 100 %, at 130 %)
    with tempfile.TemporaryDirectory() as tmp:
        for seed in args.seeds:
            trace = os.path.join(tmp, "openb-%d.csv" % seed)
            made = subprocess.run([sys.executable, os.path.join(here, "make_trace.py"),
                                   "--nodes", nodes, "--pods", pods, "--seed", str(seed),
                                   "--out", trace], check=True, capture_output=True, text=True)
            info = json.loads(made.stdout)
            for policy in args.policies:
                out = subprocess.run([args.sim, "--nodes", nodes, "--pods", trace, "--policy",
                                      policy, "--seed", str(seed), "--each-pod-once"] +
                                     [a for e in args.extra for a in e.split("=", 1)],
                                     check=True, capture_output=True, text=True)
                s = json.loads(out.stdout)
                cap = s["gpu_milli_capacity"]
                results[(policy, seed)] = ((cap - s["checkpoint_gpu_milli_allocated"]) / 1000,
                                           (cap - s["gpu_milli_allocated"]) / 1000,
                                           s["wall_seconds"])
            print("seed %d: %d pods" % (seed, info["pods"]), file=sys.stderr)
    header = "| policy | " + " | ".join("seed %d: 100 %% / 130 %%" % s for s in args.seeds)
    print(header + " | mean 100 % | mean 130 % |")
    print("| --- |" + " ---: |" * (len(args.seeds) + 2))
    for policy in args.policies:
        row = [results[(policy, s)] for s in args.seeds]
        cells = ["%.1f / %.1f" % (a, b) for a, b, _ in row]
        m100 = sum(a for a, _, _ in row) / len(row)
        m130 = sum(b for _, b, _ in row) / len(row)
        print("| %s | %s | %.1f | %.1f |" % (policy, " | ".join(cells), m100, m130))
    slow = max(r[2] for r in results.values())
    print("\nslowest single run: %.2f s" % slow, file=sys.stderr)


if __name__ == "__main__":
    main()
