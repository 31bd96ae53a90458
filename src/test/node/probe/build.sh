#!/usr/bin/env bash
# Builds the test pods' program (probe, standard library only) as the image localhost/steward-probe:1
# (a scratch image holding /probe, OCI archive probe.tar) into a per-user cache keyed by these
# sources, and prints the archive's path on its last line. A second run is a no-op.
set -euo pipefail
cd "$(dirname "$0")"
binaries=probe.tar prints=probe.tar
source ../../go-tool-build.sh node "the test pods' probe image" go.mod main.go build.sh ../images/oci-image.py
work="$out/work"; rm -rf "$work"; mkdir -p "$work/root"
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$work/root/probe" . >&2
tar --numeric-owner --owner=0 --group=0 --sort=name -C "$work/root" -cf "$work/layer.tar" .
diffid=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
gzip -n "$work/layer.tar"
python3 ../images/oci-image.py "$work/layer.tar.gz" "$diffid" localhost/steward-probe:1 "$out/probe.tar.tmp" \
  --entrypoint '["/probe"]' --cmd '["serve"]' --user 65532:65532 > /dev/null
chmod +x "$out/probe.tar.tmp"   # go-tool-build.sh counts a result as built when it is executable
rm -rf "$work"
go_tool_done
