#!/usr/bin/env bash
# Runs the image built by scripts/build-image.sh and checks it, printing one PASS or
# FAIL line per check; exits 0 only when every check passes.
#
# Docker's engine is not needed: each command runs in a working container of the image
# with `buildah run --isolation chroot`, as the image's user (rangers), with the image's
# environment. Chroot isolation shares the host's network, so `serve` listens on a
# loopback port of the host, and the adventure is driven from outside the container
# with curl, as a client would. Nothing but 127.0.0.1 is contacted.
# Everything this script starts is stopped when it ends, also when interrupted.
#
#   bash scripts/check-image.sh [image=localhost/emoji-rangers:latest]
set -uo pipefail
cd "$(dirname "$0")/.."
image=${1:-localhost/emoji-rangers:latest}
[[ $(id -u) == 0 ]] || { echo "check-image.sh: run as root (buildah needs it)" >&2; exit 2; }
for tool in buildah curl python3; do
    command -v "$tool" >/dev/null || { echo "check-image.sh: $tool is missing" >&2; exit 2; }
done
buildah inspect --type image "$image" >/dev/null 2>&1 ||
    { echo "check-image.sh: no image $image (bash scripts/build-image.sh builds it)" >&2; exit 2; }

folder=$(mktemp -d /tmp/rangers-image-check.XXXXXX)
container=
serve_launcher=
failures=0
passes=0
# The server's process on the host: the descendant of the `buildah run` launching it
# that is `rangers`.
descendants() { local child; for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do echo "$child"; descendants "$child"; done; }
serve_pid() {
    local pid
    [[ -n $serve_launcher ]] || return 1
    for pid in $(descendants "$serve_launcher"); do
        [[ $(cat "/proc/$pid/comm" 2>/dev/null) == rangers ]] && { echo "$pid"; return 0; }
    done
    return 1
}
serve_status=
stop_serve() {
    [[ -n $serve_launcher ]] || return 0
    local pid
    pid=$(serve_pid || true)
    [[ -n $pid ]] && kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 150); do kill -0 "$serve_launcher" 2>/dev/null || break; sleep 0.1; done
    kill -TERM "$serve_launcher" 2>/dev/null
    wait "$serve_launcher" 2>/dev/null
    serve_status=$?
    serve_launcher=
}
cleanup() {
    trap - EXIT INT TERM
    stop_serve
    if [[ -n $container ]]; then
        buildah umount "$container" >/dev/null 2>&1 || true
        buildah rm "$container" >/dev/null 2>&1 || true
    fi
    rm -rf "$folder"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

pass() { echo "PASS  $1"; passes=$((passes + 1)); }
fail() { echo "FAIL  $1"; failures=$((failures + 1)); [[ -n ${2:-} ]] && sed 's/^/      | /' "$2" | tail -20; return 0; }
as_rangers() { buildah run --isolation chroot --user rangers "$@"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
json() { python3 -c "import json, sys; value = json.load(sys.stdin); print($1)"; }

container=$(buildah from --quiet "$image")
root=$(buildah mount "$container")
# /data is the image's VOLUME: buildah gives the working container a volume of its own
# there, made from the image's /data (its owner included) as a fresh Docker volume is,
# and kept from one `buildah run` to the next. On the host it is this folder.
data=$(buildah info --format '{{.store.GraphRoot}}')/overlay-containers/$(buildah inspect --format '{{.ContainerID}}' "$container")/userdata/buildah-volumes/$(printf /data | sha256sum | cut -d' ' -f1)
echo "== checking $image in working container ${container} (root $root)"

# 1. The content the image carries passes the checks `serve` makes at start.
if as_rangers "$container" -- rangers content check > "$folder/content.log" 2>&1; then
    pass "rangers content check ($(grep -c . "$folder/content.log") lines, exit 0)"
else
    fail "rangers content check" "$folder/content.log"
fi

# 2. A whole adventure without a server.
if as_rangers "$container" -- rangers simulate --seed 42 > "$folder/simulate.log" 2>&1 && [[ -s $folder/simulate.log ]]; then
    pass "rangers simulate --seed 42 ($(tail -1 "$folder/simulate.log" | cut -c1-80))"
else
    fail "rangers simulate --seed 42" "$folder/simulate.log"
fi

# 3. The image's default command, serve, refuses to start until an APNs is chosen.
as_rangers "$container" -- rangers serve > "$folder/refuse.log" 2>&1
status=$?
if [[ $status == 2 ]] && grep -q apple "$folder/refuse.log" && grep -q simulator "$folder/refuse.log"; then
    pass "serve without an APNs choice exits 2 naming both ($(head -1 "$folder/refuse.log" | cut -c1-90))"
else
    fail "serve without an APNs choice exits 2 naming both (exit $status)" "$folder/refuse.log"
fi

# 4. /data belongs to rangers in the image (a fresh volume takes that), and only /data (and /tmp, which every program may use for scratch files) is writable
#    by the image's user.
writable=() refused=()
for place in / /data /tmp /usr/local/bin /usr/local/bin/EmojiRangers_Server.resources /app /app/Content /etc /var /home; do
    if as_rangers "$container" -- sh -c "touch '$place/.write-check' && rm -f '$place/.write-check'" >/dev/null 2>&1; then
        writable+=("$place")
    else
        refused+=("$place")
    fi
done
if [[ $(chroot "$root" stat -c %U /data) == rangers && $(stat -c %u "$data" 2>/dev/null) == "$(chroot "$root" id -u rangers)" ]]; then
    pass "the image's /data, and the volume made from it, belong to rangers ($(chroot "$root" stat -c '%U:%G %A' /data))"
else
    fail "the image's /data, and the volume made from it, belong to rangers ($(chroot "$root" stat -c '%U:%G %A' /data); the volume: $(stat -c %u "$data" 2>&1))"
fi
if [[ ${writable[*]} == "/data /tmp" ]]; then
    pass "as rangers only /data and /tmp are writable (refused: ${refused[*]})"
else
    fail "as rangers only /data and /tmp are writable (writable: ${writable[*]})"
fi
if as_rangers "$container" -- sh -c 'touch /usr/local/bin/rangers' >/dev/null 2>&1; then
    fail "as rangers the binary cannot be changed"
else
    pass "as rangers the binary cannot be changed"
fi

# 5. serve --apns simulator on a loopback port, as rangers, with the image's /data.
port=$(free_port)
gm_key=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
as_rangers --env "RANGERS_GAME_MASTER_KEY=$gm_key" --env RANGERS_HOST=127.0.0.1 --env "RANGERS_PORT=$port" \
    --env RANGERS_NODE_ID=image-check "$container" -- rangers serve --apns simulator > "$folder/serve.log" 2>&1 &
serve_launcher=$!
base="http://127.0.0.1:$port"
for _ in $(seq 300); do
    curl -s -o /dev/null "$base/healthz" 2>/dev/null && break
    kill -0 "$serve_launcher" 2>/dev/null || break
    sleep 0.2
done
# The readiness route where the server has it (200 ready, 503 not, with a reason), /healthz before.
ready_code=$(curl -s -o "$folder/ready.json" -w '%{http_code}' "$base/readyz" || echo 000)
if [[ $ready_code == 200 || $ready_code == 503 ]]; then route=/readyz; else route=/healthz; fi
code=$(curl -s -o "$folder/health.json" -w '%{http_code}' "$base$route" || echo 000)
if [[ $code == 200 ]]; then
    pass "serve --apns simulator answers $route 200 as rangers on 127.0.0.1:$port ($(head -c 160 "$folder/health.json"))"
else
    fail "serve --apns simulator answers $route 200 (got $code)" "$folder/serve.log"
fi
apns=$(curl -s "$base/healthz" | json 'value.get("apns")' 2>/dev/null)
[[ $apns == simulator ]] && pass "/healthz says \"apns\": \"simulator\"" || fail "/healthz says \"apns\": \"simulator\" (got '$apns')"

pid=$(serve_pid || true)
uid=$(awk '/^Uid:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
image_uid=$(chroot "$root" id -u rangers)
if [[ -n $uid && $uid == "$image_uid" && $uid != 0 ]]; then
    pass "the server process ($pid) runs as rangers (uid $uid), not root"
else
    fail "the server process runs as rangers (uid '$uid', rangers is $image_uid)"
fi
if [[ -f $data/rangers.sqlite ]] && [[ $(stat -c %u "$data/rangers.sqlite") == "$image_uid" ]]; then
    pass "the SQLite file is /data/rangers.sqlite, owned by rangers (/data holds: $(ls "$data" | tr '\n' ' '))"
else
    fail "the SQLite file is /data/rangers.sqlite (/data holds: $(ls -la "$data" 2>&1 | tr '\n' ' '))"
fi

# The image's HEALTHCHECK, run inside the container as Docker would run it.
healthcheck=$(buildah inspect --type image "$image" | json '(value["Docker"]["config"].get("Healthcheck") or {}).get("Test")' 2>/dev/null)
healthcheck_command=$(buildah inspect --type image "$image" |
    json '" ".join(((value["Docker"]["config"].get("Healthcheck") or {}).get("Test") or ["", ""])[1:])' 2>/dev/null)
if [[ -n $healthcheck_command ]] && grep -qE '/(readyz|healthz)' <<< "$healthcheck_command" &&
   as_rangers --env "RANGERS_PORT=$port" "$container" -- sh -c "$healthcheck_command" > "$folder/healthcheck.log" 2>&1; then
    pass "the image's HEALTHCHECK passes against the running server ($healthcheck_command)"
else
    fail "the image's HEALTHCHECK passes ($healthcheck)" "$folder/healthcheck.log"
fi

# 6. An adventure driven through the HTTP API from outside the container.
call() {  # method path [body] [key] -> prints the body, fails on a status >= 400
    local method=$1 path=$2 body=${3:-} key=${4:-}
    local args=(-sS -f -X "$method" -H 'Content-Type: application/json')
    [[ -n $body ]] && args+=(--data "$body")
    [[ -n $key ]] && args+=(-H "Authorization: Bearer $key")
    curl "${args[@]}" "$base$path"
}
play() {
    local heroes=(power-panda egghead spouty) keys=() key party adventure index
    for hero in "${heroes[@]}"; do
        key=$(call POST /v1/players "{\"name\": \"Image $hero\"}" | json 'value["apiKey"]') || return 1
        call PUT /v1/players/me/heroes "{\"heroes\": [\"$hero\"]}" "$key" >/dev/null || return 1
        keys+=("$key")
    done
    party=$(call POST /v1/parties "{\"name\": \"Image check\", \"hero\": \"${heroes[0]}\"}" "${keys[0]}") || return 1
    local party_id invite
    party_id=$(json 'value["id"]' <<< "$party")
    invite=$(json 'value["inviteCode"]' <<< "$party")
    for index in 1 2; do
        call POST /v1/parties/join "{\"inviteCode\": \"$invite\", \"hero\": \"${heroes[$index]}\"}" "${keys[$index]}" >/dev/null || return 1
    done
    adventure=$(call POST /v1/gm/adventures "{\"partyID\": \"$party_id\", \"route\": \"whispering-woods\", \"tickInterval\": 1, \"timeLimit\": 12, \"seed\": 42}" "$gm_key" |
        json 'value["id"]') || return 1
    for index in 0 1 2; do
        call POST "/v1/adventures/$adventure/activities" "{\"activityID\": \"image-$index\", \"pushToken\": \"$(printf '%02x' "$index")$(printf 'ab%.0s' $(seq 31))\", \"hero\": \"${heroes[$index]}\", \"frequentPushesEnabled\": $([[ $index == 0 ]] && echo true || echo false), \"locale\": \"en-US\"}" "${keys[$index]}" >/dev/null || return 1
    done
    echo "$adventure ${keys[0]}"
}
if started=$(play 2> "$folder/play.log"); then
    read -r adventure player_key <<< "$started"
    pass "three players, a party and an adventure created through $base (adventure ${adventure:0:8})"
    status=running last=0
    for _ in $(seq 90); do
        call GET "/v1/adventures/$adventure" "" "$player_key" > "$folder/adventure.json" 2>/dev/null || true
        status=$(json 'value["status"]' < "$folder/adventure.json" 2>/dev/null || echo '?')
        last=$(json 'value["lastTick"]' < "$folder/adventure.json" 2>/dev/null || echo 0)
        [[ $status == running || $status == '?' ]] || break
        sleep 1
    done
    if [[ $status != running && $status != '?' && $last -gt 0 ]]; then
        pass "the adventure played to its end: status $status after $last ticks (GET /v1/adventures/{id})"
    else
        fail "the adventure played to its end (status $status, lastTick $last)" "$folder/adventure.json"
    fi
    sleep 2
    curl -s "$base/metrics" > "$folder/metrics.txt"
    delivered=$(awk '/^rangers_dispatcher_pushes_total\{/ && /outcome="delivered"/ {sum += $NF} END {print sum + 0}' "$folder/metrics.txt")
    if [[ $delivered -gt 0 ]]; then
        pass "the dispatcher delivered $delivered pushes to the in-process APNs simulator over libcurl"
    else
        fail "the dispatcher delivered pushes (rangers_dispatcher_pushes_total)" "$folder/serve.log"
    fi
else
    fail "an adventure started through the HTTP API" "$folder/play.log"
fi

# 7. SIGTERM: the server stops on its own, and the database stays in /data.
stop_serve
if [[ ${serve_status:-1} == 0 ]]; then
    pass "serve stops on SIGTERM with exit 0"
else
    fail "serve stops on SIGTERM with exit 0 (exit ${serve_status:-?})" "$folder/serve.log"
fi
if [[ -n ${adventure:-} ]] && as_rangers "$container" -- rangers replay "$adventure" > "$folder/replay.log" 2>&1; then
    pass "rangers replay of the adventure from /data/rangers.sqlite ($(tail -1 "$folder/replay.log" | cut -c1-80))"
else
    fail "rangers replay of the adventure from /data/rangers.sqlite" "$folder/replay.log"
fi

echo "== $passes passed, $failures failed"
[[ $failures == 0 ]]
