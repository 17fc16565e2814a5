#!/usr/bin/env bash
# Runs ctest in a build tree and closes with one line: "N passed, N failed".
# Unit tests run in parallel; tests that start API servers are marked
# RUN_SERIAL in CMake, so ctest runs them one at a time.
set -uo pipefail
build_dir=${1:-build}
shift || true
log=$(mktemp)
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
summary=$(grep -E '[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)
rm -f "$log"
if [ -n "$summary" ]; then
  failed=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$summary")
  total=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<<"$summary")
  echo "$((total - failed)) passed, $failed failed"
elif [ "$status" -ne 0 ]; then
  echo "0 passed, 1 failed"
fi
exit "$status"
