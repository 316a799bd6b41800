#!/usr/bin/env bash
# Benchmarks the APNs sender (APNsClient + CurlHTTP2Transport) against a local
# nginx that speaks HTTP/2 over TLS and answers 200 to every push: a sink that
# costs little, so the figures are the sender's.
#
#   bash Benchmarks/apns-bench.sh [--baseline] [APNsBench options, e.g. --pushes 50000 --connections 1,2,4]
#
# --baseline first runs Benchmarks/CurlBaseline (a plain C libcurl loop) against
# the same nginx: the ceiling libcurl itself puts on any sender built on it.
#
# Installs nginx from the distribution if missing (needs root or sudo), makes a
# throwaway self-signed certificate, starts nginx on 127.0.0.1:$APNS_BENCH_PORT
# (default 18443), runs the release build of APNsBench, and stops nginx again.
# APNS_BENCH_BIN=/path/to/APNsBench uses an already built binary.
set -euo pipefail
cd "$(dirname "$0")/.."

port="${APNS_BENCH_PORT:-18443}"
baseline=false
if [ "${1:-}" = "--baseline" ]; then
    baseline=true
    shift
fi
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)

if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
    echo "Installing nginx"
    "${as_root[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq nginx >/dev/null
fi
nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"

bench="${APNS_BENCH_BIN:-}"
if [ -z "$bench" ]; then
    swift build -c release --product APNsBench
    bench="$(swift build -c release --show-bin-path)/APNsBench"
fi

work="$(mktemp -d)"
cleanup() {
    if [ -s "$work/nginx.pid" ]; then
        kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
        sleep 0.5
    fi
    rm -rf "$work"
}
trap cleanup EXIT

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" \
    -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null

cat >"$work/nginx.conf" <<CONF
worker_processes auto;
pid $work/nginx.pid;
error_log $work/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $work/body;
    proxy_temp_path $work/proxy;
    fastcgi_temp_path $work/fastcgi;
    uwsgi_temp_path $work/uwsgi;
    scgi_temp_path $work/scgi;
    server {
        listen 127.0.0.1:$port ssl http2;
        ssl_certificate $work/cert.pem;
        ssl_certificate_key $work/key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
        # nginx's default (1000 requests per connection, then GOAWAY) would
        # measure reconnects; APNs keeps connections for hours.
        keepalive_requests 1000000000;
        keepalive_timeout 600s;
        http2_max_concurrent_streams 1000;
        client_body_buffer_size 16k;
        location /3/device/ {
            add_header apns-id \$http_apns_id always;
            return 200;
        }
    }
}
CONF

"$nginx_bin" -p "$work" -c "$work/nginx.conf"
echo "nginx $("$nginx_bin" -v 2>&1 | sed 's/.*\///') listening on https://127.0.0.1:$port"
if $baseline; then
    cc -O2 -o "$work/curl-baseline" Benchmarks/CurlBaseline/curl-baseline.c $(pkg-config --cflags --libs libcurl)
    "$work/curl-baseline" "https://127.0.0.1:$port" "$work/cert.pem" 50000 100
fi
"$bench" --url "https://127.0.0.1:$port" --ca-file "$work/cert.pem" "$@"
