#!/usr/bin/env bash
# Instruction counts that do not move with the machine's load: valgrind's
# callgrind counts the instructions a process executes, the same for the same
# binary and work whatever else runs beside it (timings here move ±30 %).
#
#   bash Benchmarks/callgrind.sh [--pushes N] [--adventures N] [--rounds N] [--only apns|ticker]
#   CALLGRIND_KEEP=DIR keeps the callgrind profiles there.
#
# Prints, each with the top ten functions by instructions:
# - instructions per push of APNsClient + CurlHTTP2Transport (APNsBench, one
#   connection, 100 streams) beside the bare C libcurl loop's per request
#   (Benchmarks/CurlBaseline), both against the same nginx sink that reads each
#   body (Benchmarks/nginx-sink.sh), and their ratio;
# - instructions per adventure-tick of the ticker (game, push policy, payload
#   encoding and the SQLite store's commit) with the dispatcher's claims and
#   answers in the store, without the network (TickerCostBench, fixed seeds),
#   and of it the WAL's checkpoints, whose share moves with their timing.
# Each figure is the difference between a short and a long run of the same
# program divided by the extra work, so start-up, TLS handshakes, warm-up and
# the adventures' setup cancel out. Functions are counted the same way (self
# instructions, long run minus short run).
#
# valgrind 3.20 or newer is needed (older ones cannot read the DWARF 5 that
# Swift 6 writes). Debian 12 ships 3.19: then Debian 13's valgrind package is
# downloaded once, checked against the archive's SHA-256, and unpacked into
# .build-valgrind/ (its tools are static programs; they run on Debian 12).
set -euo pipefail
cd "$(dirname "$0")/.."

pushes=10000
adventures=300
rounds=20
only=""
while [ $# -gt 0 ]; do
    case "$1" in
        --pushes) pushes="$2"; shift 2 ;;
        --adventures) adventures="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --only) only="$2"; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
for value in "$pushes" "$adventures" "$rounds"; do
    case "$value" in ''|*[!0-9]*|0) echo "--pushes, --adventures and --rounds need positive numbers" >&2; exit 2 ;; esac
done
case "$only" in ""|apns|ticker) ;; *) echo "--only is apns or ticker, not '$only'" >&2; exit 2 ;; esac

valgrind_version_ok() {
    local version
    version="$("$@" --version 2>/dev/null | sed -E 's/^valgrind-([0-9]+)\.([0-9]+).*/\1 \2/')" || return 1
    read -r major minor <<<"$version"
    [ "${major:-0}" -gt 3 ] || { [ "${major:-0}" -eq 3 ] && [ "${minor:-0}" -ge 20 ]; }
}

valgrind=(valgrind)
if ! command -v valgrind >/dev/null 2>&1 || ! valgrind_version_ok valgrind; then
    local_dir="$PWD/.build-valgrind"
    if ! [ -x "$local_dir/usr/bin/valgrind.bin" ]; then
        echo "valgrind $(valgrind --version 2>/dev/null || echo '(none)') cannot read Swift 6's DWARF 5; fetching Debian 13's"
        mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
        mkdir -p "$local_dir"
        curl -fsS -o "$local_dir/Packages.xz" "$mirror/dists/trixie/main/binary-amd64/Packages.xz"
        xz -dc "$local_dir/Packages.xz" |
            awk '/^Package: / { found = ($2 == "valgrind") } found && /^(Filename|SHA256):/ { print }' >"$local_dir/package"
        rm "$local_dir/Packages.xz"
        filename="$(awk '/^Filename:/ { print $2 }' "$local_dir/package")"
        sha="$(awk '/^SHA256:/ { print $2 }' "$local_dir/package")"
        [ -n "$filename" ] && [ -n "$sha" ] || { echo "valgrind not found in Debian 13's package list" >&2; exit 1; }
        curl -fsS -o "$local_dir/valgrind.deb" "$mirror/$filename"
        echo "$sha  $local_dir/valgrind.deb" | sha256sum -c --quiet
        dpkg-deb -x "$local_dir/valgrind.deb" "$local_dir"
        rm "$local_dir/valgrind.deb"
    fi
    export VALGRIND_LIB="$local_dir/usr/libexec/valgrind"
    valgrind=("$local_dir/usr/bin/valgrind.bin")
    callgrind_annotate=("$local_dir/usr/bin/callgrind_annotate")
fi
callgrind_annotate=("${callgrind_annotate[@]:-callgrind_annotate}")
echo "$("${valgrind[@]}" --version), $(nproc) cores"

products=()
[ "$only" = ticker ] || products+=(APNsBench)
[ "$only" = apns ] || products+=(TickerCostBench)
for product in "${products[@]}"; do swift build -c release --product "$product" >/dev/null; done
bin="$(swift build -c release --show-bin-path)"

work="$(mktemp -d)"
cleanup() {
    stop_nginx_sink "$work"
    # CALLGRIND_KEEP=DIR keeps the profiles (callgrind_annotate, kcachegrind).
    if [ -n "${CALLGRIND_KEEP:-}" ]; then mkdir -p "$CALLGRIND_KEEP" && cp "$work"/*-short "$work"/*-long "$CALLGRIND_KEEP"/ 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
source Benchmarks/nginx-sink.sh

# callgrind OUT COMMAND…: runs COMMAND under callgrind, output in OUT; prints its total.
callgrind() {
    local out="$1"; shift
    "${valgrind[@]}" --tool=callgrind --callgrind-out-file="$out" "$@" >"$out.stdout" 2>"$out.stderr" ||
        { cat "$out.stdout" "$out.stderr" >&2; echo "failed under callgrind: $*" >&2; exit 1; }
    awk '/^(summary|totals):/ { print $2; exit }' "$out"
}

# Per function: self instructions of the long run minus the short run's, per unit
# of the extra work; the ten largest, demangled, with their share of the total.
top_ten() {
    local short="$1" long="$2" units="$3"
    for run in "$short" "$long"; do
        "${callgrind_annotate[@]}" --inclusive=no --auto=no --threshold=100 "$run" 2>/dev/null >"$run.annotated"
    done
    python3 - "$short.annotated" "$long.annotated" "$units" <<'PY' | swift demangle --simplified --compact
import re, sys
def functions(path):
    counts = {}
    for line in open(path):
        match = re.match(r"\s*([\d,]+)\s+(?:\([\s\d.]+%\)\s+)?(\S.*?)\s*(?:\[[^\]]*\])?$", line)
        if not match or ":" not in match.group(2) or "=>" in line:
            continue
        name = match.group(2).split(":", 1)[1]
        if name.startswith("0x"):  # no symbol: say whose code it is
            name = "(unnamed) in " + line.rsplit("/", 1)[-1].rstrip("]\n")
        counts[name] = counts.get(name, 0) + int(match.group(1).replace(",", ""))
    return counts
short, long, units = functions(sys.argv[1]), functions(sys.argv[2]), float(sys.argv[3])
delta = {name: (long.get(name, 0) - short.get(name, 0)) / units for name in long}
total = sum(value for value in delta.values() if value > 0)
for name, value in sorted(delta.items(), key=lambda item: -item[1])[:10]:
    print(f"  {value:10.0f}  {100 * value / total:5.1f} %  {name[:150]}")
PY
}

# Instructions of SQLite's checkpoints in a profile: sqlite3_wal_checkpoint_v2
# with everything it calls.
checkpoint_instructions() {
    "${callgrind_annotate[@]}" --inclusive=yes --auto=no --threshold=100 "$1" 2>/dev/null |
        awk '/:sqlite3_wal_checkpoint_v2[ \t]/ { gsub(",", "", $1); total += $1 } END { print total + 0 }'
}

if [ "$only" != ticker ]; then
    port="${APNS_BENCH_PORT:-18453}"
    start_nginx_sink "$work" "$port" proxy
    url="https://127.0.0.1:$port"
    cc -O2 -g -o "$work/curl-baseline" Benchmarks/CurlBaseline/curl-baseline.c $(pkg-config --cflags --libs libcurl)
    short=2000
    long=$((short + pushes))
    echo "APNs: $short and $long requests on one connection, 100 streams in flight"
    base_short="$(callgrind "$work/baseline-short" "$work/curl-baseline" "$url" "$work/cert.pem" "$short" 100)"
    base_long="$(callgrind "$work/baseline-long" "$work/curl-baseline" "$url" "$work/cert.pem" "$long" 100)"
    sender_args=(--url "$url" --ca-file "$work/cert.pem" --connections 1 --streams 100)
    sender_short="$(callgrind "$work/sender-short" "$bin/APNsBench" "${sender_args[@]}" --pushes "$short")"
    sender_long="$(callgrind "$work/sender-long" "$bin/APNsBench" "${sender_args[@]}" --pushes "$long")"
    for run in sender-short sender-long; do
        if ! awk 'NF == 9 && $1 == 1 && $9 == 0 { ok = 1 } END { exit !ok }' "$work/$run.stdout"; then
            echo "APNsBench had failures under callgrind:" >&2; cat "$work/$run.stdout" >&2; exit 1
        fi
    done
    base_per=$(( (base_long - base_short) / pushes ))
    sender_per=$(( (sender_long - sender_short) / pushes ))
    echo "bare libcurl (C)                    $base_per instructions per request"
    echo "APNsClient + CurlHTTP2Transport     $sender_per instructions per push"
    awk -v s="$sender_per" -v b="$base_per" 'BEGIN { printf "sender / baseline                   %.2fx\n", s / b }'
    echo "top ten functions of the baseline (self instructions per request):"
    top_ten "$work/baseline-short" "$work/baseline-long" "$pushes"
    echo "top ten functions of the sender (self instructions per push):"
    top_ten "$work/sender-short" "$work/sender-long" "$pushes"
fi

if [ "$only" != apns ]; then
    first=5
    last=$((first + rounds))
    echo "Ticker: $adventures adventures of 3 heroes, $first and $last rounds of one tick each, SQLite"
    ticker_short="$(callgrind "$work/ticker-short" "$bin/TickerCostBench" --adventures "$adventures" --rounds "$first")"
    ticker_long="$(callgrind "$work/ticker-long" "$bin/TickerCostBench" --adventures "$adventures" --rounds "$last")"
    ticks=$((adventures * rounds))
    echo "ticker + dispatcher's store work, SQLite   $(( (ticker_long - ticker_short) / ticks )) instructions per adventure-tick"
    # The checkpoints' share moves from run to run: how much of the WAL each one
    # finds to copy depends on when the checkpointer's thread runs beside the
    # writer. Counted apart (sqlite3_wal_checkpoint_v2 with all it calls, the
    # checkpointer's and the writer's own), the rest is the same in every run.
    checkpoints_short="$(checkpoint_instructions "$work/ticker-short")"
    checkpoints_long="$(checkpoint_instructions "$work/ticker-long")"
    checkpoints=$(( (checkpoints_long - checkpoints_short) / ticks ))
    echo "  of which the WAL's checkpoints           $checkpoints"
    echo "  the rest                                 $(( (ticker_long - ticker_short) / ticks - checkpoints ))"
    echo "top ten functions of the ticker (self instructions per adventure-tick):"
    top_ten "$work/ticker-short" "$work/ticker-long" "$ticks"
fi
