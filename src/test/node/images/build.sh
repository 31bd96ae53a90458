#!/usr/bin/env bash
# Makes the local node's base images from Debian bookworm packages, without any registry:
#   localhost/steward-runtime-base:17  minbase + openjdk-17-jre-headless (Steward's RUNTIME_IMAGE)
#   localhost/steward-build-base:17    minbase + openjdk-17-jdk-headless + maven (BUILD_IMAGE)
#   localhost/steward-pause:1          a static Go pause binary (the pod sandbox image)
# each as a one-layer OCI image archive (<name>.tar, for `ctr images import`) and an OCI layout
# (<name>.layout, for `buildctl --oci-layout`), with the manifest digests in <out>/digests. Cached
# per user under steward/node/<hash of these sources>; prints that folder on its last line, and a
# second run is a no-op. Needs root, debootstrap and a reachable Debian mirror (STEWARD_DEBIAN_MIRROR,
# default the one apt uses).
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
cache=${STEWARD_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/steward/node}
out="$cache/$(cat build.sh oci-image.py pause/go.mod pause/main.go | sha256sum | cut -c1-16)"
images="runtime-base build-base pause"
built() { [ -s "$out/digests" ]; }
if built; then echo "$out"; exit 0; fi
mkdir -p "$out"
exec 9>"$out/.lock"
flock 9
if built; then echo "$out"; exit 0; fi
for tool in debootstrap chroot unshare tar gzip python3 go; do
  command -v $tool >/dev/null || { echo "steward: the base images need $tool (apt-get install debootstrap)" >&2; exit 127; }
done
[ "$(id -u)" = 0 ] || { echo "steward: debootstrap and chroot need root" >&2; exit 1; }
mirror=${STEWARD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${STEWARD_DEBIAN_SECURITY_MIRROR:-${mirror%/debian}/debian-security}
start=$(date +%s)
work="$out/work"; rm -rf "$work"; mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
log() { echo "steward: [images $(( $(date +%s) - start )) s] $*" >&2; }

log "debootstrap --variant=minbase bookworm from $mirror"
debootstrap --variant=minbase --components=main bookworm "$work/base" "$mirror" > "$work/debootstrap.log" 2>&1 \
  || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
# No documentation, manual pages or translations in what apt installs next.
cat > "$work/base/etc/dpkg/dpkg.cfg.d/01-steward-nodoc" <<'CFG'
path-exclude=/usr/share/doc/*
path-exclude=/usr/share/man/*
path-exclude=/usr/share/info/*
path-exclude=/usr/share/locale/*
path-exclude=/usr/share/lintian/*
CFG
cat > "$work/base/etc/apt/sources.list" <<LIST
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
LIST
printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' > "$work/base/etc/apt/apt.conf.d/01-steward"

# rootfs NAME PACKAGES...: a copy of the minbase tree with PACKAGES installed, then trimmed.
rootfs() {
  local name=$1; shift
  local r="$work/$name"
  cp -a "$work/base" "$r"
  cp /etc/resolv.conf "$r/etc/resolv.conf"
  log "$name: apt-get install $*"
  # A private mount namespace: the /proc that Java's certificate set-up needs goes with it.
  unshare --mount --propagation private sh -c '
    mount -t proc proc "$0/proc" &&
    chroot "$0" sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \"\$@\" && apt-get clean" sh "$@"
  ' "$r" "$@" > "$work/$name.apt.log" 2>&1 || { tail -30 "$work/$name.apt.log" >&2; exit 1; }
  rm -rf "$r"/var/lib/apt/lists/* "$r"/var/cache/apt/* "$r"/var/cache/debconf/*-old "$r"/var/log/* \
    "$r"/usr/share/doc "$r"/usr/share/man "$r"/usr/share/info "$r"/usr/share/locale "$r"/tmp/* "$r"/root/.cache
  find "$r/dev" -mindepth 1 -delete                 # the runtime mounts its own /dev
  : > "$r/etc/resolv.conf"; : > "$r/etc/hostname"  # the kubelet mounts its own over these
}

# image NAME REF ROOTFS [oci-image.py options]: the archive, the layout and the digest.
image() {
  local name=$1 ref=$2 dir=$3; shift 3
  tar --numeric-owner --sort=name -C "$dir" -cf - . | tee >(sha256sum | cut -d' ' -f1 > "$work/$name.diffid") \
    | gzip -n > "$work/$name.layer.tar.gz"
  sleep 0.2; wait
  local digest
  digest=$(python3 oci-image.py "$work/$name.layer.tar.gz" "$(cat "$work/$name.diffid")" "$ref" "$out/$name.tar" \
    --layout "$out/$name.layout" "$@")
  echo "$name $ref $digest" >> "$work/digests"
  log "$ref: $(du -h "$out/$name.tar" | cut -f1) compressed, $(du -sh "$dir" | cut -f1) unpacked, $digest"
}

rootfs runtime openjdk-17-jre-headless
image runtime-base localhost/steward-runtime-base:17 "$work/runtime"
rm -rf "$work/runtime"
rootfs build openjdk-17-jdk-headless maven
# Maven in the build stage trusts what the host's Java trusts (STEWARD_BUILD_CACERTS, default the
# host's Java trust store): where HTTPS goes through an intercepting proxy, as on the project's
# machines, Debian's own trust store refuses Maven Central's certificate ("transfer failed").
cacerts=${STEWARD_BUILD_CACERTS:-/etc/ssl/certs/java/cacerts}
if [ -f "$cacerts" ]; then cp "$cacerts" "$work/build/etc/ssl/certs/java/cacerts"; log "build: Java trust store from $cacerts"; fi
image build-base localhost/steward-build-base:17 "$work/build"
rm -rf "$work/build" "$work/base"

mkdir -p "$work/pause"
(cd "$here/pause" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$work/pause/pause" .)
image pause localhost/steward-pause:1 "$work/pause" --entrypoint '["/pause"]' --user 65535:65535
mv "$work/digests" "$out/digests"
log "done"
echo "$out"
