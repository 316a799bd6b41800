#!/usr/bin/env bash
# Installs the system libraries the server links against (Debian/Ubuntu),
# PostgreSQL (the tests start servers of their own with it; the system's cluster is
# not used), nginx (the load balancer in front of several nodes in the cluster tests),
# Chromium, in which the tests load the replay's timeline and the live page (with
# an emoji font, so the live page's screenshots show the heroes' avatars, and a
# CJK font, so Korean and Chinese names show as glyphs, not boxes), and
# python3 with venv, into which scripts/api-fuzz.sh installs schemathesis from PyPI,
# and Patroni, etcd and HAProxy, with which scripts/ha-database.sh fails the database
# over (it starts its own on loopback: the packages' system services are not
# started by the install, and are disabled where systemd runs).
# libcurl must be 8 or newer: 7.x resets every HTTP/2 stream of a delivered push
# (see docs/apns.md, "Sending to APNs"). Debian 12 ships 7.88, so there it comes from
# bookworm-backports. Needs root, or sudo; safe to run again.
set -euo pipefail

as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
apt_updated=false
apt_install() {
    if [ "$apt_updated" = false ]; then
        "${as_root[@]}" apt-get update -qq
        apt_updated=true
    fi
    DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "$@"
}

libcurl_major() {
    pkg-config --modversion libcurl 2>/dev/null | cut -d. -f1
}

packages=(libsqlite3-dev libssl-dev zlib1g-dev pkg-config postgresql nginx chromium fonts-noto-color-emoji fonts-noto-cjk python3 python3-venv
          patroni etcd-server haproxy)
# Services these packages would start on install; the scripts and tests run their own.
services=(etcd haproxy patroni)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing: ${missing[*]}"
    # Debian starts a package's service on install unless policy-rc.d says no; one that
    # says no is put in place for the install when there is none.
    policy_added=false
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' | "${as_root[@]}" tee /usr/sbin/policy-rc.d >/dev/null
        "${as_root[@]}" chmod 755 /usr/sbin/policy-rc.d
        policy_added=true
    fi
    status=0
    apt_install "${missing[@]}" || status=$?
    [ "$policy_added" = false ] || "${as_root[@]}" rm -f /usr/sbin/policy-rc.d
    [ "$status" -eq 0 ] || exit "$status"
fi
if [ -d /run/systemd/system ]; then
    for service in "${services[@]}"; do
        if systemctl is-enabled --quiet "$service" 2>/dev/null || systemctl is-active --quiet "$service" 2>/dev/null; then
            echo "Stopping and disabling the system's $service service"
            "${as_root[@]}" systemctl disable --now --quiet "$service" || true
        fi
    done
fi

if [ "$(libcurl_major || true)" -ge 8 ] 2>/dev/null; then
    echo "libcurl $(pkg-config --modversion libcurl) present"
else
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    if [ "$codename" = bookworm ]; then
        if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
            echo "Adding Debian's bookworm-backports for libcurl 8"
            printf '%s\n' "Types: deb" "URIs: http://deb.debian.org/debian" "Suites: bookworm-backports" \
                "Components: main" "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" |
                "${as_root[@]}" tee /etc/apt/sources.list.d/bookworm-backports.sources >/dev/null
            apt_updated=false
        fi
        echo "Installing libcurl 8 from bookworm-backports"
        apt_install -t bookworm-backports libcurl4-openssl-dev libcurl4
    else
        echo "Installing libcurl4-openssl-dev"
        apt_install libcurl4-openssl-dev
    fi
    major=$(libcurl_major || true)
    if ! [ "${major:-0}" -ge 8 ] 2>/dev/null; then
        echo "error: libcurl $(pkg-config --modversion libcurl 2>/dev/null || echo '(none)') is installed; 8 or newer is needed" >&2
        exit 1
    fi
    echo "libcurl $(pkg-config --modversion libcurl) installed"
fi
