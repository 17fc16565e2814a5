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
# A failing binary's output can be long enough that only its start and the
# summary are read; repeat each failed assertion here, next to the summary.
if grep -qE ': Failure$|\[  FAILED  \]' "$log"; then
  echo "Failed assertions (repeated from above):"
  grep -E -A6 ': Failure$' "$log" | head -n 120
  grep -E '^\[  FAILED  \] [A-Za-z]' "$log" | sort -u | head -n 40
fi
rm -f "$log"
if [ -n "$summary" ]; then
  failed=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$summary")
  total=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<<"$summary")
  echo "$((total - failed)) passed, $failed failed"
elif [ "$status" -ne 0 ]; then
  echo "0 passed, 1 failed"
fi
exit "$status"
