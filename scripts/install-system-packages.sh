#!/usr/bin/env bash
# Installs the system libraries the server links against (Debian/Ubuntu), and
# Chromium, in which the tests load the replay's HTML timeline page.
# Needs root, or sudo; safe to run again.
set -euo pipefail

packages=(libcurl4-openssl-dev libsqlite3-dev libssl-dev chromium)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "System packages present: ${packages[*]}"
    exit 0
fi

as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
echo "Installing: ${missing[*]}"
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
