#!/usr/bin/env bash
# Installs the Debian packages vtenant builds and tests with. Idempotent: when
# everything is present it says so and touches nothing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates
  libcpprest-dev libboost-dev rapidjson-dev libyaml-cpp-dev libssl-dev libgoogle-glog-dev
  libgtest-dev libgmock-dev libbenchmark-dev zlib1g-dev clang-format ccache
  # The real node (`vtenant up --real-node`) and its images: a container
  # runtime, pod networking, kube-proxy's iptables, and a static busybox as
  # the rootfs of the images hack/build-images.sh packs.
  containerd runc containernetworking-plugins iptables iproute2 busybox-static
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} Debian packages present"
else
  echo "install-deps: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "install-deps: done"
fi

if ! command -v go >/dev/null; then
  echo "install-deps: Go 1.26 or newer is needed to build the Kubernetes binaries (hack/tools);" \
       "install it and run again" >&2
  exit 1
fi
