#!/usr/bin/env bash
# ServerLoadBench on both stores in one session, so their figures compare: first
# a SQLite file, then a PostgreSQL cluster of its own (initdb + pg_ctl as the
# postgres user into a temporary folder, on a free port; never the system's
# cluster), with PostgreSQL's stock durability (fsync on, synchronous commits).
#
#   bash Benchmarks/server-load.sh [adventures=1500] [seconds=60] [tick interval=1]
set -euo pipefail
cd "$(dirname "$0")/.."
adventures=${1:-1500}
seconds=${2:-60}
interval=${3:-1}

swift build -c release --product ServerLoadBench >/dev/null
bench=.build/release/ServerLoadBench

pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[[ -x "$pgbin/initdb" ]] || { echo "server-load.sh: PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 2; }
as_postgres() { if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }

folder=$(mktemp -d /tmp/rangers-bench-pg.XXXXXX)
password=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
echo "$password" > "$folder/password"
[[ $(id -u) == 0 ]] && chown -R postgres:postgres "$folder"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
stop() { as_postgres "$pgbin/pg_ctl" -D "$folder/data" -m fast stop >/dev/null 2>&1 || true; rm -rf "$folder"; }
trap stop EXIT
as_postgres "$pgbin/initdb" -D "$folder/data" -U postgres --auth=scram-sha-256 --pwfile="$folder/password" \
    --encoding=UTF8 >/dev/null
as_postgres "$pgbin/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w \
    -o "-p $port -k $folder -c listen_addresses=127.0.0.1 -c shared_buffers=512MB -c max_connections=100" start >/dev/null
PGPASSWORD=$password as_postgres "$pgbin/psql" -h 127.0.0.1 -p "$port" -U postgres -q -c "CREATE DATABASE rangers_bench" postgres

echo "== SQLite"
"$bench" --adventures "$adventures" --seconds "$seconds" --tick-interval "$interval"
echo
echo "== PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}')"
"$bench" --adventures "$adventures" --seconds "$seconds" --tick-interval "$interval" \
    --database "postgres://postgres:$password@127.0.0.1:$port/rangers_bench?sslmode=disable"
