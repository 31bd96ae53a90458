#!/usr/bin/env bash
# Builds promtool (github.com/prometheus/prometheus/cmd/promtool, pinned in go.mod) and metricnames (the
# metric names PromQL expressions select, read by Prometheus' own parser) from Go modules into a per-user
# cache keyed by this module's sources, and prints the directory that holds both on its last line. A
# second run is a no-op unless the sources changed. Used by the Maven build (before the unit tests, so
# the alert rule tests find it) and by the Java tests (support/Promtool) on first use.
set -euo pipefail
cd "$(dirname "$0")"

cache=${STEWARD_PROMTOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/steward/promtool}
sources=$(cat go.mod go.sum tools.go metricnames/main.go build.sh | sha256sum | cut -c1-16)
out="$cache/$sources"

if [ -x "$out/promtool" ] && [ -x "$out/metricnames" ]; then
  echo "$out"; exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  [ -x /usr/local/go/bin/go ] && export PATH="/usr/local/go/bin:$PATH"
fi
if ! command -v go >/dev/null 2>&1; then
  echo "steward: Go (1.26 or newer) is needed to build promtool for the alert rule tests, and no 'go' is on PATH." >&2
  exit 127
fi

mkdir -p "$out"
exec 9>"$out/.lock"
flock 9                                # two builds at once wait here
if [ -x "$out/promtool" ] && [ -x "$out/metricnames" ]; then
  echo "$out"; exit 0
fi
version=$(sed -n 's|^require github.com/prometheus/prometheus v||p' go.mod)
echo "steward: building promtool $version (github.com/prometheus/prometheus) into $out; the first build takes a few minutes" >&2
start=$(date +%s)
# remove_all_sd leaves out the cloud service discoveries, which rule tests never use.
CGO_ENABLED=0 go build -trimpath -tags remove_all_sd \
  -ldflags "-s -w -X github.com/prometheus/common/version.Version=$version" \
  -o "$out/promtool.tmp" github.com/prometheus/prometheus/cmd/promtool >&2
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out/metricnames.tmp" ./metricnames >&2
mv "$out/promtool.tmp" "$out/promtool"
mv "$out/metricnames.tmp" "$out/metricnames"
echo "steward: built promtool and metricnames in $(( $(date +%s) - start )) s" >&2
echo "$out"
