#!/usr/bin/env bash
# Builds the kstatus judge (sigs.k8s.io/cli-utils' status.Compute behind a stdin/stdout command) from
# Go modules into a per-user cache keyed by this module's sources, and prints the binary's path on
# its last line. A second run is a no-op unless the sources changed. Used by the Java tests on first use.
set -euo pipefail
cd "$(dirname "$0")"

cache=${STEWARD_KSTATUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/steward/kstatus}
sources=$(cat go.mod go.sum main.go build.sh | sha256sum | cut -c1-16)
out="$cache/$sources"
binary="$out/kstatus"

if [ -x "$binary" ]; then
  echo "$binary"; exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  [ -x /usr/local/go/bin/go ] && export PATH="/usr/local/go/bin:$PATH"
fi
if ! command -v go >/dev/null 2>&1; then
  echo "steward: Go (1.26 or newer) is needed to build the kstatus judge for tests, and no 'go' is on PATH." >&2
  exit 127
fi

mkdir -p "$out"
exec 9>"$out/.lock"
flock 9
if [ -x "$binary" ]; then
  echo "$binary"; exit 0
fi
echo "steward: building the kstatus judge (sigs.k8s.io/cli-utils) into $out" >&2
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$binary.tmp" . >&2
mv "$binary.tmp" "$binary"
echo "$binary"
