#!/usr/bin/env bash
# Builds helm v4.3.2 (helm.sh/helm/v4, its own go.mod through `go install`) into a per-user cache
# keyed by this script, and prints the binary's path on its last line. A second run is a no-op.
set -euo pipefail
cd "$(dirname "$0")"
binaries=helm prints=helm
source ../../go-tool-build.sh node "helm v4.3.2" build.sh
gobin="$out/.gobin"; rm -rf "$gobin"
GOBIN="$gobin" CGO_ENABLED=0 go install -trimpath \
  -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=v4.3.2 -X helm.sh/helm/v4/internal/version.gitTreeState=clean" \
  helm.sh/helm/v4/cmd/helm@v4.3.2 >&2
mv "$gobin/helm" "$out/helm.tmp"; rm -rf "$gobin"
go_tool_done
