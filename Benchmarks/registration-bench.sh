#!/usr/bin/env bash
# Token registrations per second over HTTP: h2load (nghttp2, from Debian) sends
# `PUT /v1/devices/{id}/push-to-start-token` — what every app does at launch —
# to a release build of `rangers serve` on a fresh SQLite file. Each request is
# authenticated (an API key looked up by its hash) and is one SQLite write.
#
#   bash Benchmarks/registration-bench.sh [requests (default 50000)] [clients (default 16)]
#
# Installs nghttp2-client if missing (needs root or sudo); RANGERS_BIN=/path/to/rangers
# uses an already built binary.
set -euo pipefail
cd "$(dirname "$0")/.."

requests="${1:-50000}"
clients="${2:-16}"
port="${REGISTRATION_BENCH_PORT:-18080}"
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)

if ! command -v h2load >/dev/null 2>&1; then
    echo "Installing nghttp2-client (h2load)"
    "${as_root[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq nghttp2-client >/dev/null
fi

rangers="${RANGERS_BIN:-}"
if [ -z "$rangers" ]; then
    swift build -c release --product rangers
    rangers="$(swift build -c release --show-bin-path)/rangers"
fi

work="$(mktemp -d)"
server=""
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

RANGERS_GAME_MASTER_KEY="$(openssl rand -hex 24)" RANGERS_SIGNUPS_PER_MINUTE=100000 "$rangers" serve --apns simulator --db "$work/bench.sqlite" --port "$port" \
    >"$work/serve.log" 2>&1 &
server=$!
base="http://127.0.0.1:$port"
for _ in $(seq 100); do
    curl -fs "$base/healthz" >/dev/null 2>&1 && break
    sleep 0.1
done
curl -fs "$base/healthz" >/dev/null || { cat "$work/serve.log"; echo "rangers serve did not start" >&2; exit 1; }

# One player whose key signs every request; 100 devices, so the writes touch
# different rows as a fleet of phones would.
key="$(curl -fs -X POST "$base/v1/players" -H 'Content-Type: application/json' -d '{"name":"Bench"}' \
    | sed -n 's/.*"apiKey":"\([^"]*\)".*/\1/p')"
printf '{"pushToken":"%s","locale":"en-US"}' "$(openssl rand -hex 32)" >"$work/body.json"
urls=()
for device in $(seq -w 1 100); do urls+=("$base/v1/devices/bench-device-$device/push-to-start-token"); done

echo "rangers serve (release) on a fresh SQLite file; $requests requests from $clients HTTP/1.1 clients"
h2load --h1 -n "$requests" -c "$clients" -H ':method: PUT' -H "Authorization: Bearer $key" \
    -H 'Content-Type: application/json' -d "$work/body.json" "${urls[@]}" \
    | grep -E '^(finished in|requests:|status codes:|time for request:)'
