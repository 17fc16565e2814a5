// The lifecycle kwok plays for simulated nodes and their pods.
//
// No kubelet and no GPU run here, so kwok stands in for the kubelet:
//   - a node becomes Ready and keeps its GPU capacity (leases keep it alive);
//   - a pod bound to a simulated node becomes Running with an IP;
//   - a pod annotated `vtenant.dev/run-duration: "30s"` finishes with exit
//     code 0 after that long (so Jobs complete), others run until deleted;
//   - a deleted pod loses its finalizers and goes away at once (no kubelet
//     to confirm it); one deleted with grace 0 is left to the API server.
#pragma once

namespace vtenant::localenv {

inline constexpr char kRunDurationAnnotation[] = "vtenant.dev/run-duration";

// Only stages: with no KwokConfiguration here, kwok keeps its defaults and
// takes the rest from flags (see node_agent.cc). Stages cannot share parts,
// so the running and finished stages spell out their alike selectors and
// container statuses each in full.
inline constexpr char kKwokStages[] = R"yaml(
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: vtenant-node-ready
spec:
  resourceRef: {apiGroup: v1, kind: Node}
  selector:
    matchExpressions:
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: NotIn
      values: ['True']
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      {{ range NodeConditions }}
      - lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ $now | Quote }}
        message: {{ .message | Quote }}
        reason: {{ .reason | Quote }}
        status: {{ .status | Quote }}
        type: {{ .type | Quote }}
      {{ end }}
      addresses:
      - address: {{ NodeIP | Quote }}
        type: InternalIP
      - address: {{ NodeName | Quote }}
        type: Hostname
      allocatable:
      {{ YAML .status.allocatable 1 }}
      capacity:
      {{ YAML .status.capacity 1 }}
      nodeInfo:
        architecture: amd64
        operatingSystem: linux
        kubeletVersion: simulated
        containerRuntimeVersion: simulated
      phase: Running
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: vtenant-pod-running
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: DoesNotExist
    - key: '.status.podIP'
      operator: DoesNotExist
  next:
    # Conditional on the copy the stage was matched on: kwok may play this
    # stage again from an older copy (a watch it restarts replays every pod),
    # and that write would give a running pod a second start and a new IP.
    # The API server refuses it (Conflict) and the newer copy wins.
    patches:
    - subresource: status
      template: |
        {{ $now := Now }}
        metadata:
          resourceVersion: {{ .metadata.resourceVersion | Quote }}
        status:
          conditions:
          - {lastTransitionTime: {{ $now | Quote }}, status: "True", type: Initialized}
          - {lastTransitionTime: {{ $now | Quote }}, status: "True", type: Ready}
          - {lastTransitionTime: {{ $now | Quote }}, status: "True", type: ContainersReady}
          - {lastTransitionTime: {{ $now | Quote }}, status: "True", type: PodScheduled}
          containerStatuses:
          {{ range .spec.containers }}
          - image: {{ .image | Quote }}
            name: {{ .name | Quote }}
            ready: true
            started: true
            restartCount: 0
            state:
              running:
                startedAt: {{ $now | Quote }}
          {{ end }}
          hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
          podIP: {{ PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) | Quote }}
          phase: Running
          startTime: {{ $now | Quote }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: vtenant-pod-finished
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: DoesNotExist
    - key: '.status.phase'
      operator: In
      values: ['Running']
    - key: '.metadata.annotations["vtenant.dev/run-duration"]'
      operator: Exists
  delay:
    durationMilliseconds: 0
    durationFrom:
      expressionFrom: '.metadata.annotations["vtenant.dev/run-duration"]'
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - {lastTransitionTime: {{ $now | Quote }}, status: "False", type: Ready, reason: PodCompleted}
      - {lastTransitionTime: {{ $now | Quote }}, status: "False", type: ContainersReady, reason: PodCompleted}
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        started: false
        restartCount: 0
        state:
          terminated:
            exitCode: 0
            reason: Completed
            startedAt: {{ $now | Quote }}
            finishedAt: {{ $now | Quote }}
      {{ end }}
      phase: Succeeded
---
# A deleted pod goes in two steps, each played once per pod: its finalizers
# are dropped, then it is deleted at once. One stage doing both would match
# again on the pod its own finalizer patch changed, and once more on the
# pod its own delete (grace 0) changed, each time failing with "not found"
# once the first play had deleted the pod.
# kwok plays a stage once for each matching event it has taken off its
# queue, so a pod updated twice between its bind and its start matches the
# running stage twice; the second play, from the older copy, is refused
# (the stage is conditional on its copy's resourceVersion). The scheduler
# binds a bare pod and names its PodGroup in one write (scheduler/binder.h)
# so that the refusal is rare. kwok can still replay a deletion from an old
# copy (deletes carry no precondition here) and log "not found".
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: vtenant-pod-finalizers-dropped
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: Exists
    - key: '.metadata.finalizers'
      operator: Exists
  next:
    finalizers: {empty: true}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: vtenant-pod-deleted
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: Exists
    - key: '.metadata.finalizers'
      operator: DoesNotExist
    # kwok compares only strings, booleans and ints, not the numbers it
    # reads from JSON: hence tostring.
    - key: '.metadata.deletionGracePeriodSeconds | tostring'
      operator: NotIn
      values: ['0']
  next:
    delete: true
)yaml";

}  // namespace vtenant::localenv
