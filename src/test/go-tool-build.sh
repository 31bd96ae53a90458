# Sourced by the build.sh of a Go test tool (src/test/kstatus, promtool, contenders), in its module's
# folder, before it builds:
#   binaries="a b" prints=. note="..."; source ../go-tool-build.sh NAME WHAT SOURCE...
# Sets $out, a per-user cache folder keyed by the SOURCE files' content (and this file's); if every one
# of $binaries (default: NAME) is already there it prints the result ($out/$prints; prints defaults to
# NAME, "." is the folder) and the sourcing script exits. Otherwise it finds Go, takes $out's lock (two
# builds at once wait there), says so (and $note) and returns: the caller builds each binary to
# "$out/<binary>.tmp" and ends with `go_tool_done`, which moves them in place and prints the result
# last. STEWARD_<NAME>_CACHE overrides the cache folder; Go's own GOFLAGS and GOMAXPROCS apply
# (GOFLAGS=-p=1 on a shared machine).
go_tool_name=$1 go_tool_what=$2
shift 2
binaries=${binaries:-$go_tool_name}
prints=${prints:-$go_tool_name}
go_tool_variable="STEWARD_$(echo "$go_tool_name" | tr '[:lower:]' '[:upper:]')_CACHE"
cache=${!go_tool_variable:-${XDG_CACHE_HOME:-$HOME/.cache}/steward/$go_tool_name}
out="$cache/$(cat "$@" "${BASH_SOURCE[0]}" | sha256sum | cut -c1-16)"
go_tool_result=$out
[ "$prints" = . ] || go_tool_result="$out/$prints"

go_tool_built() {
  local b
  for b in $binaries; do
    [ -x "$out/$b" ] || return 1
  done
}

if go_tool_built; then
  echo "$go_tool_result"; exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  [ -x /usr/local/go/bin/go ] && export PATH="/usr/local/go/bin:$PATH"
fi
if ! command -v go >/dev/null 2>&1; then
  echo "steward: Go (1.26 or newer) is needed to build $go_tool_what for tests, and no 'go' is on PATH." >&2
  exit 127
fi
mkdir -p "$out"
exec 9>"$out/.lock"
flock 9
if go_tool_built; then
  echo "$go_tool_result"; exit 0
fi
echo "steward: building $go_tool_what into $out${note:+; $note}" >&2
go_tool_start=$(date +%s)

go_tool_done() {
  local b
  for b in $binaries; do
    mv "$out/$b.tmp" "$out/$b"
  done
  echo "steward: built $go_tool_what in $(( $(date +%s) - go_tool_start )) s" >&2
  echo "$go_tool_result"
}
