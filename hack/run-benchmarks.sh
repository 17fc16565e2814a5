#!/usr/bin/env bash
# Runs every benchmark binary the build produced (bench/bench_*), one after
# another so they do not compete for the two cores. Results go to stdout;
# bench/RESULTS.md records the numbers with the machine and command.
set -euo pipefail
build_dir=${1:-build}
found=0
for b in "$build_dir"/bench/bench_*; do
  [ -x "$b" ] || continue
  found=1
  echo "== $(basename "$b")"
  "$b" --benchmark_counters_tabular=true
done
[ "$found" -eq 1 ] || echo "no benchmarks built in $build_dir/bench"
