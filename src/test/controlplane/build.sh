#!/usr/bin/env bash
# Builds the local control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler and
# kwok in one multi-call binary) into a per-user cache keyed by Kubernetes release, and prints the
# binary's path on its last line. A second run is a no-op unless this module's sources changed.
# Used by the Maven build (pre-integration-test) and by the Java harness on first use.
set -euo pipefail
cd "$(dirname "$0")"

release=v1.37.2                      # keep in step with go.mod and pom.xml's controlplane.release
cache=${STEWARD_CONTROLPLANE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/steward/controlplane}
out="$cache/$release/bin"
binary="$out/controlplane"
stamp="$out/controlplane.sources"
sources=$(cat go.mod go.sum main.go build.sh | sha256sum | cut -c1-16)

if [ -x "$binary" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$sources" ]; then
  echo "$binary"; exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  [ -x /usr/local/go/bin/go ] && export PATH="/usr/local/go/bin:$PATH"
fi
if ! command -v go >/dev/null 2>&1; then
  echo "steward: Go (1.26 or newer) is needed to build the local Kubernetes control plane for tests," >&2
  echo "steward: and no 'go' is on PATH. Install it (apt-get install golang-go, or a release from go.dev) and retry." >&2
  exit 127
fi

mkdir -p "$out"
exec 9>"$out/.lock"
flock 9                                # two builds at once (two JVMs, or Maven and a test) wait here
if [ -x "$binary" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$sources" ]; then
  echo "$binary"; exit 0
fi

major=${release#v}; major=${major%%.*}
minor=${release#v$major.}; minor=${minor%%.*}
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$release -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done

echo "steward: building the local control plane $release into $out" >&2
echo "steward: the first build compiles Kubernetes from source and takes about 7 minutes on 2 cores (more on a cold module cache);" >&2
echo "steward: later builds reuse Go's caches. Packages are listed as they compile." >&2
start=$(date +%s)
CGO_ENABLED=0 go build -v -trimpath -ldflags "$ldflags" -o "$binary.tmp" . 2>&1 \
  | awk '{ n++; printf "steward: [%4d] %s\n", n, $0; fflush() }' >&2
mv "$binary.tmp" "$binary"
echo "$sources" > "$stamp"
echo "steward: built $("$binary" version) in $(( $(date +%s) - start )) s" >&2
echo "$binary"
