#!/usr/bin/env bash
# Builds containerd v2.4.2 (containerd, containerd-shim-runc-v2, ctr) and BuildKit v0.35.1
# (buildkitd, buildctl) from Go modules into a per-user cache keyed by this module's sources, and
# prints that folder on its last line. A second run is a no-op unless the sources changed.
# Static (CGO_ENABLED=0), with the build tags and version stamps of the projects' own release builds
# (containerd's Makefile; BuildKit's Dockerfile) less the btrfs snapshotter (it needs cgo) and NRI's
# WebAssembly plugins.
set -euo pipefail
cd "$(dirname "$0")"
binaries="containerd containerd-shim-runc-v2 ctr buildkitd buildctl" prints=.
source ../../go-tool-build.sh node "containerd v2.4.2 and BuildKit v0.35.1" go.mod go.sum build.sh
containerd=github.com/containerd/containerd/v2 buildkit=github.com/moby/buildkit
cflags="-s -w -X $containerd/version.Version=v2.4.2 -X $containerd/version.Revision=v2.4.2 -X $containerd/version.Package=$containerd"
bflags="-s -w -X $buildkit/version.Version=v0.35.1 -X $buildkit/version.Revision=v0.35.1 -X $buildkit/version.Package=$buildkit"
tags="urfave_cli_no_docs no_btrfs nri_no_wasm"
export CGO_ENABLED=0
for cmd in containerd ctr; do
  go build -trimpath -tags "$tags" -ldflags "$cflags" -o "$out/$cmd.tmp" "$containerd/cmd/$cmd" >&2
done
go build -trimpath -tags "$tags no_grpc" -ldflags "$cflags" -o "$out/containerd-shim-runc-v2.tmp" "$containerd/cmd/containerd-shim-runc-v2" >&2
go build -trimpath -tags "$tags seccomp grpcnotrace" -ldflags "$bflags" -o "$out/buildkitd.tmp" "$buildkit/cmd/buildkitd" >&2
go build -trimpath -tags "grpcnotrace" -ldflags "$bflags" -o "$out/buildctl.tmp" "$buildkit/cmd/buildctl" >&2
go_tool_done
