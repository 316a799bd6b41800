#!/usr/bin/env bash
# ServerLoadBench as 1, 2 and 3 node processes on one PostgreSQL, one run each
# in one session: each process makes its part of the adventures, and then every
# node plays whichever it holds a lease on (the adventures are shared, not
# split). PostgreSQL is a cluster of this script's own (initdb + pg_ctl as the
# postgres user into a temporary folder, on a free port), with the recommended
# settings of deploy/postgresql.conf and pg_stat_statements loaded so that
# statements per second are counted.
#
#   bash Benchmarks/cluster-load.sh [adventures=1200] [seconds=60]
set -euo pipefail
cd "$(dirname "$0")/.."
adventures=${1:-1200}
seconds=${2:-60}

swift build -c release --product ServerLoadBench >/dev/null 2>&1
bench=.build/release/ServerLoadBench
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[[ -x "$pgbin/initdb" ]] || { echo "cluster-load.sh: PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 2; }
as_postgres() { if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }

folder=$(mktemp -d /tmp/rangers-cluster-bench.XXXXXX)
password=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
echo "$password" > "$folder/password"
[[ $(id -u) == 0 ]] && chown -R postgres:postgres "$folder"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
stop() { as_postgres "$pgbin/pg_ctl" -D "$folder/data" -m fast stop >/dev/null 2>&1 || true; rm -rf "$folder"; }
trap stop EXIT
as_postgres "$pgbin/initdb" -D "$folder/data" -U postgres --auth=scram-sha-256 --pwfile="$folder/password" >/dev/null
# The recommended production settings (deploy/postgresql.conf), copied beside the
# cluster: the postgres user may not read this checkout.
cp deploy/postgresql.conf "$folder/data/rangers.conf"
[[ $(id -u) == 0 ]] && chown postgres:postgres "$folder/data/rangers.conf"
echo "include 'rangers.conf'" >> "$folder/data/postgresql.conf"
as_postgres "$pgbin/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w -o "-p $port -k $folder \
    -c listen_addresses=127.0.0.1 -c shared_preload_libraries=pg_stat_statements" \
    start >/dev/null

for nodes in 1 2 3; do
    database="rangers_$nodes"
    PGPASSWORD=$password as_postgres "$pgbin/psql" -h 127.0.0.1 -p "$port" -U postgres -q -c "CREATE DATABASE $database" postgres
    url="postgres://postgres:$password@127.0.0.1:$port/$database?sslmode=disable"
    PGPASSWORD=$password as_postgres "$pgbin/psql" -h 127.0.0.1 -p "$port" -U postgres -q \
        -c "CREATE EXTENSION pg_stat_statements" "$database"
    echo "== $nodes node(s), $adventures adventures in all"
    for n in $(seq "$nodes"); do
        "$bench" --adventures $((adventures / nodes)) --seconds "$seconds" --database "$url" > "$folder/node-$n.txt" 2>&1 &
    done
    wait
    for n in $(seq "$nodes"); do echo "-- node $n"; grep -v "^setting up\|^set up" "$folder/node-$n.txt"; done
done
