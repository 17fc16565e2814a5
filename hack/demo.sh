#!/usr/bin/env bash
# The reference scenario on this machine (make demo): a local host cluster
# with one simulated NVIDIA L40S, the parent queue ml-org and the teams nlp,
# vision and recsys; each team starts one 0.33-GPU pod through its own
# kubeconfig, cannot see the others' pods, and gets 330m of the GPU.
set -euo pipefail
build_dir=${1:-build}
cd "$(dirname "$0")/.."
vtenant="$build_dir/cli/vtenant"
kubectl=.tools/bin/kubectl
state=.vtenant
teams=(nlp vision recsys)

step() { printf '\n==> %s\n' "$*"; }
fail() { printf '\ndemo: %s\n' "$*" >&2; exit 1; }
# Polls "$@" every second until it succeeds, for at most $limit seconds.
wait_for() {
  local limit=$1 what=$2; shift 2
  for _ in $(seq "$limit"); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
  fail "$what did not happen within ${limit}s; logs are in $state/"
}

[ -x "$vtenant" ] || fail "$vtenant is not built: make build"
[ -x "$kubectl" ] || fail "$kubectl is missing: make deps"
for program in operator/vtenant-operator scheduler/vtenant-scheduler syncer/vtenant-syncer; do
  [ -x "$build_dir/$program" ] || fail "$build_dir/$program is not built: make build"
done

step "vtenant up"
"$vtenant" up
host=$state/host.kubeconfig
"$vtenant" kubeconfig --host >"$host"
k() { "$kubectl" --kubeconfig "$host" "$@"; }

step "kubectl apply -k examples/tenants   (parent queue ml-org, Tenants nlp, vision, recsys)"
k apply -k examples/tenants

tenant_ready() { [ "$(k get tenants.vtenant.io "$1" -o jsonpath='{.status.phase}')" = Ready ]; }
for t in "${teams[@]}"; do
  wait_for 120 "tenant $t becoming Ready" tenant_ready "$t"
  "$vtenant" kubeconfig "$t" >"$state/$t.kubeconfig"
done
echo "all three tenants are Ready; their kubeconfigs are in $state/<team>.kubeconfig"

step "each team starts one 0.33-GPU pod in its own virtual cluster"
for t in "${teams[@]}"; do
  "$kubectl" --kubeconfig "$state/$t.kubeconfig" apply -k "examples/tenants/$t/workloads"
done
pod_running() {
  [ "$("$kubectl" --kubeconfig "$state/$1.kubeconfig" get pod "$1-train" \
      -o jsonpath='{.status.phase}')" = Running ]
}
for t in "${teams[@]}"; do wait_for 120 "pod $t-train running" pod_running "$t"; done

step "what nlp sees in its cluster: only its own pods"
"$kubectl" --kubeconfig "$state/nlp.kubeconfig" get pods -A
echo
echo "\$ kubectl --kubeconfig $state/nlp.kubeconfig get pod vision-train"
"$kubectl" --kubeconfig "$state/nlp.kubeconfig" get pod vision-train 2>&1 || true

step "the host: every team's pod in its own namespace, placed on the one L40S"
k get pods -A -l vtenant.io/managed-by=vtenant-syncer \
  -o custom-columns='NAMESPACE:.metadata.namespace,POD:.metadata.name,QUEUE:.metadata.labels.kai\.scheduler/queue,GPU:.metadata.annotations.gpu-fraction,NODE:.spec.nodeName,PHASE:.status.phase'

allocated_330m() {
  for t in "${teams[@]}"; do
    [ "$(k get queues.scheduling.run.ai "$t" -o 'jsonpath={.status.allocated.nvidia\.com/gpu}')" = 330m ] || return 1
  done
}
wait_for 60 "queue status showing 330m for each team" allocated_330m

step "vtenant tenants"
"$vtenant" tenants
step "vtenant queues"
"$vtenant" queues

cat <<EOT

Connect:
  the host, as admin:    export KUBECONFIG=$PWD/$host
  a team's own cluster:  $vtenant kubeconfig nlp > nlp.kubeconfig
                         kubectl --kubeconfig nlp.kubeconfig get pods -A
  as a kubectl plugin:   PATH=\$PATH:$PWD/$build_dir/cli kubectl vtenant queues
Scenarios: examples/tenants/scenarios/ (burst, gpu-memory, gang, two-gpus)
Health: $vtenant status   (pid, restarts and health of each component)
Stop:   make down     (or $vtenant down; the data stays, \`make demo\` resumes it)
Remove: $vtenant delete
EOT
