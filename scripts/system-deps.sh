#!/usr/bin/env bash
# Installs the system packages that the real-component tests need, if missing.
# Idempotent: does nothing when everything is present. As root it installs with
# apt; otherwise it prints the exact command to run and fails, so that no test
# ever skips silently because a component is missing.
set -euo pipefail

# command → Debian package that provides it
declare -A needs=(
  [etcd]=etcd-server
  [etcdctl]=etcd-client
  [busybox]=busybox-static
)
# Python modules of Debian's own interpreter → package (a test client: python3-kubernetes)
declare -A python_needs=(
  [kubernetes]=python3-kubernetes
)

missing=()
for cmd in "${!needs[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || missing+=("${needs[$cmd]}")
done
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
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${packages[@]}" >&2
# The Debian package may start its own etcd service; tests start their own on free ports.
for cmd in "${!needs[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || { echo "system-deps: $cmd still missing after install" >&2; exit 1; }
done
for module in "${!python_needs[@]}"; do
  /usr/bin/python3 -c "import $module" >/dev/null 2>&1 || { echo "system-deps: python module $module still missing after install" >&2; exit 1; }
done
