#!/usr/bin/env bash
# Runs every benchmark binary the build produced (bench/bench_*), one after
# another so they do not compete for the two cores. Results go to stdout;
# bench/RESULTS.md records the numbers with the machine and command.
#
# Only bench_scheduler is a Google Benchmark program and takes its flags; the
# others time one run of a bulk operation each and refuse flags they do not
# know. bench_soak runs 30 minutes and writes bench/soak/ in the source tree,
# so it runs only when asked: VTENANT_BENCH_SOAK=1.
set -euo pipefail
build_dir=${1:-build}
found=0
for b in "$build_dir"/bench/bench_*; do
  [ -x "$b" ] || continue
  found=1
  name=$(basename "$b")
  case "$name" in
    bench_scheduler) args=(--benchmark_counters_tabular=true) ;;
    bench_soak)
      if [ "${VTENANT_BENCH_SOAK:-0}" != 1 ]; then
        echo "== $name skipped (30 minutes; VTENANT_BENCH_SOAK=1 runs it)"
        continue
      fi
      args=() ;;
    *) args=() ;;
  esac
  echo "== $name"
  "$b" "${args[@]}"
done
[ "$found" -eq 1 ] || echo "no benchmarks built in $build_dir/bench"
