#!/usr/bin/env bash
# Builds runc v1.5.3 (github.com/opencontainers/runc, its own go.mod and go.sum through `go install`)
# into a per-user cache keyed by this script, and prints the binary's path on its last line. A
# second run is a no-op. runc needs cgo (its nsenter part is C) and, for seccomp filters (the
# RuntimeDefault profile containerd asks for), libseccomp: Debian's libseccomp-dev, linked in
# statically as runc's own release build does (static PIE, tags seccomp urfave_cli_no_docs; not
# libpathrs, a Rust library Debian bookworm lacks: runc then uses its pure-Go pathrs-lite).
set -euo pipefail
cd "$(dirname "$0")"
binaries=runc prints=runc
source ../../go-tool-build.sh node "runc v1.5.3 (cgo, libseccomp)" build.sh
if ! pkg-config --exists libseccomp 2>/dev/null; then
  echo "steward: runc needs libseccomp's headers and static library: apt-get install libseccomp-dev pkg-config" >&2
  exit 1
fi
gobin="$out/.gobin"; rm -rf "$gobin"
GOBIN="$gobin" CGO_ENABLED=1 go install -trimpath -buildmode=pie -tags "seccomp urfave_cli_no_docs netgo osusergo" \
  -ldflags "-s -w -X main.gitCommit=v1.5.3 -linkmode external -extldflags -static-pie" \
  github.com/opencontainers/runc@v1.5.3 >&2
mv "$gobin/runc" "$out/runc.tmp"; rm -rf "$gobin"
go_tool_done
