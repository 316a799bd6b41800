#!/usr/bin/env bash
# Benchmarks the APNs sender (APNsClient + CurlHTTP2Transport) against a local
# nginx that speaks HTTP/2 over TLS, and compares it with bare libcurl.
#
#   bash Benchmarks/apns-bench.sh [--baseline] [--rounds N] [--sink proxy|return]
#                                 [APNsBench options, e.g. --pushes 50000 --connections 1,4]
#
# The sink reads each request's body as APNs does: the HTTP/2 server passes every
# push (body and all) to a local upstream that answers 200 with its apns-id
# (`--sink proxy`, the default). `--sink return` answers from the HTTP/2 server
# at once, before the body has arrived: cheaper, but it makes the client reset
# or abandon the rest of each stream, so it flatters nobody in a useful way.
#
# --baseline runs Benchmarks/CurlBaseline (a plain C libcurl loop sending the same
# requests: six headers with a device token and an apns-id per push, the same
# body) before each run of the sender, against the same nginx, on one connection
# with 100 streams, and prints the sender's ratios to it: the ceiling libcurl
# itself puts on any sender built on it. --rounds N alternates the two N times
# (default 3) and prints each round's ratios and their median, since this
# machine's timings move from run to run. With `--rate N [--burst-ms MS]` both
# send at N pushes a second, those due every MS (default 100) at once, as a
# server's dispatcher does, instead of keeping 100 streams full: what sending
# costs per push at a server's pace.
#
# Installs nginx from the distribution if missing (needs root or sudo), makes a
# throwaway self-signed certificate, starts nginx on 127.0.0.1:$APNS_BENCH_PORT
# (default 18443; the upstream on the next port), runs the release build of
# APNsBench, and stops nginx again. APNS_BENCH_BIN=/path/to/APNsBench uses an
# already built binary.
set -euo pipefail
cd "$(dirname "$0")/.."

port="${APNS_BENCH_PORT:-18443}"
baseline=false
rounds=3
sink=proxy
while [ $# -gt 0 ]; do
    case "$1" in
        --baseline) baseline=true; shift ;;
        --rounds) rounds="$2"; shift 2 ;;
        --sink) sink="$2"; shift 2 ;;
        *) break ;;
    esac
done
case "$sink" in proxy|return) ;; *) echo "--sink is proxy or return, not '$sink'" >&2; exit 2 ;; esac
case "$rounds" in ''|*[!0-9]*|0) echo "--rounds needs a positive number" >&2; exit 2 ;; esac
bench="${APNS_BENCH_BIN:-}"
if [ -z "$bench" ]; then
    swift build -c release --product APNsBench
    bench="$(swift build -c release --show-bin-path)/APNsBench"
fi

work="$(mktemp -d)"
cleanup() {
    stop_nginx_sink "$work"
    rm -rf "$work"
}
trap cleanup EXIT
source Benchmarks/nginx-sink.sh
start_nginx_sink "$work" "$port" "$sink"
if ! $baseline; then
    "$bench" --url "https://127.0.0.1:$port" --ca-file "$work/cert.pem" "$@"
    exit
fi

cc -O2 -o "$work/curl-baseline" Benchmarks/CurlBaseline/curl-baseline.c $(pkg-config --cflags --libs libcurl)
pushes=50000
pace=()
previous=""
for argument in "$@"; do
    [ "$previous" = "--pushes" ] && pushes="$argument"
    # A paced run paces the baseline alike.
    case "$previous" in --rate|--burst-ms) pace+=("$previous" "$argument") ;; esac
    previous="$argument"
done
ratios="$work/ratios"
for round in $(seq 1 "$rounds"); do
    echo "round $round of $rounds"
    base_line="$("$work/curl-baseline" "https://127.0.0.1:$port" "$work/cert.pem" "$pushes" 100 ${pace[@]+"${pace[@]}"})"
    echo "  $base_line"
    bench_out="$("$bench" --url "https://127.0.0.1:$port" --ca-file "$work/cert.pem" --connections 1 --streams 100 "$@")"
    echo "$bench_out" | sed 's/^/  /'
    # The sender's row: connections streams in-flight pushes/s p50 p99 CPU opened failed.
    row="$(echo "$bench_out" | awk '$1 == 1 && NF == 9 { print $4, $7 }')"
    echo "$base_line" | sed -E 's/.*: ([0-9.]+) requests\/s, CPU s\/10k ([0-9.]+).*/\1 \2/' | {
        read -r base_rate base_cpu
        read -r rate cpu <<<"$row"
        awk -v r="$rate" -v c="$cpu" -v br="$base_rate" -v bc="$base_cpu" \
            'BEGIN { printf "  sender / baseline: throughput %.2fx, CPU per push %.2fx\n", r / br, c / bc }'
    } | tee -a "$ratios"
done
sort_median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
throughput="$(sed -E 's/.*throughput ([0-9.]+)x.*/\1/' "$ratios" | sort_median)"
cpu="$(sed -E 's/.*CPU per push ([0-9.]+)x.*/\1/' "$ratios" | sort_median)"
echo "median of $rounds rounds: throughput ${throughput}x the baseline's, CPU per push ${cpu}x"
