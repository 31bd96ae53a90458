#!/usr/bin/env bash
# Builds Steward's image from the repository's own Dockerfile with BuildKit (built by build.sh) and
# the local base images, without Docker or a registry, and imports it into the local node:
#   image.sh [CONTEXT]    (default: this repository) -> localhost/steward:0.1.0
# buildkitd runs with its OCI worker (runc) and the host's network, so `mvn dependency:go-offline`
# reaches Maven Central as a user's build would; its cache (and the Dockerfile's /root/.m2 cache
# mount) lives in steward/node/buildkit in the user's cache, so a second build is warm.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
context=${1:-$(cd "$here/../../.." && pwd)}
DIR=${STEWARD_NODE_DIR:-/tmp/steward-node}
BIN=$(bash "$here/build.sh" | tail -1)
cache=${STEWARD_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/steward/node}
mkdir -p "$DIR/logs" "$cache/buildkit"
sock="$DIR/buildkitd.sock"
if ! "$BIN/buildctl" --addr "unix://$sock" debug workers > /dev/null 2>&1; then
  setsid env PATH="$BIN:$PATH" "$BIN/buildkitd" --root "$cache/buildkit" --addr "unix://$sock" \
    --oci-worker=true --oci-worker-binary="$BIN/runc" --oci-worker-net=host --oci-worker-snapshotter=overlayfs \
    --containerd-worker=false > "$DIR/logs/buildkitd.log" 2>&1 < /dev/null &
  echo $! > "$DIR/buildkitd.pid"
  for _ in $(seq 60); do "$BIN/buildctl" --addr "unix://$sock" debug workers > /dev/null 2>&1 && break; sleep 0.5; done
fi
digest() { awk -v n="$1" '$1 == n { print $3 }' "$BIN/images/digests"; }
start=$(date +%s)
# --opt cmdline: the built-in Dockerfile frontend otherwise obeys `# syntax=docker/dockerfile:1` and
# fetches that frontend image from Docker Hub; with it set, it parses the Dockerfile itself.
"$BIN/buildctl" --addr "unix://$sock" build --frontend dockerfile.v0 --opt cmdline=dockerfile.v0 \
  --local context="$context" --local dockerfile="$context" \
  --oci-layout build-base="$BIN/images/build-base.layout" --oci-layout runtime-base="$BIN/images/runtime-base.layout" \
  --opt build-arg:BUILD_IMAGE=localhost/steward-build-base:17 --opt build-arg:RUNTIME_IMAGE=localhost/steward-runtime-base:17 \
  --opt "context:localhost/steward-build-base:17=oci-layout://build-base@$(digest build-base)" \
  --opt "context:localhost/steward-runtime-base:17=oci-layout://runtime-base@$(digest runtime-base)" \
  --output "type=oci,name=localhost/steward:0.1.0,dest=$DIR/steward-image.tar" --progress plain
echo "image.sh: built localhost/steward:0.1.0 in $(( $(date +%s) - start )) s" >&2
if [ -S "$DIR/containerd/containerd.sock" ]; then
  bash "$here/node.sh" import "$DIR/steward-image.tar"
fi
