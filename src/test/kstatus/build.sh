#!/usr/bin/env bash
# Builds the kstatus judge (sigs.k8s.io/cli-utils' status.Compute behind a stdin/stdout command) from
# Go modules into a per-user cache keyed by this module's sources, and prints the binary's path on
# its last line. A second run is a no-op unless the sources changed. Used by the Java tests on first use.
set -euo pipefail
cd "$(dirname "$0")"
source ../go-tool-build.sh kstatus "the kstatus judge (sigs.k8s.io/cli-utils)" go.mod go.sum main.go build.sh
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out/kstatus.tmp" . >&2
go_tool_done
