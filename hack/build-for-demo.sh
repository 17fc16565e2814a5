#!/usr/bin/env bash
# Builds what `make demo` runs, and only that: the Kubernetes tools it names
# (Go, hack/build-tools.sh), then the C++ targets it names (CMake). Both are
# cached, so only a first run takes minutes. One after the other: each
# keeps both cores of a small machine busy on its own, and side by side
# they took longer (bench/RESULTS.md, "A newcomer's first make demo").
#
#   hack/build-for-demo.sh BUILD_DIR JOBS "TOOLS..." "TARGETS..."
#
# While it runs it says so every 30 s with the time so far, so that a first
# run never looks hung. The Go build's output goes to
# BUILD_DIR/build-tools.log and is shown if it fails.
set -euo pipefail
build_dir=$1 jobs=$2 tools=$3 targets=$4
cd "$(dirname "$0")/.."
log="$build_dir/build-tools.log"
start=$(date +%s)

(
  # One-second naps, so that nothing of it outlives this script by more.
  while :; do
    for _ in $(seq 30); do sleep 1; done
    echo "demo: building for $(( $(date +%s) - start ))s (the first time about 15 min on 2 cores)"
  done
) &
ticker_pid=$!
trap 'kill "$ticker_pid" 2>/dev/null || true' EXIT

echo "demo: the Kubernetes tools: $tools (output in $log)"
# shellcheck disable=SC2086  # the lists are space-separated on purpose
if ! hack/build-tools.sh $tools >"$log" 2>&1; then
  cat "$log" >&2
  echo "demo: building the Kubernetes tools failed (log above, and in $log)" >&2
  exit 1
fi
grep -E '^build-tools: (hack/tools/.* built in|all pinned|done)' "$log" || true
tools_done=$(( $(date +%s) - start ))
echo "demo: the programs: $targets"
# shellcheck disable=SC2086
cmake --build "$build_dir" -j "$jobs" --target $targets
echo "demo: built in $(( $(date +%s) - start ))s (the tools in ${tools_done}s)"
