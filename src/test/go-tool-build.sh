#!/usr/bin/env bash
# Builds one Go test tool (the module in the calling build.sh's folder) into a per-user cache keyed by
# the module's sources and prints the binary's path on its last line; a no-op when the cached binary
# matches the sources. Shared by src/test/kstatus and src/test/contenders:
#   go-tool-build.sh NAME WHAT SOURCE...   (run from the module's folder; SOURCE: files whose content keys the cache)
# STEWARD_<NAME>_CACHE overrides the cache folder. Go's own GOFLAGS and GOMAXPROCS apply (e.g. GOFLAGS=-p=1).
set -euo pipefail
name=$1 what=$2
shift 2
variable="STEWARD_$(echo "$name" | tr '[:lower:]' '[:upper:]')_CACHE"
cache=${!variable:-${XDG_CACHE_HOME:-$HOME/.cache}/steward/$name}
sources=$(cat "$@" "${BASH_SOURCE[0]}" | sha256sum | cut -c1-16)
out="$cache/$sources"
binary="$out/$name"

if [ -x "$binary" ]; then
  echo "$binary"; exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  [ -x /usr/local/go/bin/go ] && export PATH="/usr/local/go/bin:$PATH"
fi
if ! command -v go >/dev/null 2>&1; then
  echo "steward: Go (1.26 or newer) is needed to build $what for tests, and no 'go' is on PATH." >&2
  exit 127
fi

mkdir -p "$out"
exec 9>"$out/.lock"
flock 9                                # two builds at once wait here
if [ -x "$binary" ]; then
  echo "$binary"; exit 0
fi
echo "steward: building $what into $out" >&2
start=$(date +%s)
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$binary.tmp" . >&2
mv "$binary.tmp" "$binary"
echo "steward: built $what in $(( $(date +%s) - start )) s" >&2
echo "$binary"
