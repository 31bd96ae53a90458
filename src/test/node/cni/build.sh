#!/usr/bin/env bash
# Builds the CNI plugins the local node uses (bridge, host-local, loopback, portmap) from
# github.com/containernetworking/plugins v1.10.0 (its own go.mod through `go install`) into a
# per-user cache keyed by this script, and prints that folder (containerd's CNI bin_dir) on its last
# line. A second run is a no-op.
set -euo pipefail
cd "$(dirname "$0")"
binaries="bridge host-local loopback portmap" prints=.
source ../../go-tool-build.sh node "the CNI plugins v1.10.0 (bridge, host-local, loopback, portmap)" build.sh
plugins=github.com/containernetworking/plugins
gobin="$out/.gobin"; rm -rf "$gobin"
GOBIN="$gobin" CGO_ENABLED=0 go install -trimpath \
  -ldflags "-s -w -X github.com/containernetworking/plugins/pkg/utils/buildversion.BuildVersion=v1.10.0" \
  $plugins/plugins/main/bridge@v1.10.0 $plugins/plugins/ipam/host-local@v1.10.0 \
  $plugins/plugins/main/loopback@v1.10.0 $plugins/plugins/meta/portmap@v1.10.0 >&2
for b in $binaries; do mv "$gobin/$b" "$out/$b.tmp"; done
rm -rf "$gobin"
go_tool_done
