//go:build tools

// Package tools pins the node commands of the Kubernetes release that
// hack/tools/kubernetes builds the control plane of: the kubelet and
// kube-proxy run only on the optional real node (`vtenant up --real-node`),
// so they live in their own module and the control-plane tools' cache key
// does not change with them.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
