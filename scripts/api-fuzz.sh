#!/usr/bin/env bash
# Fuzzes the HTTP API against its OpenAPI document with schemathesis, every check
# on: starts `rangers serve` on a fresh SQLite file, seeds players, parties, an
# adventure, Live Activities and a walkie-talkie message through the API
# (scripts/api-fuzz/seed.py), then lets schemathesis generate requests for every
# operation in the served document with a fixed seed and a bounded number of
# examples. Exits 0 when it finds nothing, 1 when it finds a failure (the report
# is kept and its folder named), 3 when it cannot run (no python3 with venv, or
# no rangers binary).
#
#   bash scripts/api-fuzz.sh [--rangers PATH] [--seed N] [--examples N] [--report-dir DIR]
#
# Without --rangers, the newer of .build/release/rangers and .build/debug/rangers.
# schemathesis and its dependencies (scripts/api-fuzz/requirements.txt, all
# pinned) are installed from PyPI into a virtualenv under
# ${XDG_CACHE_HOME:-~/.cache}/emoji-rangers/, once per version of that file.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
rangers=""
seed=20260101
examples=100
report_dir=""

usage() { sed -n '2,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case "$1" in
        --rangers) rangers=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        --examples) examples=$2; shift 2 ;;
        --report-dir) report_dir=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "api-fuzz: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    esac
done
cannot_run() { echo "api-fuzz: cannot run: $*" >&2; exit 3; }
case "$report_dir" in "" | /*) ;; *) report_dir="$PWD/$report_dir" ;; esac

# The fuzzer, in a virtualenv named after the requirements' hash.
command -v python3 >/dev/null || cannot_run "python3 is not installed (bash scripts/install-system-packages.sh)"
python3 -c 'import venv, ensurepip' 2>/dev/null ||
    cannot_run "python3 has no venv/ensurepip (apt-get install python3-venv, or bash scripts/install-system-packages.sh)"
requirements="$root/scripts/api-fuzz/requirements.txt"
fingerprint=$(python3 -c 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest()[:12])' "$requirements")
venv="${XDG_CACHE_HOME:-$HOME/.cache}/emoji-rangers/api-fuzz-$fingerprint"
if [ ! -x "$venv/bin/st" ]; then
    echo "api-fuzz: installing schemathesis into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$requirements" ||
        { rm -rf "$venv"; echo "api-fuzz: installing schemathesis from PyPI failed" >&2; exit 1; }
fi

if [ -z "$rangers" ]; then
    # The newer of a release and a debug build: it serves the document it was built with.
    rangers=$(ls -t "$root/.build/release/rangers" "$root/.build/debug/rangers" 2>/dev/null | head -n 1 || true)
fi
[ -n "$rangers" ] && [ -x "$rangers" ] || cannot_run "no rangers binary (swift build, or --rangers PATH)"

work=$(mktemp -d "${TMPDIR:-/tmp}/rangers-api-fuzz.XXXXXX")
server_pid=""
keep_work=false
cleanup() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    [ "$keep_work" = true ] || rm -rf "$work"
}
trap cleanup EXIT

# The server, on a port the system picks, with a game master key of this run only.
game_master_key="gm_fuzz_$(python3 -c 'import secrets; print(secrets.token_hex(24))')"
: >"$work/serve.log"
# The fuzzer signs up and tries wrong keys far past the limits for one address: they are not what it checks.
(cd "$root" && RANGERS_GAME_MASTER_KEY=$game_master_key RANGERS_SIGNUPS_PER_MINUTE=100000 RANGERS_FAILED_AUTH_PER_MINUTE=100000 exec "$rangers" serve --apns simulator --db "$work/fuzz.sqlite" --port 0 \
    >"$work/serve.log" 2>&1) &
server_pid=$!
base=""
for _ in $(seq 1 300); do
    base=$(sed -n 's/^Listening on \(http:\/\/[^ ]*\).*/\1/p' "$work/serve.log" | head -n 1)
    [ -n "$base" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.log" >&2; echo "api-fuzz: rangers serve exited" >&2; exit 1; }
    sleep 0.1
done
[ -n "$base" ] || { cat "$work/serve.log" >&2; echo "api-fuzz: rangers serve did not start listening" >&2; exit 1; }
echo "api-fuzz: $rangers serving at $base"

"$venv/bin/python" "$root/scripts/api-fuzz/seed.py" "$base" "$game_master_key" "$work/schemathesis.toml"

[ -n "$report_dir" ] || report_dir="$work/report"
started=$(date +%s)
status=0
# From the scratch folder, so nothing schemathesis writes lands in the checkout.
(cd "$work" && "$venv/bin/st" --config-file "$work/schemathesis.toml" run "$base/openapi.yaml" --url "$base" \
    --checks all --seed "$seed" --max-examples "$examples" --workers 1 \
    --report junit,ndjson --report-dir "$report_dir" --no-color) || status=$?
echo "api-fuzz: schemathesis took $(( $(date +%s) - started )) s (seed $seed, at most $examples examples per operation)"

if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "api-fuzz: rangers serve died during the run; its log:" >&2
    cat "$work/serve.log" >&2
    status=1
fi
if [ "$status" -ne 0 ]; then
    keep_work=true
    echo "api-fuzz: failures found; report in $report_dir, server log in $work/serve.log" >&2
    exit 1
fi
echo "api-fuzz: no failures"
