#!/usr/bin/env bash
# Builds the Dockerfile for real with buildah, then checks the image with
# scripts/check-image.sh (unless --no-check).
#
# The Dockerfile's two base images are build arguments (SWIFT_IMAGE, RUNTIME_IMAGE).
# With a reachable registry they are the real ones, swift:6.3-bookworm and
# debian:bookworm-slim, unchanged. Where the registry cannot be reached, this script
# makes both from Debian's packages instead:
#   - debian:bookworm-slim: `mmdebstrap --variant=minbase bookworm`, with the docs, man
#     pages and locales left out as in the slim image, imported with `podman import`;
#   - the Swift image: the same plus the packages the Swift toolchain needs (the list of
#     the official swift:bookworm image), this machine's toolchain (/opt/swift), and, when
#     git here reads GitHub from a local mirror (url.<folder>.insteadOf), that mirror and
#     those rules, so that the Dockerfile's `swift package resolve` works offline exactly
#     as it does on this machine. The Dockerfile is not changed for it.
# Needs root (buildah, mmdebstrap, podman; installed with apt-get when missing).
# Runs are in chroot isolation (no container runtime needed).
#
#   bash scripts/build-image.sh [--no-check] [--rebuild-bases] [--tag NAME]
#   RANGERS_IMAGE_BASES=registry|local   forces one way (default: registry when reachable)
set -euo pipefail
cd "$(dirname "$0")/.."

check=true
rebuild_bases=false
tag=localhost/emoji-rangers:latest
while [[ $# -gt 0 ]]; do
    case $1 in
        --no-check) check=false ;;
        --rebuild-bases) rebuild_bases=true ;;
        --tag) tag=$2; shift ;;
        *) echo "build-image.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
[[ $(id -u) == 0 ]] || { echo "build-image.sh: run as root (buildah and mmdebstrap need it)" >&2; exit 2; }

started=$(date +%s)
elapsed() { local s=$(( $(date +%s) - started )); printf '%dm%02ds' $((s / 60)) $((s % 60)); }

missing=()
for tool in buildah mmdebstrap podman; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [[ ${#missing[@]} -gt 0 ]]; then
    echo "== installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The registry's images, as the Dockerfile names them.
registry_swift=$(sed -n 's/^ARG SWIFT_IMAGE=//p' Dockerfile)
registry_runtime=$(sed -n 's/^ARG RUNTIME_IMAGE=//p' Dockerfile)
# The ones made here from Debian's packages.
local_runtime=localhost/rangers-base/debian:bookworm-slim
swift_version=$(/opt/swift/usr/bin/swift --version 2>/dev/null | sed -n 's/.*Swift version \([0-9.]*\).*/\1/p' | head -1)
local_swift=localhost/rangers-base/swift:${swift_version:-unknown}-bookworm

bases=${RANGERS_IMAGE_BASES:-}
if [[ -z $bases ]]; then
    echo "== can the registry be reached? (pulling $registry_runtime and $registry_swift)"
    if timeout 600 buildah pull -q "docker.io/library/$registry_runtime" >/dev/null 2>&1 &&
       timeout 1800 buildah pull -q "docker.io/library/$registry_swift" >/dev/null 2>&1; then
        bases=registry
    else
        bases=local
        echo "   no: the base images are made here from Debian's packages"
    fi
fi

# Debian's mirrors, as the slim image lists them.
sources=("deb http://deb.debian.org/debian bookworm main"
         "deb http://deb.debian.org/debian bookworm-updates main"
         "deb http://deb.debian.org/debian-security bookworm-security main")
# What debian:bookworm-slim leaves out (its /etc/dpkg/dpkg.cfg.d/docker), and /usr merged
# as Debian's images have it (usr-is-merged, not the usrmerge package and the perl it pulls in).
slim=(--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr
      --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright'
      --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*'
      --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/lintian/*'
      --dpkgopt='path-exclude=/usr/share/linda/*')
# What the official swift:bookworm image installs for the toolchain.
swift_packages=binutils,binutils-gold,ca-certificates,git,gnupg2,libc6-dev,libcurl4-openssl-dev,libedit2,libgcc-12-dev,libpython3-dev,libsqlite3-0,libstdc++-12-dev,libxml2-dev,libncurses-dev,libz3-dev,pkg-config,tzdata,unzip,zlib1g-dev

# mmdebstrap's hooks talk even with --quiet: their output is kept, and shown on failure.
quietly() {
    local log
    log=$(mktemp /tmp/rangers-base-log.XXXXXX)
    if ! "$@" > "$log" 2>&1; then
        tail -40 "$log" >&2
        rm -f "$log"
        echo "build-image.sh: failed: $1" >&2
        exit 1
    fi
    rm -f "$log"
}

image_exists() { buildah inspect --type image "$1" >/dev/null 2>&1; }

make_runtime_base() {
    echo "== making $local_runtime (mmdebstrap --variant=minbase bookworm)"
    local tarball
    tarball=$(mktemp /tmp/rangers-runtime-base.XXXXXX.tar)
    quietly mmdebstrap --quiet --variant=minbase "${slim[@]}" bookworm "$tarball" "${sources[@]}"
    podman import --quiet --change 'CMD ["bash"]' "$tarball" "$local_runtime" >/dev/null
    rm -f "$tarball"
}

make_swift_base() {
    [[ -x /opt/swift/usr/bin/swift ]] || { echo "build-image.sh: no Swift toolchain at /opt/swift to put in the build image" >&2; exit 1; }
    echo "== making $local_swift (the same, the toolchain's packages, /opt/swift)"
    local tarball hooks=() gitconfig
    tarball=$(mktemp /tmp/rangers-swift-base.XXXXXX.tar)
    hooks+=(--customize-hook='mkdir -p "$1/opt" && cp -a /opt/swift "$1/opt/swift"')
    # Swift packages from a local mirror, when git here is set up to read GitHub from one.
    gitconfig=$(mktemp /tmp/rangers-gitconfig.XXXXXX)
    git config --get-regexp '^url\..*\.insteadof$' 2>/dev/null | while read -r key value; do
        folder=${key#url.}
        folder=${folder%.insteadof}
        if [[ -d $folder ]]; then git config --file "$gitconfig" --add "url.$folder.insteadOf" "$value"; fi
    done
    if [[ -s $gitconfig ]]; then
        for folder in $(git config --file "$gitconfig" --name-only --get-regexp '^url\.' | sed 's/^url\.//; s/\.insteadof$//' | sort -u); do
            echo "   with the Swift packages' mirror $folder"
            hooks+=(--customize-hook="mkdir -p \"\$1$(dirname "$folder")\" && cp -a '${folder%/}' \"\$1${folder%/}\"")
        done
        hooks+=(--customize-hook="upload $gitconfig /etc/gitconfig")
    fi
    quietly mmdebstrap --quiet --variant=minbase "${slim[@]}" --include="$swift_packages" "${hooks[@]}" bookworm "$tarball" "${sources[@]}"
    podman import --quiet --change 'ENV PATH=/opt/swift/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'CMD ["bash"]' "$tarball" "$local_swift" >/dev/null
    rm -f "$tarball" "$gitconfig"
}

if [[ $bases == local ]]; then
    if $rebuild_bases || ! image_exists "$local_runtime"; then make_runtime_base; else echo "== $local_runtime is here already"; fi
    if $rebuild_bases || ! image_exists "$local_swift"; then make_swift_base; else echo "== $local_swift is here already"; fi
    swift_image=$local_swift
    runtime_image=$local_runtime
else
    swift_image=$registry_swift
    runtime_image=$registry_runtime
fi
echo "   bases ready after $(elapsed)"

echo "== buildah bud (SWIFT_IMAGE=$swift_image, RUNTIME_IMAGE=$runtime_image); the release build takes a while"
build_started=$(date +%s)
# --format docker keeps the HEALTHCHECK (the OCI image format has no place for it).
buildah bud --isolation chroot --format docker --layers \
    --build-arg "SWIFT_IMAGE=$swift_image" --build-arg "RUNTIME_IMAGE=$runtime_image" \
    --tag "$tag" .
echo "   built in $(( ($(date +%s) - build_started) / 60 )) min; $(elapsed) since the start"

echo "== the image"
size=$(podman image inspect --format '{{.Size}}' "$tag")
echo "   $tag: $(numfmt --to=iec-i --suffix=B "$size") ($size bytes)"
container=$(buildah from --quiet "$tag")
root=$(buildah mount "$container")
echo "   its runtime stage holds:"
echo "     rangers $(du -h "$root/usr/local/bin/rangers" | cut -f1), its resources $(du -sh "$root/usr/local/bin/EmojiRangers_Server.resources" | cut -f1), Content/ $(du -sh "$root/app/Content" | cut -f1)"
echo "     Debian packages: $(chroot "$root" dpkg-query -W -f='${Package} ' | wc -w) (largest: $(chroot "$root" dpkg-query -W -f='${Installed-Size}\t${Package}=${Version}\n' | sort -rn | head -6 | cut -f2 | tr '\n' ' '))"
echo "     libraries rangers loads: $(chroot "$root" ldd /usr/local/bin/rangers | awk '{print $1}' | sed 's|.*/||' | tr '\n' ' ')"
if chroot "$root" ldd /usr/local/bin/rangers | grep -q 'not found'; then
    echo "build-image.sh: the runtime stage lacks a library rangers loads" >&2
    buildah umount "$container" >/dev/null; buildah rm "$container" >/dev/null
    exit 1
fi
echo "     libcurl $(chroot "$root" dpkg-query -W -f='${Version}' libcurl4), user $(chroot "$root" id rangers)"
echo "     healthcheck: $(buildah inspect --type image "$tag" | python3 -c 'import json, sys; print(json.load(sys.stdin)["Docker"]["config"].get("Healthcheck"))')"
buildah umount "$container" >/dev/null
buildah rm "$container" >/dev/null
echo "== build done in $(elapsed)"

if $check; then
    bash scripts/check-image.sh "$tag"
fi
echo "== build-image.sh: done in $(elapsed); image $tag, $(numfmt --to=iec-i --suffix=B "$size")"
