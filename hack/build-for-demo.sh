#!/usr/bin/env bash
# Builds what `make demo` runs, and only that: the Kubernetes tools it names
# (Go, hack/build-tools.sh) and the C++ targets it names (CMake). Both are
# cached, so only a first run takes minutes.
#
# The two run side by side, the C++ build at the lowest priority: the Go
# build keeps both cores of a small machine nearly busy on its own, and as
# equals the two only contended (bench/RESULTS.md, "A newcomer's first make
# demo"); at nice 19 the C++ build takes just what the Go build leaves idle
# (its serial module loading and links), then both cores once Go is done.
#
#   hack/build-for-demo.sh BUILD_DIR JOBS "TOOLS..." "TARGETS..."
#
# While it runs it says so every 30 s with the time so far, so that a first
# run never looks hung. Each build's output goes to a log in BUILD_DIR
# (build-tools.log, build-programs.log) and is shown if that build fails.
set -euo pipefail
build_dir=$1 jobs=$2 tools=$3 targets=$4
cd "$(dirname "$0")/.."
tools_log="$build_dir/build-tools.log"
programs_log="$build_dir/build-programs.log"
start=$(date +%s)

(
  # One-second naps, so that nothing of it outlives this script by more.
  while :; do
    for _ in $(seq 30); do sleep 1; done
    echo "demo: building for $(( $(date +%s) - start ))s (the first time about 10 min on 2 cores)"
  done
) &
ticker_pid=$!
programs_pid=
stop_all() {
  kill "$ticker_pid" 2>/dev/null || true
  # The C++ build runs in a session of its own: this stops its compilers too.
  [ -n "$programs_pid" ] && kill -- -"$programs_pid" 2>/dev/null || true
}
trap stop_all EXIT

echo "demo: the programs: $targets (output in $programs_log)"
# shellcheck disable=SC2086  # the lists are space-separated on purpose
setsid nice -n 19 cmake --build "$build_dir" -j "$jobs" --target $targets >"$programs_log" 2>&1 &
programs_pid=$!

echo "demo: the Kubernetes tools: $tools (output in $tools_log)"
# shellcheck disable=SC2086
if ! hack/build-tools.sh $tools >"$tools_log" 2>&1; then
  cat "$tools_log" >&2
  echo "demo: building the Kubernetes tools failed (log above, and in $tools_log)" >&2
  exit 1
fi
grep -E '^build-tools: (hack/tools/.* built in|all pinned|done)' "$tools_log" || true
echo "demo: the tools built in $(( $(date +%s) - start ))s; the programs go on alone"

if ! wait "$programs_pid"; then
  programs_pid=
  cat "$programs_log" >&2
  echo "demo: building the programs failed (log above, and in $programs_log)" >&2
  exit 1
fi
programs_pid=
echo "demo: built in $(( $(date +%s) - start ))s"
