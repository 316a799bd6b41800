# Sourced by the APNs benchmarks: an nginx that speaks HTTP/2 over TLS on
# 127.0.0.1:$port and answers each push 200 with its apns-id, as APNs does.
#
#   start_nginx_sink WORK_DIR PORT proxy|return
#
# `proxy` reads each request's body before answering, as APNs reads a push: the
# HTTP/2 server passes every push (body and all) to a local upstream on PORT+1
# that answers. `return` answers from the HTTP/2 server at once, before the body
# has arrived, which makes the client reset or abandon the rest of each stream.
# Installs nginx if missing (root or sudo) and makes a throwaway self-signed
# certificate, WORK_DIR/cert.pem, for the client's CA file. stop_nginx_sink WORK_DIR
# stops it.

start_nginx_sink() {
    local work="$1" port="$2" sink="$3" upstream_port=$(($2 + 1))
    local as_root=()
    [ "$(id -u)" -eq 0 ] || as_root=(sudo)
    if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
        echo "Installing nginx"
        "${as_root[@]}" apt-get update -qq
        DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq nginx >/dev/null
    fi
    local nginx_bin
    nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"

    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
        -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" \
        -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null

    local answer
    if [ "$sink" = proxy ]; then
        # The whole body is read before the upstream is asked (request
        # buffering), as APNs reads a push before it answers.
        answer='proxy_pass http://sink; proxy_http_version 1.1; proxy_set_header Connection "";'
    else
        answer='add_header apns-id $http_apns_id always; return 200;'
    fi
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
        location /3/device/ { $answer }
    }
    upstream sink {
        server 127.0.0.1:$upstream_port;
        keepalive 64;
        keepalive_requests 1000000000;
    }
    server {
        listen 127.0.0.1:$upstream_port;
        keepalive_requests 1000000000;
        location / {
            add_header apns-id \$http_apns_id always;
            return 200;
        }
    }
}
CONF
    "$nginx_bin" -p "$work" -c "$work/nginx.conf"
    echo "nginx $("$nginx_bin" -v 2>&1 | sed 's/.*\///') listening on https://127.0.0.1:$port (sink: $sink)"
}

stop_nginx_sink() {
    local work="$1"
    if [ -s "$work/nginx.pid" ]; then
        kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
        sleep 0.5
    fi
}
