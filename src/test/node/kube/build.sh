#!/usr/bin/env bash
# Builds the kubelet and kube-proxy of Kubernetes v1.37.2 (one multi-call binary, `node`) from Go
# modules into a per-user cache keyed by this module's sources, and prints the binary's path on its
# last line. A second run is a no-op unless the sources changed. The module resolves the same
# versions as src/test/controlplane, so after the control plane's build most packages come from
# Go's build cache.
set -euo pipefail
cd "$(dirname "$0")"
source ../../go-tool-build.sh node "the kubelet and kube-proxy (k8s.io/kubernetes v1.37.2)" go.mod go.sum main.go build.sh
release=v1.37.2
major=${release#v}; major=${major%%.*}
minor=${release#v$major.}; minor=${minor%%.*}
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$release -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done
CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$out/node.tmp" . >&2
go_tool_done
