//go:build tools

// Package tools pins the helm command this module builds.
package tools

import _ "helm.sh/helm/v3/cmd/helm"
