#!/usr/bin/env bash
# Builds the pinned Kubernetes binaries that vtenant's tests and local
# environment run, from Go modules (hack/tools/*/go.mod pin the versions),
# into a cache shared by every clone on the machine, and links them into
# .tools/bin. A tool whose pinned module files have not changed is not
# rebuilt: the cache key is a hash of its go.mod, go.sum and the Go version.
#
#   hack/build-tools.sh            # the control-plane tools (what `make demo` needs)
#   hack/build-tools.sh kubectl    # just some
#   hack/build-tools.sh kubelet kube-proxy   # the real node's (`vtenant up --real-node`)
#
# Environment: VTENANT_TOOLS_CACHE (default ~/.cache/vtenant/tools).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${VTENANT_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vtenant/tools}
bin="$root/.tools/bin"
mkdir -p "$cache" "$bin"

if ! command -v go >/dev/null; then
  echo "build-tools: Go is required (1.26 or newer) and was not found on PATH" >&2
  exit 1
fi
go_version=$(go env GOVERSION)

# tool  module-folder  package
tools=(
  "kube-apiserver          kubernetes  k8s.io/kubernetes/cmd/kube-apiserver"
  "kube-controller-manager kubernetes  k8s.io/kubernetes/cmd/kube-controller-manager"
  "kube-scheduler          kubernetes  k8s.io/kubernetes/cmd/kube-scheduler"
  "kubectl                 kubernetes  k8s.io/kubernetes/cmd/kubectl"
  "etcd                    etcd        ."
  "helm                    helm        helm.sh/helm/v3/cmd/helm"
  "kwok                    kwok        sigs.k8s.io/kwok/cmd/kwok"
)
# Built only when named: the real node is optional, and the kubelet alone
# takes many minutes to compile on a small machine.
node_tools=(
  "kubelet                 kubernetes-node  k8s.io/kubernetes/cmd/kubelet"
  "kube-proxy              kubernetes-node  k8s.io/kubernetes/cmd/kube-proxy"
)

wanted=("$@")
for w in "${wanted[@]}"; do
  case $w in kubelet|kube-proxy) tools+=("${node_tools[@]}"); break ;; esac
done
is_wanted() {
  [ ${#wanted[@]} -eq 0 ] && return 0
  local w
  for w in "${wanted[@]}"; do [ "$w" = "$1" ] && return 0; done
  return 1
}

# The pinned module files and the Go version decide whether a build is current.
cache_key() {
  cat "$1/go.mod" "$1/go.sum" "$1"/*.go 2>/dev/null | { cat; echo "$go_version"; } |
    sha256sum | cut -c1-16
}

# Version stamps so `--version` prints the pinned release, not "v0.0.0".
ldflags_for() {
  local module_dir=$1 version
  case $(basename "$module_dir") in
    kubernetes|kubernetes-node)
      version=$(cd "$module_dir" && go list -m -f '{{.Version}}' k8s.io/kubernetes)
      local minor=${version#v1.}; minor=${minor%%.*}
      echo "-X k8s.io/component-base/version.gitVersion=$version" \
           "-X k8s.io/component-base/version.gitMajor=1" \
           "-X k8s.io/component-base/version.gitMinor=$minor" \
           "-X k8s.io/client-go/pkg/version.gitVersion=$version" \
           "-X k8s.io/client-go/pkg/version.gitMajor=1" \
           "-X k8s.io/client-go/pkg/version.gitMinor=$minor" ;;
    helm)
      version=$(cd "$module_dir" && go list -m -f '{{.Version}}' helm.sh/helm/v3)
      echo "-X helm.sh/helm/v3/internal/version.version=$version" ;;
    *) echo "" ;;
  esac
}

# Group the wanted tools by module so one `go build` links several commands.
declare -A pending_by_module=()
for entry in "${tools[@]}"; do
  read -r name module pkg <<<"$entry"
  is_wanted "$name" || continue
  module_dir="$root/hack/tools/$module"
  key=$(cache_key "$module_dir")
  target="$cache/$module-$key/$name"
  if [ ! -x "$target" ]; then
    pending_by_module[$module]+="$name:$pkg "
  fi
  ln -sfn "$target" "$bin/$name"
done

if [ ${#pending_by_module[@]} -eq 0 ]; then
  echo "build-tools: all pinned tools present in $bin ($(readlink "$bin/kube-apiserver" 2>/dev/null | xargs -r dirname | xargs -r basename))"
  exit 0
fi

for module in "${!pending_by_module[@]}"; do
  module_dir="$root/hack/tools/$module"
  key=$(cache_key "$module_dir")
  out="$cache/$module-$key"
  mkdir -p "$out"
  pkgs=()
  names=()
  for item in ${pending_by_module[$module]}; do
    names+=("${item%%:*}")
    pkgs+=("${item#*:}")
  done
  echo "build-tools: building ${names[*]} from hack/tools/$module ..."
  start=$(date +%s)
  tmp=$(mktemp -d "$out/.build-XXXXXX")
  # CGO off: static binaries, no C toolchain surprises; -trimpath for
  # reproducibility. The linker strips debug information (-s -w), so the
  # compiler need not write it (-dwarf=false): a fifth less compile time.
  (cd "$module_dir" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath \
      -gcflags=all=-dwarf=false \
      -ldflags "-s -w $(ldflags_for "$module_dir")" -o "$tmp/" "${pkgs[@]}")
  mv "$tmp"/* "$out/"
  rmdir "$tmp"
  echo "build-tools: hack/tools/$module built in $(( $(date +%s) - start ))s"
done

for entry in "${tools[@]}"; do
  read -r name _ _ <<<"$entry"
  is_wanted "$name" || continue
  if [ ! -x "$bin/$name" ]; then
    echo "build-tools: $name did not build" >&2
    exit 1
  fi
done
"$bin/kube-apiserver" --version 2>/dev/null || "$bin/kubelet" --version 2>/dev/null || true
echo "build-tools: done; tools in $bin, cache in $cache ($(du -sh "$cache" | cut -f1))"
