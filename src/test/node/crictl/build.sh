#!/usr/bin/env bash
# Builds crictl v1.37.0 (sigs.k8s.io/cri-tools, its own go.mod through `go install`), a CRI client
# for looking into the local node's containerd, into a per-user cache keyed by this script, and
# prints the binary's path on its last line. A second run is a no-op.
set -euo pipefail
cd "$(dirname "$0")"
binaries=crictl prints=crictl
source ../../go-tool-build.sh node "crictl v1.37.0" build.sh
gobin="$out/.gobin"; rm -rf "$gobin"
GOBIN="$gobin" CGO_ENABLED=0 go install -trimpath \
  -ldflags "-s -w -X sigs.k8s.io/cri-tools/pkg/version.Version=v1.37.0" \
  sigs.k8s.io/cri-tools/cmd/crictl@v1.37.0 >&2
mv "$gobin/crictl" "$out/crictl.tmp"; rm -rf "$gobin"
go_tool_done
