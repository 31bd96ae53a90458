#!/usr/bin/env bash
# Builds promtool (github.com/prometheus/prometheus/cmd/promtool, pinned in go.mod) and metricnames (the
# metric names PromQL expressions select, read by Prometheus' own parser) from Go modules into a per-user
# cache keyed by this module's sources, and prints the directory that holds both on its last line. A
# second run is a no-op unless the sources changed. Used by the Maven build (before the unit tests, so
# the alert rule tests find it) and by the Java tests (support/Promtool) on first use.
set -euo pipefail
cd "$(dirname "$0")"
binaries="promtool metricnames" prints=. note="the first build takes a few minutes"
source ../go-tool-build.sh promtool "promtool and metricnames (github.com/prometheus/prometheus)" \
  go.mod go.sum tools.go metricnames/main.go build.sh
version=$(sed -n 's|^require github.com/prometheus/prometheus v||p' go.mod)
# remove_all_sd leaves out the cloud service discoveries, which rule tests never use.
CGO_ENABLED=0 go build -trimpath -tags remove_all_sd \
  -ldflags "-s -w -X github.com/prometheus/common/version.Version=$version" \
  -o "$out/promtool.tmp" github.com/prometheus/prometheus/cmd/promtool >&2
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out/metricnames.tmp" ./metricnames >&2
go_tool_done
