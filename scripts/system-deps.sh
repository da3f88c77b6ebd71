#!/usr/bin/env bash
# Installs the system packages that the real-component tests need, if missing.
# Idempotent: does nothing when everything is present. As root it installs with
# apt; otherwise it prints the exact command to run and fails, so that no test
# ever skips silently because a component is missing.
#
# containerd, runc, the CNI plugins, umoci and skopeo are for the kubelet's cri
# runtime: the tests start a private containerd (test/e2e/testing/containerd.ts)
# and `k8ts image import` builds its images (busybox, and a static C pause built
# with gcc against libc6-dev's libc.a) with umoci and skopeo. h2load
# (nghttp2-client) is bench:api's load generator for creates and gets.
set -euo pipefail

# command → Debian package that provides it
declare -A needs=(
  [etcd]=etcd-server
  [etcdctl]=etcd-client
  [busybox]=busybox-static
  [containerd]=containerd
  [ctr]=containerd
  [runc]=runc
  [umoci]=umoci
  [skopeo]=skopeo
  [gcc]=gcc
  [ip]=iproute2
  [h2load]=nghttp2-client
)
# files (not on PATH) → Debian package
declare -A file_needs=(
  [/usr/lib/cni/bridge]=containernetworking-plugins
  [/usr/lib/cni/host-local]=containernetworking-plugins
  [/usr/lib/cni/loopback]=containernetworking-plugins
)
# Python modules of Debian's own interpreter → package (a test client: python3-kubernetes)
declare -A python_needs=(
  [kubernetes]=python3-kubernetes
)

has_static_libc() {
  local multiarch
  multiarch=$(gcc -print-multiarch 2>/dev/null || true)
  [ -e "/usr/lib/${multiarch:-x86_64-linux-gnu}/libc.a" ]
}

missing=()
for cmd in "${!needs[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || missing+=("${needs[$cmd]}")
done
for file in "${!file_needs[@]}"; do
  [ -e "$file" ] || missing+=("${file_needs[$file]}")
done
has_static_libc || missing+=(libc6-dev)
for module in "${!python_needs[@]}"; do
  /usr/bin/python3 -c "import $module" >/dev/null 2>&1 || missing+=("${python_needs[$module]}")
done
[ ${#missing[@]} -eq 0 ] && exit 0

# Unique, sorted package list.
mapfile -t packages < <(printf '%s\n' "${missing[@]}" | sort -u)
if [ "$(id -u)" -ne 0 ]; then
  echo "system-deps: missing packages: ${packages[*]}" >&2
  echo "system-deps: run: sudo apt-get update && sudo apt-get install -y ${packages[*]}" >&2
  exit 1
fi
echo "system-deps: installing ${packages[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# apt's and dpkg's chatter goes to a log that is shown only when the install fails.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Packaged services (etcd, containerd) may try to start; tests start their own
# on free ports and private sockets, so a failed or absent service manager is fine.
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${packages[@]}"; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "system-deps: apt-get install ${packages[*]} failed" >&2
  exit 1
fi
for cmd in "${!needs[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || { echo "system-deps: $cmd still missing after install" >&2; exit 1; }
done
for file in "${!file_needs[@]}"; do
  [ -e "$file" ] || { echo "system-deps: $file still missing after install" >&2; exit 1; }
done
has_static_libc || { echo "system-deps: libc.a still missing after install (libc6-dev)" >&2; exit 1; }
for module in "${!python_needs[@]}"; do
  /usr/bin/python3 -c "import $module" >/dev/null 2>&1 || { echo "system-deps: python module $module still missing after install" >&2; exit 1; }
done
