#!/usr/bin/env bash
# Builds everything a real local node needs, each part into its own per-user cache folder
# (steward/node/<hash of that part's sources>, a no-op when already built), then gathers them in
# one folder of links, steward/node/<hash>/bin, and prints its path on the last line:
#   node (kubelet, kube-proxy), containerd, containerd-shim-runc-v2, ctr, buildkitd, buildctl, runc,
#   crictl, helm; cni/ (bridge, host-local, loopback, portmap); images/ (the base and pause images).
# A cold build takes about 10 minutes on 2 cores after the control plane's (FINDINGS.md); GOFLAGS=-p=1
# on a shared machine.
set -euo pipefail
cd "$(dirname "$0")"
part() { bash "$1/build.sh" | tail -1; }
kube=$(part kube)
containers=$(part containers)
runc=$(part runc)
cni=$(part cni)
crictl=$(part crictl)
helm=$(part helm)
images=$(part images)
cache=${STEWARD_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/steward/node}
bin="$cache/$(echo "$kube $containers $runc $cni $crictl $helm $images" | sha256sum | cut -c1-16)/bin"
if [ ! -e "$bin/images" ]; then
  mkdir -p "$bin.tmp"
  ln -sfn "$kube" "$bin.tmp/node"
  for b in containerd containerd-shim-runc-v2 ctr buildkitd buildctl; do ln -sfn "$containers/$b" "$bin.tmp/$b"; done
  ln -sfn "$runc" "$bin.tmp/runc"
  ln -sfn "$crictl" "$bin.tmp/crictl"
  ln -sfn "$helm" "$bin.tmp/helm"
  ln -sfn "$cni" "$bin.tmp/cni"
  ln -sfn "$images" "$bin.tmp/images"
  rm -rf "$bin"; mv "$bin.tmp" "$bin"
fi
echo "$bin"
